"""What a kernel state file may hold, checked field by field before the server uses it.

A state file is written by a kernel (``state.write_state``), but the server reads it as input
from outside: an older or newer kernel, a half-edited file, a user's own script. A field of the
wrong type used to reach ``SettingsStore(user_dir=5)`` or a dict key made of a list, and
``GET /agenttools/kernels`` answered 500 for every kernel. So the server keeps only what it
knows (an allow-list), of the type it expects:

- the fields that choose which settings files the panel edits for that kernel (``project_dir``,
  ``user_dir``, ``managed_path``) are not guessed: a bad one skips the whole file (the kernel
  is listed without an agent, as before ``%load_ext``);
- a display field of the wrong type takes its empty value (the panel's cards read every one
  of them), a bad entry of a list is left out, an optional field (``usage``) is dropped;
- a field this server does not know is dropped (``trust_pending`` and ``settings_error`` are the
  server's own answers: a file must not supply them).

Every change is logged (a warning naming the kernel id and the field), once per kernel and
problem: the panel polls the listing every few seconds.
"""

from __future__ import annotations

import logging
import math
from typing import Any, Callable

__all__ = ["check_state", "warn_once"]

log = logging.getLogger(__name__)

Check = Callable[[Any], bool]

_logged: set[tuple[str, str]] = set()


def warn_once(kid: str, message: str) -> None:
    if (kid, message) in _logged:
        return
    if len(_logged) > 1024:  # kernels come and go: forget old ones rather than grow
        _logged.clear()
    _logged.add((kid, message))
    log.warning("agenttools: kernel %s state file: %s", kid, message)


def _text(value: Any) -> bool:
    return isinstance(value, str) and "\x00" not in value


def _path(value: Any) -> bool:
    return _text(value) and value != ""


def _flag(value: Any) -> bool:
    return isinstance(value, bool)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _number(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def _record(fields: dict[str, Check]) -> Check:
    def check(value: Any) -> bool:
        return isinstance(value, dict) and all(
            name in value and ok(value[name]) for name, ok in fields.items())
    return check


def _usage_numbers(value: Any) -> bool:
    return _record({"prompt_tokens": _count, "completion_tokens": _count,
                    "total_tokens": _count, "model_calls": _count})(value) and (
        value.get("cost_usd") is None or _number(value.get("cost_usd")))


def _usage(value: Any) -> bool:
    return (isinstance(value, dict) and _usage_numbers(value.get("total"))
            and (value.get("last_run") is None or _usage_numbers(value.get("last_run"))))


_RULE = _record({"behavior": _text, "rule": _text})
_QUESTION = _record({"id": _text, "tool": _text, "title": _text, "why": _text,
                     "safety": _flag, "run": _text})

#: Fields that name the kernel's settings files: a bad one skips the file. ``project_dir`` is
#: required; the other two are absent in files of kernels that use the default locations.
_LOCATIONS: dict[str, bool] = {"project_dir": True, "user_dir": False, "managed_path": False}

#: Display fields: (check, the value a bad or missing one takes).
_DISPLAY: dict[str, tuple[Check, Any]] = {
    "pid": (_count, 0),
    "updated": (_number, 0),
    "cwd": (_text, ""),
    "mode": (_text, ""),
    "mode_source": (_text, ""),
    "settings_mode": (_text, ""),
    "session_override": (_flag, False),
    "model": (_text, ""),
    "conversation": (_record({"prompts": _count}), {"prompts": 0}),
    "runs": (_record({"active": _count, "total": _count}), {"active": 0, "total": 0}),
}

#: Lists whose bad entries are left out.
_LISTS: dict[str, Check] = {"session_rules": _RULE, "pending": _QUESTION}

#: Optional fields (added by ``state.STATE_PROVIDERS``): dropped when bad.
_OPTIONAL: dict[str, Check] = {"usage": _usage}

KNOWN = frozenset([*_LOCATIONS, *_DISPLAY, *_LISTS, *_OPTIONAL])


def check_state(kid: str, data: Any) -> dict[str, Any] | None:
    """``data`` as read from kernel ``kid``'s state file, with only known fields of the right
    type; None when the file cannot be used at all."""
    if not isinstance(data, dict):
        warn_once(kid, "skipped: not a JSON object")
        return None
    for name, required in _LOCATIONS.items():
        if (name in data or required) and not _path(data.get(name)):
            warn_once(kid, f"skipped: {name} is {_shown(data.get(name))}, not a path")
            return None
    out: dict[str, Any] = {name: data[name] for name in _LOCATIONS if name in data}
    for name, (ok, empty) in _DISPLAY.items():
        if name not in data:
            out[name] = empty
        elif ok(data[name]):
            out[name] = data[name]
        else:
            warn_once(kid, f"{name} is {_shown(data[name])}: shown as {empty!r}")
            out[name] = empty
    for name, ok in _LISTS.items():
        items = data.get(name, [])
        if not isinstance(items, list):
            warn_once(kid, f"{name} is {_shown(items)}: shown empty")
            items = []
        kept = [item for item in items if ok(item)]
        if len(kept) != len(items):
            warn_once(kid, f"{name}: {len(items) - len(kept)} malformed entries left out")
        out[name] = kept
    for name, ok in _OPTIONAL.items():
        if name in data:
            if ok(data[name]):
                out[name] = data[name]
            else:
                warn_once(kid, f"{name} is malformed: dropped")
    unknown = sorted(set(data) - KNOWN)
    if unknown:
        warn_once(kid, f"fields not known here, dropped: {', '.join(unknown[:10])}")
    return out


def _shown(value: Any) -> str:
    """A short description of a bad value for the log (never the whole of a huge one)."""
    text = repr(value)
    return f"{type(value).__name__} {text[:40]}{'…' if len(text) > 40 else ''}"
