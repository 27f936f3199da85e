#!/usr/bin/env bash
# Set up everything on a fresh machine and start JupyterLab on the tutorials, offline:
# the agent uses the scripted model unless you configure a real one (README: "Use a real model").
# Python: the active virtualenv, else ./.venv when the system's Python is externally managed
# (scripts/_setup.sh). Extra arguments go to `jupyter lab` (e.g. --port 8899 --no-browser).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_setup.sh

"$PY" -m pip install -q --disable-pip-version-check -e .
export AGENTTOOLS_MODEL="${AGENTTOOLS_MODEL:-scripted}"
extra=()
if [ "$(id -u)" = 0 ]; then
  extra+=(--allow-root)  # a container or a fresh VM often runs as root; Jupyter refuses without it
fi
exec "$PY" -m jupyter lab --notebook-dir=notebooks "${extra[@]}" "$@"
