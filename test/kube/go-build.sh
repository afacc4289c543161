# Sourced by test/kube/build.sh and test/node/build.sh: the Go environment and the one build step
# both use. Needs $bin_dir set; defines go_build and k8s_version_ldflags.

export PATH="/usr/local/go/bin:$PATH"
export GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0
# Never let a dependency's `toolchain` line trigger a toolchain download.
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"

# go_build <module dir> <package> <output name> [ldflags]: one go build at a time (the machine is
# shared), to a temp name and then renamed, so an interrupted build never leaves a binary that
# looks done. Skips what is built already.
go_build() {
  local mod="$1" pkg="$2" out="$3" ldflags="${4:-}"
  if [[ -x "$bin_dir/$out" ]]; then return; fi
  echo "$(basename "$0"): building $out ($pkg) into $bin_dir ..." >&2
  local start=$SECONDS
  (cd "$mod" && nice -n 10 go build -trimpath -ldflags "-s -w $ldflags" -o "$bin_dir/.$out.tmp" "$pkg") >&2
  mv "$bin_dir/.$out.tmp" "$bin_dir/$out"
  echo "$(basename "$0"): built $out in $((SECONDS - start))s" >&2
}

# k8s_version_ldflags <v1.x.y>: without these a Kubernetes binary reports v0.0.0-master+... (kubectl
# warns about skew, and a node reports the wrong version).
k8s_version_ldflags() {
  local minor="${1#v1.}" pkg flags=""
  minor="${minor%%.*}"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X $pkg.gitVersion=$1 -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    flags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  echo "$flags"
}
