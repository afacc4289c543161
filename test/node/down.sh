#!/usr/bin/env bash
# Stops the node tier and removes everything it made (test/node/README.md): pods and their
# sandboxes, the daemons (by the pids up.sh recorded, then container shims by their socket
# paths), mounts, the bridge, the iptables chains of kube-proxy, kubelet and CNI, cgroups, the
# state directories; sets the sysctls back as up.sh found them. Safe to run when nothing is up
# (up.sh runs it first). --quiet: no summary line.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"
quiet=""; [[ "${1:-}" == --quiet ]] && quiet=1
[[ "$(id -u)" == 0 ]] || die "the node tier runs as root"
[[ -d "$run_dir" || -d "$node_dir" ]] || exit 0

pid_of() { [[ -f "$pid_dir/$1" ]] && cat "$pid_dir/$1"; }
# running <pid>: alive and not a zombie (the daemons were re-parented when up.sh exited; whoever
# reaps them may take a moment, and a zombie has already stopped).
running() { local st; st="$(awk '/^State:/ { print $2 }' "/proc/$1/status" 2>/dev/null)"; [[ -n "$st" && "$st" != Z ]]; }
alive() { local p; p="$(pid_of "$1")" && [[ -n "$p" ]] && running "$p"; }
# stop <grace seconds> <name>...: SIGTERM to all of them at once, SIGKILL to any left after the grace.
stop() {
  local grace="$1" name p pids=(); shift
  for name in "$@"; do
    p="$(pid_of "$name")" || continue
    running "$p" && { kill -TERM "$p" 2>/dev/null; pids+=("$p"); }
    rm -f "$pid_dir/$name"
  done
  local until=$((SECONDS + grace)) left
  while :; do
    left=()
    for p in "${pids[@]}"; do running "$p" && left+=("$p"); done
    ((${#left[@]} == 0 || SECONDS >= until)) && break
    sleep 0.1
  done
  for p in "${left[@]}"; do kill -KILL "$p" 2>/dev/null; done
}

# Pods first, while containerd still runs: CNI DEL frees their addresses and veths.
stop 10 kubelet
crictl_bin="$(ls -d "${HERALD_NODE_CACHE:-$HOME/.cache/herald/node}"/*/bin/crictl 2>/dev/null | tail -1)"
if alive containerd && [[ -n "$crictl_bin" ]]; then
  timeout 60 "$crictl_bin" --runtime-endpoint "unix://$containerd_sock" --timeout 20s rmp -af >/dev/null 2>&1 || true
fi
stop 10 kube-proxy kube-scheduler kube-controller-manager redis nats pgbouncer
stop 10 kube-apiserver
stop 10 etcd
if [[ -f "$node_dir/pg_bin" && -d "$node_dir/deps/pg/data" ]]; then
  runuser -u postgres -- "$(cat "$node_dir/pg_bin")/pg_ctl" -D "$node_dir/deps/pg/data" -m immediate -w -s stop >/dev/null 2>&1 || true
fi
stop 10 containerd
# Pods outlive kubelet and shims outlive containerd: the containers' processes are the ones in
# kubelet's pod cgroups; the shims are the ones started with our containerd's socket.
for procs in /sys/fs/cgroup/pids/kubepods/ /sys/fs/cgroup/memory/kubepods/; do
  [[ -d "$procs" ]] && find "$procs" -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -KILL 2>/dev/null
done
for cmdline in /proc/[0-9]*/cmdline; do
  if tr '\0' ' ' 2>/dev/null < "$cmdline" | grep -q -- "containerd-shim-runc-v2 .*-address $containerd_sock "; then
    p="${cmdline#/proc/}"; kill -KILL "${p%/cmdline}" 2>/dev/null
  fi
done

# kube-proxy's own cleanup of its chains, then whatever chain of ours is left (kubelet's
# KUBE-FIREWALL and canaries, CNI's masquerade and portmap chains).
node_bin_dir="$(dirname "$crictl_bin" 2>/dev/null)"
[[ -x "$node_bin_dir/kube-proxy" ]] && "$node_bin_dir/kube-proxy" --cleanup >/dev/null 2>&1
for ipt in iptables ip6tables; do
  command -v "$ipt" >/dev/null || continue
  for table in filter nat mangle; do
    rules="$("$ipt" -t "$table" -S 2>/dev/null)" || continue
    # Jumps into our chains first, then the chains themselves.
    grep -E -- '-j (KUBE-|CNI-)' <<< "$rules" | grep -E '^-A ' | sed 's/^-A /-D /' | while read -r rule; do
      eval "$ipt -t $table $rule" 2>/dev/null
    done
    grep -E '^-N (KUBE-|CNI-)' <<< "$rules" | awk '{print $2}' | while read -r chain; do
      "$ipt" -t "$table" -F "$chain" 2>/dev/null
    done
    grep -E '^-N (KUBE-|CNI-)' <<< "$rules" | awk '{print $2}' | while read -r chain; do
      "$ipt" -t "$table" -X "$chain" 2>/dev/null
    done
  done
done

# Mounts under our directories (deepest first), network namespaces of our pods, the bridge.
for dir in "$node_dir" "$run_dir" /run/netns; do
  awk -v d="$dir/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo | sort -r | while read -r m; do
    umount -l "$m" 2>/dev/null
  done
done
for ns in /run/netns/cni-*; do [[ -e "$ns" ]] && { umount -l "$ns" 2>/dev/null; rm -f "$ns"; }; done
ip link show "$bridge" >/dev/null 2>&1 && ip link delete "$bridge"
# kubelet's pod cgroups (cgroupfs driver), leaves first.
for hier in /sys/fs/cgroup/*/; do
  [[ -d "$hier/kubepods" ]] && find "$hier/kubepods" -depth -type d -exec rmdir {} \; 2>/dev/null
done

# The sysctls as up.sh found them.
if [[ -f "$node_dir/sysctls.saved" ]]; then
  while read -r name value; do sysctl -qw "$name=$value" 2>/dev/null; done < "$node_dir/sysctls.saved"
fi
[[ -f "$node_dir/made-run-containerd" ]] && rm -rf /run/containerd
[[ -f "$node_dir/made-var-lib-cni" ]] && rm -rf /var/lib/cni
[[ -f "$node_dir/made-run-netns" ]] && rmdir /run/netns 2>/dev/null
find /var/log/containers -maxdepth 1 -type l -lname "$node_dir/*" -delete 2>/dev/null
[[ -f "$node_dir/made-var-log-containers" ]] && rmdir /var/log/containers 2>/dev/null
rm -rf "$run_dir" "$node_dir"
[[ -n "$quiet" ]] || log "node tier down: processes stopped, mounts, chains, $bridge, cgroups and state removed"
exit 0
