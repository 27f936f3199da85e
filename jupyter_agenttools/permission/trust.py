"""Workspace trust: what a project's own settings files may do before the user trusts them.

A project's settings layers (``.agenttools/settings.json`` and ``settings.local.json``) come
with the folder — a cloned repository, an unpacked archive, a shared drive. They may always make
the agent *stricter* (their ``deny`` and ``ask`` rules count at once); what makes it more
permissive — their ``allow`` rules, ``mode`` and ``additional_directories`` — counts only once
the user trusts that folder:

- ``%agent trust``, ``agenttools trust [DIR]``, ``POST /agenttools/trust`` record the folder in
  the *user* settings layer: ``"trusted_projects": {"<abs dir>": {"sha256": …,
  "trusted_at": …}}`` (honoured in the user layer only);
- the hash covers exactly the trust-needing parts of both files (canonical JSON of their allow
  rules, mode and additional directories), so a new deny rule changes nothing, while a new allow
  rule, mode or directory — an edit by hand, a ``git pull`` — asks for trust again;
- our own writes keep trust: when this product writes a project layer for the user ("Always
  allow", ``%agent rule --layer``, ``agenttools settings add``) and the folder was trusted before
  the write (or its files needed no trust at all, e.g. a fresh project), the new hash is trusted
  at once — recorded *before* the file is replaced, under the file's lock, with the previous
  hashes kept in ``also_sha256``, so a writer killed between the two writes leaves the folder
  trusted either way. An "Always allow" click never needs a re-trust, while a file shipped by
  someone else still does — even after the user adds a rule to it;
- with the hash, the entry keeps a copy of what was trusted (``"trusted": {"project": {…},
  "local": {…}}``, the same parts): when the files change, the user is shown what changed (a
  rule added or removed, the mode from → to) before trusting again. It lives in the user's own
  file, never in the project, and is only shown: the hash decides, and a copy that does not
  hash to the trusted ``sha256`` (edited by hand) is not shown at all.

What is held back is never dropped silently: ``MergedSettings.ignored`` lists each part with the
reason, shown by ``agenttools settings``, ``%agent rules`` and the REST settings answer.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:
    from .lockdown import Lockdown
    from .types import PermissionMode, PermissionRule

__all__ = [
    "TRUST_KEY",
    "TRUST_LAYERS",
    "TrustState",
    "changes_summary",
    "trust_changes",
    "trust_digest",
    "trusted_parts",
    "trust_state",
    "record_trust",
    "forget_trust",
    "NO_TRUST_NEEDED",
    "hold_back",
]

TRUST_KEY = "trusted_projects"
#: the layers that come with a project folder
TRUST_LAYERS = ("project", "local")
#: what needs trust in those layers
_TRUSTED_PARTS = ("allow", "mode", "additional_directories")


def _parts(data: Mapping[str, Any] | None) -> dict[str, Any]:
    perms = (data or {}).get("permissions") or {}
    return {key: perms[key] for key in _TRUSTED_PARTS if perms.get(key) not in (None, [])}


def trusted_parts(layer_data: Mapping[str, Mapping[str, Any] | None]) -> dict[str, Any]:
    """The trust-needing parts of the project layers (``{"project": data, "local": data}``,
    each a settings file's JSON object or None): ``{"project": {"allow": […], "mode": …},
    "local": {…}}``, what the hash covers and the user trust keeps a copy of."""
    return {layer: _parts(layer_data.get(layer)) for layer in TRUST_LAYERS}


def _parts_digest(parts: Mapping[str, Any]) -> str:
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def trust_digest(layer_data: Mapping[str, Mapping[str, Any] | None]) -> str:
    """sha256 of the trust-needing parts of the project layers (``{"project": data, "local":
    data}``, each a settings file's JSON object or None)."""
    return _parts_digest(trusted_parts(layer_data))


#: the digest of project files that hold nothing needing trust
NO_TRUST_NEEDED = trust_digest({})


def folder_key(project_root: str | os.PathLike[str]) -> str:
    """How a folder is named in ``trusted_projects``: absolute, symlinks resolved."""
    return os.path.realpath(os.fspath(project_root))


@dataclass
class TrustState:
    """Whether a project's settings are trusted, and why."""

    project: str
    digest: str
    #: the digest the user trusted for this folder (None: never trusted)
    trusted_digest: str | None = None
    trusted_at: str | None = None
    #: the user file the trust is recorded in
    source: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: the parts as they are now, and the copy of the parts trusted (None: no copy that
    #: hashes to ``trusted_digest``, e.g. trusted by an earlier version)
    parts: dict[str, Any] = field(default_factory=dict)
    trusted_copy: dict[str, Any] | None = None

    @property
    def needed(self) -> bool:
        """Do the project's files hold anything that needs trust?"""
        return self.digest != NO_TRUST_NEEDED

    @property
    def trusted(self) -> bool:
        return not self.needed or self.trusted_digest == self.digest

    @property
    def changed(self) -> bool:
        """Trusted once, but the files changed since."""
        return self.trusted_digest is not None and self.trusted_digest != self.digest

    def changes(self) -> list[dict[str, Any]] | None:
        """What changed since the folder was trusted (``trust_changes``): [] when nothing did,
        None when it changed but the trusted content is not known."""
        if not self.changed:
            return []
        if self.trusted_copy is None:
            return None
        return trust_changes(self.trusted_copy, self.parts)

    def to_dict(self) -> dict[str, Any]:
        return {"project": self.project, "trusted": self.trusted, "needed": self.needed,
                "changed": self.changed, "sha256": self.digest,
                "trusted_sha256": self.trusted_digest, "trusted_at": self.trusted_at,
                "source": self.source, "changes": self.changes()}

    def explain(self) -> str:
        if not self.needed:
            return "the project's settings need no trust (no allow rules, mode or directories)"
        if self.trusted:
            return f"trusted on {self.trusted_at or 'an earlier day'}"
        if self.changed:
            return ("the project's settings changed since you trusted them: their allow rules, "
                    "mode and additional directories are ignored until you trust the folder "
                    "again (%agent trust, agenttools trust)")
        return ("the project's settings are not trusted yet: their allow rules, mode and "
                "additional directories are ignored until you trust the folder (%agent trust, "
                "agenttools trust); their deny and ask rules apply")


def trust_state(project_root: str | os.PathLike[str],
                layer_data: Mapping[str, Mapping[str, Any] | None],
                user_data: Mapping[str, Any] | None, user_source: str | None = None
                ) -> TrustState:
    """The trust of ``project_root`` given its layers' data and the user layer's data."""
    key = folder_key(project_root)
    parts = trusted_parts(layer_data)
    state = TrustState(key, _parts_digest(parts), source=user_source, parts=parts)
    entry = ((user_data or {}).get(TRUST_KEY) or {}).get(key)
    if isinstance(entry, Mapping):
        state.trusted_digest = entry.get("sha256")
        state.trusted_at = entry.get("trusted_at")
        if state.digest in (entry.get("also_sha256") or ()):
            state.trusted_digest = state.digest  # an earlier trusted content, or our own write
        copy = entry.get("trusted")
        # shown only if it is what the hash says was trusted (not a copy edited by hand)
        if isinstance(copy, Mapping) and _parts_digest(copy) == entry.get("sha256"):
            state.trusted_copy = dict(copy)
    return state


MAX_PREVIOUS = 16  # earlier trusted hashes kept per folder


def record_trust(user_data: dict[str, Any], project_root: str | os.PathLike[str],
                 digest: str, parts: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Record ``digest`` as trusted for the folder in a user layer's data (in place); the hash
    trusted before stays trusted (``also_sha256``, the last MAX_PREVIOUS). ``parts``
    (``trusted_parts`` of the files) is kept with it when it is what ``digest`` covers, to show
    later what changed."""
    entries = user_data.get(TRUST_KEY)
    if not isinstance(entries, dict):
        entries = user_data[TRUST_KEY] = {}
    key = folder_key(project_root)
    found = entries.get(key)
    old: dict[str, Any] = found if isinstance(found, dict) else {}
    previous = [d for d in [old.get("sha256"), *(old.get("also_sha256") or [])]
                if isinstance(d, str) and d != digest]
    entry: dict[str, Any] = {
        "sha256": digest,
        "trusted_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    if previous:
        entry["also_sha256"] = list(dict.fromkeys(previous))[:MAX_PREVIOUS]
    if parts is not None and _parts_digest(parts) == digest:
        entry["trusted"] = json.loads(json.dumps(parts))  # a copy, not the caller's lists
    entries[key] = entry
    return entry


#: how the files of the project layers are named to the user
LAYER_FILES = {"project": ".agenttools/settings.json", "local": ".agenttools/settings.local.json"}


def _rule_text(rule: Any) -> str:
    if isinstance(rule, Mapping):
        return str(rule.get("rule", json.dumps(rule, sort_keys=True)))
    return str(rule)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _list(parts: Mapping[str, Any], key: str) -> list[Any]:
    value = parts.get(key)
    return list(value) if isinstance(value, list) else []


def changes_summary(changes: list[dict[str, Any]] | None, limit: int = 3) -> str:
    """``changes`` in one line: ``+ allow Bash(curl:*); mode default → bypass`` (the first
    ``limit``, then how many more); '' for None or none."""
    if not changes:
        return ""
    texts = [c["text"] for c in changes[:limit]]
    more = len(changes) - limit
    return "; ".join(texts) + (f"; and {more} more" if more > 0 else "")


def trust_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[dict[str, Any]]:
    """What changed from ``before`` to ``after`` (each ``trusted_parts``), one item per change
    a person reads: ``{"layer", "file", "key", "change", "value", "before", "after", "text"}``
    with ``change`` one of ``added``, ``removed``, ``changed`` (a mode, or a rule whose
    examples changed) and ``reordered`` (the same entries in another order: the hash changes,
    what counts does not)."""
    out: list[dict[str, Any]] = []
    for layer in TRUST_LAYERS:
        old, new = before.get(layer), after.get(layer)
        out += _layer_changes(layer, old if isinstance(old, Mapping) else {},
                              new if isinstance(new, Mapping) else {})
    return out


def _layer_changes(layer: str, old: Mapping[str, Any], new: Mapping[str, Any]
                   ) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def add(key: str, change: str, value: Any, text: str, was: Any = None, now: Any = None
            ) -> None:
        out.append({"layer": layer, "file": LAYER_FILES[layer], "key": key, "change": change,
                    "value": value, "before": was, "after": now, "text": text})

    for key, word in (("allow", "allow"), ("additional_directories", "directory")):
        was, now = _list(old, key), _list(new, key)
        was_keys, now_keys = [_canonical(v) for v in was], [_canonical(v) for v in now]
        removed = [v for v, k in zip(was, was_keys) if k not in now_keys]
        added = [v for v, k in zip(now, now_keys) if k not in was_keys]
        show = _rule_text if key == "allow" else str
        # the same rule text on both sides: its examples changed, not the rule
        changed = {show(v) for v in removed} & {show(v) for v in added}
        for value in removed:
            if show(value) not in changed:
                add(key, "removed", show(value), f"− {word} {show(value)}")
        for value in added:
            if show(value) in changed:
                add(key, "changed", show(value),
                    f"~ {word} {show(value)} (its examples changed)")
            else:
                add(key, "added", show(value), f"+ {word} {show(value)}")
        if not removed and not added and was_keys != now_keys:
            add(key, "reordered", None, f"the same {word} entries in another order")
    was_mode, now_mode = old.get("mode"), new.get("mode")
    if was_mode != now_mode:
        change = "added" if was_mode is None else "removed" if now_mode is None else "changed"
        add("mode", change, now_mode if now_mode is not None else was_mode,
            f"mode {was_mode or '(not set)'} → {now_mode or '(not set)'}", was_mode, now_mode)
    return out


def forget_trust(user_data: dict[str, Any], project_root: str | os.PathLike[str]) -> bool:
    entries = user_data.get(TRUST_KEY)
    if not isinstance(entries, dict):
        return False
    return entries.pop(folder_key(project_root), None) is not None


_LOCKDOWN_KEYS = ("disable_bypass_mode", "allowed_modes", "managed_rules_only")


def hold_back(layer: str, settings: Any, trust: TrustState | None, lockdown: "Lockdown"
              ) -> tuple[list["PermissionRule"], "PermissionMode | None", list[str],
                         list[dict[str, Any]]]:
    """What of a layer counts: ``(rules, mode, additional_directories, ignored)``, ``ignored``
    listing each part held back with the reason (an untrusted project layer; a lock-down key
    outside the managed layer; a mode or allow rule the lock-down forbids)."""
    source = str(settings.path)
    untrusted = layer in TRUST_LAYERS and trust is not None and not trust.trusted
    why_trust = trust.explain() if trust is not None else ""
    ignored: list[dict[str, Any]] = []

    def hold(key: str, value: Any, why: str) -> None:
        ignored.append({"layer": layer, "file": source, "key": key, "value": value, "why": why})

    rules = []
    for rule in settings.rules:
        if rule.behavior.value == "allow" and untrusted:
            hold("allow", rule.text, why_trust)
        elif not lockdown.keeps(rule):
            hold(rule.behavior.value, rule.text, "the managed settings allow only their own "
                                                 "allow rules (managed_rules_only)")
        else:
            rules.append(rule)
    mode = settings.mode
    if mode is not None:
        if untrusted:
            hold("mode", mode.value, why_trust)
            mode = None
        elif layer != "managed" and not lockdown.allows(mode):
            hold("mode", mode.value, lockdown.why_not(mode) or "")
            mode = None
    directories = list(settings.additional_directories)
    if directories and untrusted:
        for d in directories:
            hold("additional_directories", d, why_trust)
        directories = []
    perms = (settings.data or {}).get("permissions") or {}
    if layer != "managed":
        for key in _LOCKDOWN_KEYS:
            if key in perms:
                hold(key, perms[key], "only the managed settings file may set this")
    if layer != "user" and TRUST_KEY in (settings.data or {}):
        hold(TRUST_KEY, sorted((settings.data or {})[TRUST_KEY]),
             "only the user settings file may record trusted projects")
    return rules, mode, directories, ignored
