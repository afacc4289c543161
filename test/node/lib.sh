# Shared by test/node/up.sh and down.sh: where the node keeps its state, its fixed names and
# ports, and the small helpers both need. Sourced, never run.

# Everything the node makes lives under these two directories (removed by down.sh); caches
# (Go binaries, the base root filesystem, buildah's layers) live under ~/.cache/herald and
# /var/lib/containers, as the other tiers' caches do.
node_dir="${HERALD_NODE_DIR:-/var/lib/herald-node}"
run_dir="/run/herald-node"
pid_dir="$run_dir/pids"
node_name="herald-node"

# Ports below the kernel's ephemeral range (32768+), so they never meet a port another tier
# picked as "free" at runtime; none is a port the machine's own servers use.
etcd_port=12379
etcd_peer_port=12380
apiserver_port=16443
kubelet_port=10250
kubelet_healthz_port=10248
pg_port=25432
pgbouncer_port=26432
redis_port=26379
nats_port=24222

service_cidr="10.96.0.0/16"
dns_ip="10.96.0.10"
pod_cidr="10.244.0.0/24"
bridge="hrld0"
containerd_sock="$run_dir/containerd.sock"

# The sysctls this tier may change (kubelet, kube-proxy, the bridge): saved by up.sh, set back by
# down.sh.
sysctls=(net.ipv4.ip_forward net.ipv4.conf.all.route_localnet net.bridge.bridge-nf-call-iptables
         vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops
         kernel.keys.root_maxkeys kernel.keys.root_maxbytes net.netfilter.nf_conntrack_max
         net.netfilter.nf_conntrack_tcp_timeout_established net.netfilter.nf_conntrack_tcp_timeout_close_wait)

log() { printf '[node %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { printf 'test/node: %s\n' "$*" >&2; exit 1; }

# The node's address: the source address of the default route (pods reach the host, and the
# kubernetes Service reaches the apiserver, through it; never 127.0.0.1).
node_ip() { ip -4 route get 1.1.1.1 2>/dev/null | awk '!a { for (i = 1; i < NF; i++) if ($i == "src") a = $(i + 1) } END { print a }'; }

# wait_for <seconds> <what> <command...>: polls every half second; a clear message on timeout.
wait_for() {
  local secs="$1" what="$2"; shift 2
  local until=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < until)) || die "$what: not within ${secs}s"
    sleep 0.5
  done
}
