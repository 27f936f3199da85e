#!/usr/bin/env bash
# Set up everything on a fresh machine and start JupyterLab on the tutorials, offline:
# the agent uses the scripted model unless you configure a real one.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q --disable-pip-version-check -e .
export AGENTTOOLS_MODEL="${AGENTTOOLS_MODEL:-scripted}"
exec python3 -m jupyter lab --notebook-dir=notebooks "$@"
