#!/usr/bin/env bash
# Brings up the node tier (test/node/README.md): a single-node Kubernetes on this machine, with
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler, containerd, kubelet, kube-proxy
# and CoreDNS, the images built here (Herald's from ./Dockerfile, every run), and PostgreSQL,
# Redis and NATS JetStream as private host processes behind selector-less Services in the
# namespace `deps`. Leftovers of an earlier run are removed first (down.sh). Writes the admin
# kubeconfig to $node_dir/admin.kubeconfig and the Herald image's name to $node_dir/image.
# Everything runs detached; down.sh stops it by pid. Progress on stderr.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$here/lib.sh"

[[ "$(id -u)" == 0 ]] || die "the node tier runs as root (containerd, kubelet, iptables)"
start_all=$SECONDS

bash "$root/scripts/ensure-node-tier.sh"
kube_bin="$(bash "$root/test/kube/build.sh" | tail -1)"
node_bin="$(bash "$here/build.sh" | tail -1)"
pause_bins=("$node_bin"/pause-*)
pause_bin="${pause_bins[0]}"
[[ -x "$pause_bin" ]] || die "no pause binary in $node_bin"
log "binaries ready ($((SECONDS - start_all))s)"

# One node per machine: a run whose owner (the test process, HERALD_NODE_OWNER) still lives keeps
# it; one whose owner died left leftovers, which down.sh removes.
owner="${HERALD_NODE_OWNER:-$PPID}"
if [[ -f "$run_dir/owner" ]] && kill -0 "$(cat "$run_dir/owner")" 2>/dev/null && [[ "$(cat "$run_dir/owner")" != "$owner" ]]; then
  die "another run (pid $(cat "$run_dir/owner")) is using the node tier on this machine; wait for it, or stop it with bash test/node/down.sh"
fi
bash "$here/down.sh" --quiet
# A failed start takes the node down again (its logs' tails are printed first), unless
# HERALD_NODE_KEEP=1 keeps it to look at (then: bash test/node/down.sh).
on_exit() {
  local code=$?
  ((code == 0)) && return
  if [[ "${HERALD_NODE_KEEP:-}" == 1 ]]; then log "failed; kept the node as it is (logs in $node_dir/logs)"
  else bash "$here/down.sh" --quiet; fi
}
trap on_exit EXIT
ip="$(node_ip)"
[[ -n "$ip" ]] || die "cannot find this machine's address (no default route?)"
mkdir -p "$node_dir" "$run_dir" "$pid_dir" "$node_dir/logs"
echo "$owner" > "$run_dir/owner"
logs="$node_dir/logs"

# The sysctls, as found: down.sh sets them back.
: > "$node_dir/sysctls.saved"
for s in "${sysctls[@]}"; do
  f="/proc/sys/${s//./\/}"
  [[ -r "$f" ]] && printf '%s %s\n' "$s" "$(cat "$f")" >> "$node_dir/sysctls.saved"
done
# Pods' traffic leaves through the bridge and is routed by the host.
sysctl -qw net.ipv4.ip_forward=1
[[ -e /proc/sys/net/bridge/bridge-nf-call-iptables ]] && sysctl -qw net.bridge.bridge-nf-call-iptables=1

# daemon <name> <command...>: detached (own session), output to logs/<name>.log, pid recorded.
daemon() {
  local name="$1"; shift
  setsid "$@" > "$logs/$name.log" 2>&1 < /dev/null &
  echo $! > "$pid_dir/$name"
}
# fail_with_log <name> <message>: the message and the daemon's last lines.
fail_with_log() { tail -25 "$logs/$1.log" >&2 || true; die "$2"; }

