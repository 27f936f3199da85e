"""Gate 2: the model's raw arguments become the validated dict that executes.

``json.loads`` first; if that fails or gives no object, ``json_repair`` guided by the tool's
schema; then ``jsonschema`` validation. The parsed, validated dict is what runs — it is never
re-parsed later. Failures raise ToolArgumentsError whose text quotes what was wrong and asks the
model to send the call again.
"""

from __future__ import annotations

import json
import re
from typing import Any, Mapping

from ..errors import ToolArgumentsError

__all__ = ["parse_arguments", "validate_input"]

_QUOTE_LIMIT = 300


def _quote(raw: str) -> str:
    if len(raw) <= _QUOTE_LIMIT:
        return raw
    half = _QUOTE_LIMIT // 2
    return f"{raw[:half]} …[{len(raw) - 2 * half} characters cut]… {raw[-half:]}"


def _schema_of(tool: Any) -> dict[str, Any]:
    schema = getattr(tool, "input_schema", None)
    return schema if isinstance(schema, dict) else {"type": "object"}


def parse_arguments(tool: Any, raw: str | Mapping[str, Any] | None) -> dict[str, Any]:
    """Parse and validate ``raw`` (a JSON string, or an already-parsed mapping) for ``tool``."""
    name = getattr(tool, "name", "?")
    schema = _schema_of(tool)
    if raw is None:
        raw = ""
    if isinstance(raw, Mapping):
        value: Any = dict(raw)
    elif isinstance(raw, str):
        value = _decode(name, raw, schema)
        _refuse_lone_surrogates(name, value)
    else:
        raise ToolArgumentsError(
            f"Arguments for tool {name!r} must be a JSON object, got {type(raw).__name__}. "
            "Send the call again with the arguments as a JSON object."
        )
    validate_input(tool, value)
    return value


