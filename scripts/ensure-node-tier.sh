#!/usr/bin/env bash
# The Debian packages of the node tier (test/node/README.md): containerd, runc and the CNI
# plugins run the pods; iptables and conntrack serve kube-proxy; buildah builds the images
# from the Dockerfile with no daemon; debootstrap makes the base root filesystems. Installed
# only when missing. containerd's package enables and starts its own service: the tier runs
# its own containerd (own socket and state), so that service is stopped and disabled again.
set -euo pipefail

need=()
for pair in containerd:containerd runc:runc /usr/lib/cni/bridge:containernetworking-plugins \
            iptables:iptables conntrack:conntrack buildah:buildah debootstrap:debootstrap; do
  what="${pair%%:*}" pkg="${pair##*:}"
  if [[ "$what" == /* ]]; then [[ -e "$what" ]] || need+=("$pkg")
  else command -v "$what" >/dev/null 2>&1 || need+=("$pkg"); fi
done
[[ ${#need[@]} -eq 0 ]] && exit 0

sudo=""
[[ "$(id -u)" == 0 ]] || sudo="sudo"
echo "ensure-node-tier: installing Debian packages: ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq -o DPkg::Lock::Timeout=600
$sudo apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 "${need[@]}" >&2
if [[ -d /run/systemd/system ]]; then
  $sudo systemctl disable --now containerd >/dev/null 2>&1 || true
elif command -v service >/dev/null 2>&1; then
  $sudo service containerd stop >/dev/null 2>&1 || true
  $sudo update-rc.d containerd disable >/dev/null 2>&1 || true
fi