# --- PKI: one CA; certificates for the apiserver, the admin (also used by the scheduler,
# controller-manager and kube-proxy), the kubelet (client and serving); the SA key pair. ---------
pki="$node_dir/pki"
mkdir -p "$pki"
(
  cd "$pki"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -keyout ca.key -out ca.crt -subj "/CN=herald-node-ca" 2>/dev/null
  cert() { # cert <name> <subject> [<subjectAltName>]
    local ext="$1.ext"
    printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\n' > "$ext"
    [[ -n "${3:-}" ]] && printf 'subjectAltName=%s\n' "$3" >> "$ext"
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$1.key" \
      -subj "$2" -out "$1.csr" 2>/dev/null
    openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
      -extfile "$ext" -out "$1.crt" 2>/dev/null
    rm -f "$1.csr" "$ext"
  }
  cert apiserver "/CN=kube-apiserver" \
    "IP:$ip,IP:10.96.0.1,IP:127.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost"
  cert admin "/O=system:masters/CN=admin"
  cert kubelet "/O=system:nodes/CN=system:node:$node_name" "IP:$ip,DNS:$node_name"
  openssl genrsa -out sa.key 2048 2>/dev/null
  openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
)
server="https://$ip:$apiserver_port"
kubeconfig() { # kubeconfig <file> <cert name>
  cat > "$1" <<YAML
apiVersion: v1
kind: Config
clusters: [{name: herald-node, cluster: {server: "$server", certificate-authority: "$pki/ca.crt"}}]
users: [{name: u, user: {client-certificate: "$pki/$2.crt", client-key: "$pki/$2.key"}}]
contexts: [{name: herald-node, context: {cluster: herald-node, user: u}}]
current-context: herald-node
YAML
}
kubeconfig "$node_dir/admin.kubeconfig" admin
kubeconfig "$node_dir/kubelet.kubeconfig" kubelet
export KUBECONFIG="$node_dir/admin.kubeconfig"

# --- etcd and kube-apiserver ----------------------------------------------------------------------
daemon etcd "$kube_bin/etcd" --name herald-node --data-dir "$node_dir/etcd" \
  --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
  --listen-peer-urls "http://127.0.0.1:$etcd_peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer_port" \
  --initial-cluster "herald-node=http://127.0.0.1:$etcd_peer_port" \
  --unsafe-no-fsync --quota-backend-bytes 2147483648
daemon kube-apiserver "$kube_bin/kube-apiserver" \
  --bind-address "$ip" --advertise-address "$ip" --secure-port "$apiserver_port" \
  --etcd-servers "http://127.0.0.1:$etcd_port" \
  --service-cluster-ip-range "$service_cidr" \
  --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction \
  --client-ca-file "$pki/ca.crt" --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" \
  --kubelet-client-certificate "$pki/admin.crt" --kubelet-client-key "$pki/admin.key" \
  --kubelet-certificate-authority "$pki/ca.crt" --kubelet-preferred-address-types InternalIP \
  --service-account-issuer https://kubernetes.default.svc.cluster.local \
  --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
  --allow-privileged=true --profiling=false --shutdown-watch-termination-grace-period=2s \
  --endpoint-reconciler-type lease
wait_for 60 "kube-apiserver /readyz at $server" kubectl get --raw /readyz \
  || fail_with_log kube-apiserver "kube-apiserver did not become ready"
log "kube-apiserver ready at $server ($((SECONDS - start_all))s)"

daemon kube-controller-manager "$node_bin/kube-controller-manager" \
  --kubeconfig "$KUBECONFIG" --authentication-kubeconfig "$KUBECONFIG" --authorization-kubeconfig "$KUBECONFIG" \
  --bind-address 127.0.0.1 --secure-port 0 --leader-elect=false \
  --service-account-private-key-file "$pki/sa.key" --root-ca-file "$pki/ca.crt" \
  --cluster-signing-cert-file "$pki/ca.crt" --cluster-signing-key-file "$pki/ca.key" \
  --use-service-account-credentials --controllers '*,-cloud-node-lifecycle' \
  --allocate-node-cidrs=false --service-cluster-ip-range "$service_cidr" --profiling=false
daemon kube-scheduler "$node_bin/kube-scheduler" \
  --kubeconfig "$KUBECONFIG" --authentication-kubeconfig "$KUBECONFIG" --authorization-kubeconfig "$KUBECONFIG" \
  --bind-address 127.0.0.1 --secure-port 0 --leader-elect=false --profiling=false

# --- containerd (its own socket, root and state: never the machine's /run/containerd) ---------
mkdir -p "$node_dir/cni/conf"
cat > "$node_dir/containerd.toml" <<TOML
version = 2
root = "$node_dir/containerd"
state = "$run_dir/containerd"
[grpc]
  address = "$containerd_sock"
[ttrpc]
  address = "$containerd_sock.ttrpc"
[debug]
  address = ""
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "registry.k8s.io/pause:3.10"
  # Root in this kind of VM lacks CAP_SYS_RESOURCE: without this every sandbox fails with
  # "can't get final child's PID from pipe: EOF" (test/node/README.md).
  restrict_oom_score_adj = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        Root = "$run_dir/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$node_dir/cni/conf"
