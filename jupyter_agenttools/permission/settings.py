"""Layered permission settings (SPEC §5.4).

Layers, highest first: managed (read-only here), local (``<project>/.agenttools/
settings.local.json``, where "Always allow" writes, git-ignored), project
(``<project>/.agenttools/settings.json``) and user (``<jupyter config dir>/agenttools/
settings.json``). Scalars (``mode``): the highest layer that sets one wins. Rule lists merge;
a deny anywhere wins because the engine checks every deny rule first. Each rule's ``source`` is
its file.

Writes are read-modify-write under a file lock next to the file, then an atomic replace, so
concurrent writers lose nothing; a settings file that is a symlink has its target replaced (the
link stays), and temp files a killed writer left behind are removed by the next write. Every
file is checked against ``settings.schema.json`` on load (``settings_file.py``): a corrupt or
invalid file — an unknown key included — is a SettingsError naming the file, line and key, the
engine refuses to decide until it is fixed, and a write never replaces a file it could not
parse nor writes one the next load would refuse.
"""

from __future__ import annotations

import contextlib
import copy
import os
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..errors import RuleSyntaxError, SettingsError
from ..strict_json import line_of
from .locations import default_managed_path, default_user_dir
from .lockdown import Lockdown
from .rules import load_rule
from .settings_file import parse as parse_file
from .settings_file import read_text, serialize
from .trust import (
    TRUST_LAYERS,
    TrustState,
    forget_trust,
    hold_back,
    record_trust,
    trust_digest,
    trust_state,
    trusted_parts,
)
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
_GITIGNORE_HEADER = "# written by jupyter_agenttools: personal, not shared"
_GITIGNORE_LINES = ("settings.local.json", "audit.jsonl", "audit.jsonl.*", "*.lock", "*.tmp")


def ensure_agenttools_dir(directory: str | os.PathLike[str]) -> Path:
    """Create ``directory``; a ``.agenttools`` folder also gets a .gitignore for the personal
    files (local settings, audit log, lock and temp files). One we wrote earlier gets the
    lines added since."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    if d.name == ".agenttools":
        ignore = d / ".gitignore"
        try:
            with open(ignore, "x", encoding="utf-8") as f:
                f.write("\n".join((_GITIGNORE_HEADER, *_GITIGNORE_LINES)) + "\n")
        except FileExistsError:
            _update_gitignore(ignore)
    return d


def _update_gitignore(ignore: Path) -> None:
    try:
        if not stat.S_ISREG(os.lstat(ignore).st_mode) or os.path.getsize(ignore) > 65536:
            return  # not the small file we wrote: leave it alone
        lines = ignore.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return
    if not lines or lines[0] != _GITIGNORE_HEADER:
        return  # the person's own file
    missing = [line for line in _GITIGNORE_LINES if line not in lines]
    if missing:
        with contextlib.suppress(OSError), open(ignore, "a", encoding="utf-8") as f:
            f.write("\n".join(missing) + "\n")


@dataclass
class LayerSettings:
    layer: str
    path: Path
    exists: bool = False
    mode: PermissionMode | None = None
    rules: list[PermissionRule] = field(default_factory=list)
    additional_directories: list[str] = field(default_factory=list)
    #: the file's whole JSON object, validated against the schema (``sandbox``,
    #: ``trusted_projects``, the managed layer's lock-down keys…)
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class MergedSettings:
    mode: PermissionMode | None = None
    #: the file the mode comes from
    mode_source: str | None = None
    rules: list[PermissionRule] = field(default_factory=list)
    additional_directories: tuple[str, ...] = ()
    by_layer: dict[str, LayerSettings] = field(default_factory=dict)
    #: what the files say but does not count, each with the reason (trust.py, lockdown.py)
    ignored: list[dict[str, Any]] = field(default_factory=list)
    trust: TrustState | None = None
    lockdown: Lockdown = field(default_factory=Lockdown)

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": None if self.mode is None else self.mode.value,
            "mode_source": self.mode_source,
            "rules": [r.to_dict() for r in self.rules],
            "additional_directories": list(self.additional_directories),
            "files": {name: {"path": str(ls.path), "exists": ls.exists}
                      for name, ls in self.by_layer.items()},
            "ignored": list(self.ignored),
            "trust": None if self.trust is None else self.trust.to_dict(),
            "lockdown": self.lockdown.to_dict(),
        }


def _read_raw(path: Path) -> tuple[dict[str, Any], str | None]:
    """The file's validated JSON object and text; ``({}, None)`` when it does not exist."""
    text = read_text(path)
    return parse_file(path, text), text