def _refuse_lone_surrogates(name: str, value: dict[str, Any]) -> None:
    """JSON's ``"\\ud800"`` parses to a string no file, process argument or audit record can
    hold (UTF-8 has no form for it): the call failed later, in the permission check or the
    write, with a UnicodeEncodeError. Refused here, with what to resend."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start:exc.end] if isinstance(exc.object, str) else "?"
        raise ToolArgumentsError(
            f"The arguments for tool {name!r} contain {bad!r}, half of a UTF-16 surrogate "
            "pair (an escape such as \\ud800 without its partner): not text. Send the call "
            "again with the characters themselves, or both halves of the pair.") from None
    except (ValueError, RecursionError):  # too deep to encode: the schema check reports it
        pass


def _decode(name: str, raw: str, schema: dict[str, Any]) -> dict[str, Any]:
    if raw.strip() == "":
        return {}  # some servers send "" for a call without arguments
    problem = ""
    try:
        value = json.loads(raw)
        if isinstance(value, dict):
            return value
        problem = f"expected a JSON object, got {type(value).__name__}"
    except (ValueError, RecursionError) as exc:
        problem = f"not valid JSON ({exc})"
    too_costly = _repair_cost(raw)
    if too_costly:
        raise ToolArgumentsError(
            f"The arguments for tool {name!r} could not be read: {problem}; {too_costly}, so "
            f"they were not repaired. You sent: {_quote(raw)}\n"
            "Send the call again with the arguments as one valid JSON object.")
    import json_repair

    try:
        repaired = json_repair.repair_json(raw, return_objects=True, schema=schema)
    except Exception:  # the schema-guided repair refuses what it cannot make fit
        try:
            repaired = json_repair.repair_json(raw, return_objects=True)
        except Exception:
            repaired = None
    if isinstance(repaired, dict) and (repaired or raw.strip().startswith("{")):
        return repaired
    raise ToolArgumentsError(
        f"The arguments for tool {name!r} could not be read: {problem}. You sent: {_quote(raw)}\n"
        "Send the call again with the arguments as one JSON object matching the tool's schema."
    )


# json_repair runs in the event loop and its time grows with the length of what lies outside
# JSON strings times the brackets there, and with the square of unquoted text: 2 MB of it took
# 500 s, 1,000 characters with 240 brackets 1 s (json_repair 0.x, one core). Within
# these bounds the worst input measured takes ~0.2 s; a model's slip (a missing brace, a raw
# newline, a cut-off string of a long Write) stays within them.
REPAIR_MAX_CHARS = 65_536
REPAIR_MAX_OUTSIDE = 8_192  # characters outside strings
REPAIR_MAX_COST = 40_000  # characters outside strings x (1 + brackets outside strings)
# A JSON string, or one cut off at the end (maybe after a lone backslash): a match never fails
# once started, so it never backtracks (a form that could fail was quadratic on '"\\' * n).
# A cut-off string counts as outside: json_repair looks for the structure it lost in it.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*(?P<end>"|\\?\Z)', re.DOTALL)


def _outside_strings(raw: str) -> str:
    return _STRING.sub(lambda m: "" if m.group("end") == '"' else m.group(), raw)


def _repair_cost(raw: str) -> str:
    """Why ``raw`` is too costly to repair, or ""."""
    if len(raw) > REPAIR_MAX_CHARS:
        return f"{len(raw):,} characters is more than the {REPAIR_MAX_CHARS:,} a repair takes"
    outside = _outside_strings(raw)
    brackets = outside.count("{") + outside.count("[")
    if len(outside) > REPAIR_MAX_OUTSIDE or len(outside) * (1 + brackets) > REPAIR_MAX_COST:
        return (f"{len(outside):,} characters and {brackets:,} bracket(s) outside strings is more "
                f"structure than a repair takes")
    return ""


# One compiled validator per schema object: building one costs more than validating.
# Keyed by id() with the schema kept alive beside it, so a reused id can't alias.
_VALIDATORS: dict[int, tuple[dict[str, Any], Any]] = {}


def _validator(schema: dict[str, Any], validator_for: Any) -> Any:
    hit = _VALIDATORS.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    validator = validator_for(schema)(schema)
    if len(_VALIDATORS) > 512:  # tools come and go (MCP refreshes): keep the table bounded
        _VALIDATORS.clear()
    _VALIDATORS[id(schema)] = (schema, validator)
    return validator


def warm_up() -> None:
    """Import jsonschema in a background thread: with rfc3987-syntax installed (jupyter-server
    brings it) the import builds a grammar and takes seconds, which the first tool call
    should not pay."""
    import sys
    import threading

    if "jsonschema.validators" in sys.modules:
        return

    def _import() -> None:
        try:
            import jsonschema.validators  # noqa: F401
        except Exception:  # the call that needs it will report the problem
            pass

    threading.Thread(target=_import, name="agenttools-jsonschema-import", daemon=True).start()


def validate_input(tool: Any, value: Any) -> None:
    """Check ``value`` against the tool's JSON schema; raise ToolArgumentsError quoting every
    problem (path and message)."""
    from jsonschema.validators import validator_for

    name = getattr(tool, "name", "?")
    schema = _schema_of(tool)
    if not isinstance(value, dict):
        raise ToolArgumentsError(f"Arguments for tool {name!r} must be a JSON object, got "
                                 f"{type(value).__name__}. Send the call again.")
    validator = _validator(schema, validator_for)
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    if not errors:
        return
    lines = []
    for err in errors[:5]:
        where = "/".join(str(p) for p in err.absolute_path) or "(top level)"
        lines.append(f"- {where}: {err.message}")
    if len(errors) > 5:
        lines.append(f"- … and {len(errors) - 5} more")
    try:
        sent = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        sent = repr(value)
    raise ToolArgumentsError(
        f"Invalid arguments for tool {name!r}:\n" + "\n".join(lines) +
        f"\nYou sent: {_quote(sent)}\nFix these and send the call again."
    )
