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

export PATH="/usr/local/go/bin:$PATH"
export GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0
# Never let a dependency's `toolchain` line trigger a toolchain download.
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"

# build <module dir> <package> <output name> [ldflags]: writes to a temp name
# and renames, so an interrupted build never leaves a binary that looks done.
build() {
  local mod="$1" pkg="$2" out="$3" ldflags="${4:-}"
  if [[ -x "$bin_dir/$out" ]]; then return; fi
  echo "build.sh: building $out ($pkg) into $bin_dir ..." >&2
  local start=$SECONDS
  (cd "$mod" && nice -n 10 go build -trimpath -ldflags "-s -w $ldflags" -o "$bin_dir/.$out.tmp" "$pkg") >&2
  mv "$bin_dir/.$out.tmp" "$bin_dir/$out"
  echo "build.sh: built $out in $((SECONDS - start))s" >&2
}

build "$etcd_mod" go.etcd.io/etcd/server/v3 etcd

# Without these the binary reports v0.0.0-master+... and kubectl warns about skew.
minor="${k8s_version#v1.}"; minor="${minor%%.*}"
k8s_ldflags=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  k8s_ldflags+=" -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
  k8s_ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done
build "$apiserver_mod" k8s.io/kubernetes/cmd/kube-apiserver kube-apiserver "$k8s_ldflags"

echo "$bin_dir"
