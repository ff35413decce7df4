#!/usr/bin/env bash
# Installs Debian's chromium so the web app's end-to-end tests (packages/web/e2e, driven by
# playwright-core, which never downloads a browser) can run. Does nothing when /usr/bin/chromium exists.
# Installing needs root and apt-get; when either is missing it says why and exits 0, so a CI run
# continues and the e2e tests skip with their own reason.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"
BIN="${DEERFLOW_CHROMIUM:-/usr/bin/chromium}"

chromium_present() { [ -x "$BIN" ]; }
chromium_describe() { echo "$BIN"; }

apt_install setup-chromium chromium chromium chromium_present chromium_describe "the web e2e tests skip" " (a few minutes the first time)"
exit 0
