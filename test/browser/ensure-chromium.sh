#!/usr/bin/env bash
# Makes sure Debian's Chromium is at /usr/bin/chromium for the browser tests, and prints its path.
# A fresh machine (and CI) does not have it: it is installed with apt-get (as root, or through sudo).
# Playwright's own browser download is not used: it fails on machines with a closed network, while
# Debian's mirror is reachable. A flock serialises concurrent callers (two test files starting at once).
set -euo pipefail

chromium=/usr/bin/chromium
if [[ -x "$chromium" ]]; then
  echo "$chromium"
  exit 0
fi

as_root=()
if [[ "$(id -u)" != 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then as_root=(sudo -n); else
    echo "ensure-chromium.sh: $chromium is missing and this user cannot install it (not root, no sudo); run: apt-get install chromium" >&2
    exit 3
  fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium.sh: $chromium is missing and apt-get is not available; install Chromium so that $chromium exists" >&2
  exit 3
fi

exec 9>"/tmp/tracehop-ensure-chromium.lock"
if command -v flock >/dev/null 2>&1; then flock 9; fi
if [[ -x "$chromium" ]]; then
  echo "$chromium"
  exit 0
fi

echo "ensure-chromium.sh: installing chromium with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq >&2
"${as_root[@]}" apt-get install -y -qq --no-install-recommends chromium >&2
if [[ ! -x "$chromium" ]]; then
  echo "ensure-chromium.sh: apt-get finished but $chromium is still missing" >&2
  exit 3
fi
echo "$chromium"