TOML
cat > "$node_dir/cni/conf/10-herald.conflist" <<JSON
{
  "cniVersion": "0.4.0",
  "name": "herald-node",
  "plugins": [
    { "type": "bridge", "bridge": "$bridge", "isGateway": true, "ipMasq": true, "hairpinMode": true,
      "ipam": { "type": "host-local", "ranges": [[{ "subnet": "$pod_cidr" }]], "routes": [{ "dst": "0.0.0.0/0" }],
                "dataDir": "$node_dir/cni/ipam" } },
    { "type": "portmap", "capabilities": { "portMappings": true } }
  ]
}
JSON
# The shims keep their sockets under /run/containerd/s whatever the state dir: down.sh removes
# /run/containerd only if it was not there before.
[[ -e /run/containerd ]] || touch "$node_dir/made-run-containerd"
# CNI's result cache (/var/lib/cni) likewise.
[[ -e /var/lib/cni ]] || touch "$node_dir/made-var-lib-cni"
[[ -e /run/netns ]] || touch "$node_dir/made-run-netns"
# kubelet links every container's log into /var/log/containers, wherever podLogsDir is.
[[ -e /var/log/containers ]] || touch "$node_dir/made-var-log-containers"
daemon containerd containerd --config "$node_dir/containerd.toml"
ctr_() { ctr --address "$containerd_sock" --namespace k8s.io "$@"; }
wait_for 30 "containerd at $containerd_sock" ctr_ version || fail_with_log containerd "containerd did not start"

# --- images: pause and CoreDNS (single binaries on scratch) and Herald's (./Dockerfile) ---------
images_dir="$node_dir/images"
mkdir -p "$images_dir"
# to_containerd <buildah image> <name in containerd>
to_containerd() {
  local out="$images_dir/$(echo "$2" | tr '/:' '__').tar"
  buildah push --quiet "$1" "docker-archive:$out:$2" >/dev/null
  ctr_ images import "$out" >/dev/null
  rm -f "$out"
}
# scratch_image <binary> <image> [args...]: the binary alone as /<name>, its entry point.
scratch_image() {
  local bin="$1" image="$2"; shift 2
  local name; name="$(basename "$bin")"
  if ! buildah inspect --type image "$image" >/dev/null 2>&1; then
    local c; c="$(buildah from scratch)"
    buildah copy --quiet "$c" "$bin" "/$name" >/dev/null
    local entry; entry="$(printf '"/%s"' "$name"; for a in "$@"; do printf ',"%s"' "$a"; done)"
    buildah config --entrypoint "[$entry]" --user 65532:65532 "$c"
    buildah commit --quiet --rm "$c" "$image" >/dev/null
  fi
}
# awk reads to the end: an early exit would kill coredns with SIGPIPE, and pipefail this script.
coredns_version="$("$node_bin/coredns" -version | awk -F- '/CoreDNS/ && !v { v = $2 } END { print v }')"
[[ -n "$coredns_version" ]] || die "cannot read CoreDNS's version from $node_bin/coredns -version"
scratch_image "$pause_bin" "localhost/herald-node-pause:$(basename "$pause_bin")"
scratch_image "$node_bin/coredns" "localhost/coredns:$coredns_version" -conf /etc/coredns/Corefile
to_containerd "localhost/herald-node-pause:$(basename "$pause_bin")" registry.k8s.io/pause:3.10
to_containerd "localhost/coredns:$coredns_version" "localhost/coredns:$coredns_version"

herald_image="localhost/herald:node-$(date -u +%Y%m%d%H%M%S)"
log "building $herald_image from ./Dockerfile (buildah) ..."
bstart=$SECONDS
bash "$root/scripts/image.sh" "$herald_image" > "$logs/image-build.log" 2>&1 \
  || { tail -40 "$logs/image-build.log" >&2; die "the image did not build from ./Dockerfile (log: $logs/image-build.log)"; }
to_containerd "$herald_image" "$herald_image"
echo "$herald_image" > "$node_dir/image"
# The same image under a second name: node.test.ts upgrades the release to it (a new pod
# template, so every Deployment rolls) during a send.
buildah tag "$herald_image" "$herald_image-next"
to_containerd "$herald_image-next" "$herald_image-next"
echo "$herald_image-next" > "$node_dir/image-next"
# Earlier runs' names go; their layers stay as buildah's build cache.
buildah images --format '{{.Name}}:{{.Tag}}' | grep -E '^localhost/herald:node-' \
  | grep -vxF -e "$herald_image" -e "$herald_image-next" | xargs -r buildah rmi >/dev/null 2>&1 || true
log "image built and imported in $((SECONDS - bstart))s"

