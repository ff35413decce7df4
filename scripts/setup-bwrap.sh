#!/usr/bin/env bash
# Installs Debian's bubblewrap so the `bwrap` sandbox provider (and its tests) can run.
# Does nothing when a bwrap binary is already on PATH. Installing needs root and apt-get; when either is
# missing it says why and exits 0, so a CI run continues and the bwrap tests skip with their own reason.
set -u

if command -v bwrap >/dev/null 2>&1; then
  echo "setup-bwrap: bwrap already installed ($(command -v bwrap), $(bwrap --version 2>/dev/null || echo 'version unknown'))"
  exit 0
fi

if [ "$(id -u)" != "0" ]; then
  echo "setup-bwrap: bwrap is missing and this is not root, so it cannot be installed here."
  echo "setup-bwrap: install it yourself (Debian/Ubuntu: sudo apt-get install -y bubblewrap); until then sandbox.use: auto falls back to local."
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-bwrap: bwrap is missing and apt-get is not available (not a Debian-like system)."
  echo "setup-bwrap: install bubblewrap with your package manager; until then sandbox.use: auto falls back to local."
  exit 0
fi

echo "setup-bwrap: installing bubblewrap with apt-get ..."
export DEBIAN_FRONTEND=noninteractive
if ! apt-get update -qq >/dev/null 2>&1; then
  echo "setup-bwrap: apt-get update failed (no network or no package mirror?); trying the install anyway."
fi
if apt-get install -y -qq --no-install-recommends bubblewrap >/dev/null 2>&1 && command -v bwrap >/dev/null 2>&1; then
  echo "setup-bwrap: installed $(bwrap --version 2>/dev/null || echo bwrap) at $(command -v bwrap)"
else
  echo "setup-bwrap: apt-get install bubblewrap failed; sandbox.use: auto falls back to local and bwrap tests will skip."
fi
exit 0
