"""Layered permission settings (SPEC §5.4).

Layers, highest first: managed (read-only here), local (``<project>/.agenttools/
settings.local.json``, where "Always allow" writes, git-ignored), project
(``<project>/.agenttools/settings.json``) and user (``<jupyter config dir>/agenttools/
settings.json``). Scalars (``mode``): the highest layer that sets one wins. Rule lists merge;
a deny anywhere wins because the engine checks every deny rule first. Each rule's ``source`` is
its file.

Writes are read-modify-write under a file lock next to the file, then an atomic replace, so
concurrent writers lose nothing. A corrupt file is a SettingsError naming the file and line,
and a write never replaces a file it could not parse. Keys we don't know are kept.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..backends.sandbox_settings import SandboxSettingsError, parse_sandbox_settings
from ..errors import RuleSyntaxError, SettingsError
from .rules import load_rule
from .types import PermissionBehavior, PermissionMode, PermissionRule

__all__ = [
    "LAYERS",
    "WRITABLE_LAYERS",
    "RULE_KEYS",
    "LayerSettings",
    "MergedSettings",
    "SettingsStore",
    "ensure_agenttools_dir",
    "default_user_dir",
    "default_managed_path",
]

LAYERS = ("managed", "local", "project", "user")
WRITABLE_LAYERS = ("local", "project", "user")
RULE_KEYS = ("allow", "ask", "deny")
_UNCHANGED = object()  # a change that needs no write
_GITIGNORE = "# written by jupyter_agenttools: personal, not shared\nsettings.local.json\n" \
             "audit.jsonl\n*.lock\n"


def default_user_dir() -> Path:
    env = os.environ.get("AGENTTOOLS_USER_DIR")
    if env:
        return Path(env).expanduser()
    from jupyter_core.paths import jupyter_config_dir

    return Path(jupyter_config_dir()) / "agenttools"


def default_managed_path() -> Path:
    env = os.environ.get("AGENTTOOLS_MANAGED_SETTINGS")
    return Path(env).expanduser() if env else Path("/etc/agenttools/managed-settings.json")


def ensure_agenttools_dir(directory: str | os.PathLike[str]) -> Path:
    """Create ``directory``; a ``.agenttools`` folder also gets a .gitignore for the personal
    files (local settings, audit log, lock files)."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    if d.name == ".agenttools":
        try:
            with open(d / ".gitignore", "x", encoding="utf-8") as f:
                f.write(_GITIGNORE)
        except FileExistsError:
            pass
    return d


@dataclass
class LayerSettings:
    layer: str
    path: Path
    exists: bool = False
    mode: PermissionMode | None = None
    rules: list[PermissionRule] = field(default_factory=list)
    additional_directories: list[str] = field(default_factory=list)
    #: the checked ``sandbox`` object (backends/sandbox_settings.py), {} when absent
    sandbox: dict[str, Any] = field(default_factory=dict)


@dataclass
class MergedSettings:
    mode: PermissionMode | None = None
    #: the file the mode comes from
    mode_source: str | None = None
    rules: list[PermissionRule] = field(default_factory=list)
    additional_directories: tuple[str, ...] = ()
    by_layer: dict[str, LayerSettings] = field(default_factory=dict)

    @property
    def sandbox_layers(self) -> dict[str, dict[str, Any]]:
        """Each layer's ``sandbox`` object (merged by sandbox_settings.merge_sandbox_layers,
        which knows which layers may loosen it)."""
        return {name: ls.sandbox for name, ls in self.by_layer.items() if ls.sandbox}

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": None if self.mode is None else self.mode.value,
            "mode_source": self.mode_source,
            "rules": [r.to_dict() for r in self.rules],
            "additional_directories": list(self.additional_directories),
            "files": {name: {"path": str(ls.path), "exists": ls.exists}
                      for name, ls in self.by_layer.items()},
        }


def _line_of(text: str | None, needle: str) -> int | None:
    if not text:
        return None
    i = text.find(needle)
    return None if i < 0 else text.count("\n", 0, i) + 1