# --- kubelet and kube-proxy -------------------------------------------------------------------------
cat > "$node_dir/kubelet.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: "$ip"
port: $kubelet_port
healthzBindAddress: 127.0.0.1
healthzPort: $kubelet_healthz_port
readOnlyPort: 0
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: "$pki/ca.crt"}
authorization: {mode: AlwaysAllow}
tlsCertFile: "$pki/kubelet.crt"
tlsPrivateKeyFile: "$pki/kubelet.key"
cgroupDriver: cgroupfs
failSwapOn: false
containerRuntimeEndpoint: "unix://$containerd_sock"
clusterDNS: ["$dns_ip"]
clusterDomain: cluster.local
resolvConf: /etc/resolv.conf
podLogsDir: "$node_dir/pod-logs"
# Images here cannot be pulled back: never garbage-collect them, never evict for disk.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%, nodefs.inodesFree: 1%}
protectKernelDefaults: false
serializeImagePulls: false
maxPods: 60
YAML
daemon kubelet "$node_bin/kubelet" --config "$node_dir/kubelet.yaml" --kubeconfig "$node_dir/kubelet.kubeconfig" \
  --root-dir "$node_dir/kubelet" --cert-dir "$node_dir/kubelet/pki" --hostname-override "$node_name" \
  --node-ip "$ip"

cat > "$node_dir/kube-proxy.yaml" <<YAML
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: "$KUBECONFIG"}
hostnameOverride: "$node_name"
mode: iptables
clusterCIDR: "$pod_cidr"
# NodePorts on the node's address only: nothing on 127.0.0.1 (route_localnet stays off).
nodePortAddresses: ["$ip/32"]
metricsBindAddress: "127.0.0.1:10249"
healthzBindAddress: "127.0.0.1:10256"
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
YAML
daemon kube-proxy "$node_bin/kube-proxy" --config "$node_dir/kube-proxy.yaml"

node_ready() { [[ "$(kubectl get node "$node_name" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" == True ]]; }
wait_for 90 "node $node_name Ready" node_ready || fail_with_log kubelet "the node did not become Ready"
log "node $node_name Ready ($((SECONDS - start_all))s)"

