#!/usr/bin/env bash
# The kind tier (`make e2e-kind`, machines with Docker): the Helm chart on a kind cluster.
#
#   1. a kind cluster with ingress-nginx (the api is reached through the ingress, so the
#      chart's HERALD_TRUST_PROXY_HOPS=1 is exercised);
#   2. the image built from ./Dockerfile and loaded into the cluster;
#   3. PostgreSQL, Redis and NATS JetStream (test/kind/deps.yaml);
#   4. `helm install` of charts/herald with test/kind/values.yaml: the APNs simulator as gateway;
#   5. the smoke the node tier runs too (test/node/smoke.sh): every pod Ready, uid 1000 and a
#      read-only root filesystem, an App with token credentials and an API key, three devices
#      registered through the SDK call, a send to "Subscribed Users" through the ingress, which
#      must end with sent = 3, reach the simulator three times, and show in `kubectl get sends`.
#
# Settings: HERALD_KIND_CLUSTER (herald-e2e), HERALD_KIND_HTTP_PORT (8480, the host port of the
# ingress), HERALD_KIND_KEEP=1 (keep the cluster afterwards), HERALD_KIND_NODE_IMAGE (kind's
# default), INGRESS_NGINX_VERSION (pinned below).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cluster="${HERALD_KIND_CLUSTER:-herald-e2e}"
http_port="${HERALD_KIND_HTTP_PORT:-8480}"
ingress_version="${INGRESS_NGINX_VERSION:-controller-v1.11.3}"
ns=herald
image=herald:kind
base="http://127.0.0.1:${http_port}"

log() { printf '\n==> %s\n' "$*" >&2; }
die() { printf 'test/kind/run.sh: %s\n' "$*" >&2; exit 1; }

# --- fail fast on a machine that cannot run this ---------------------------------------------
missing=()
for tool in docker kind kubectl curl openssl node; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if ((${#missing[@]})); then
  die "needs ${missing[*]} on PATH. The kind tier runs only on machines with Docker and kind
(https://kind.sigs.k8s.io/docs/user/quick-start/#installation); everything else is covered by
\`make test\` (the kube tier needs no Docker)."
fi
docker info >/dev/null 2>&1 || die "docker is installed but its daemon does not answer (is Docker running, may this user use it?)"

helm="$(bash "$root/tools/helm/build.sh")"
kc() { kubectl --context "kind-$cluster" "$@"; }

pf_pid=""
cleanup() {
  local code=$?
  if [[ -n "$pf_pid" ]]; then kill "$pf_pid" 2>/dev/null || true; fi
  if ((code != 0)) && kind get clusters 2>/dev/null | grep -qx "$cluster"; then
    log "failed; what the cluster looks like"
    kc get pods -A -o wide || true
    kc get events -n "$ns" --sort-by=.lastTimestamp | tail -30 || true
    for d in api sender controller apns-sim; do
      echo "--- logs deploy/herald-$d" >&2
      kc logs -n "$ns" "deploy/herald-$d" --tail=60 --all-containers 2>&1 | tail -60 >&2 || true
    done
    kc logs -n "$ns" job/herald-migrate --tail=40 2>/dev/null >&2 || true
  fi
  if [[ "${HERALD_KIND_KEEP:-}" == 1 ]]; then
    log "kept cluster $cluster (kind delete cluster --name $cluster)"
  else
    kind delete cluster --name "$cluster" >/dev/null 2>&1 || true
  fi
  exit "$code"
}
trap cleanup EXIT

# --- 1. cluster + ingress-nginx ----------------------------------------------------------------
if kind get clusters 2>/dev/null | grep -qx "$cluster"; then
  log "reusing kind cluster $cluster"
else
  log "creating kind cluster $cluster (ingress on 127.0.0.1:$http_port)"
  kind create cluster --name "$cluster" ${HERALD_KIND_NODE_IMAGE:+--image "$HERALD_KIND_NODE_IMAGE"} --wait 120s --config - <<YAML
kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
nodes:
  - role: control-plane
    kubeadmConfigPatches:
      - |
        kind: InitConfiguration
        nodeRegistration:
          kubeletExtraArgs:
            node-labels: "ingress-ready=true"
    extraPortMappings:
      - containerPort: 80
        hostPort: ${http_port}
        listenAddress: "127.0.0.1"
        protocol: TCP
YAML
fi
log "installing ingress-nginx $ingress_version"
kc apply -f "https://raw.githubusercontent.com/kubernetes/ingress-nginx/${ingress_version}/deploy/static/provider/kind/deploy.yaml" >/dev/null

# --- 2. image ------------------------------------------------------------------------------------
log "building $image"
docker build -t "$image" "$root"
kind load docker-image "$image" --name "$cluster"

# --- 3. servers ----------------------------------------------------------------------------------
log "starting PostgreSQL, Redis, NATS"
kc create namespace "$ns" --dry-run=client -o yaml | kc apply -f - >/dev/null
kc apply -n "$ns" -f "$here/deps.yaml" >/dev/null
for d in postgresql redis nats; do kc rollout status -n "$ns" "deploy/$d" --timeout=300s; done
kc wait -n ingress-nginx --for=condition=Ready pod -l app.kubernetes.io/component=controller --timeout=300s

# --- 4. the chart --------------------------------------------------------------------------------
log "helm install (migrate hook first, then api, senders, controller, simulator)"
"$helm" --kube-context "kind-$cluster" upgrade --install herald "$root/charts/herald" -n "$ns" \
  -f "$here/values.yaml" --wait --timeout 10m
kc get pods -n "$ns"

# --- 5. smoke: the same checks as the node tier (test/node/smoke.sh) -----------------------------
log "smoke (test/node/smoke.sh): pods, security context, App and key, a send delivered and mirrored"
# The ingress answers 404 until its controller has loaded the Ingress.
for _ in $(seq 60); do
  [[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/healthz")" == 200 ]] && break
  sleep 2
done
# The simulator's control port, through a port-forward.
kc port-forward -n "$ns" svc/herald-apns-sim 12198:2198 >/dev/null 2>&1 &
pf_pid=$!
HERALD_SMOKE_CONTEXT="kind-$cluster" bash "$root/test/node/smoke.sh" "$ns" "$base" http://127.0.0.1:12198 >/dev/null

log "kind e2e passed: the chart delivered a send through the ingress"
