#!/usr/bin/env bash
# Builds kube-apiserver and etcd for the kube test tier from the Go module
# proxy (see test/kube/README.md), once per version pair, into a cache outside
# the repo. Progress goes to stderr; the last line of stdout is the bin dir.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
apiserver_mod="$here/build/apiserver"
etcd_mod="$here/build/etcd"

# The versions live in the wrappers' go.mod files only, so they cannot drift.
req_version() { awk -v m="$2" '$1 == "require" && $2 == m { print $3 }' "$1/go.mod"; }
k8s_version="$(req_version "$apiserver_mod" k8s.io/kubernetes)"
etcd_version="$(req_version "$etcd_mod" go.etcd.io/etcd/server/v3)"
[[ -n "$k8s_version" && -n "$etcd_version" ]] || { echo "build.sh: cannot read versions from go.mod" >&2; exit 1; }

bin_dir="${HERALD_KUBE_CACHE:-$HOME/.cache/herald/kube}/${k8s_version}-etcd${etcd_version#v}/bin"

if [[ -x "$bin_dir/kube-apiserver" && -x "$bin_dir/etcd" ]]; then
  echo "$bin_dir"
  exit 0
fi

mkdir -p "$bin_dir"
# Two test runs starting at once must not both spend 10+ minutes building.
exec 9>"$bin_dir/.build.lock"
flock 9

source "$here/go-build.sh"

go_build "$etcd_mod" go.etcd.io/etcd/server/v3 etcd

k8s_ldflags="$(k8s_version_ldflags "$k8s_version")"
go_build "$apiserver_mod" k8s.io/kubernetes/cmd/kube-apiserver kube-apiserver "$k8s_ldflags"

echo "$bin_dir"
