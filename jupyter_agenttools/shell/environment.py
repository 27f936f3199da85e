"""Environment variables: which assignments are harmless and which values are fine to print.

``VAR=value cmd`` changes what ``cmd`` does when a program reads VAR: ``PATH`` picks another
binary, ``LD_PRELOAD`` loads code into every program, ``BASH_ENV`` runs a file in every bash,
``PAGER``/``GIT_PAGER``/``LESSOPEN`` run commands, ``GIT_*`` and ``PYTHON*`` redirect whole
programs. The analysis therefore allow-lists: an assignment is harmless only when its name is
in :data:`HARMLESS_ENV` (or starts with ``LC_``); any other makes the command not read-only and
keeps allow rules from matching past it.
"""

from __future__ import annotations

__all__ = ["HARMLESS_ENV", "PRINT_SAFE_VARS", "harmless_assignment"]

# Assignments that do not change which code runs or what it reads (each: output formatting,
# locale or a verbosity switch).
HARMLESS_ENV = frozenset({
    "LANG", "LANGUAGE", "TZ", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TERM",
    "COLUMNS", "LINES", "GREP_COLOR", "GREP_COLORS", "LS_COLORS", "TIME_STYLE", "CI",
    "POSIXLY_CORRECT", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONIOENCODING",
    "RUST_BACKTRACE", "RUST_LOG", "NODE_ENV", "DEBUG", "VERBOSE", "TQDM_DISABLE",
})
_HARMLESS_PREFIX = ("LC_",)

# Variables whose value is fine to print (no credentials by convention).
PRINT_SAFE_VARS = frozenset({
    "HOME", "USER", "LOGNAME", "SHELL", "PWD", "OLDPWD", "PATH", "LANG", "LANGUAGE", "TERM",
    "TZ", "HOSTNAME", "HOSTTYPE", "OSTYPE", "MACHTYPE", "SHLVL", "COLUMNS", "LINES", "EDITOR",
    "VISUAL", "PAGER", "TMPDIR", "VIRTUAL_ENV", "CONDA_DEFAULT_ENV", "CONDA_PREFIX",
    "PYTHONPATH", "LD_LIBRARY_PATH", "JAVA_HOME", "GOPATH", "GOROOT", "CARGO_HOME", "NVM_DIR",
    "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR", "DISPLAY",
    "BASH_VERSION", "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "JUPYTER_PATH", "UID", "EUID",
    "PPID", "RANDOM", "SECONDS", "LINENO", "HISTSIZE", "?", "$", "!", "#", "0", "_",
    "NODE_ENV", "CI", "PS1", "PS2", "IFS", "LC_ALL", "LC_CTYPE", "MANPATH",
})


def harmless_assignment(name: str) -> bool:
    return name in HARMLESS_ENV or name.startswith(_HARMLESS_PREFIX)