def _parse_layer(layer: str, path: Path, data: dict[str, Any], text: str | None,
                 base_dir: Path) -> LayerSettings:
    """A layer from a file's object (already valid against the schema); a rule that does not
    parse is a SettingsError with file and line."""
    ls = LayerSettings(layer, path, exists=text is not None, data=data)
    perms = data.get("permissions", {})
    if "mode" in perms:
        ls.mode = PermissionMode(perms["mode"])
    source = str(path)
    for key in RULE_KEYS:
        for index, entry in enumerate(perms.get(key, [])):
            try:
                ls.rules.append(load_rule(entry, key, source))
            except RuleSyntaxError as exc:
                where = ["permissions", key, index]
                raise SettingsError(path, f"'{key}': {exc}", line_of(text, where),
                                    f"permissions.{key}[{index}]") from None
    for d in perms.get("additional_directories", []):
        p = Path(os.path.expanduser(d))
        ls.additional_directories.append(str(p if p.is_absolute() else base_dir / p))
    return ls


def _write_target(path: Path) -> Path:
    """The file a write replaces: a symlink's final target (the link itself stays)."""
    return Path(os.path.realpath(path)) if os.path.islink(path) else path


def _check_lock_file(lock: Path, settings_path: Path) -> None:
    """A lock file a cloned repo ships as a symlink or FIFO is refused: opening it to lock
    would follow the link (older filelock versions truncate the target)."""
    try:
        mode = os.lstat(lock).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        kind = "a symlink" if stat.S_ISLNK(mode) else "not a regular file"
        raise SettingsError(settings_path, f"its lock file {lock} is {kind}; remove it and "
                                           f"try again")


