"""Where the user and managed settings live by default.

Every decision with a write effect asks where the agent's own settings are (the protected
tier), and every decision re-checks the managed file (the lock-down): working the answer out
again each time (``jupyter_config_dir()`` resolves the home folder) cost tens of microseconds per
decision. The answer depends only on environment variables, so it is kept per process, keyed by
the values of the variables it reads: a test or a notebook that changes one gets a fresh
answer at once.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["default_user_dir", "default_managed_path", "MANAGED_DEFAULT"]

MANAGED_DEFAULT = "/etc/agenttools/managed-settings.json"

# What jupyter_core.paths.jupyter_config_dir() reads (with HOME for the home folder).
_USER_DIR_ENV = ("AGENTTOOLS_USER_DIR", "JUPYTER_NO_CONFIG", "JUPYTER_CONFIG_DIR",
                 "JUPYTER_PLATFORM_DIRS", "XDG_CONFIG_HOME", "HOME")

_user_dirs: dict[tuple[str | None, ...], Path] = {}
_managed_paths: dict[str | None, Path] = {}


def default_user_dir() -> Path:
    """``$AGENTTOOLS_USER_DIR``, else ``<jupyter config dir>/agenttools``."""
    environ = os.environ
    key = tuple(environ.get(name) for name in _USER_DIR_ENV)
    found = _user_dirs.get(key)
    if found is None:
        if key[0]:
            found = Path(key[0]).expanduser()
        else:
            # jupyter_core is imported only when needed: `agenttools hook` starts without it
            from jupyter_core.paths import jupyter_config_dir

            found = Path(jupyter_config_dir()) / "agenttools"
        if len(_user_dirs) > 64:  # a process that keeps changing its environment
            _user_dirs.clear()
        _user_dirs[key] = found
    return found


def default_managed_path() -> Path:
    """``$AGENTTOOLS_MANAGED_SETTINGS``, else /etc/agenttools/managed-settings.json."""
    env = os.environ.get("AGENTTOOLS_MANAGED_SETTINGS") or None
    found = _managed_paths.get(env)
    if found is None:
        found = Path(env).expanduser() if env else Path(MANAGED_DEFAULT)
        if len(_managed_paths) > 64:
            _managed_paths.clear()
        _managed_paths[env] = found
    return found