def _read_raw(path: Path) -> tuple[dict[str, Any], str | None]:
    """The file's JSON object and text; ``({}, None)`` when it does not exist."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None
    except UnicodeDecodeError as exc:
        raise SettingsError(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise SettingsError(path, f"cannot read it: {exc.strerror or exc}") from None
    if not text.strip():
        return {}, text
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingsError(path, f"invalid JSON: {exc.msg} (column {exc.colno})",
                            line=exc.lineno) from None
    if not isinstance(data, dict):
        raise SettingsError(path, f"expected a JSON object at the top, "
                                  f"got {type(data).__name__}", line=1)
    return data, text


def _parse_layer(layer: str, path: Path, data: dict[str, Any], text: str | None,
                 base_dir: Path) -> LayerSettings:
    """Validate a settings object; every problem is a SettingsError with file and line."""
    ls = LayerSettings(layer, path, exists=text is not None)
    try:
        ls.sandbox = parse_sandbox_settings(data.get("sandbox"), "'sandbox'")
    except SandboxSettingsError as exc:
        raise SettingsError(path, str(exc), _line_of(text, '"sandbox"')) from None
    perms = data.get("permissions", {})
    if perms is None:
        return ls
    if not isinstance(perms, dict):
        raise SettingsError(path, f"'permissions' must be an object, got "
                                  f"{type(perms).__name__}", _line_of(text, '"permissions"'))
    if perms.get("mode") is not None:
        try:
            ls.mode = PermissionMode.parse(perms["mode"])
        except ValueError as exc:
            raise SettingsError(path, f"'mode': {exc}", _line_of(text, '"mode"')) from None
    source = str(path)
    for key in RULE_KEYS:
        entries = perms.get(key, [])
        if entries is None:
            continue
        if not isinstance(entries, list):
            raise SettingsError(path, f"'{key}' must be a list of rules, got "
                                      f"{type(entries).__name__}", _line_of(text, f'"{key}"'))
        for entry in entries:
            try:
                ls.rules.append(load_rule(entry, key, source))
            except RuleSyntaxError as exc:
                needle = entry.get("rule") if isinstance(entry, dict) else entry
                line = _line_of(text, json.dumps(needle, ensure_ascii=False)) \
                    if isinstance(needle, str) else _line_of(text, f'"{key}"')
                raise SettingsError(path, f"'{key}': {exc}", line) from None
    dirs = perms.get("additional_directories", [])
    if dirs is None:
        dirs = []
    if not isinstance(dirs, list) or not all(isinstance(d, str) and d.strip() for d in dirs):
        raise SettingsError(path, "'additional_directories' must be a list of directory paths",
                            _line_of(text, '"additional_directories"'))
    for d in dirs:
        p = Path(os.path.expanduser(d))
        ls.additional_directories.append(str(p if p.is_absolute() else base_dir / p))
    return ls


def _atomic_write(path: Path, data: dict[str, Any]) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.chmod(tmp, os.stat(path).st_mode & 0o777)
        except FileNotFoundError:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


class SettingsStore:
    """The four settings files of a project, merged; cheap to re-check for changes."""

    def __init__(self, project_root: str | os.PathLike[str], *,
                 user_dir: str | os.PathLike[str] | None = None,
                 managed_path: str | os.PathLike[str] | None = None):
        self.project_root = Path(project_root).expanduser().resolve()
        self.user_dir = Path(user_dir).expanduser() if user_dir is not None \
            else default_user_dir()
        self._paths = {
            "managed": Path(managed_path).expanduser() if managed_path is not None
            else default_managed_path(),
            "local": self.project_root / ".agenttools" / "settings.local.json",
            "project": self.project_root / ".agenttools" / "settings.json",
            "user": self.user_dir / "settings.json",
        }
        self._path_list = [self._paths[layer] for layer in LAYERS]
        self._signature: tuple[Any, ...] | None = None
        self._merged: MergedSettings | None = None

    def path(self, layer: str) -> Path:
        try:
            return self._paths[layer]
        except KeyError:
            raise SettingsError(layer, f"unknown layer; expected one of {', '.join(LAYERS)}") \
                from None

    @property
    def audit_path(self) -> Path:
        return self.project_root / ".agenttools" / "audit.jsonl"

    # --- reading ---------------------------------------------------------------------------

    def _stat_signature(self) -> tuple[Any, ...]:
        sig = []
        for p in self._path_list:
            try:
                st = os.stat(p)
            except OSError:
                sig.append(None)
            else:
                sig.append((st.st_mtime_ns, st.st_size, st.st_ino))
        return tuple(sig)

    def load(self) -> MergedSettings:
        """Read and merge every layer (a missing file is an empty layer)."""
        sig = self._stat_signature()  # before reading: a change while reading is seen next time
        merged = MergedSettings()
        dirs: dict[str, None] = {}
        for layer in LAYERS:
            path = self._paths[layer]
            data, text = _read_raw(path)
            base = self.user_dir if layer == "user" else self.project_root
            ls = _parse_layer(layer, path, data, text, base)
            merged.by_layer[layer] = ls
            if merged.mode is None and ls.mode is not None:
                merged.mode, merged.mode_source = ls.mode, str(path)
            merged.rules.extend(ls.rules)
            for d in ls.additional_directories:
                dirs.setdefault(d, None)
        merged.additional_directories = tuple(dirs)
        self._merged, self._signature = merged, sig
        return merged

    @property
    def merged(self) -> MergedSettings:
        """The last loaded settings (loading them the first time)."""
        if self._merged is None:
            return self.load()
        return self._merged

    def reload_if_changed(self) -> bool:
        """Reload when any of the four files changed on disk (a stat each); True if reloaded.
        A corrupt file raises SettingsError, and is retried on the next call."""
        if self._merged is not None and self._stat_signature() == self._signature:
            return False
        self.load()
        return True

    # --- writing ---------------------------------------------------------------------------

    def _modify(self, layer: str, change: Callable[[dict[str, Any], LayerSettings], Any]
                ) -> Any:
        path = self.path(layer)
        if layer not in WRITABLE_LAYERS:
            raise SettingsError(path, f"the {layer} layer is read-only")
        if layer == "user":
            path.parent.mkdir(parents=True, exist_ok=True)
        else:
            ensure_agenttools_dir(path.parent)
        from filelock import FileLock

        lock = FileLock(str(path) + ".lock")
        with lock.acquire(poll_interval=0.002):  # the default 50 ms makes writers crawl
            data, text = _read_raw(path)
            base = self.user_dir if layer == "user" else self.project_root
            # never rewrite a file we can't parse
            parsed = _parse_layer(layer, path, data, text, base)
            perms = data.setdefault("permissions", {})
            if perms is None:
                perms = data["permissions"] = {}
            result = change(perms, parsed)
            if result is not _UNCHANGED:
                _atomic_write(path, data)
        return None if result is _UNCHANGED else result

    def add_rule(self, layer: str, behavior: PermissionBehavior | str, entry: Any
                 ) -> PermissionRule:
        """Append a rule (a string, a PermissionRule or a ``{"rule", "examples", …}`` object)
        to a layer; an identical rule already there is not duplicated."""
        behavior = PermissionBehavior.parse(behavior)
        if behavior is PermissionBehavior.PASSTHROUGH:
            raise SettingsError(self.path(layer), "a rule's behavior is allow, ask or deny")
        if isinstance(entry, PermissionRule):
            stored: Any = entry.text
            if entry.examples or entry.counter_examples:
                stored = {"rule": entry.text, "examples": list(entry.examples),
                          "counter_examples": list(entry.counter_examples)}
        else:
            stored = entry
        rule = load_rule(stored, behavior, str(self.path(layer)))

        def change(perms: dict[str, Any], parsed: LayerSettings) -> Any:
            if any(r.behavior is behavior and r.text == rule.text for r in parsed.rules):
                return _UNCHANGED
            entries = perms.get(behavior.value)
            if entries is None:
                entries = perms[behavior.value] = []
            entries.append(stored)
            return rule

        return self._modify(layer, change) or rule

    def remove_rule(self, layer: str, behavior: PermissionBehavior | str,
                    rule_text: str | PermissionRule) -> bool:
        """Remove a rule by its text (``Bash(git push:*)``); False when it was not there."""
        behavior = PermissionBehavior.parse(behavior)
        text = rule_text.text if isinstance(rule_text, PermissionRule) \
            else PermissionRule.parse(rule_text).text

        def change(perms: dict[str, Any], parsed: LayerSettings) -> Any:
            entries = perms.get(behavior.value) or []
            kept = [e for e in entries if load_rule(e, behavior).text != text]
            if len(kept) == len(entries):
                return _UNCHANGED
            perms[behavior.value] = kept
            return True

        return bool(self._modify(layer, change))

    def set_mode(self, layer: str, mode: PermissionMode | str | None) -> None:
        """Set (or, with None, clear) a layer's mode."""
        value = None if mode is None else PermissionMode.parse(mode).value

        def change(perms: dict[str, Any], parsed: LayerSettings) -> None:
            if value is None:
                perms.pop("mode", None)
            else:
                perms["mode"] = value

        self._modify(layer, change)
