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

__all__ = ["default_user_dir", "default_managed_path", "default_managed_file",
           "environment_key", "MANAGED_DEFAULT"]

MANAGED_DEFAULT = "/etc/agenttools/managed-settings.json"

# What jupyter_core.paths.jupyter_config_dir() reads (with HOME for the home folder).
_USER_DIR_ENV = ("AGENTTOOLS_USER_DIR", "JUPYTER_NO_CONFIG", "JUPYTER_CONFIG_DIR",
                 "JUPYTER_PLATFORM_DIRS", "XDG_CONFIG_HOME", "HOME")
_MANAGED_ENV = "AGENTTOOLS_MANAGED_SETTINGS"
_ENV_NAMES = (*_USER_DIR_ENV, _MANAGED_ENV)
# os.environ keeps its values in ``_data`` under encoded keys; ``os.environ.get`` of a missing
# variable raises and catches a KeyError inside (about 2 us). The key of the caches below is
# read straight from that dict (what ``os.environ[...] = v`` and ``del`` update at once), so a
# change is still seen at the next call; the answers themselves come from ``os.environ``.
_encode = getattr(os.environ, "encodekey", None)
_ENV_KEYS = tuple(_encode(name) for name in _ENV_NAMES) if _encode is not None else None

_user_dirs: dict[tuple[object, ...], Path] = {}
_managed_paths: dict[object, tuple[Path, str]] = {}


def environment_key() -> tuple[object, ...]:
    """The raw values of the variables the default locations depend on (user directory first,
    the managed file last): equal keys, equal locations."""
    data = getattr(os.environ, "_data", None)
    if _ENV_KEYS is not None and type(data) is dict:
        return tuple(map(data.get, _ENV_KEYS))
    environ = os.environ
    return tuple(map(environ.get, _ENV_NAMES))


def default_user_dir(key: tuple[object, ...] | None = None) -> Path:
    """``$AGENTTOOLS_USER_DIR``, else ``<jupyter config dir>/agenttools``. ``key``: the
    :func:`environment_key` the caller already has."""
    if key is None:
        key = environment_key()
    found = _user_dirs.get(key)
    if found is None:
        user_dir = os.environ.get("AGENTTOOLS_USER_DIR")
        if user_dir:
            found = Path(user_dir).expanduser()
        else:
            # jupyter_core is imported only when needed: `agenttools hook` starts without it
            from jupyter_core.paths import jupyter_config_dir

            found = Path(jupyter_config_dir()) / "agenttools"
        if len(_user_dirs) > 64:  # a process that keeps changing its environment
            _user_dirs.clear()
        _user_dirs[key] = found
    return found


def _managed_raw() -> object:
    """The raw value of $AGENTTOOLS_MANAGED_SETTINGS (the last item of environment_key())."""
    data = getattr(os.environ, "_data", None)
    if _ENV_KEYS is not None and type(data) is dict:
        return data.get(_ENV_KEYS[-1])
    return os.environ.get(_MANAGED_ENV)


def _managed(key: tuple[object, ...] | None) -> tuple[Path, str]:
    raw = _managed_raw() if key is None else key[-1]
    found = _managed_paths.get(raw)
    if found is None:
        env = os.environ.get(_MANAGED_ENV) or None
        path = Path(env).expanduser() if env else Path(MANAGED_DEFAULT)
        if len(_managed_paths) > 64:
            _managed_paths.clear()
        found = _managed_paths[raw] = (path, str(path))
    return found


def default_managed_path(key: tuple[object, ...] | None = None) -> Path:
    """``$AGENTTOOLS_MANAGED_SETTINGS``, else /etc/agenttools/managed-settings.json."""
    return _managed(key)[0]


def default_managed_file(key: tuple[object, ...] | None = None) -> str:
    """:func:`default_managed_path` as a string (what the lock-down stats every decision)."""
    return _managed(key)[1]
