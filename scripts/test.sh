#!/usr/bin/env bash
# Set up everything on a fresh machine, then run every test: unit and kernel tests,
# the tutorials under nbval, the browser tests in Debian's Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's Chromium for the browser tests (never `playwright install`), ripgrep for Grep,
# bubblewrap for the Bash sandbox (its tests run real sandboxes).
if ! command -v chromium >/dev/null 2>&1 || ! command -v rg >/dev/null 2>&1 \
    || ! command -v bwrap >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium ripgrep bubblewrap >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium ripgrep bubblewrap >/dev/null
  fi
fi

python3 -m pip install -q --disable-pip-version-check -e ".[test]"

# Unit, kernel, server and browser tests; then the tutorials, freshly executed, under nbval.
python3 -m pytest tests "$@"
python3 -m pytest -p no:cacheprovider --nbval notebooks --nbval-sanitize-with notebooks/sanitize.cfg
