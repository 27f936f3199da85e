"""Reading and checking one settings file against the published schema.

``settings.schema.json`` (next to this module) is the one description of the format; editors
can use it through ``"$schema"``. A file is refused — a SettingsError naming the file, the line
and the key, with a "did you mean" — when it is not a plain file of bounded size (a FIFO or a
link to ``/dev/zero`` shipped in a cloned repo must not hang or exhaust the load), not strict
JSON (``strict_json``: duplicate keys, NaN, too deep, lone surrogates), or not valid against
the schema (an unknown key, a key in the wrong place, a wrong type). The engine then refuses to
decide until the file is fixed: a typo never drops that layer's deny or ask rules.

Validation cost. jsonschema's import takes 1.3–1.5 s here (rfc3987-syntax builds a grammar),
which neither ``%load_ext`` nor ``agenttools check`` (0.3 s in all) can pay. So every load is
checked by fastjsonschema (the same schema compiled to Python: 7 ms import, 7 ms compile once,
≈0.4 ms per file of 100 rules), and only a file that fails is run through jsonschema, whose
``iter_errors`` lists every problem with its path for the message. Both read the same schema
file, and a test holds them to the same verdicts.
"""

from __future__ import annotations

import difflib
import json
import os
import stat
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

from ..errors import JSONInputError, SettingsError
from ..strict_json import check_value, key_path, line_of, loads

__all__ = ["MAX_SETTINGS_BYTES", "SCHEMA_PATH", "schema", "read_text", "parse",
           "validate", "serialize"]

#: A settings file larger than this is refused (thousands of rules fit in a few hundred KB).
MAX_SETTINGS_BYTES = 4 * 1024 * 1024
SCHEMA_PATH = Path(__file__).with_name("settings.schema.json")
_MORE = 5  # further problems listed after the first one


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The published JSON schema of a settings file."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


# --- reading ---------------------------------------------------------------------------------


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _refuse_a_dangling_link(path: Path) -> None:
    """No file is an empty layer; a symbolic link (the file or a folder above it) to something
    that is not there is not: its deny rules or the managed lock-down would vanish without a
    word (a dotfiles checkout moved, a policy mount not mounted). SettingsError, as for a
    corrupt file: the engine decides nothing until it is fixed."""
    current = Path(os.path.abspath(path))
    while not os.path.lexists(current):
        if current.parent == current:
            return
        current = current.parent
    if os.path.islink(current) and not os.path.exists(current):
        try:
            target = os.readlink(current)
        except OSError:
            target = "?"
        where = "" if current == Path(os.path.abspath(path)) else f" ({current} in its path)"
        raise SettingsError(path, f"a symbolic link{where} to {target}, which does not exist; "
                                  f"restore its target or remove the link")


def read_text(path: Path) -> str | None:
    """The file's text, or None when there is no file. Anything but a regular file of at most
    MAX_SETTINGS_BYTES is a SettingsError; the open never blocks (O_NONBLOCK: a FIFO without
    a writer would wait forever) and the read is bounded (a link to /dev/zero never ends)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) \
        | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        _refuse_a_dangling_link(path)
        return None
    except OSError as exc:
        raise SettingsError(path, f"cannot read it: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SettingsError(path, f"{_kind(info.st_mode)}, not a regular file; a settings "
                                      f"file must be a plain JSON file")
        if info.st_size > MAX_SETTINGS_BYTES:
            raise SettingsError(path, f"{info.st_size} bytes, more than the "
                                      f"{MAX_SETTINGS_BYTES} a settings file may have")
        chunks, size = [], 0
        while size <= MAX_SETTINGS_BYTES:  # it may grow while we read
            chunk = os.read(fd, MAX_SETTINGS_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise SettingsError(path, f"cannot read it: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if size > MAX_SETTINGS_BYTES:
        raise SettingsError(path, f"more than the {MAX_SETTINGS_BYTES} bytes a settings file "
                                  f"may have")
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SettingsError(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})") \
            from None


def parse(path: Path, text: str | None) -> dict[str, Any]:
    """The file's validated JSON object (``{}`` for no file or an empty one)."""
    if text is None or not text.strip():
        return {}
    try:
        data = loads(text)
    except JSONInputError as exc:
        raise SettingsError(path, exc.problem, exc.line, exc.key) from None
    if not isinstance(data, dict):
        raise SettingsError(path, f"expected a JSON object at the top, got "
                                  f"{_type_name(data)}", 1)
    validate(path, data, text)
    return data


