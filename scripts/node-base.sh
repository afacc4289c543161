#!/usr/bin/env bash
# A Node 20 base image for the Dockerfile (NODE_IMAGE) on a machine that cannot pull one: a
# Debian bookworm minbase root (debootstrap, from this machine's apt mirror) with openssl and
# ca-certificates, this machine's own `node` binary and npm (Debian's nodejs is 18), and the
# unprivileged user `node` (uid 1000) the Dockerfile runs as. Committed to buildah's storage
# once per node version and script; prints the image name (the last line of stdout).
set -euo pipefail

command -v buildah >/dev/null && command -v debootstrap >/dev/null \
  || { echo "node-base.sh: needs buildah and debootstrap (bash scripts/ensure-node-tier.sh)" >&2; exit 2; }
[[ "$(id -u)" == 0 ]] || { echo "node-base.sh: run as root (debootstrap and buildah mount)" >&2; exit 2; }
node_bin="$(command -v node)"
node_version="$("$node_bin" --version)"
[[ "$node_version" == v20.* ]] || { echo "node-base.sh: this machine's node is $node_version, not 20" >&2; exit 2; }
npm_dir="$(dirname "$(readlink -f "$(command -v npm)")")/.."
npm_dir="$(cd "$npm_dir" && pwd)"
mirror="$(awk '/^URIs:/ { print $2; exit } /^deb / { print $2; exit }' /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list 2>/dev/null || true)"
mirror="${mirror:-http://deb.debian.org/debian}"

hash="$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-8)"
image="localhost/herald-node-base:${node_version#v}-$hash"
if buildah inspect --type image "$image" >/dev/null 2>&1; then echo "$image"; exit 0; fi

cache="${HERALD_NODE_CACHE:-$HOME/.cache/herald/node}"
mkdir -p "$cache"
exec 9>"$cache/.base.lock"
flock 9
if buildah inspect --type image "$image" >/dev/null 2>&1; then echo "$image"; exit 0; fi

root="$(mktemp -d "${TMPDIR:-/tmp}/herald-base-XXXXXX")"
ctr=""
cleanup() { [[ -n "$ctr" ]] && buildah rm "$ctr" >/dev/null 2>&1; rm -rf "$root"; }
trap cleanup EXIT

echo "node-base.sh: debootstrap bookworm (minbase) from $mirror ..." >&2
start=$SECONDS
nice debootstrap --variant=minbase --include=openssl,ca-certificates bookworm "$root" "$mirror" >&2 \
  || { tail -20 "$root/debootstrap/debootstrap.log" >&2 2>/dev/null; exit 1; }
install -m 0755 "$node_bin" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/lib/node_modules"
cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
chroot "$root" /usr/sbin/groupadd --gid 1000 node
chroot "$root" /usr/sbin/useradd --uid 1000 --gid node --shell /bin/bash --create-home node
# What an image needs no more: apt's lists and caches, documentation, debootstrap's leftovers.
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
       "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* "$root/debootstrap"

ctr="$(buildah from scratch)"
mnt="$(buildah mount "$ctr")"
cp -a "$root/." "$mnt/"
buildah umount "$ctr" >/dev/null
buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env NODE_VERSION="${node_version#v}" --cmd node "$ctr"
buildah commit --quiet --rm "$ctr" "$image" >/dev/null
ctr=""
echo "node-base.sh: built $image in $((SECONDS - start))s" >&2
echo "$image"
