"""The permission engine: modes, rules, decisions, settings layers, audit log.

Light re-exports only; ``check``, the engine, settings and audit load on first use.
"""

from __future__ import annotations

from typing import Any

from .._lazy import lazy_attributes
from .types import (
    STEPS,
    PermissionBehavior,
    PermissionContext,
    PermissionDecision,
    PermissionMode,
    PermissionRule,
    TraceStep,
)

_LAZY = {
    "PermissionEngine": "engine",
    "ModePolicy": "modes",
    "MODE_TABLE": "modes",
    "SettingsStore": "settings",
    "MergedSettings": "settings",
    "LAYERS": "settings",
    "AuditLog": "audit",
    "check": "check",
    "load_rule": "rules",
    "validate_examples": "rules",
    "rule_matches": "rules",
}

__all__ = [
    "STEPS",
    "PermissionBehavior",
    "PermissionContext",
    "PermissionDecision",
    "PermissionMode",
    "PermissionRule",
    "TraceStep",
    *sorted(_LAZY),
]


_resolve, __dir__ = lazy_attributes(__name__, _LAZY, globals())


def __getattr__(name: str) -> Any:
    return _resolve(name)
