"""Toolkit: call_tool's chunk stream, errors, cancellation; groups, gate 1 and reset_tools."""

from __future__ import annotations

import asyncio
import json

import jsonschema
import pytest

from jupyter_agenttools.errors import (
    SkillNotFound,
    ToolExecutionError,
    ToolGroupInactive,
    ToolkitError,
    ToolNotFound,
    ToolReturnTypeError,
)
from jupyter_agenttools.permission.types import PermissionBehavior, PermissionContext
from jupyter_agenttools.tools.base import Tool, ToolChunk, ToolResponse, ToolResultState
from jupyter_agenttools.tools.function import FunctionTool
from jupyter_agenttools.tools.toolkit import INTERRUPTED_MESSAGE, ToolGroup, Toolkit

S = ToolResultState


class Raw(Tool):
    """A tool whose call() returns whatever it was built with (no FunctionTool help)."""

    name = "raw"
    input_schema = {"type": "object", "properties": {}}

    def __init__(self, make):
        self.make = make

    def call(self, **kw):
        return self.make()


async def collect(toolkit, tool, tool_input=None, call_id="call-1"):
    items = []
    async for item in toolkit.call_tool(tool, tool_input or {}, call_id=call_id):
        items.append(item)
    return items


def check_stream(items):
    """Exactly one ToolResponse, and it is last."""
    assert isinstance(items[-1], ToolResponse)
    assert all(isinstance(i, ToolChunk) for i in items[:-1])
    return items[:-1], items[-1]


# --- the four return shapes (+ coroutine and ToolResponse) -----------------------------------


def _sync_gen():
    yield ToolChunk.text("a")
    yield "b"


async def _async_gen():
    yield ToolChunk.text("a")
    await asyncio.sleep(0)
    yield ToolChunk.text("b")


async def _coro_chunk():
    return ToolChunk.text("ab")


async def _coro_gen():
    return _async_gen()


SHAPES = [
    ("chunk", lambda: ToolChunk.text("ab"), 1),
    ("plain str", lambda: "ab", 1),
    ("sync generator", _sync_gen, 2),
    ("async generator", _async_gen, 2),
    ("coroutine -> chunk", _coro_chunk, 1),
    ("coroutine -> async generator", _coro_gen, 2),
    ("response", lambda: ToolResponse([{"type": "text", "text": "ab"}]), 1),
]


@pytest.mark.parametrize("label,make,n_chunks", SHAPES, ids=[s[0] for s in SHAPES])
async def test_return_shapes(label, make, n_chunks):
    chunks, response = check_stream(await collect(Toolkit(), Raw(make)))
    assert len(chunks) == n_chunks
    assert response.text == "ab"
    assert response.state is S.SUCCESS
    assert (response.id, response.name) == ("call-1", "raw")


@pytest.mark.parametrize("bad", [lambda: 42, lambda: None, lambda: {"a": 1}, lambda: b"x"],
                         ids=["int", "none", "dict", "bytes"])
async def test_wrong_return_type_is_a_developer_error(bad):
    with pytest.raises(ToolReturnTypeError, match="must return or yield"):
        await collect(Toolkit(), Raw(bad))


async def test_generator_yielding_wrong_type_raises_after_good_chunks():
    def gen():
        yield "fine"
        yield 3.5

    items = []
    with pytest.raises(ToolReturnTypeError, match="float"):
        async for item in Toolkit().call_tool(Raw(gen), {}):
            items.append(item)
    assert [i.content[0]["text"] for i in items] == ["fine"]  # no ToolResponse on this path


# --- accumulation ----------------------------------------------------------------------------


async def test_chunk_accumulation():
    def gen():
        yield ToolChunk.text("Hel", metadata={"a": 1})
        yield ToolChunk.text("lo", metadata={"a": 2, "b": 3})
        yield ToolChunk([{"type": "image", "data": "AAAA", "mime_type": "image/png"}])
        yield ToolChunk.text(" world")
        yield ToolChunk.error("bad")
        yield ToolChunk.text(" after", state=S.RUNNING)

    chunks, response = check_stream(await collect(Toolkit(), Raw(gen)))
    assert len(chunks) == 6
    assert [b["type"] for b in response.content] == ["text", "image", "text"]
    assert response.content[0]["text"] == "Hello"
    assert response.content[2]["text"] == " worldbad after"
    assert response.metadata == {"a": 2, "b": 3}
    assert response.state is S.ERROR  # sticky