def serialize(path: Path, data: dict[str, Any]) -> str:
    """The text to write for ``data``, after the checks a load would make (so a write never
    produces a file the next load refuses)."""
    try:
        check_value(data)
    except JSONInputError as exc:
        raise SettingsError(path, f"refusing to write: {exc.problem}", key=exc.key) from None
    validate(path, data, None, writing=True)
    text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    if len(text.encode("utf-8")) > MAX_SETTINGS_BYTES:
        raise SettingsError(path, f"refusing to write: the file would have more than "
                                  f"{MAX_SETTINGS_BYTES} bytes")
    return text


# --- validation ------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _fast_validator() -> Any:
    try:
        import fastjsonschema
    except ImportError:  # jsonschema alone is slower to import, not less strict
        return None
    compiled = _compiled_validator()
    return compiled if compiled is not None else fastjsonschema.compile(schema())


#: ``schema()`` compiled ahead of time by fastjsonschema (``python -m
#: jupyter_agenttools.permission.settings_file`` writes it). Compiling takes ~15 ms, which every
#: ``agenttools hook`` call (one process per tool call of another agent) would pay; the file is
#: used only while the schema text it was made from is the schema's text now.
COMPILED_VALIDATOR = Path(__file__).with_name("_settings_validator.py")


def _compiled_validator() -> Any:
    try:  # lazy: loaded with the first validation, as fastjsonschema is
        from . import _settings_validator as compiled
    except ImportError:  # not generated, or by a newer fastjsonschema than installed
        return None
    if compiled.SCHEMA_TEXT != SCHEMA_PATH.read_text(encoding="utf-8"):
        return None  # the schema changed since: compiled now (and a test says to regenerate)
    return compiled.validate


def compiled_validator_source() -> str:
    """The text of ``COMPILED_VALIDATOR`` for the schema as it is now."""
    import fastjsonschema  # lazy: only to write the file (see _fast_validator)

    text = SCHEMA_PATH.read_text(encoding="utf-8")
    return (f'"""The settings schema compiled by fastjsonschema {fastjsonschema.VERSION}: '
            'GENERATED, do not edit.\n\nRegenerate after changing settings.schema.json: '
            '``python -m jupyter_agenttools.permission.settings_file``."""\n'
            f"# fmt: off\nSCHEMA_TEXT = {text!r}\n\n"
            + fastjsonschema.compile_to_code(json.loads(text)))


def validate(path: Path, data: dict[str, Any], text: str | None, *, writing: bool = False
             ) -> None:
    """Raise SettingsError unless ``data`` fits the schema."""
    fast = _fast_validator()
    if fast is not None:
        import fastjsonschema

        try:
            fast(data)
            return
        except fastjsonschema.JsonSchemaException as exc:
            fallback = (str(exc), [p for p in getattr(exc, "path", [])[1:]])
    else:
        fallback = None
    problems = _problems(data, text)
    if not problems:
        if fallback is None:
            return
        problems = [(line_of(text, fallback[1]), fallback[1], fallback[0])]
    line, where, message = problems[0]
    more = [f"line {ln}: {m}" if ln else m for ln, _w, m in problems[1:1 + _MORE]]
    if len(problems) > 1 + _MORE:
        more.append(f"{len(problems) - 1 - _MORE} more")
    if more:
        message += f" (also: {'; '.join(more)})"
    if writing:
        message = f"refusing to write: {message}"
    raise SettingsError(path, message, line, key_path(where))


@lru_cache(maxsize=1)
def _full_validator() -> Any:
    from jsonschema import Draft7Validator

    return Draft7Validator(schema())


def _problems(data: Any, text: str | None) -> list[tuple[int | None, list[Any], str]]:
    """Every problem as (line, key path, message), in file order."""
    found: dict[tuple[Any, ...], tuple[int | None, list[Any], str]] = {}
    for error in _full_validator().iter_errors(data):
        for where, message in _describe(error):
            found.setdefault(tuple(where), (line_of(text, where), where, message))
    return sorted(found.values(), key=lambda p: (p[0] is None, p[0] or 0, key_path(p[1])))


_TYPE_NAMES = {"object": "an object", "array": "a list", "string": "a string",
               "boolean": "true or false", "integer": "a whole number", "number": "a number",
               "null": "null"}


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _expected(types: Any) -> str:
    names = [types] if isinstance(types, str) else list(types)
    return " or ".join(_TYPE_NAMES.get(n, n) for n in names)