def _remove_stale_temps(target: Path) -> None:
    """Temp files of writers killed between write and rename (we hold the lock: no live writer
    has one)."""
    prefix = target.name + "."
    with contextlib.suppress(OSError), os.scandir(target.parent) as entries:
        for entry in entries:
            if entry.name.startswith(prefix) and entry.name.endswith(".tmp"):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def _atomic_write(path: Path, target: Path, data: dict[str, Any]) -> None:
    text = serialize(path, data)
    fd, tmp = tempfile.mkstemp(prefix=target.name + ".", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.chmod(tmp, os.stat(target).st_mode & 0o777)
        except FileNotFoundError:
            os.chmod(tmp, 0o644)
        os.replace(tmp, target)
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
        sig: list[Any] = []
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
            merged.by_layer[layer] = _parse_layer(layer, path, data, text, base)
        # trust (the project's own layers) and the managed lock-down decide what counts
        merged.lockdown = Lockdown.from_data(merged.by_layer["managed"].data,
                                             str(self._paths["managed"]))
        merged.trust = self._trust_state(merged.by_layer)
        for layer in LAYERS:
            ls = merged.by_layer[layer]
            rules, mode, extra, ignored = hold_back(layer, ls, merged.trust, merged.lockdown)
            merged.ignored.extend(ignored)
            if merged.mode is None and mode is not None:
                merged.mode, merged.mode_source = mode, str(ls.path)
            merged.rules.extend(rules)
            for d in extra:
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

    def _trust_state(self, layers: dict[str, LayerSettings]) -> TrustState:
        return trust_state(self.project_root, {name: layers[name].data for name in TRUST_LAYERS},
                           layers["user"].data, str(self._paths["user"]))

    def current_trust(self) -> TrustState:
        """The project's trust as the files on disk say now."""
        layers = {}
        for layer in (*TRUST_LAYERS, "user"):
            data, text = _read_raw(self._paths[layer])
            layers[layer] = LayerSettings(layer, self._paths[layer], text is not None, data=data)
        return self._trust_state(layers)

    def set_trust(self, trusted: bool = True, digest: str | None = None) -> TrustState:
        """Trust the project's settings as they are now (or ``digest``), recorded in the user
        layer; ``trusted=False`` forgets the folder."""
        state = self.current_trust()

        def change(data: dict[str, Any], parsed: LayerSettings) -> Any:
            if trusted:
                record_trust(data, self.project_root, digest or state.digest, state.parts)
                return True
            return True if forget_trust(data, self.project_root) else _UNCHANGED

        self._modify("user", change, whole=True)
        return self.current_trust()

    def _modify(self, layer: str, change: Callable[[dict[str, Any], LayerSettings], Any],
                *, whole: bool = False) -> Any:
        return self._modify_file(layer, change, whole)

    def _keep_trust(self, layer: str, old: dict[str, Any], new: dict[str, Any]) -> None:
        """Before a project layer is replaced (its lock held): our own write for the user keeps
        a trusted folder trusted (trust.py). Lock order: the project file, then the user file."""
        other = next(name for name in TRUST_LAYERS if name != layer)
        other_data = _read_raw(self._paths[other])[0]
        user_data = _read_raw(self._paths["user"])[0]
        before = trust_state(self.project_root, {layer: old, other: other_data}, user_data)
        parts = trusted_parts({layer: new, other: other_data})
        after = trust_digest({layer: new, other: other_data})
        if before.trusted and after != before.digest:
            self._modify_file("user", lambda data, _parsed: record_trust(
                data, self.project_root, after, parts), True)

    def _modify_file(self, layer: str, change: Callable[[dict[str, Any], LayerSettings], Any],
                     whole: bool) -> Any:
        path = self.path(layer)
        if layer not in WRITABLE_LAYERS:
            raise SettingsError(path, f"the {layer} layer is read-only")
        try:
            return self._modify_locked(layer, path, change, whole)
        except OSError as exc:  # a full or read-only disk: the file is as it was (atomic)
            raise SettingsError(path, f"cannot write it: {exc.strerror or exc}; it is "
                                      f"unchanged") from None

    def _modify_locked(self, layer: str, path: Path,
                       change: Callable[[dict[str, Any], LayerSettings], Any],
                       whole: bool) -> Any:
        if layer == "user":
            path.parent.mkdir(parents=True, exist_ok=True)
        else:
            ensure_agenttools_dir(path.parent)
        from filelock import FileLock

        target = _write_target(path)
        lock_path = Path(str(target) + ".lock")
        _check_lock_file(lock_path, path)
        lock = FileLock(str(lock_path))
        with lock.acquire(poll_interval=0.002):  # the default 50 ms makes writers crawl
            _remove_stale_temps(target)
            data, text = _read_raw(path)
            base = self.user_dir if layer == "user" else self.project_root
            # never rewrite a file we can't parse
            parsed = _parse_layer(layer, path, data, text, base)
            had_permissions = "permissions" in data
            perms = data.setdefault("permissions", {})
            old = copy.deepcopy(data) if layer in TRUST_LAYERS else None
            result = change(data if whole else perms, parsed)
            if result is not _UNCHANGED:
                if not perms and not had_permissions:
                    del data["permissions"]
                if old is not None:
                    serialize(path, data)  # refused first (NaN, a lone surrogate…), then trust
                    self._keep_trust(layer, old, data)
                _atomic_write(path, target, data)
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
