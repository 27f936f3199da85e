"""FunctionTool: schema from hints and docstrings, overrides, argument conversion, returns."""

from __future__ import annotations

import dataclasses
import enum
import json
from pathlib import Path
from typing import Annotated, Any, Dict, List, Literal, Optional, Tuple, TypedDict, Union

import pytest
from pydantic import BaseModel, Field

from jupyter_agenttools.errors import ToolDefinitionError
from jupyter_agenttools.permission.types import PermissionBehavior, PermissionContext
from jupyter_agenttools.tools.base import ToolChunk, ToolResponse
from jupyter_agenttools.tools.function import FunctionTool, function_tool
from jupyter_agenttools.tools.toolkit import Toolkit


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@dataclasses.dataclass
class Point:
    x: float
    y: float = 0.0


class Movie(TypedDict):
    title: str
    year: int


class Query(BaseModel):
    text: str = Field(description="what to look for")
    limit: int = 10


class Batch(BaseModel):
    queries: list[Query]


# Each case: a function with one parameter `x`, the expected schema of `x`, and whether `x`
# is required. The whole property schema must equal the expectation.
def f_str(x: str): ...
def f_int(x: int): ...
def f_float(x: float): ...
def f_bool(x: bool): ...
def f_default(x: int = 3): ...
def f_optional(x: Optional[str] = None): ...
def f_pipe_none(x: int | None): ...
def f_union(x: Union[int, str]): ...
def f_literal(x: Literal["a", "b"]): ...
def f_literal_int(x: Literal[1, 2, 3] = 2): ...
def f_enum(x: Color): ...
def f_intenum(x: Level = Level.LOW): ...
def f_list(x: list[int]): ...
def f_typing_list(x: List[str]): ...
def f_list_of_opt(x: list[Optional[float]]): ...
def f_dict(x: dict[str, int]): ...
def f_typing_dict(x: Dict[str, Any]): ...
def f_bare_dict(x: dict): ...
def f_tuple(x: tuple[int, str]): ...
def f_var_tuple(x: Tuple[int, ...]): ...
def f_set(x: set[str]): ...
def f_path(x: Path): ...
def f_any(x: Any): ...
def f_unannotated(x): ...
def f_annotated(x: Annotated[int, "how many"]): ...
def f_dataclass(x: Point): ...
def f_typeddict(x: Movie): ...
def f_list_default(x: list[str] = ["a"]): ...  # noqa: B006 - the default is only read
def f_nested_list(x: list[list[int]]): ...


SCHEMA_CASES = [
    (f_str, {"type": "string"}, True),
    (f_int, {"type": "integer"}, True),
    (f_float, {"type": "number"}, True),
    (f_bool, {"type": "boolean"}, True),
    (f_default, {"type": "integer", "default": 3}, False),
    (f_optional, {"type": ["string", "null"], "default": None}, False),
    (f_pipe_none, {"type": ["integer", "null"]}, True),
    (f_union, {"anyOf": [{"type": "integer"}, {"type": "string"}]}, True),
    (f_literal, {"type": "string", "enum": ["a", "b"]}, True),
    (f_literal_int, {"type": "integer", "enum": [1, 2, 3], "default": 2}, False),
    (f_enum, {"type": "string", "enum": ["red", "green"]}, True),
    (f_intenum, {"type": "integer", "enum": [1, 2], "default": 1}, False),
    (f_list, {"type": "array", "items": {"type": "integer"}}, True),
    (f_typing_list, {"type": "array", "items": {"type": "string"}}, True),
    (f_list_of_opt, {"type": "array", "items": {"type": ["number", "null"]}}, True),
    (f_dict, {"type": "object", "additionalProperties": {"type": "integer"}}, True),
    (f_typing_dict, {"type": "object"}, True),
    (f_bare_dict, {"type": "object"}, True),
    (f_tuple, {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}],
               "minItems": 2, "maxItems": 2}, True),
    (f_var_tuple, {"type": "array", "items": {"type": "integer"}}, True),
    (f_set, {"type": "array", "items": {"type": "string"}, "uniqueItems": True}, True),
    (f_path, {"type": "string"}, True),
    (f_any, {}, True),
    (f_unannotated, {}, True),
    (f_annotated, {"type": "integer", "description": "how many"}, True),
    (f_dataclass, {"type": "object", "properties": {"x": {"type": "number"},
                                                     "y": {"type": "number", "default": 0.0}},
                   "required": ["x"], "additionalProperties": False}, True),
    (f_typeddict, {"type": "object", "properties": {"title": {"type": "string"},
                                                     "year": {"type": "integer"}},
                   "required": ["title", "year"], "additionalProperties": False}, True),
    (f_list_default, {"type": "array", "items": {"type": "string"}, "default": ["a"]}, False),
    (f_nested_list, {"type": "array", "items": {"type": "array",
                                                 "items": {"type": "integer"}}}, True),
]


