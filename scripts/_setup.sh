# Sourced by scripts/lab.sh and scripts/test.sh: find (or make) the Python to install into,
# make sure Node.js/npm are there (pip builds the JupyterLab extension with them), and offer
# `apt_install PACKAGE...` (as root, or through sudo; waits for another apt to finish).
#
# Which Python: the active virtualenv's if one is active (or the conda/pyenv interpreter
# first on PATH); a system Python that refuses pip installs (PEP 668, "externally managed",
# as on Debian and Ubuntu) gets a virtualenv of its own in ./.venv, made once and reused.
# Afterwards $PY is the interpreter to use.

apt_install() {
  local missing=()
  for package in "$@"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "error: please install ${missing[*]} (no apt-get here)" >&2
    return 1
  fi
  local sudo=()
  if [ "$(id -u)" != 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "error: installing ${missing[*]} needs root: run as root, install sudo, or" \
           "install them yourself" >&2
      return 1
    fi
    sudo=(sudo)
  fi
  echo "installing ${missing[*]} with apt-get (waits up to 5 min if another apt runs)" >&2
  # DPkg::Lock::Timeout: wait for a running apt/unattended-upgrade instead of failing at once
  "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=300 update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get -o DPkg::Lock::Timeout=300 install -y -qq "${missing[@]}" >/dev/null
}

PY="${PYTHON:-python3}"
if ! command -v "$PY" >/dev/null 2>&1; then
  echo "error: $PY not found: install Python 3.10 or newer (Debian: apt-get install python3)" >&2
  exit 1
fi
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
  echo "error: $("$PY" -V 2>&1) is too old: Python 3.10 or newer is needed" >&2
  exit 1
fi

in_venv="$("$PY" -c 'import sys; print(int(sys.prefix != sys.base_prefix))')"
managed="$("$PY" -c 'import os, sysconfig; print(int(os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED"))))')"
if [ "$in_venv" = 0 ] && [ "$managed" = 1 ]; then
  if [ ! -x .venv/bin/python ]; then
    echo "this Python is managed by the system (PEP 668): making a virtualenv in ./.venv" >&2
    if ! "$PY" -m venv .venv 2>/dev/null; then
      rm -rf .venv
      apt_install python3-venv
      "$PY" -m venv .venv
    fi
  fi
  PY="$PWD/.venv/bin/python"
  export PATH="$PWD/.venv/bin:$PATH"
fi

if ! command -v npm >/dev/null 2>&1; then
  apt_install nodejs npm  # pip builds the JupyterLab extension with them
fi
