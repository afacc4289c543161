#!/usr/bin/env bash
# Builds the node tier's Go binaries from the Go module proxy (see
# test/node/README.md), once per version set, into a cache outside the repo:
# kubelet, kube-proxy, kube-scheduler, kube-controller-manager, CoreDNS,
# crictl and pause. The kube-apiserver and etcd come from test/kube/build.sh.
# Progress goes to stderr; the last line of stdout is the bin dir.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
kube_mod="$here/build/kube"
coredns_mod="$here/build/coredns"
crictl_mod="$here/build/crictl"
pause_mod="$here/build/pause"

# The versions live in the wrappers' go.mod files only, so they cannot drift.
req_version() { awk -v m="$2" '$1 == "require" && $2 == m { print $3 }' "$1/go.mod"; }
k8s_version="$(req_version "$kube_mod" k8s.io/kubernetes)"
coredns_version="$(req_version "$coredns_mod" github.com/coredns/coredns)"
crictl_version="$(req_version "$crictl_mod" sigs.k8s.io/cri-tools)"
[[ -n "$k8s_version" && -n "$coredns_version" && -n "$crictl_version" ]] \
  || { echo "test/node/build.sh: cannot read versions from go.mod" >&2; exit 1; }
# pause has no dependency: its source hash names it, so an edit rebuilds it.
pause_hash="$(cat "$pause_mod/go.mod" "$pause_mod/main.go" | sha256sum | cut -c1-12)"

bin_dir="${HERALD_NODE_CACHE:-$HOME/.cache/herald/node}/${k8s_version}-coredns${coredns_version#v}-crictl${crictl_version#v}/bin"
names=(kubelet kube-proxy kube-scheduler kube-controller-manager coredns crictl "pause-$pause_hash")

all_built() { local n; for n in "${names[@]}"; do [[ -x "$bin_dir/$n" ]] || return 1; done; }
if all_built; then echo "$bin_dir"; exit 0; fi

mkdir -p "$bin_dir"
# Two test runs starting at once must not both spend minutes building.
exec 9>"$bin_dir/.build.lock"
flock 9

source "$here/../kube/go-build.sh"

go_build "$pause_mod" . "pause-$pause_hash"
go_build "$crictl_mod" sigs.k8s.io/cri-tools/cmd/crictl crictl \
  "-X sigs.k8s.io/cri-tools/pkg/version.Version=$crictl_version"

k8s_ldflags="$(k8s_version_ldflags "$k8s_version")"
for cmd in kubelet kube-proxy kube-scheduler kube-controller-manager; do
  go_build "$kube_mod" "k8s.io/kubernetes/cmd/$cmd" "$cmd" "$k8s_ldflags"
done
go_build "$coredns_mod" github.com/coredns/coredns coredns

echo "$bin_dir"
