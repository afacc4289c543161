#!/usr/bin/env bash
# `make dev`: Herald on this machine against local PostgreSQL, Redis and NATS (started by
# `make services`), with a demo app, a REST API key and 1,000 demo devices, then `herald dev`
# (api + sender + scheduler + APNs simulator in one process). Safe to run again: it reuses
# what it made before (state in .herald/dev/).
set -euo pipefail
cd "$(dirname "$0")/.."

state="${HERALD_DEV_STATE:-.herald/dev}"  # where its demo key, app manifest and devices are kept
mkdir -p "$state"
export HERALD_DATABASE_URL="${HERALD_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/herald}"
export HERALD_HTTP_PORT="${HERALD_HTTP_PORT:-8080}"
# This machine only, unless asked (HERALD_HTTP_HOST=0.0.0.0 make dev): the demo key is printed below.
export HERALD_HTTP_HOST="${HERALD_HTTP_HOST:-127.0.0.1}"
export HERALD_LOG_LEVEL="${HERALD_LOG_LEVEL:-info}"
herald() { node bin/herald.js "$@"; }

herald migrate

# An APNs token key for the demo app. The simulator accepts any well-formed ES256 token.
if [ ! -f "$state/key.p8" ]; then
  openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out "$state/key.p8"
fi
cat > "$state/apps.yaml" <<YAML
apiVersion: herald.dev/v1alpha1
kind: App
metadata: {name: demo}
spec:
  bundleId: dev.herald.demo
  environment: sandbox
  credentials: {type: token, secretRef: {name: demo-apns}, keyId: DEMOKEY123, teamId: DEMOTEAM12}
  segments:
    - name: French speakers
      conditions: [{key: lang, relation: "=", value: fr}]
---
apiVersion: v1
kind: Secret
metadata: {name: demo-apns}
stringData:
  key.p8: |
$(sed 's/^/    /' "$state/key.p8")
YAML
app_id=$(herald apps apply -f "$state/apps.yaml" | awk '$1 == "demo" {print $2}')

if [ ! -s "$state/rest-api-key" ]; then
  herald keys create --app demo --name dev 2>/dev/null > "$state/rest-api-key"
fi
key=$(cat "$state/rest-api-key")

if [ ! -f "$state/devices.ndjson" ]; then
  node -e '
    const langs = ["en", "fr", "de", "pt-BR"];
    for (let i = 0; i < 1000; i++) {
      const lang = langs[i % 4];
      console.log(JSON.stringify({ token: (i + 1).toString(16).padStart(64, "0"), external_id: "user-" + i,
        language: lang, timezone: "Europe/Paris", tags: { lang: lang.slice(0, 2), level: String(i % 20) } }));
    }' > "$state/devices.ndjson"
  herald import --app demo "$state/devices.ndjson" 2>/dev/null
fi

host="${HERALD_HTTP_HOST}"
case "$host" in 0.0.0.0|::) host=127.0.0.1 ;; esac
cat <<TXT

Herald is starting on http://${host}:${HERALD_HTTP_PORT}, listening on ${HERALD_HTTP_HOST}  (app "demo", app id ${app_id})

  Send to everyone (202, queued):
    curl -s http://${host}:${HERALD_HTTP_PORT}/api/v1/notifications \\
      -H 'Authorization: Key ${key}' -H 'Content-Type: application/json' \\
      -d '{"app_id": "${app_id}", "contents": {"en": "Hello", "fr": "Bonjour"}, "included_segments": ["Subscribed Users"]}'

  The dashboard: open http://${host}:${HERALD_HTTP_PORT}/dashboard/ and sign in with the key below.

  Read its counts (use the id from the answer):
    curl -s http://${host}:${HERALD_HTTP_PORT}/api/v1/notifications/1 -H 'Authorization: Key ${key}'

  The key (scope send) is kept in ${state}/rest-api-key:
    ${key}

  What Apple would receive: the simulator's deliveries URL is printed below once it starts
  (GET it for the last payloads and headers; ?token=HEX for one device).
  Stop with Ctrl-C.

TXT
exec node bin/herald.js dev
