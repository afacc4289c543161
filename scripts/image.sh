#!/usr/bin/env bash
# `make image`: the image from ./Dockerfile with whichever builder this machine has: docker (its
# daemon answering), podman, or buildah (no daemon; what the node tier uses). Usage:
#   scripts/image.sh TAG        NODE_IMAGE=<base> to build on another Node 20 base
# With buildah or podman and no NODE_IMAGE, a machine that cannot pull the default base
# (node:20-bookworm-slim) builds a local one (scripts/node-base.sh). The machine's CA bundle and
# global npmrc, when present, are mounted for the RUN steps only (npm ci behind a TLS-inspecting
# proxy); nothing of them stays in the image.
set -euo pipefail
cd "$(dirname "$0")/.."
tag="${1:?usage: scripts/image.sh TAG}"
default_base="node:20-bookworm-slim"

if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
  docker build ${NODE_IMAGE:+--build-arg NODE_IMAGE="$NODE_IMAGE"} -t "$tag" .
  exit 0
fi
tool=""
for t in podman buildah; do command -v "$t" >/dev/null 2>&1 && { tool="$t"; break; }; done
if [[ -z "$tool" ]]; then
  echo "make image: needs docker (with its daemon running), podman or buildah; none is usable here" >&2
  exit 2
fi

base="${NODE_IMAGE:-}"
if [[ -z "$base" ]]; then
  if timeout 60 "$tool" pull --quiet "docker.io/library/$default_base" >/dev/null 2>&1; then
    base="$default_base"
  else
    echo "make image: cannot pull $default_base; building a local Node 20 base (scripts/node-base.sh)" >&2
    base="$(bash scripts/node-base.sh | tail -1)"
  fi
fi

mounts=()
[[ -f /etc/ssl/certs/ca-certificates.crt ]] && mounts+=(-v /etc/ssl/certs/ca-certificates.crt:/etc/ssl/certs/ca-certificates.crt:ro)
for rc in /usr/etc/npmrc /etc/npmrc /usr/local/etc/npmrc; do
  if [[ -f "$rc" ]]; then mounts+=(-v "$rc:/usr/local/etc/npmrc:ro"); break; fi
done
if [[ "$tool" == buildah ]]; then
  buildah bud --isolation chroot --network host --layers "${mounts[@]}" \
    --build-arg NODE_IMAGE="$base" -t "$tag" .
else
  podman build --network host --layers "${mounts[@]}" --build-arg NODE_IMAGE="$base" -t "$tag" .
fi
