"""The permission engine: modes, rules, decisions, settings layers, audit log.

Light re-exports only; ``check``, the engine, settings and audit load on first use.
"""

from __future__ import annotations

from typing import Any

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


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
