"""FunctionTool: a tool made from a plain Python function.

The input schema comes from the signature's type hints, the descriptions from the docstring
(Google, NumPy or reST, via docstring_parser). Sync, async, generator and async-generator
functions are all accepted; whatever they return or yield is normalised into chunks:

- ``str`` → a text chunk;
- ``ToolChunk`` / ``ToolResponse`` → as is;
- anything else → its JSON text (``json.dumps(..., default=str)``).

Arguments are converted back to the annotated types before the call: an Enum parameter gets the
member, a dataclass or pydantic-model parameter gets an instance (also inside ``list[...]`` and
``Optional[...]``).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import enum
import inspect
import json
import types
import typing
import uuid
from pathlib import PurePath
from typing import Any, Callable, Mapping

from ..errors import ToolDefinitionError
from .base import Tool, ToolChunk, ToolResponse, validate_tool_definition

if typing.TYPE_CHECKING:
    from ..permission.types import PermissionContext, PermissionDecision

__all__ = ["FunctionTool", "function_tool", "schema_for_type", "normalize_value"]

_NoneType = type(None)

_SCALARS: dict[Any, dict[str, Any]] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    bytes: {"type": "string"},
    _dt.datetime: {"type": "string", "format": "date-time"},
    _dt.date: {"type": "string", "format": "date"},
    _dt.time: {"type": "string", "format": "time"},
    uuid.UUID: {"type": "string", "format": "uuid"},
}


def _is_pydantic_model(tp: Any) -> bool:
    # Duck-typed so that pydantic is never imported just to build a schema.
    return isinstance(tp, type) and hasattr(tp, "model_json_schema") and hasattr(
        tp, "model_validate")


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__required_keys__")


def _strip_titles(schema: Any) -> Any:
    """Drop pydantic's ``title`` keys (noise for a model), but keep properties named ``title``."""
    if isinstance(schema, dict):
        out = {}
        for key, value in schema.items():
            if key == "title" and isinstance(value, str):
                continue
            if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
                out[key] = {k: _strip_titles(v) for k, v in value.items()}
            else:
                out[key] = _strip_titles(value)
        return out
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