# --- CoreDNS ---------------------------------------------------------------------------------------
kubectl apply -f - > /dev/null <<YAML
apiVersion: v1
kind: ServiceAccount
metadata: {name: coredns, namespace: kube-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "system:coredns"}
rules:
  - {apiGroups: [""], resources: [endpoints, services, pods, namespaces], verbs: [list, watch]}
  - {apiGroups: [discovery.k8s.io], resources: [endpointslices], verbs: [list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "system:coredns"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:coredns"}
subjects: [{kind: ServiceAccount, name: coredns, namespace: kube-system}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: coredns, namespace: kube-system}
data:
  Corefile: |
    .:53 {
        errors
        health :8081
        ready :8181
        kubernetes cluster.local in-addr.arpa ip6.arpa {
            pods insecure
            fallthrough in-addr.arpa ip6.arpa
        }
        forward . /etc/resolv.conf
        cache 30
        loop
    }
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: coredns, namespace: kube-system, labels: {k8s-app: kube-dns}}
spec:
  replicas: 1
  selector: {matchLabels: {k8s-app: kube-dns}}
  template:
    metadata: {labels: {k8s-app: kube-dns}}
    spec:
      serviceAccountName: coredns
      dnsPolicy: Default
      securityContext: {sysctls: [{name: net.ipv4.ip_unprivileged_port_start, value: "0"}]}
      containers:
        - name: coredns
          image: "localhost/coredns:$coredns_version"
          imagePullPolicy: Never
          volumeMounts: [{name: config, mountPath: /etc/coredns, readOnly: true}]
          ports:
            - {name: dns, containerPort: 53, protocol: UDP}
            - {name: dns-tcp, containerPort: 53, protocol: TCP}
          readinessProbe: {httpGet: {path: /ready, port: 8181}, periodSeconds: 2}
          livenessProbe: {httpGet: {path: /health, port: 8081}, periodSeconds: 10}
          resources: {requests: {cpu: 50m, memory: 32Mi}, limits: {memory: 128Mi}}
          securityContext: {readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
      volumes: [{name: config, configMap: {name: coredns}}]
---
apiVersion: v1
kind: Service
metadata: {name: kube-dns, namespace: kube-system, labels: {k8s-app: kube-dns}}
spec:
  clusterIP: "$dns_ip"
  selector: {k8s-app: kube-dns}
  ports:
    - {name: dns, port: 53, protocol: UDP, targetPort: 53}
    - {name: dns-tcp, port: 53, protocol: TCP, targetPort: 53}
YAML

# --- PostgreSQL (PostgreSQL's default 100 connections: the production values fit them through
# PgBouncer), PgBouncer in transaction mode as docs/install.md configures it, Redis, NATS
# JetStream: private host processes on the node's address -----------------------------------------
deps="$node_dir/deps"
mkdir -p "$deps/nats"
pg_bin="/usr/lib/postgresql/$(ls /usr/lib/postgresql | sort -n | tail -1)/bin"
install -d -o postgres -g postgres "$deps/pg"
runuser -u postgres -- "$pg_bin/initdb" -D "$deps/pg/data" -U postgres --auth=trust -E UTF8 --no-sync > "$logs/initdb.log" 2>&1 \
  || fail_with_log initdb "initdb failed"
printf "host all all %s trust\nhost all all %s/32 trust\n" "$pod_cidr" "$ip" >> "$deps/pg/data/pg_hba.conf"
printf '%s\n' "$pg_bin" > "$node_dir/pg_bin"
bash "$here/postgres.sh" start
runuser -u postgres -- "$pg_bin/psql" -h "$deps/pg" -p "$pg_port" -U postgres -qc 'CREATE DATABASE herald' >/dev/null
# docs/install.md "PgBouncer": the pools' timeouts live on the role (here the database) behind it.
runuser -u postgres -- "$pg_bin/psql" -h "$deps/pg" -p "$pg_port" -U postgres -qc \
  "ALTER DATABASE herald SET statement_timeout = '30s'; ALTER DATABASE herald SET idle_in_transaction_session_timeout = '60s'" >/dev/null
install -d -o postgres -g postgres "$deps/pgbouncer"
cat > "$deps/pgbouncer/pgbouncer.ini" <<INI
[databases]
* = host=$ip port=$pg_port user=postgres
[pgbouncer]
listen_addr = $ip
listen_port = $pgbouncer_port
unix_socket_dir =
auth_type = any
pool_mode = transaction
default_pool_size = 20
reserve_pool_size = 5
max_client_conn = 1000
query_wait_timeout = 10
logfile = $deps/pgbouncer/pgbouncer.log
INI
chown postgres:postgres "$deps/pgbouncer/pgbouncer.ini"
# As postgres (PgBouncer refuses root) by exec, so the recorded pid is PgBouncer's own.
daemon pgbouncer setpriv --reuid=postgres --regid=postgres --init-groups /usr/sbin/pgbouncer "$deps/pgbouncer/pgbouncer.ini"
wait_for 20 "PgBouncer on $ip:$pgbouncer_port" bash -c "exec 3<>/dev/tcp/$ip/$pgbouncer_port" || fail_with_log pgbouncer "PgBouncer did not start"
daemon redis redis-server --port "$redis_port" --bind "$ip" --protected-mode no --save '' --appendonly no
daemon nats nats-server -a "$ip" -p "$nats_port" -js -sd "$deps/nats"
wait_for 20 "Redis on $ip:$redis_port" redis-cli -h "$ip" -p "$redis_port" ping || fail_with_log redis "Redis did not start"
wait_for 20 "NATS on $ip:$nats_port" bash -c "exec 3<>/dev/tcp/$ip/$nats_port" || fail_with_log nats "NATS did not start"

# Selector-less Services with EndpointSlices: in the cluster they are ordinary Services (what a
# platform team's managed servers look like to Herald).
{
  echo "apiVersion: v1"; echo "kind: Namespace"; echo "metadata: {name: deps}"
  for pair in postgresql:5432:$pg_port pgbouncer:6432:$pgbouncer_port redis:6379:$redis_port nats:4222:$nats_port; do
    IFS=: read -r name port target <<< "$pair"
    cat <<YAML
---
apiVersion: v1
kind: Service
metadata: {name: $name, namespace: deps}
spec:
  ports: [{name: $name, port: $port, targetPort: $target, protocol: TCP}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: $name-host, namespace: deps, labels: {kubernetes.io/service-name: $name}}
addressType: IPv4
ports: [{name: $name, port: $target, protocol: TCP}]
endpoints: [{addresses: ["$ip"], conditions: {ready: true}}]
YAML
  done
} | kubectl apply -f - > /dev/null

coredns_ready() { [[ "$(kubectl get deploy coredns -n kube-system -o jsonpath='{.status.readyReplicas}')" == 1 ]]; }
wait_for 90 "CoreDNS Ready" coredns_ready || { kubectl get pods -A -o wide >&2; kubectl describe pods -n kube-system >&2; die "CoreDNS did not become Ready"; }
log "node tier up in $((SECONDS - start_all))s: KUBECONFIG=$KUBECONFIG, image $herald_image"