# --- errors ------------------------------------------------------------------------------------


async def test_ordinary_exception_becomes_error_result():
    def boom():
        raise ValueError("no such column 'x'")

    chunks, response = check_stream(await collect(Toolkit(), Raw(boom)))
    assert response.state is S.ERROR
    assert response.text == "ValueError: no such column 'x'"
    assert chunks[-1].state is S.ERROR


async def test_agent_oriented_exception_message_is_the_result():
    async def agen():
        yield "partial "
        raise ToolExecutionError("exit code 2")

    chunks, response = check_stream(await collect(Toolkit(), Raw(agen)))
    assert response.text == "partial exit code 2"
    assert response.state is S.ERROR


async def test_bad_arguments_to_a_function_tool_become_an_error_result():
    tool = FunctionTool(lambda x: x, name="f")
    _, response = check_stream(await collect(Toolkit(), tool, {"y": 1}))
    assert response.state is S.ERROR and "TypeError" in response.text


async def test_developer_exception_propagates():
    def misconfigured():
        raise ToolkitError("the tool was wired wrong")

    with pytest.raises(ToolkitError, match="wired wrong"):
        await collect(Toolkit(), Raw(misconfigured))


# --- cancellation ------------------------------------------------------------------------------


@pytest.mark.parametrize("style", ["async generator", "coroutine"])
async def test_cancellation_gives_interrupted_response_and_reraises(style):
    started = asyncio.Event()
    cleaned = []

    async def agen():
        try:
            yield "step 1;"
            started.set()
            await asyncio.sleep(60)
            yield "never"
        finally:
            cleaned.append(True)

    async def coro():
        try:
            started.set()
            await asyncio.sleep(60)
            return "never"
        finally:
            cleaned.append(True)

    tool = Raw(agen if style == "async generator" else coro)
    seen = []

    async def consumer():
        async for item in Toolkit().call_tool(tool, {}, call_id="c9"):
            seen.append(item)

    task = asyncio.create_task(consumer())
    await asyncio.wait_for(started.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.cancelled()
    assert cleaned == [True]
    response = seen[-1]
    assert isinstance(response, ToolResponse)
    assert sum(isinstance(i, ToolResponse) for i in seen) == 1
    assert response.state is S.INTERRUPTED
    assert response.id == "c9"
    assert response.text.endswith(INTERRUPTED_MESSAGE)
    if style == "async generator":
        assert response.text.startswith("step 1;")


async def test_cancellation_after_an_error_chunk_is_still_interrupted():
    async def agen():
        yield ToolChunk.error("warning: partial failure")
        await asyncio.sleep(60)

    gen = Toolkit().call_tool(Raw(agen), {})
    assert (await gen.__anext__()).state is S.ERROR
    step = asyncio.ensure_future(gen.__anext__())
    await asyncio.sleep(0.01)
    step.cancel()
    response = await step
    assert response.state is S.INTERRUPTED
    assert response.text == "warning: partial failure\n" + INTERRUPTED_MESSAGE
    with pytest.raises(asyncio.CancelledError):
        await gen.__anext__()


async def test_cancellation_reraised_for_a_consumer_that_keeps_iterating():
    """The CancelledError comes out of the generator itself, right after the response."""
    async def sleepy():
        await asyncio.sleep(60)
        return "never"

    gen = Toolkit().call_tool(Raw(sleepy), {})
    step = asyncio.ensure_future(gen.__anext__())
    await asyncio.sleep(0.01)
    step.cancel()
    # the cancelled step delivered the response instead of raising …
    response = await step
    assert response.state is S.INTERRUPTED
    # … and the next step re-raises the cancellation
    with pytest.raises(asyncio.CancelledError):
        await gen.__anext__()


# --- groups and gate 1 -----------------------------------------------------------------------


def make_toolkit():
    def ping() -> str:
        """Basic ping."""
        return "pong"

    def load(path: str) -> str:
        """Load a table."""
        return path

    def plot(kind: str = "line") -> str:
        """Draw a plot."""
        return kind

    tk = Toolkit(tools=[ping], groups=[
        ToolGroup("data", "Load and inspect tables", instructions="Always check the row count."),
        ToolGroup("viz", "Plots and charts"),
    ])
    tk.add_tool(load, group="data")
    tk.add_tool(plot, group="viz")
    return tk


def names(tk):
    return [s["name"] for s in tk.schemas()]


def test_only_basic_and_active_groups_are_offered():
    tk = make_toolkit()
    assert names(tk) == ["ping", "reset_tools"]
    tk.set_active_groups({"viz": True})
    assert names(tk) == ["ping", "reset_tools", "plot"]
    assert tk.active_groups == ["viz"]
    assert {t.name for t in tk.tools} == {"ping", "load", "plot", "reset_tools"}


def test_no_groups_no_reset_tools():
    assert names(Toolkit(tools=[FunctionTool(lambda: 1, name="one")])) == ["one"]


def test_inactive_group_error_names_the_exact_reset_tools_call():
    tk = make_toolkit()
    with pytest.raises(ToolGroupInactive) as info:
        tk.get_tool("load")
    text = str(info.value)
    assert "'load'" in text and "'data'" in text
    assert 'reset_tools with {"data": true}' in text
    assert tk.find_tool("load") is not None  # no activity check there


def test_unknown_tool_lists_the_offered_ones():
    tk = make_toolkit()
    with pytest.raises(ToolNotFound) as info:
        tk.get_tool("nope")
    assert "'nope' does not exist" in str(info.value)
    assert "ping" in str(info.value) and "load" not in str(info.value)


def test_get_tool_after_activation():
    tk = make_toolkit()
    tk.set_active_groups({"data": True})
    assert tk.get_tool("load").name == "load"
    assert tk.get_tool("reset_tools").name == "reset_tools"


@pytest.mark.parametrize("action,error", [
    (lambda tk: tk.add_group(ToolGroup("basic", "x")), "always exists"),
    (lambda tk: tk.add_group(ToolGroup("data", "again")), "duplicate"),
    (lambda tk: tk.add_group(ToolGroup("empty", "  ")), "needs a description"),
    (lambda tk: tk.add_group(ToolGroup("two words", "x")), "group name"),
    (lambda tk: tk.add_tool(FunctionTool(lambda: 1, name="x"), group="nope"), "unknown tool group"),
    (lambda tk: tk.add_tool(FunctionTool(lambda: 1, name="ping")), "already registered"),
    (lambda tk: tk.add_tool(FunctionTool(lambda: 1, name="reset_tools")), "reserved"),
    (lambda tk: tk.remove_tool("nope"), "no tool named"),
    (lambda tk: tk.remove_group("basic"), "cannot be removed"),
    (lambda tk: tk.set_active_groups({"nope": True}), "unknown tool group"),
    (lambda tk: tk.set_active_groups({"data": 1}), "expected True or False"),
    (lambda tk: tk.set_active_groups({"basic": False}), "cannot be deactivated"),
])
def test_misconfiguration_is_a_toolkit_error(action, error):
    with pytest.raises(ToolkitError, match=error):
        action(make_toolkit())


def test_add_and_remove_at_run_time():
    tk = make_toolkit()
    tk.add_tool(FunctionTool(lambda: 2, name="ping"), replace=True)
    def extra(a: int = 1) -> int:
        return a

    assert isinstance(tk.add_tool(extra), FunctionTool)  # a plain callable is wrapped
    assert "extra" in names(tk)
    with pytest.raises(Exception, match="tool name"):
        tk.add_tool(lambda: 1)  # '<lambda>' is not a tool name: a clear error
    tk.remove_group("data")
    assert tk.find_tool("load") is None
    assert [g.name for g in tk.groups] == ["viz"]
    tk.remove_group("viz")
    assert "reset_tools" not in names(tk)  # no groups left, no meta tool


# --- reset_tools -------------------------------------------------------------------------------


async def reset(tk, **state):
    return check_stream(await collect(tk, tk.get_tool("reset_tools"), state))[1]


def test_reset_tools_schema():
    schema = make_toolkit().find_tool("reset_tools").input_schema
    assert schema == {
        "type": "object",
        "properties": {
            "data": {"type": "boolean", "default": False,
                     "description": "Load and inspect tables"},
            "viz": {"type": "boolean", "default": False, "description": "Plots and charts"},
        },
        "additionalProperties": False,
    }
    jsonschema.Draft202012Validator.check_schema(schema)


async def test_reset_tools_activates_and_returns_instructions():
    tk = make_toolkit()
    response = await reset(tk, data=True)
    assert response.state is S.SUCCESS
    assert "The active tool groups: data." in response.text
    assert '<group name="data">\nAlways check the row count.\n</group>' in response.text
    assert tk.active_groups == ["data"]
    assert "Always check the row count." in tk.system_prompt_block()


async def test_reset_tools_input_is_the_final_state():
    tk = make_toolkit()
    await reset(tk, data=True)
    response = await reset(tk, viz=True)
    assert tk.active_groups == ["viz"]
    assert "The active tool groups: viz." in response.text
    assert "<tool-instructions>" not in response.text  # viz has none
    assert "row count" not in tk.system_prompt_block()


@pytest.mark.parametrize("state", [{}, {"data": False, "viz": False}])
async def test_reset_tools_deactivate_all(state):
    tk = make_toolkit()
    await reset(tk, data=True, viz=True)
    response = await reset(tk, **state)
    assert "All tool groups are deactivated." in response.text
    assert tk.active_groups == []
    assert names(tk) == ["ping", "reset_tools"]


async def test_reset_tools_unknown_group():
    tk = make_toolkit()
    await reset(tk, viz=True)
    response = await reset(tk, data=True, charts=True)
    assert response.state is S.ERROR
    assert "Invalid group name(s): charts" in response.text
    assert "data, viz" in response.text
    assert tk.active_groups == ["viz"]  # nothing changed


@pytest.mark.parametrize("value", ["yes", 1, None, [True]])
async def test_reset_tools_non_boolean(value):
    tk = make_toolkit()
    response = await reset(tk, data=value)
    assert response.state is S.ERROR
    assert "'data'" in response.text and "expected true or false" in response.text
    assert tk.active_groups == []


def test_meta_tools_are_read_only_and_allowed(tmp_path):
    tk = make_toolkit()
    skill = tmp_path / "s"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\nbody\n")
    tk.add_skill(skill)
    ctx = PermissionContext(cwd=str(tmp_path))
    for name in ("reset_tools", "Skill"):
        tool = tk.get_tool(name)
        assert tool.is_read_only({})
        assert tool.check_permissions({}, ctx).behavior is PermissionBehavior.ALLOW


async def test_skill_tool_unknown_skill_is_an_error_result(tmp_path):
    (tmp_path / "SKILL.md").write_text("---\nname: known\ndescription: d\n---\nbody\n")
    tk = Toolkit(skills=[tmp_path])
    assert names(tk) == ["Skill"]
    _, response = check_stream(await collect(tk, tk.get_tool("Skill"), {"skill": "other"}))
    assert response.state is S.ERROR
    assert str(SkillNotFound("other", ["known"])) == response.text
    _, response = check_stream(await collect(tk, tk.get_tool("Skill"), {"skill": "known"}))
    assert response.text == "body"


async def test_response_is_json_serialisable():
    tk = make_toolkit()
    items = await collect(tk, tk.get_tool("ping"))
    data = json.loads(json.dumps(items[-1].to_dict()))
    assert data["content"] == [{"type": "text", "text": "pong"}]
    assert (data["name"], data["state"]) == ("ping", "success")
