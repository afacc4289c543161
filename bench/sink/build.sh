#!/usr/bin/env bash
# Builds bench/sink (the Go HTTP/2 APNs sink, golang.org/x/net/http2) into a cache outside the
# repo, once per version of its sources, the way tools/helm/build.sh builds helm: Go and the Go
# module proxy only. Progress goes to stderr; the last line of stdout is the binary's path.
#
#   HERALD_TOOLS_CACHE  cache dir (default: ~/.cache/herald/tools)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${HERALD_TOOLS_CACHE:-$HOME/.cache/herald/tools}"
version="$(cat "$here/main.go" "$here/go.mod" "$here/go.sum" | sha256sum | cut -c1-12)"
bin="$cache/apns-sink-$version"

if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi

mkdir -p "$cache"
# Two test runs starting at once must not both build.
exec 9>"$cache/.apns-sink.lock"
flock 9
if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi

export PATH="/usr/local/go/bin:$PATH"
command -v go >/dev/null || { echo "bench/sink/build.sh: Go is needed to build the sink (expected at /usr/local/go)" >&2; exit 1; }
# Never download another toolchain; resolve modules from go.mod/go.sum through the proxy.
export GOTOOLCHAIN=local GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0

tmp="$(mktemp -d "$cache/.apns-sink-build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
echo "bench/sink/build.sh: building the APNs sink into $bin ..." >&2
start=$SECONDS
(cd "$here" && nice -n 10 go build -trimpath -ldflags '-s -w' -o "$tmp/apns-sink" .) >&2
mv "$tmp/apns-sink" "$bin"
echo "bench/sink/build.sh: built in $((SECONDS - start))s" >&2
echo "$bin"
