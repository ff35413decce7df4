#!/usr/bin/env bash
# Installs Debian's chromium so the web app's end-to-end tests (packages/web/e2e, driven by
# playwright-core, which never downloads a browser) can run. Does nothing when /usr/bin/chromium exists.
# Installing needs root and apt-get; when either is missing it says why and exits 0, so a CI run
# continues and the e2e tests skip with their own reason.
set -u
BIN="${DEERFLOW_CHROMIUM:-/usr/bin/chromium}"

if [ -x "$BIN" ]; then
  echo "setup-chromium: chromium already installed ($BIN)"
  exit 0
fi

if [ "$(id -u)" != "0" ]; then
  echo "setup-chromium: chromium is missing and this is not root, so it cannot be installed here."
  echo "setup-chromium: install it yourself (Debian/Ubuntu: sudo apt-get install -y chromium); until then the web e2e tests skip."
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-chromium: chromium is missing and apt-get is not available (not a Debian-like system); the web e2e tests skip."
  exit 0
fi

echo "setup-chromium: installing chromium with apt-get (a few minutes the first time) ..."
export DEBIAN_FRONTEND=noninteractive
if ! apt-get update -qq >/dev/null 2>&1; then
  echo "setup-chromium: apt-get update failed (no network or no package mirror?); trying the install anyway."
fi
if apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 && [ -x "$BIN" ]; then
  echo "setup-chromium: installed $("$BIN" --version 2>/dev/null || echo chromium) at $BIN"
else
  echo "setup-chromium: apt-get install chromium failed; the web e2e tests skip."
fi
exit 0
