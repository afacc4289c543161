#!/usr/bin/env bash
# The screenshots of docs/dashboard.md, taken by the dashboard's browser tests (Debian's Chromium)
# as they walk through each page with real data: run from the repository's root.
set -euo pipefail
cd "$(dirname "$0")/.."
HERALD_DASHBOARD_SCREENSHOTS=docs/dashboard npx mocha --timeout 120000 test/dashboard/overview.test.ts test/dashboard/settings.test.ts test/dashboard/dashboard.test.ts test/dashboard/compose-templates.test.ts test/dashboard/compose-segments.test.ts test/dashboard/compose-android.test.ts test/dashboard/audience.test.ts test/dashboard/users.test.ts test/dashboard/messages.test.ts test/dashboard/events.test.ts
