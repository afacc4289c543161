#!/usr/bin/env bash
# `make dev`: Herald on this machine against local PostgreSQL, Redis and NATS (started here, after
# saying what will change and asking, when they are not running yet), with a demo app (APNs and
# FCM credentials), a REST API key, 1,000 iOS and 500 Android demo devices, then `herald dev` (api +
# sender + scheduler + the APNs and FCM simulators in one process). Safe to run again: it reuses what it made before (state in .herald/dev/).
set -euo pipefail
cd "$(dirname "$0")/.."

# --- The three servers: say what would change on this machine, and ask, before changing it. -----
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
plan=()
servers=()
if [[ -z "${HERALD_DATABASE_URL:-}" ]] && ! port_open 5432; then
  servers+=(postgres)
  [[ -d /etc/postgresql ]] || plan+=("install Debian's postgresql package (apt-get)")
  plan+=("start PostgreSQL's cluster on 127.0.0.1:5432")
  hba="$(ls /etc/postgresql/*/main/pg_hba.conf 2>/dev/null | head -1)"
  if [[ -z "$hba" ]] || ! grep -q '^host all all 127.0.0.1/32 trust' "$hba" 2>/dev/null; then
    plan+=("add 'trust' for 127.0.0.1 and ::1 to pg_hba.conf: any local user may then connect as any role without a password")
  fi
fi
if [[ -z "${HERALD_REDIS_URL:-}" ]] && ! port_open 6379; then
  servers+=(redis)
  command -v redis-server >/dev/null || plan+=("install Debian's redis-server package (apt-get)")
  plan+=("start redis-server on 127.0.0.1:6379 (no persistence)")
fi
if [[ -z "${HERALD_NATS_URL:-}" ]] && ! port_open 4222; then
  servers+=(nats)
  [[ -x /usr/sbin/nats-server ]] || plan+=("install Debian's nats-server package (apt-get)")
  plan+=("start nats-server with JetStream on 127.0.0.1:4222 (data in /var/lib/nats-server)")
fi
if ((${#plan[@]})); then
  echo "make dev needs PostgreSQL, Redis and NATS JetStream on their usual ports. It will:"
  printf '  - %s\n' "${plan[@]}"
  echo "(To use servers of your own instead, set HERALD_DATABASE_URL, HERALD_REDIS_URL or HERALD_NATS_URL.)"
  if [[ "${HERALD_DEV_YES:-}" != 1 ]]; then
    [[ -t 0 ]] || { echo "Not a terminal: run again with HERALD_DEV_YES=1 to go ahead." >&2; exit 1; }
    read -r -p "Go ahead? [y/N] " answer
    [[ "$answer" == [yY]* ]] || { echo "Nothing changed." >&2; exit 1; }
  fi
  sudo=""
  if [[ "$(id -u)" != 0 ]]; then
    echo "These steps need root: running them with sudo." >&2
    sudo="sudo"
  fi
  $sudo env "PATH=$PATH" node --import tsx scripts/ensure-services.ts "--only=$(IFS=,; echo "${servers[*]}")"
fi

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

# Android: 500 installs of users of their own (user-1000 … user-1499), and a Firebase service
# account of the demo's own, which herald dev stores as the App's FCM credentials pointed at
# fcm-sim's token endpoint (when it starts the simulator: HERALD_FCM_URL unset).
if [ ! -f "$state/devices-android.ndjson" ]; then
  node -e '
    const langs = ["en", "fr", "de", "pt-BR"];
    for (let i = 0; i < 500; i++) {
      const lang = langs[i % 4];
      console.log(JSON.stringify({ platform: "android", token: "demo" + i + ":APA91b" + "x".repeat(140), external_id: "user-" + (1000 + i),
        language: lang, timezone: "Europe/Paris", tags: { lang: lang.slice(0, 2), level: String(i % 20) } }));
    }' > "$state/devices-android.ndjson"
  herald import --app demo "$state/devices-android.ndjson" 2>/dev/null
fi
if [ ! -f "$state/fcm-service-account.json" ]; then
  node -e '
    const { generateKeyPairSync } = require("node:crypto");
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048, privateKeyEncoding: { type: "pkcs8", format: "pem" }, publicKeyEncoding: { type: "spki", format: "pem" } });
    console.log(JSON.stringify({ type: "service_account", project_id: "herald-demo", client_email: "herald-demo@herald-demo.iam.gserviceaccount.com",
      private_key: privateKey, token_uri: "https://127.0.0.1:2202/token" }, null, 2));' > "$state/fcm-service-account.json"
fi
if [[ -z "${HERALD_FCM_URL:-}" ]]; then
  export HERALD_DEV_FCM_APP=demo HERALD_DEV_FCM_SERVICE_ACCOUNT="$state/fcm-service-account.json"
fi

host="${HERALD_HTTP_HOST}"
case "$host" in 0.0.0.0|::) host=127.0.0.1 ;; esac
cat <<TXT

Herald is starting on http://${host}:${HERALD_HTTP_PORT}, listening on ${HERALD_HTTP_HOST}  (app "demo", app id ${app_id})

  Demo devices: 1,000 iOS (user-0 … user-999) and 500 Android (user-1000 … user-1499).

  Send to everyone (202, queued):
    curl -s http://${host}:${HERALD_HTTP_PORT}/api/v1/notifications \\
      -H 'Authorization: Key ${key}' -H 'Content-Type: application/json' \\
      -d '{"app_id": "${app_id}", "contents": {"en": "Hello", "fr": "Bonjour"}, "included_segments": ["Subscribed Users"]}'

  The dashboard: open http://${host}:${HERALD_HTTP_PORT}/dashboard/ and sign in with the key below.

  Read its counts (use the id from the answer):
    curl -s http://${host}:${HERALD_HTTP_PORT}/api/v1/notifications/1 -H 'Authorization: Key ${key}'

  The key (scope send) is kept in ${state}/rest-api-key:
    ${key}

  What Apple and Google would receive: the simulators' deliveries URLs are printed below once they
  start (GET them for the last payloads; ?token=... for one device).
  Stop with Ctrl-C.

TXT
exec node bin/herald.js dev