def _describe(error: Any) -> list[tuple[list[Any], str]]:
    """What a person reads for one jsonschema error (several for several unknown keys)."""
    where = list(error.absolute_path)
    at = f"'{key_path(where)}'" if where else "the top level"
    in_at = f"in {at}" if where else "at the top level"
    keyword, instance, subschema = error.validator, error.instance, error.schema
    if keyword == "additionalProperties" and isinstance(instance, dict):
        allowed = list(subschema.get("properties", {}))
        out = []
        for key in instance:
            if key not in allowed:
                out.append(([*where, key], f"unknown key {key!r} {in_at}; "
                                           f"{_suggest(key, where, allowed)}"))
        return out
    if keyword == "type":
        return [(where, f"{at} must be {_expected(error.validator_value)}, got "
                        f"{_type_name(instance)}")]
    if keyword == "enum":
        values = [str(v) for v in error.validator_value]
        hint = _close(str(instance), values)
        return [(where, f"{at} must be one of {', '.join(values)}, got {instance!r}"
                        + (f"; did you mean {hint!r}?" if hint else ""))]
    if keyword == "pattern":
        if error.validator_value == "\\S":
            return [(where, f"{at} must be a non-empty string")]
        return [(where, f"{at}: {instance!r} does not have the expected form "
                        f"({error.validator_value})")]
    if keyword == "required":
        missing = [k for k in error.validator_value
                   if not isinstance(instance, dict) or k not in instance]
        return [(where, f"{at} is missing {', '.join(repr(k) for k in missing)}")]
    if keyword == "uniqueItems":
        return [(where, f"{at} lists the same value twice")]
    if keyword == "anyOf" and where[:1] == ["permissions"] and len(where) == 3:
        if isinstance(instance, (str, dict)):
            branch = 0 if isinstance(instance, str) else 1
            out = []
            for sub in error.context:
                if sub.schema_path and sub.schema_path[0] == branch:
                    out.extend(_describe(sub))
            if out:
                return out
        return [(where, f"{at} must be a rule: a string such as \"Bash(git status)\" or an "
                        f"object with 'rule' (and 'examples', 'counter_examples'), got "
                        f"{_type_name(instance)}")]
    return [(where, f"{at}: {error.message}")]


def _known_paths() -> list[tuple[str, ...]]:
    """Every fixed key path of the schema's objects (not inside lists)."""
    out: list[tuple[str, ...]] = []

    def walk(node: dict[str, Any], prefix: tuple[str, ...]) -> None:
        for key, sub in node.get("properties", {}).items():
            out.append((*prefix, key))
            if isinstance(sub, dict) and "properties" in sub:
                walk(sub, (*prefix, key))

    walk(schema(), ())
    return out


def _close(word: str, candidates: Iterable[str]) -> str | None:
    candidates = list(candidates)
    by_case = {c.lower(): c for c in candidates}
    if word.lower() in by_case:
        return by_case[word.lower()]
    normal = word.strip().lower().replace("-", "_")
    if normal in by_case:
        return by_case[normal]
    close = difflib.get_close_matches(word, candidates, n=1, cutoff=0.6)
    return close[0] if close else None


def _suggest(key: str, where: list[Any], allowed: list[str]) -> str:
    """A "did you mean" for an unknown ``key`` found at ``where``."""
    same_level = _close(key, allowed)
    if same_level is not None and same_level.lower() == key.lower():
        return f"did you mean {same_level!r}? (keys are case-sensitive)"
    here = tuple(str(w) for w in where)
    elsewhere = [p for p in _known_paths() if p[:-1] != here and p[-1].lower() == key.lower()]
    if elsewhere:
        right = elsewhere[0]
        now = f"not in {key_path(where)!r}" if where else "not at the top level"
        return (f"did you mean {key_path(right)!r}? ({right[-1]!r} belongs in "
                f"{key_path(right[:-1])!r}, {now})")
    if same_level is not None:
        return f"did you mean {same_level!r}?"
    names = [p[-1] for p in _known_paths() if p[:-1] != here]
    close = difflib.get_close_matches(key, names, n=1, cutoff=0.75)
    if close:
        right = next(p for p in _known_paths() if p[-1] == close[0])
        return f"did you mean {key_path(right)!r}?"
    return f"expected one of {', '.join(allowed)}" if allowed else "no keys are expected here"


if __name__ == "__main__":
    COMPILED_VALIDATOR.write_text(compiled_validator_source(), encoding="utf-8")
    print(f"wrote {COMPILED_VALIDATOR}")
