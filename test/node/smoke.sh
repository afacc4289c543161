#!/usr/bin/env bash
# The smoke both cluster tiers run after `helm install` (the node tier, test/node/node.test.ts,
# and the kind tier, test/kind/run.sh), so the kind tier stays true on machines with Docker:
#
#   - every pod of the release Ready, the migrations applied (the pre-install hook Job succeeded);
#   - the pods run as uid 1000 with a read-only root filesystem;
#   - an App with token credentials and an API key: Ready, its key issued in status.keys;
#   - three devices registered through the SDK call, a send to "Subscribed Users" through the
#     api's Service (or ingress), which must end with sent = 3, reach the simulator three times
#     and show in `kubectl get sends`.
#
# Usage: smoke.sh NAMESPACE API_BASE_URL SIMULATOR_CONTROL_URL
#   kubectl runs with the caller's KUBECONFIG (and HERALD_SMOKE_CONTEXT, if set). RELEASE: the
#   Helm release name (herald). Prints the send id as the last line of stdout.
set -euo pipefail
ns="${1:?namespace}" base="${2:?api base url}" sim="${3:?simulator control url}"
release="${RELEASE:-herald}"
kc() { kubectl ${HERALD_SMOKE_CONTEXT:+--context "$HERALD_SMOKE_CONTEXT"} "$@"; }
log() { printf '[smoke %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { printf 'smoke: %s\n' "$*" >&2; exit 1; }
json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=new Function("o","return o"+process.argv[1])(JSON.parse(s));process.stdout.write(v===undefined?"":typeof v==="object"?JSON.stringify(v):String(v))})' "$1"; }
# A new Service can refuse for about a second until kube-proxy has synced: curl retries that.
curl_() { curl -fsS --max-time 20 --retry 10 --retry-connrefused --retry-delay 1 "$@"; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# --- the release's pods ---------------------------------------------------------------------------
sel="app.kubernetes.io/instance=$release"
kc wait -n "$ns" --for=condition=Ready pod -l "$sel" --timeout=180s >/dev/null \
  || { kc get pods -n "$ns" -o wide >&2; die "not every pod of release $release is Ready"; }
kc get pods -n "$ns" -l "$sel" -o wide >&2
# The migrate Job is a hook deleted once it succeeded; helm install failed if it did not, and
# the api's /readyz checks the schema. Here: no migrate pod failed on the way.
failed="$(kc get pods -n "$ns" -l "$sel,app.kubernetes.io/component=migrate" --field-selector=status.phase=Failed -o name)"
[[ -z "$failed" ]] || die "the migrate Job had failed pods: $failed"

log "security context: uid 1000, read-only root filesystem, in every Herald container"
for d in api sender controller; do
  out="$(kc exec -n "$ns" "deploy/$release-$d" -- node -e '
    const fs = require("fs");
    let rootWritable = true;
    try { fs.writeFileSync("/probe-" + process.pid, "x"); } catch (e) { rootWritable = e.code !== "EROFS"; }
    let appWritable = true;
    try { fs.writeFileSync("/app/probe-" + process.pid, "x"); } catch (e) { appWritable = e.code !== "EROFS" && e.code !== "EACCES"; }
    process.stdout.write(JSON.stringify({ uid: process.getuid(), gid: process.getgid(), rootWritable, appWritable }));')" \
    || die "kubectl exec into deploy/$release-$d failed"
  [[ "$(json .uid <<<"$out")" == 1000 && "$(json .rootWritable <<<"$out")" == false && "$(json .appWritable <<<"$out")" == false ]] \
    || die "deploy/$release-$d: expected uid 1000 and a read-only root filesystem, got $out"
done

# --- App, key, devices, send --------------------------------------------------------------------------
log "App, key, devices, send"
app_id="$(node -e 'process.stdout.write(crypto.randomUUID())')"
openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out "$work/key.p8"
kc create secret generic smoke-apns -n "$ns" --from-file=key.p8="$work/key.p8" --dry-run=client -o yaml | kc apply -f - >/dev/null
kc apply -n "$ns" -f - >/dev/null <<YAML
apiVersion: herald.dev/v1alpha1
kind: App
metadata:
  name: smoke
spec:
  appId: ${app_id}
  bundleId: dev.herald.smoke
  environment: sandbox
  credentials:
    type: token
    secretRef: { name: smoke-apns }
    keyId: SMOKEKEY01
    teamId: SMOKETEAM1
  apiKeys:
    - name: smoke
YAML
kc wait -n "$ns" --for=condition=Ready app.herald.dev/smoke --timeout=120s >/dev/null \
  || { kc get app.herald.dev/smoke -n "$ns" -o yaml >&2; die "the App did not become Ready within 120s"; }
secret=""
for _ in $(seq 60); do
  secret="$(kc get app.herald.dev/smoke -n "$ns" -o jsonpath='{.status.keys[?(@.name=="smoke")].secretName}')"
  [[ -n "$secret" ]] && break
  sleep 1
done
[[ -n "$secret" ]] || die "the App reports no issued key in status.keys"
key="$(kc get secret "$secret" -n "$ns" -o jsonpath='{.data.apiKey}' | base64 -d)"
[[ -n "$key" ]] || die "the key Secret $secret holds no apiKey"

ready=""
for _ in $(seq 60); do
  [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$base/readyz")" == 200 ]] && { ready=1; break; }
  sleep 1
done
[[ -n "$ready" ]] || die "the api is not ready at $base/readyz within 60s"

for token in 0000000000000000000000000000000000000000000000000000000000000001 \
             0000000000000000000000000000000000000000000000000000000000000002 \
             0000000000000000000000000000000000000000000000000000000000000003; do
  curl_ -X POST "$base/api/v1/apps/$app_id/subscriptions" -H 'Content-Type: application/json' \
    -d "{\"token\": \"$token\", \"language\": \"en\"}" >/dev/null
done

answer="$(curl_ -X POST "$base/api/v1/notifications" -H "Authorization: Key $key" -H 'Content-Type: application/json' \
  -d "{\"app_id\": \"$app_id\", \"contents\": {\"en\": \"Hello from the smoke\"}, \"included_segments\": [\"Subscribed Users\"]}")"
log "send answered: $answer"
send_id="$(json .id <<<"$answer")"
[[ -n "$send_id" ]] || die "no send id in the answer: $answer"

stats=""
for _ in $(seq 90); do
  stats="$(curl_ "$base/api/v1/notifications/$send_id" -H "Authorization: Key $key")"
  case "$(json .status <<<"$stats")" in approved|draft) break ;; esac
  sleep 1
done
log "send stats: $stats"
[[ "$(json .status <<<"$stats")" == approved && "$(json .sent <<<"$stats")" == 3 ]] || die "expected status approved and sent = 3 within 90s: $stats"

deliveries="$(curl_ "$sim/deliveries?limit=10")"
[[ "$(json .total <<<"$deliveries")" == 3 ]] || die "expected 3 deliveries at the simulator: $deliveries"

# The controller mirrors broadcasts as Send objects in the App's namespace.
found=""
for _ in $(seq 60); do
  kc get sends.herald.dev -n "$ns" -l herald.dev/app=smoke -o name 2>/dev/null | grep -q . && { found=1; break; }
  sleep 1
done
kc get sends.herald.dev -n "$ns" >&2
[[ -n "$found" ]] || die "no Send object mirrors send $send_id"
log "passed: send $send_id delivered to 3 devices through the chart"
echo "$send_id"
