#!/usr/bin/env bash
# promtool for the chart tests (test/chart/prometheus-rules.test.ts): from Debian's prometheus
# package, the only packaged source of it. The package also installs and may start a Prometheus
# server; the tests need only the binary, so that service is stopped and disabled again.
set -euo pipefail

if command -v promtool >/dev/null 2>&1; then
  exit 0
fi
sudo=""
[[ "$(id -u)" == 0 ]] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq -o DPkg::Lock::Timeout=600
$sudo apt-get install -y -qq -o DPkg::Lock::Timeout=600 prometheus
if [[ -d /run/systemd/system ]]; then
  $sudo systemctl disable --now prometheus >/dev/null 2>&1 || true
elif command -v service >/dev/null 2>&1; then
  $sudo service prometheus stop >/dev/null 2>&1 || true
  $sudo update-rc.d prometheus disable >/dev/null 2>&1 || true
fi
command -v promtool >/dev/null