@pytest.mark.parametrize("func,expected,required", SCHEMA_CASES,
                         ids=[c[0].__name__ for c in SCHEMA_CASES])
def test_schema_table(func, expected, required):
    schema = FunctionTool(func).input_schema
    assert schema["type"] == "object"
    assert schema["properties"]["x"] == expected
    assert ("x" in schema.get("required", [])) is required
    assert schema["additionalProperties"] is False


def test_schema_table_is_big_enough():
    assert len(SCHEMA_CASES) >= 15


def test_pydantic_parameter_schema_and_defs_hoisted():
    def search(batch: Batch, q: Query | None = None) -> str:
        return ""

    schema = FunctionTool(search).input_schema
    assert schema["properties"]["batch"]["type"] == "object"
    assert "$defs" in schema and "Query" in schema["$defs"]
    query = schema["$defs"]["Query"]
    assert query["properties"]["text"] == {"type": "string", "description": "what to look for"}
    assert "title" not in query  # pydantic titles are noise for a model
    assert schema["required"] == ["batch"]
    # the whole thing is a schema jsonschema accepts, and $refs resolve
    import jsonschema

    jsonschema.validate({"batch": {"queries": [{"text": "a"}]}}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"batch": {"queries": [{"limit": 3}]}}, schema)


def test_var_args_and_kwargs():
    def f(a: int, *rest: int, **extra: Any) -> None: ...

    schema = FunctionTool(f).input_schema
    assert list(schema["properties"]) == ["a"]
    assert "additionalProperties" not in schema  # **extra accepts any other key


class Opaque:
    pass


def test_unsupported_type_is_a_clear_definition_error():
    def f(x: Opaque) -> None: ...

    with pytest.raises(ToolDefinitionError, match=r"parameter 'x'.*input_schema="):
        FunctionTool(f)


def test_unresolvable_forward_reference_is_a_definition_error():
    def f(x: "NoSuchType") -> None: ...  # noqa: F821

    with pytest.raises(ToolDefinitionError, match="type hints"):
        FunctionTool(f)


GOOGLE = '''Look a word up.

    Longer explanation.

    Args:
        word: the word to look up.
        lang: a language code.
    '''
NUMPY = '''Look a word up.

    Longer explanation.

    Parameters
    ----------
    word : str
        the word to look up.
    lang : str
        a language code.
    '''
REST = '''Look a word up.

    Longer explanation.

    :param word: the word to look up.
    :param lang: a language code.
    '''


@pytest.mark.parametrize("doc", [GOOGLE, NUMPY, REST], ids=["google", "numpy", "rest"])
def test_docstring_styles(doc):
    def lookup(word: str, lang: str = "en") -> str:
        return word

    lookup.__doc__ = doc
    tool = FunctionTool(lookup)
    assert tool.description == "Look a word up.\n\nLonger explanation."
    props = tool.input_schema["properties"]
    assert props["word"] == {"type": "string", "description": "the word to look up."}
    assert props["lang"] == {"type": "string", "description": "a language code.",
                             "default": "en"}


def test_explicit_overrides():
    def f(x: int) -> int:
        """Doc."""
        return x

    schema = {"type": "object", "properties": {"x": {"type": "integer", "minimum": 0}},
              "required": ["x"]}
    tool = FunctionTool(f, name="double", description="Doubles.", input_schema=schema,
                        read_only=True, concurrency_safe=False)
    assert (tool.name, tool.description, tool.input_schema) == ("double", "Doubles.", schema)
    assert tool.is_read_only({}) and not tool.is_concurrency_safe({})


def test_pydantic_model_as_input_schema_override():
    def f(text: str, limit: int = 10) -> str:
        return text

    tool = FunctionTool(f, input_schema=Query)
    assert tool.input_schema["properties"]["text"]["description"] == "what to look for"


@pytest.mark.parametrize("bad", [
    {"type": "array"},
    {"properties": {}},
    {"type": "object", "properties": []},
])
def test_non_object_schema_refused(bad):
    with pytest.raises(ToolDefinitionError, match="input_schema"):
        FunctionTool(lambda: None, name="f", input_schema=bad)


def test_bad_name_refused():
    with pytest.raises(ToolDefinitionError, match="tool name"):
        FunctionTool(lambda: None, name="has space")


def test_decorator_bare_and_with_arguments():
    @function_tool
    def plain(x: int) -> int:
        """Plain."""
        return x

    @function_tool(name="renamed", read_only=True)
    def other(x: int) -> int:
        return x

    assert isinstance(plain, FunctionTool) and plain.name == "plain"
    assert plain.description == "Plain."
    assert plain.func(2) == 2
    assert isinstance(other, FunctionTool) and other.name == "renamed" and other.read_only


