#!/usr/bin/env bash
# What the node tier could leave on the machine, printed in a stable order: node.test.ts runs it
# before up.sh and after down.sh and wants the two outputs equal (nothing left behind).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"

echo "# links"; ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | sort
echo "# iptables chains and rules of kube-proxy, kubelet, CNI"
for ipt in iptables-save ip6tables-save; do
  command -v "$ipt" >/dev/null && "$ipt" 2>/dev/null | grep -E '(KUBE-|CNI-)' | sort
done
echo "# mounts"; awk '{print $5}' /proc/self/mountinfo | grep -E "herald-node|kubelet|containerd|/run/netns" | sort
echo "# directories"; for d in "$node_dir" "$run_dir" /run/containerd /var/lib/cni /run/netns /var/log/pods /var/log/containers; do [[ -e "$d" ]] && echo "$d"; done
echo "# cgroups"; ls -d /sys/fs/cgroup/*/kubepods 2>/dev/null
echo "# sysctls"; for s in "${sysctls[@]}"; do f="/proc/sys/${s//./\/}"; [[ -r "$f" ]] && echo "$s = $(cat "$f")"; done
echo "# processes"
for c in /proc/[0-9]*/cmdline; do
  tr '\0' ' ' 2>/dev/null < "$c" | grep -E -- "$node_dir|$run_dir|\.cache/herald/node/" | grep -v -- leftovers.sh
done | sed 's/ *$//' | sort
exit 0
