#!/usr/bin/env bash
# Set up everything on a fresh machine, then run every test: unit and kernel tests,
# the tutorials under nbval, the browser tests in Debian's Chromium.
# Python: the active virtualenv, else ./.venv when the system's Python is externally managed
# (scripts/_setup.sh). Extra arguments go to the first pytest run (e.g. -x, -k NAME).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_setup.sh

# Debian's Chromium for the browser tests (never `playwright install`), ripgrep for Grep,
# bubblewrap for the Bash sandbox (its tests run real sandboxes).
if [ ! -x /usr/bin/chromium ] || ! command -v rg >/dev/null 2>&1 || ! command -v bwrap >/dev/null 2>&1; then
  apt_install chromium ripgrep bubblewrap
fi

"$PY" -m pip install -q --disable-pip-version-check -e ".[test]"

# Unit, kernel, server and browser tests; then the tutorials, freshly executed, under nbval.
"$PY" -m pytest tests "$@"
"$PY" -m pytest -p no:cacheprovider --nbval notebooks --nbval-sanitize-with notebooks/sanitize.cfg