@pytest.mark.parametrize("read_only,behavior,safety", [
    (False, PermissionBehavior.ASK, False),
    (True, PermissionBehavior.PASSTHROUGH, False),
])
def test_check_permissions(read_only, behavior, safety, tmp_path):
    tool = FunctionTool(lambda x=1: x, name="f", read_only=read_only)
    decision = tool.check_permissions({}, PermissionContext(cwd=str(tmp_path)))
    assert decision.behavior is behavior
    assert decision.bypass_immune is safety
    if behavior is PermissionBehavior.ASK:
        assert "custom function tools need to be allowed" in decision.message
    assert tool.is_concurrency_safe({}) is True  # the documented default


# --- calling -------------------------------------------------------------------------------


async def run(tool, **kw):
    chunks = []
    async for item in Toolkit().call_tool(tool, kw):
        chunks.append(item)
    return chunks[:-1], chunks[-1]


def test_arguments_converted_to_annotated_types():
    seen = {}

    def f(color: Color, point: Point, points: list[Point], q: Optional[Query] = None,
          level: Level = Level.LOW, where: Path = Path(".")) -> str:
        seen.update(color=color, point=point, points=points, q=q, level=level, where=where)
        return "ok"

    tool = FunctionTool(f)
    result = tool.call(color="green", point={"x": 1.5}, points=[{"x": 1, "y": 2}],
                       q={"text": "t"}, level=2, where="/tmp")
    assert isinstance(result, ToolChunk) and result.content[0]["text"] == "ok"
    assert seen["color"] is Color.GREEN
    assert seen["point"] == Point(1.5, 0.0)
    assert seen["points"] == [Point(1, 2)]
    assert seen["q"] == Query(text="t")
    assert seen["level"] is Level.HIGH
    assert seen["where"] == Path("/tmp")


def test_partial_keeps_hints_and_bound_defaults():
    import functools

    def scale(value: float, factor: float) -> float:
        return value * factor

    tool = FunctionTool(functools.partial(scale, factor=3.0), name="triple")
    assert tool.input_schema["properties"] == {
        "value": {"type": "number"}, "factor": {"type": "number", "default": 3.0}}
    assert tool.input_schema["required"] == ["value"]
    assert tool.call(value=2).content[0]["text"] == "6.0"


def test_positional_only_parameters():
    def f(a: int, /, b: int = 1) -> int:
        return a * 10 + b

    assert FunctionTool(f).call(a=4, b=2).content[0]["text"] == "42"


RETURNS = [
    ("text", lambda: "hello", "hello"),
    ("number", lambda: 42, "42"),
    ("dict", lambda: {"a": [1, 2]}, '{"a": [1, 2]}'),
    ("none", lambda: None, "null"),
    ("dataclass", lambda: Point(1, 2), '{"x": 1, "y": 2}'),
    ("pydantic", lambda: Query(text="t"), '{"text": "t", "limit": 10}'),
    ("unjsonable", lambda: {"p": Path("/x")}, '{"p": "/x"}'),
    ("chunk", lambda: ToolChunk.text("as is"), "as is"),
]


@pytest.mark.parametrize("label,func,text", RETURNS, ids=[r[0] for r in RETURNS])
async def test_return_normalisation(label, func, text):
    chunks, response = await run(FunctionTool(func, name="f"))
    assert response.text == text
    assert response.state.value == "success"
    assert json.dumps(response.to_dict())  # always serialisable


async def test_tool_response_returned_as_is():
    def f() -> ToolResponse:
        return ToolResponse([{"type": "text", "text": "r"}], metadata={"k": 1})

    chunks, response = await run(FunctionTool(f))
    assert response.text == "r" and response.metadata == {"k": 1}


async def test_sync_async_generator_and_async_functions():
    def gen(n: int):
        for i in range(n):
            yield f"{i},"

    async def agen(n: int):
        for i in range(n):
            yield {"i": i}

    async def coro(n: int) -> list[int]:
        return list(range(n))

    _, r1 = await run(FunctionTool(gen), n=3)
    _, r2 = await run(FunctionTool(agen), n=2)
    _, r3 = await run(FunctionTool(coro), n=3)
    assert r1.text == "0,1,2,"
    assert r2.text == '{"i": 0}{"i": 1}'
    assert r3.text == "[0, 1, 2]"


async def test_callable_object_and_bound_method():
    class Counter:
        def __init__(self):
            self.n = 0

        def bump(self, by: int = 1) -> int:
            """Bump the counter."""
            self.n += by
            return self.n

        async def __call__(self, by: int) -> int:
            return by * 2

    c = Counter()
    bump = FunctionTool(c.bump)
    assert list(bump.input_schema["properties"]) == ["by"]
    _, r = await run(bump, by=5)
    assert r.text == "5" and c.n == 5
    _, r = await run(FunctionTool(c, name="double"), by=4)
    assert r.text == "8"