def _enum_schema(values: list[Any]) -> dict[str, Any]:
    schema: dict[str, Any] = {"enum": values}
    kinds = {type(v) for v in values}
    if len(kinds) == 1:
        kind = kinds.pop()
        for py, name in ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string")):
            if kind is py:
                schema = {"type": name, "enum": values}
                break
    return schema


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    t = schema.get("type")
    if isinstance(t, str) and "enum" not in schema and "$ref" not in schema:
        return {**schema, "type": [t, "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


def schema_for_type(tp: Any, defs: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON schema of a Python type annotation.

    ``defs`` collects ``$defs`` of pydantic models so the caller can hoist them to the root.
    Raises TypeError for a type with no JSON meaning.
    """
    if defs is None:
        defs = {}
    if tp is Any or tp is inspect.Parameter.empty or tp is object:
        return {}
    if tp is None or tp is _NoneType:
        return {"type": "null"}
    if tp in _SCALARS:
        return dict(_SCALARS[tp])
    if isinstance(tp, type) and issubclass(tp, PurePath):
        return {"type": "string"}

    origin = typing.get_origin(tp)
    args = typing.get_args(tp)

    if origin is typing.Annotated:
        schema = schema_for_type(args[0], defs)
        for meta in args[1:]:
            if isinstance(meta, str):
                schema = {**schema, "description": meta}
        return schema
    if origin is typing.Union or origin is types.UnionType:
        non_null = [a for a in args if a is not _NoneType]
        if len(non_null) == 1:
            inner = schema_for_type(non_null[0], defs)
            return _nullable(inner) if len(non_null) < len(args) else inner
        schemas = [schema_for_type(a, defs) for a in non_null]
        if len(non_null) < len(args):
            schemas.append({"type": "null"})
        return {"anyOf": schemas}
    if origin is typing.Literal:
        return _enum_schema([a.value if isinstance(a, enum.Enum) else a for a in args])
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _enum_schema([m.value for m in tp])
    if origin in (list, set, frozenset) or origin in _abc_sequences():
        schema = {"type": "array"}
        if args:
            schema["items"] = schema_for_type(args[0], defs)
        if origin in (set, frozenset):
            schema["uniqueItems"] = True
        return schema
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": schema_for_type(args[0], defs)}
        if args == ((),) or not args:
            return {"type": "array"} if not args else {"type": "array", "maxItems": 0}
        return {"type": "array", "prefixItems": [schema_for_type(a, defs) for a in args],
                "minItems": len(args), "maxItems": len(args)}
    if tp in (list, set, frozenset, tuple):
        return {"type": "array"}
    if origin in (dict,) or origin in _abc_mappings():
        schema = {"type": "object"}
        if len(args) == 2 and args[1] is not Any:
            schema["additionalProperties"] = schema_for_type(args[1], defs)
        return schema
    if tp is dict:
        return {"type": "object"}
    if _is_pydantic_model(tp):
        full = _strip_titles(tp.model_json_schema())
        defs.update(full.pop("$defs", {}))
        return full
    if _is_typeddict(tp):
        hints = typing.get_type_hints(tp, include_extras=True)
        required = [k for k in hints if k in tp.__required_keys__]
        schema = {"type": "object",
                  "properties": {k: schema_for_type(v, defs) for k, v in hints.items()},
                  "additionalProperties": False}
        if required:
            schema["required"] = required
        return schema
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        hints = typing.get_type_hints(tp, include_extras=True)
        props: dict[str, Any] = {}
        required = []
        for f in dataclasses.fields(tp):
            if not f.init:
                continue
            props[f.name] = schema_for_type(hints.get(f.name, Any), defs)
            if f.default is not dataclasses.MISSING:
                default = _json_default(f.default)
                if default is not _NO_DEFAULT:
                    props[f.name]["default"] = default
            elif f.default_factory is dataclasses.MISSING:
                required.append(f.name)
        schema = {"type": "object", "properties": props, "additionalProperties": False}
        if required:
            schema["required"] = required
        return schema
    raise TypeError(f"no JSON schema for type {tp!r}")


def _abc_sequences() -> tuple[Any, ...]:
    import collections.abc as abc

    return (abc.Sequence, abc.MutableSequence, abc.Iterable, abc.Collection, abc.Set,
            abc.MutableSet)


def _abc_mappings() -> tuple[Any, ...]:
    import collections.abc as abc

    return (abc.Mapping, abc.MutableMapping)


_NO_DEFAULT = object()


def _json_default(value: Any) -> Any:
    """A parameter default as JSON, or _NO_DEFAULT when it has no JSON form."""
    if isinstance(value, enum.Enum):
        value = value.value
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return _NO_DEFAULT
    return value


# --- argument conversion (JSON → annotated Python types) -------------------------------------


def _coerce(value: Any, tp: Any) -> Any:
    if value is None or tp is Any:
        return value
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        return _coerce(value, args[0])
    if origin is typing.Union or origin is types.UnionType:
        non_null = [a for a in args if a is not _NoneType]
        return _coerce(value, non_null[0]) if len(non_null) == 1 else value
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return value if isinstance(value, tp) else tp(value)
    if origin in (list, set, frozenset, tuple) and isinstance(value, list) and args:
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            return tuple(_coerce(v, a) for v, a in zip(value, args))
        return origin(_coerce(v, args[0]) for v in value)
    if origin is dict and isinstance(value, dict) and len(args) == 2:
        return {k: _coerce(v, args[1]) for k, v in value.items()}
    if _is_pydantic_model(tp) and isinstance(value, dict):
        return tp.model_validate(value)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type) and isinstance(value, dict):
        hints = typing.get_type_hints(tp)
        return tp(**{k: _coerce(v, hints.get(k, Any)) for k, v in value.items()})
    if isinstance(tp, type) and issubclass(tp, PurePath) and isinstance(value, str):
        return tp(value)
    return value


# --- return normalisation --------------------------------------------------------------------


def normalize_value(value: Any) -> ToolChunk | ToolResponse:
    """One returned or yielded value as a chunk: str → text, chunk/response as is, else JSON."""
    if isinstance(value, (ToolChunk, ToolResponse)):
        return value
    if isinstance(value, str):
        return ToolChunk.text(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    elif hasattr(value, "model_dump") and not isinstance(value, type):
        value = value.model_dump(mode="json")
    return ToolChunk.text(json.dumps(value, ensure_ascii=False, default=str))


# --- the tool --------------------------------------------------------------------------------


class FunctionTool(Tool):
    """A tool around ``func``; by default not read-only, concurrency-safe, and asked about
    (a plain ASK) unless the user allowed it. ``read_only=True`` makes the permission hook
    PASSTHROUGH so the engine's read-only step decides."""

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        input_schema: Mapping[str, Any] | type | None = None,
        read_only: bool = False,
        concurrency_safe: bool = True,
    ) -> None:
        if not callable(func):
            raise ToolDefinitionError(f"FunctionTool expects a callable, got {func!r}")
        self.func = func
        self.name = name or getattr(func, "__name__", None) or type(func).__name__
        self.read_only = bool(read_only)
        self.concurrency_safe = bool(concurrency_safe)
        self._signature = inspect.signature(func)
        self._hints = _type_hints(func)
        doc = _parse_docstring(inspect.getdoc(func) or "")
        if description is None:
            description = "\n\n".join(
                p for p in (doc.short_description, doc.long_description) if p) if doc else ""
        self.description = description
        self._param_docs = {p.arg_name: p.description for p in doc.params} if doc else {}
        if input_schema is None:
            self.input_schema = self._build_schema()
        elif _is_pydantic_model(input_schema):
            # a pydantic model class (_is_pydantic_model checked it; pydantic is optional)
            self.input_schema = _strip_titles(input_schema.model_json_schema())  # type: ignore[union-attr]
        elif isinstance(input_schema, Mapping):
            self.input_schema = dict(input_schema)
        else:
            raise ToolDefinitionError(
                f"tool {self.name!r}: input_schema must be a dict or a pydantic model class, "
                f"got {input_schema!r}")
        validate_tool_definition(self)

    def _build_schema(self) -> dict[str, Any]:
        props: dict[str, Any] = {}
        required: list[str] = []
        defs: dict[str, Any] = {}
        has_var_kw = False
        for pname, param in self._signature.parameters.items():
            if param.kind is param.VAR_POSITIONAL:
                continue
            if param.kind is param.VAR_KEYWORD:
                has_var_kw = True
                continue
            tp = self._hints.get(pname, param.annotation)
            try:
                schema = schema_for_type(tp, defs)
            except TypeError as exc:
                raise ToolDefinitionError(
                    f"tool {self.name!r}: parameter {pname!r}: {exc}; annotate it with a "
                    f"JSON-friendly type or pass input_schema=") from None
            text = self._param_docs.get(pname)
            if text and "description" not in schema:
                schema = {**schema, "description": text}
            if param.default is param.empty:
                required.append(pname)
            else:
                default = _json_default(param.default)
                if default is not _NO_DEFAULT:
                    schema = {**schema, "default": default}
            props[pname] = schema
        schema = {"type": "object", "properties": props}
        if required:
            schema["required"] = required
        if not has_var_kw:
            schema["additionalProperties"] = False
        if defs:
            schema["$defs"] = defs
        return schema

    def _bind(self, tool_input: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        """Positional-only parameters go by position, the rest by keyword; unknown keys are
        passed on so that Python's own TypeError explains them."""
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        params = self._signature.parameters
        positional = [p for p in params.values() if p.kind is p.POSITIONAL_ONLY]
        for param in positional:
            if param.name not in tool_input:
                break  # the rest of the positional-only ones take their defaults
            args.append(_coerce(tool_input[param.name], self._hints.get(param.name, Any)))
        for key, value in tool_input.items():
            named = params.get(key)
            if named is not None and named.kind is named.POSITIONAL_ONLY:
                continue
            if named is not None and named.kind is not named.VAR_KEYWORD:
                value = _coerce(value, self._hints.get(key, Any))
            kwargs[key] = value
        return args, kwargs

    def call(self, **tool_input: Any) -> Any:
        args, kwargs = self._bind(tool_input)
        func = self.func
        if inspect.isasyncgenfunction(func) or inspect.isasyncgenfunction(
                getattr(func, "__call__", None)):  # noqa: B004 - the method itself
            return _normalize_agen(func(*args, **kwargs))
        if inspect.isgeneratorfunction(func) or inspect.isgeneratorfunction(
                getattr(func, "__call__", None)):  # noqa: B004 - the method itself
            return _normalize_gen(func(*args, **kwargs))
        result = func(*args, **kwargs)
        if inspect.isawaitable(result):
            return _await_normalized(result)
        return _normalize_result(result)

    def check_permissions(self, tool_input: Mapping[str, Any],
                          context: "PermissionContext") -> "PermissionDecision":
        from ..permission.types import PermissionDecision

        if self.is_read_only(tool_input):
            return PermissionDecision.passthrough(f"{self.name} is declared read-only")
        return PermissionDecision.ask("custom function tools need to be allowed")


def _normalize_result(result: Any) -> Any:
    if inspect.isgenerator(result):
        return _normalize_gen(result)
    if inspect.isasyncgen(result):
        return _normalize_agen(result)
    return normalize_value(result)


async def _await_normalized(awaitable: Any) -> Any:
    return _normalize_result(await awaitable)


def _normalize_gen(gen: Any) -> Any:
    try:
        for item in gen:
            yield normalize_value(item)
    finally:
        gen.close()


async def _normalize_agen(agen: Any) -> Any:
    try:
        async for item in agen:
            yield normalize_value(item)
    finally:
        await agen.aclose()


def _type_hints(func: Callable[..., Any]) -> dict[str, Any]:
    import functools

    target = func
    while isinstance(target, functools.partial):
        target = target.func
    is_plain = inspect.isfunction(target) or inspect.ismethod(target)
    if not is_plain and hasattr(target, "__call__"):  # noqa: B004 - its __call__ gets hinted
        target = target.__call__
    try:
        return typing.get_type_hints(target, include_extras=True)
    except Exception as exc:  # NameError for an unresolvable forward reference
        raise ToolDefinitionError(
            f"cannot resolve the type hints of {getattr(func, '__qualname__', func)!r}: {exc}"
        ) from None


def _parse_docstring(doc: str) -> Any:
    if not doc:
        return None
    import docstring_parser

    return docstring_parser.parse(doc)


def function_tool(
    func: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    input_schema: Mapping[str, Any] | type | None = None,
    read_only: bool = False,
    concurrency_safe: bool = True,
) -> Any:
    """Decorator: ``@function_tool`` or ``@function_tool(name=..., read_only=True)``.

    The decorated name becomes the FunctionTool; the function stays reachable as ``.func``.
    """
    def wrap(f: Callable[..., Any]) -> FunctionTool:
        return FunctionTool(f, name=name, description=description, input_schema=input_schema,
                            read_only=read_only, concurrency_safe=concurrency_safe)

    if func is not None:
        return wrap(func)
    return wrap
