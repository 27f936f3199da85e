"""Managed lock-down: what an administrator's managed settings forbid every session.

Keys, honoured only in the managed layer (``/etc/agenttools/managed-settings.json`` or
``$AGENTTOOLS_MANAGED_SETTINGS``; elsewhere they are shown as ignored):

- ``permissions.disable_bypass_mode: true`` — the bypass mode cannot be chosen anywhere: the
  engine, ``%agent mode``, the ``AgentTools.mode`` config trait, ``agenttools check --mode``
  and the REST mode endpoints all refuse it with a clear error (ModeUnavailable);
- ``permissions.allowed_modes: [...]`` — only these modes can be chosen; a mode set by a lower
  settings layer that is not allowed is ignored (and shown), the engine then runs in the
  managed layer's ``mode``, else ``default`` if allowed, else the first allowed mode;
- ``permissions.managed_rules_only: true`` — allow rules of every other layer *and of the
  session* are ignored (deny and ask rules still apply: they only make things stricter).

A session can never override the managed layer: these checks sit in the engine itself, so every
way of choosing a mode goes through them. An engine without a settings store still reads the
managed file (``managed_lockdown()``, re-read when the file changes).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from ..errors import ModeUnavailable
from .locations import default_managed_file
from .settings_file import parse as parse_file
from .settings_file import read_text
from .types import PermissionMode, PermissionRule

__all__ = ["Lockdown", "LOCKDOWN_KEYS", "managed_lockdown", "NO_LOCKDOWN"]

LOCKDOWN_KEYS = ("disable_bypass_mode", "allowed_modes", "managed_rules_only")


@dataclass(frozen=True)
class Lockdown:
    disable_bypass: bool = False
    allowed_modes: tuple[PermissionMode, ...] | None = None
    managed_rules_only: bool = False
    #: the managed file's own mode (the fallback when a lower layer's mode is not allowed)
    managed_mode: PermissionMode | None = None
    source: str | None = None

    @classmethod
    def from_data(cls, data: Mapping[str, Any] | None, source: str | None = None
                  ) -> "Lockdown":
        perms = (data or {}).get("permissions") or {}
        modes = perms.get("allowed_modes")
        mode = perms.get("mode")
        return cls(disable_bypass=bool(perms.get("disable_bypass_mode", False)),
                   allowed_modes=None if modes is None
                   else tuple(PermissionMode.parse(m) for m in modes),
                   managed_rules_only=bool(perms.get("managed_rules_only", False)),
                   managed_mode=None if mode is None else PermissionMode.parse(mode),
                   source=source)

    @property
    def active(self) -> bool:
        return self.disable_bypass or self.allowed_modes is not None or \
            self.managed_rules_only

    def why_not(self, mode: PermissionMode | str) -> str | None:
        """Why ``mode`` cannot be chosen, or None when it can."""
        m = PermissionMode.parse(mode)
        where = f" ({self.source})" if self.source else ""
        if m is PermissionMode.BYPASS and self.disable_bypass:
            return f"the bypass mode is disabled by the managed settings{where}"
        if self.allowed_modes is not None and m not in self.allowed_modes:
            allowed = ", ".join(x.value for x in self.allowed_modes) or "none"
            return f"the managed settings{where} allow only these modes: {allowed}"
        return None

    def allows(self, mode: PermissionMode | str) -> bool:
        if type(mode) is PermissionMode and not self.disable_bypass \
                and self.allowed_modes is None:
            return True  # nothing forbidden (asked once a decision: no message built)
        return self.why_not(mode) is None

    def check_mode(self, mode: PermissionMode | str) -> PermissionMode:
        """``mode`` parsed, or ModeUnavailable naming the managed setting that forbids it."""
        m = PermissionMode.parse(mode)
        why = self.why_not(m)
        if why is not None:
            raise ModeUnavailable(f"cannot use the {m.value} mode: {why}")
        return m

    def fallback_mode(self) -> PermissionMode:
        """The mode when nobody chose an allowed one."""
        for m in (self.managed_mode, PermissionMode.DEFAULT):
            if m is not None and self.allows(m):
                return m
        if self.allowed_modes:
            return self.allowed_modes[0]
        return PermissionMode.DEFAULT  # pragma: no cover - allowed_modes is never empty

    def keeps(self, rule: PermissionRule) -> bool:
        """Does ``rule`` count? With managed_rules_only, allow rules only from the managed
        file."""
        if not self.managed_rules_only or rule.behavior.value != "allow":
            return True
        return self.source is not None and rule.source == self.source

    def filter_rules(self, rules: Iterable[PermissionRule]) -> list[PermissionRule]:
        return [r for r in rules if self.keeps(r)]

    def to_dict(self) -> dict[str, Any]:
        return {"disable_bypass_mode": self.disable_bypass,
                "allowed_modes": None if self.allowed_modes is None
                else [m.value for m in self.allowed_modes],
                "managed_rules_only": self.managed_rules_only, "source": self.source}


NO_LOCKDOWN = Lockdown()

_CACHE: dict[str, tuple[Any, Lockdown]] = {}
_EFFECTIVE_IDS = os.access in os.supports_effective_ids


def _exists(path: str) -> bool:
    """Whether there is anything at ``path`` for this process (its effective ids, as os.stat
    sees it). A NUL in the path raises ValueError, as os.stat did."""
    return os.access(path, os.F_OK, effective_ids=_EFFECTIVE_IDS)


def managed_lockdown(path: str | os.PathLike[str] | None = None) -> Lockdown:
    """The lock-down of the managed file (default location or ``$AGENTTOOLS_MANAGED_SETTINGS``),
    re-read when it changes (a stat). A broken managed file is a SettingsError: an
    administrator's file that cannot be read is not silently ignored."""
    key = os.fspath(path) if path is not None else default_managed_file()
    signature: Any = None
    # most machines have no managed file: access() says so without the cost of an OSError
    if _exists(key):
        try:
            st = os.stat(key)
            signature = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            pass
    elif os.path.islink(key):  # a link to nothing: refused as by the settings store
        read_text(Path(key))
    cached = _CACHE.get(key)
    if cached is not None and cached[0] == signature:
        return cached[1]
    if signature is None:
        found = NO_LOCKDOWN
    else:
        target = Path(key)
        data = parse_file(target, read_text(target))
        found = Lockdown.from_data(data, key)
    _CACHE[key] = (signature, found)
    return found
