#!/usr/bin/env bash
# Builds the helm CLI used by the chart tests from the Go module proxy, once per version,
# into a cache outside the repo. helm is not packaged by Debian; building it from the
# module proxy needs nothing but Go. Progress goes to stderr; the last line of stdout is
# the path of the binary.
#
#   HELM_VERSION        the helm.sh/helm/v3 version to build (default: the pin below)
#   HERALD_TOOLS_CACHE  cache dir (default: ~/.cache/herald/tools)
set -euo pipefail

# Newest helm 3 release on the proxy when pinned. helm.sh/helm/v3 has no replace
# directives, so `go install pkg@version` builds it with exactly the dependency versions
# of helm's own go.mod (checked against the checksum database), no wrapper module needed.
version="${HELM_VERSION:-v3.22.0}"
cache="${HERALD_TOOLS_CACHE:-$HOME/.cache/herald/tools}"
bin="$cache/helm-$version"

if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi

mkdir -p "$cache"
# Two test runs starting at once must not both build.
exec 9>"$cache/.helm-$version.lock"
flock 9
if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi

export PATH="/usr/local/go/bin:$PATH"
command -v go >/dev/null || { echo "tools/helm/build.sh: Go is needed to build helm (expected at /usr/local/go)" >&2; exit 1; }
# Never let helm's `go`/`toolchain` line download another toolchain; no workspace, no -mod flags.
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}" GOWORK=off GOFLAGS='' CGO_ENABLED=0

# The ldflags helm's own Makefile sets. Without them `helm version` has no commit and, worse,
# `helm template`/`lint` assume Kubernetes v1.20 (pkg/chartutil's default) instead of the
# version of the client-go helm is built with, and refuse charts that need a newer cluster.
info="$(go mod download -json "helm.sh/helm/v3@$version")"
gomod="$(sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p' <<<"$info")"
commit="$(sed -n 's/^[[:space:]]*"Hash": "\(.*\)",\{0,1\}$/\1/p' <<<"$info")"
client_go="$(awk '$1 == "k8s.io/client-go" { print $2 }' "$gomod")"   # v0.37.0 -> Kubernetes 1.37
k8s_minor="$(cut -d. -f2 <<<"$client_go")"
[[ -n "$k8s_minor" ]] || { echo "tools/helm/build.sh: cannot read k8s.io/client-go from $gomod" >&2; exit 1; }
ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$version"
ldflags+=" -X helm.sh/helm/v3/internal/version.gitCommit=$commit -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
for pkg in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
  ldflags+=" -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$k8s_minor"
done

# Install into a temp dir and rename: an interrupted build never leaves a binary that looks done.
tmp="$(mktemp -d "$cache/.helm-build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
echo "tools/helm/build.sh: building helm $version into $bin ..." >&2
start=$SECONDS
GOBIN="$tmp" nice -n 10 go install -trimpath -ldflags "$ldflags" "helm.sh/helm/v3/cmd/helm@$version" >&2
mv "$tmp/helm" "$bin"
echo "tools/helm/build.sh: built helm $version in $((SECONDS - start))s" >&2
echo "$bin"
