"""JSON as we accept it from files and requests: strict, bounded, and with positions.

``json.loads`` alone lets through what bit us: a key given twice (the last wins, so a second
``"deny": []`` erases the rules above it), ``NaN``/``Infinity`` (not JSON, and written back as
such), numbers that overflow to infinity (``1e999``), strings with a lone surrogate (they parse,
then fail when written as UTF-8), and nesting deep enough to raise RecursionError. ``loads``
refuses each of them with a JSONInputError that names the line and the key path.

``locate(text, path)`` finds where a key path (``["permissions", "deny", 2]``) sits in the text,
for messages that point at a line. It runs only on the error path.
"""

from __future__ import annotations

import json
import math
import re
from json.decoder import scanstring  # type: ignore[attr-defined]  # in CPython, not typeshed
from typing import Any, Iterable, Sequence

from .errors import JSONInputError

__all__ = ["MAX_DEPTH", "loads", "check_value", "locate", "line_of", "key_path"]

#: Nesting a settings file or a request body may have. Real ones stay under 10 levels (a rule's
#: examples hold a tool input); the bound keeps far from the interpreter's recursion limit.
MAX_DEPTH = 64

_SURROGATE = re.compile("[\ud800-\udfff]")
_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


class _Pairs(dict[str, Any]):
    """An object whose text repeated a key: remembers which (reported with its path)."""

    duplicates: list[str]


class _NonFinite:
    def __init__(self, text: str):
        self.text = text


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    duplicates = []
    for key, value in pairs:
        if key in obj:
            duplicates.append(key)
        obj[key] = value
    if duplicates:
        marked = _Pairs(obj)
        marked.duplicates = duplicates
        return marked
    return obj


def _float(text: str) -> Any:
    value = float(text)
    return value if math.isfinite(value) else _NonFinite(text)


def key_path(path: Iterable[Any]) -> str:
    """``["permissions", "deny", 2]`` → ``permissions.deny[2]`` (the form messages use)."""
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        elif _NAME.fullmatch(str(step)):
            out += ("." if out else "") + str(step)
        else:  # a folder name as key (trusted_projects): quoted, so dots and slashes read well
            out += f"[{json.dumps(str(step), ensure_ascii=False)}]"
    return out or "(top level)"


def loads(text: str | bytes, *, max_depth: int = MAX_DEPTH) -> Any:
    """Parse ``text``; raise JSONInputError for anything but plain, finite, bounded JSON."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JSONInputError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") \
                from None
    try:
        data = json.loads(text, object_pairs_hook=_object, parse_constant=_NonFinite,
                          parse_float=_float)
    except json.JSONDecodeError as exc:
        raise JSONInputError(f"invalid JSON: {exc.msg} (column {exc.colno})", exc.lineno,
                             exc.colno) from None
    except RecursionError:
        line = _line_at(text, _too_deep_at(text, max_depth))
        raise JSONInputError(f"nested deeper than {max_depth} levels", line) from None
    problem = _first_problem(data, max_depth)
    if problem is not None:
        message, path = problem
        line = None
        if message.startswith("nested deeper"):
            line = _line_at(text, _too_deep_at(text, max_depth))
        elif path:
            line = line_of(text, path)
        raise JSONInputError(message, line, key=key_path(path))
    return data


def check_value(value: Any, *, max_depth: int = MAX_DEPTH) -> None:
    """The same refusals for a value about to be written (a rule added from Python, an
    edited input): raise JSONInputError naming the key path."""
    problem = _first_problem(value, max_depth, python=True)
    if problem is not None:
        message, path = problem
        raise JSONInputError(message, key=key_path(path))


def _first_problem(data: Any, max_depth: int, python: bool = False
                   ) -> tuple[str, list[Any]] | None:
    """Walk ``data`` without recursion; the first refused thing and its key path."""
    stack: list[tuple[Any, list[Any], int]] = [(data, [], 1)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > max_depth:
                return f"nested deeper than {max_depth} levels", path
            if isinstance(value, _Pairs):
                key = value.duplicates[0]
                return (f"the key {key!r} appears twice in the same object; the second would "
                        f"silently replace the first: merge them into one"), [*path, key]
            if isinstance(value, dict):
                for key, item in value.items():
                    if not isinstance(key, str):
                        if python:
                            return f"a key must be a string, got {key!r}", path
                        continue
                    if _SURROGATE.search(key):
                        return f"the key {key!r} contains a lone surrogate (not text)", path
                    stack.append((item, [*path, key], depth + 1))
            else:
                stack.extend((item, [*path, i], depth + 1) for i, item in enumerate(value))
        elif isinstance(value, _NonFinite):
            return f"{value.text} is not a JSON number (use a finite number)", path
        elif isinstance(value, float):
            if not math.isfinite(value):
                return f"{value!r} is not a JSON number (use a finite number)", path
        elif isinstance(value, str):
            if _SURROGATE.search(value):
                return (f"the string {value[:60]!r} contains a lone surrogate: not valid "
                        f"Unicode text"), path
        elif python and not (value is None or isinstance(value, (bool, int))):
            if isinstance(value, tuple):
                stack.append((list(value), path, depth))
                continue
            return f"{type(value).__name__} has no JSON form", path
    return None


# --- positions (error path only) -----------------------------------------------------------


def _line_at(text: str, index: int | None) -> int | None:
    return None if index is None else text.count("\n", 0, index) + 1


def _too_deep_at(text: str, max_depth: int) -> int | None:
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > max_depth:
                return match.start()
        elif token in "]}":
            depth -= 1
    return None


def _skip(text: str, pos: int) -> int:
    return _WHITESPACE.match(text, pos).end()  # type: ignore[union-attr]


_DECODER = json.JSONDecoder()


def locate(text: str, path: Sequence[Any]) -> int | None:
    """The index in ``text`` of the key (for a key step) or element (for an index step) at
    ``path``; for a key given twice, the last one. None when the path is not there."""
    try:
        pos = _skip(text, 0)
        found = pos
        for step in path:
            if isinstance(step, str):
                if text[pos] != "{":
                    return None
                pos = _skip(text, pos + 1)
                value_at = None
                while text[pos] != "}":
                    key_at = pos
                    key, pos = scanstring(text, pos + 1)
                    pos = _skip(text, _skip(text, pos) + 1)  # past the colon
                    if key == step:
                        found, value_at = key_at, pos
                    pos = _skip(text, _DECODER.raw_decode(text, pos)[1])
                    if text[pos] == ",":
                        pos = _skip(text, pos + 1)
                if value_at is None:
                    return None
                pos = value_at
            else:
                if text[pos] != "[":
                    return None
                pos = _skip(text, pos + 1)
                for _ in range(step):
                    pos = _skip(text, _DECODER.raw_decode(text, pos)[1])
                    if text[pos] != ",":
                        return None
                    pos = _skip(text, pos + 1)
                if text[pos] == "]":
                    return None
                found = pos
        return found
    except (IndexError, ValueError, TypeError):
        return None


def line_of(text: str | None, path: Sequence[Any]) -> int | None:
    """The 1-based line of ``path`` in ``text`` (the deepest part of it that exists)."""
    if not text:
        return None
    for n in range(len(path), -1, -1):
        index = locate(text, path[:n])
        if index is not None:
            return _line_at(text, index)
    return None
