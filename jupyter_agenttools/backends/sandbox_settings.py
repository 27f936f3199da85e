"""The ``sandbox`` settings key: its values, checked, and the layers merged into one policy.

    {"sandbox": {"enabled": true, "network": false, "writable": [...], "hidden": [...],
                 "env_allow": [...], "required": false}}

Kept apart from ``sandbox.py`` (which builds the sandbox) so the settings loader can check the
key without importing the backends. ``required: true`` turns the sandbox on and makes it
mandatory: without bubblewrap Bash refuses instead of running unconfined.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

__all__ = [
    "SANDBOX_KEYS",
    "LAYER_ORDER",
    "PROJECT_LAYERS",
    "SandboxPolicy",
    "SandboxSettingsError",
    "parse_sandbox_settings",
    "merge_sandbox_layers",
    "policy_from_settings",
]

SANDBOX_KEYS = ("enabled", "network", "writable", "hidden", "env_allow", "required")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\*?$")


class SandboxSettingsError(ValueError):
    """A ``sandbox`` settings value that is not what the key allows (the message names it)."""


@dataclass(frozen=True)
class SandboxPolicy:
    """The effective sandbox setting of a session (merged layers, session override)."""

    enabled: bool = False
    network: bool = False
    writable: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()
    env_allow: tuple[str, ...] = ()
    required: bool = False
    #: where each scalar came from ("managed", "local", "project", "user", "session", default)
    sources: Mapping[str, str] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"enabled": self.enabled, "network": self.network,
                "writable": list(self.writable), "hidden": list(self.hidden),
                "env_allow": list(self.env_allow), "required": self.required}


def parse_sandbox_settings(value: Any, where: str = "sandbox") -> dict[str, Any]:
    """Check one layer's ``sandbox`` object; returns it with lists as tuples. Raises
    SandboxSettingsError naming the key (``where`` prefixes the message)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise SandboxSettingsError(f"{where}: must be an object, got {type(value).__name__}")
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key not in SANDBOX_KEYS:
            close = [k for k in SANDBOX_KEYS if _similar(str(key), k)]
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise SandboxSettingsError(f"{where}: unknown key {key!r}{hint}; expected "
                                       f"{', '.join(SANDBOX_KEYS)}")
        if key in ("enabled", "network", "required"):
            if not isinstance(item, bool):
                raise SandboxSettingsError(f"{where}.{key}: must be true or false, got "
                                           f"{item!r}")
            out[key] = item
            continue
        if not isinstance(item, list) or not all(isinstance(x, str) and x.strip() and
                                                 "\x00" not in x for x in item):
            raise SandboxSettingsError(f"{where}.{key}: must be a list of non-empty strings")
        if key == "env_allow":
            bad = [x for x in item if not _ENV_NAME.match(x)]
            if bad:
                raise SandboxSettingsError(
                    f"{where}.env_allow: {bad[0]!r} is not a variable name (letters, digits, "
                    f"'_'; a trailing '*' allows a prefix)")
        elif key in ("writable", "hidden"):
            bad = [x for x in item if not (x.startswith("/") or x == "~" or x.startswith("~/")
                                           or not os.path.isabs(x))]
            if bad:  # pragma: no cover - every string is absolute, ~ or relative
                raise SandboxSettingsError(f"{where}.{key}: {bad[0]!r} is not a path")
        out[key] = tuple(item)
    return out


def _similar(a: str, b: str) -> bool:
    a, b = a.lower().replace("-", "_"), b.lower()
    if a == b:
        return True
    return difflib.SequenceMatcher(None, a, b).ratio() >= 0.75


#: settings layers, highest first, as in permission/settings.py; "session" is the
#: ``AgentTools.sandbox`` trait and ``%agent sandbox on|off``
LAYER_ORDER = ("managed", "session", "local", "project", "user")
#: layers a cloned repository can ship: they may tighten the sandbox at once, loosen it only
#: once the project is trusted
PROJECT_LAYERS = ("local", "project")


def merge_sandbox_layers(layers: Mapping[str, Mapping[str, Any] | None], *,
                         trusted: bool = True,
                         base_dirs: Mapping[str, str] | None = None) -> SandboxPolicy:
    """One policy from the layers' parsed ``sandbox`` objects (``{layer: dict}``).

    Scalars: the highest layer that sets one wins, except that an untrusted project layer
    only counts when it tightens (``enabled``/``required`` true, ``network`` false). Lists
    merge (``hidden`` from every layer; ``writable`` and ``env_allow`` from project layers only
    when trusted). Relative paths resolve against the layer's ``base_dirs`` entry."""
    base_dirs = base_dirs or {}
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    lists: dict[str, list[str]] = {"writable": [], "hidden": [], "env_allow": []}
    tighten = {"enabled": True, "required": True, "network": False}
    for layer in LAYER_ORDER:
        data = layers.get(layer) or {}
        untrusted = layer in PROJECT_LAYERS and not trusted
        for key in ("enabled", "network", "required"):
            if key in data and key not in values:
                if untrusted and data[key] != tighten[key]:
                    continue
                values[key], sources[key] = data[key], layer
        for key in lists:
            if untrusted and key != "hidden":
                continue
            for entry in data.get(key, ()):
                path = entry
                if key != "env_allow" and not (entry.startswith(("/", "~"))):
                    path = os.path.join(base_dirs.get(layer, os.getcwd()), entry)
                if path not in lists[key]:
                    lists[key].append(path)
    required = bool(values.get("required", False))
    enabled = bool(values.get("enabled", False))
    if required and not enabled:
        # "required" means: on, and never without it — whatever a lower layer says
        enabled, sources["enabled"] = True, sources["required"]
    return SandboxPolicy(
        enabled=enabled, network=bool(values.get("network", False)),
        writable=tuple(lists["writable"]), hidden=tuple(lists["hidden"]),
        env_allow=tuple(lists["env_allow"]), required=required, sources=sources)


def policy_from_settings(merged: Any, *, session: Mapping[str, Any] | None = None,
                         trusted: bool = True, project_root: str | None = None,
                         user_dir: str | None = None) -> SandboxPolicy:
    """The effective policy from loaded settings (``MergedSettings``) and the session's
    override (the ``AgentTools.sandbox`` trait, ``%agent sandbox on|off``)."""
    layers: dict[str, Mapping[str, Any] | None] = {}
    for name, layer in getattr(merged, "by_layer", {}).items():
        # the file was checked against settings.schema.json when it loaded; this gives the
        # values their types and the same messages for the session's trait
        value = (getattr(layer, "data", None) or {}).get("sandbox")
        if value:
            layers[name] = parse_sandbox_settings(value, f"{layer.path}: sandbox")
    if session:
        layers["session"] = parse_sandbox_settings(session, "AgentTools.sandbox")
    root = project_root or os.getcwd()
    bases = {"managed": root, "session": root, "local": root, "project": root,
             "user": user_dir or root}
    return merge_sandbox_layers(layers, trusted=trusted, base_dirs=bases)
