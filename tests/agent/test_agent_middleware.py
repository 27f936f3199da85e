"""Middleware hooks around the permission check and around execution, and the AgentRun API
(waiting with timeouts, iteration, the gates module)."""

from __future__ import annotations

import asyncio

import pytest

from jupyter_agenttools.agent.loop import Agent
from jupyter_agenttools.agent.models import ScriptedModel
from jupyter_agenttools.errors import UsageError
from jupyter_agenttools.gates import GATES
from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.permission.types import PermissionBehavior, PermissionDecision
from jupyter_agenttools.tools.base import ToolChunk, ToolResponse, ToolResultState
from jupyter_agenttools.tools.function import FunctionTool
from jupyter_agenttools.tools.toolkit import Toolkit


def toolkit(log: list) -> Toolkit:
    def echo(text: str) -> str:
        """Echo."""
        log.append(("echo", text))
        return f"echo: {text}"

    async def wait(seconds: float) -> str:
        """Wait."""
        await asyncio.sleep(seconds)
        return "waited"

    return Toolkit([FunctionTool(echo, read_only=True), FunctionTool(wait, read_only=True)])


def echo_call(text: str) -> dict:
    return {"name": "echo", "input": {"text": text}}


async def finish(agent: Agent, prompt: str = "go"):
    run = await agent.run(prompt)
    await run.wait_done(timeout=10)
    return run


async def test_a_permission_middleware_can_replace_the_decision():
    log: list = []
    seen_inputs: list = []

    def no_rm(tool, tool_input, context, next):
        seen_inputs.append(dict(tool_input))
        tool_input["text"] = "tampered"  # a deep copy: cannot change what executes
        if "forbidden" in seen_inputs[-1]["text"]:
            return PermissionDecision.deny("the middleware says no")
        return next(tool, tool_input, context)

    agent = Agent(ScriptedModel([[echo_call("fine"), echo_call("forbidden")], "ok"]),
                  toolkit(log), engine=PermissionEngine(), middlewares=[no_rm])
    run = await finish(agent)
    assert log == [("echo", "fine")]
    # in the model's order (they finish in any order: the sync tool runs in a thread)
    results = sorted(run.tool_results, key=lambda r: r.id)
    assert [r.state for r in results] == [ToolResultState.SUCCESS, ToolResultState.DENIED]
    assert "the middleware says no" in results[1].text


@pytest.mark.parametrize("verdict", [PermissionBehavior.PASSTHROUGH, PermissionBehavior.ASK])
async def test_passthrough_from_a_middleware_is_a_question_never_an_allow(verdict):
    log: list = []

    def undecided(tool, tool_input, context, next):
        return PermissionDecision(verdict, message="")

    agent = Agent(ScriptedModel([[echo_call("x")], "ok"]), toolkit(log),
                  engine=PermissionEngine(), middlewares=[undecided])
    run = await agent.run("go")
    ask = await run.next_ask(timeout=10)
    assert ask is not None and ask.decision.behavior is PermissionBehavior.ASK
    assert log == []
    ask.answer("allow_once")
    await run.wait_done(timeout=10)
    assert log == [("echo", "x")]


async def test_a_crashing_permission_middleware_blocks_the_call_with_an_error():
    log: list = []

    def crash(tool, tool_input, context, next):
        raise RuntimeError("middleware bug")

    agent = Agent(ScriptedModel([[echo_call("x")], "ok"]), toolkit(log),
                  engine=PermissionEngine(), middlewares=[crash])
    run = await finish(agent)
    assert log == []
    assert run.tool_results[0].state is ToolResultState.ERROR
    assert "middleware bug" in run.tool_results[0].text and run.result == "ok"


class Tagger:
    """An execution middleware: records the onion order and adds a chunk."""

    def __init__(self, name: str, order: list):
        self.name, self.order = name, order

    async def execute(self, tool, tool_input, next):
        self.order.append(f"{self.name} in")
        async for item in next(tool, tool_input):
            if isinstance(item, ToolResponse):
                item.append_chunk(ToolChunk.text(f" [{self.name}]"))
            yield item
        self.order.append(f"{self.name} out")


async def test_execution_middlewares_wrap_the_tool_call_first_outermost():
    log: list = []
    order: list = []
    agent = Agent(ScriptedModel([[echo_call("x")], "ok"]), toolkit(log),
                  engine=PermissionEngine(),
                  middlewares=[Tagger("outer", order), Tagger("inner", order)])
    run = await finish(agent)
    assert order == ["outer in", "inner in", "inner out", "outer out"]
    assert run.tool_results[0].text == "echo: x [inner] [outer]"
    tool_msg = next(m for m in agent.messages if m["role"] == "tool")
    assert tool_msg["content"] == "echo: x [inner] [outer]"


async def test_next_ask_returns_none_when_the_run_ends_without_questions():
    agent = Agent(ScriptedModel([[echo_call("x")], "ok"]), toolkit([]),
                  engine=PermissionEngine())
    run = await agent.run("go")
    assert await run.next_ask(timeout=10) is None
    assert run.state == "done" and run.result == "ok"


async def test_timeouts_raise_and_leave_the_run_going():
    agent = Agent(ScriptedModel([[{"name": "wait", "input": {"seconds": 0.5}}], "ok"]),
                  toolkit([]), engine=PermissionEngine())
    run = await agent.run("go")
    with pytest.raises(asyncio.TimeoutError):
        await run.next_ask(timeout=0.05)
    with pytest.raises(asyncio.TimeoutError):
        await run.wait_done(timeout=0.05)
    assert run.state == "running"
    assert await run.wait_done(timeout=10) == "ok"


async def test_a_late_listener_gets_the_events_so_far_replayed():
    agent = Agent(ScriptedModel(["hello there, friend"]), toolkit([]),
                  engine=PermissionEngine())
    run = await finish(agent)
    heard: list = []
    run.add_listener(heard.append)
    assert heard == run.events and heard[-1].kind == "run_finished"
    assert [e.to_dict()["kind"] for e in heard] == [e.kind for e in run.events]


async def test_a_broken_listener_does_not_break_the_run():
    agent = Agent(ScriptedModel(["fine"]), toolkit([]), engine=PermissionEngine())
    run = await agent.run("go")

    def bad(event):
        raise ValueError("ui bug")

    run.add_listener(bad)
    assert await run.wait_done(timeout=10) == "fine"


def test_a_run_needs_an_event_loop():
    agent = Agent(ScriptedModel(["x"]), toolkit([]), engine=PermissionEngine())
    with pytest.raises(UsageError, match="event loop"):
        agent.start("go")


@pytest.mark.parametrize("kw", [{"max_turns": 0}, {"output_budget": 5}])
def test_bad_agent_settings_are_refused(kw):
    with pytest.raises(UsageError):
        Agent(ScriptedModel([]), Toolkit(), engine=PermissionEngine(), **kw)


async def test_max_turns_stops_a_model_that_never_answers():
    turns = [[echo_call(str(i))] for i in range(10)]
    agent = Agent(ScriptedModel(turns), toolkit([]), engine=PermissionEngine(), max_turns=3)
    run = await finish(agent)
    assert run.state == "done" and "max_turns" in run.result
    assert len(run.tool_results) == 3


def test_the_gates_are_named_in_order():
    assert GATES == ("availability", "arguments", "permission", "execution", "finish")


async def test_cancel_right_after_start_ends_the_run_cleanly():
    agent = Agent(ScriptedModel(["never"]), toolkit([]), engine=PermissionEngine())
    run = await agent.run("go")
    assert run.cancel() is True  # before the task ran a single step
    assert await run.wait_done(timeout=10) is None
    assert run.state == "cancelled" and run.events[-1].kind == "run_cancelled"
    # the agent is free for the next prompt
    agent.model = ScriptedModel(["second"])
    assert await (await agent.run("again")).wait_done(timeout=10) == "second"


async def test_a_listener_may_answer_questions_as_they_come():
    log: list = []

    def gated(tool, tool_input, context, next):
        return PermissionDecision.ask("always ask")

    agent = Agent(ScriptedModel([[echo_call("a"), echo_call("b")], "ok"]), toolkit(log),
                  engine=PermissionEngine(), middlewares=[gated])
    run = await agent.run("go")
    heard: list = []
    run.add_listener(lambda e: e.kind == "ask" and e.ask.answer("allow_once"))
    run.add_listener(lambda e: heard.append(e.kind))
    assert await run.wait_done(timeout=10) == "ok"
    assert sorted(log) == [("echo", "a"), ("echo", "b")]
    # every listener sees an ask before its answer, whatever the listener order
    assert heard.index("ask") < heard.index("ask_answered")
    assert [e.kind for e in run.events] == heard


async def test_always_without_settings_files_keeps_the_rule_for_the_session():
    log: list = []

    def asked(x: int) -> str:
        """Asked about."""
        log.append(x)
        return "ran"

    engine = PermissionEngine()
    agent = Agent(ScriptedModel([[{"name": "asked", "input": {"x": 1}}], "one",
                                 [{"name": "asked", "input": {"x": 2}}], "two"]),
                  Toolkit([FunctionTool(asked)]), engine=engine)
    run = await agent.run("go")
    (await run.next_ask(timeout=10)).answer("always")
    await run.wait_done(timeout=10)
    assert [(r.text, r.source) for r in engine.rules] == [("asked", "session")]
    run2 = await agent.run("again")
    assert await run2.wait_done(timeout=10) == "two" and run2.asks == []
    assert log == [1, 2]


async def test_every_event_serialises_to_json():
    import json

    def gated(tool, tool_input, context, next):
        return PermissionDecision.ask("ask me")

    agent = Agent(ScriptedModel([[echo_call("a")], "ok then"]), toolkit([]),
                  engine=PermissionEngine(), middlewares=[gated])
    run = await agent.run("go")
    (await run.next_ask(timeout=10)).answer("deny", message="no")
    await run.wait_done(timeout=10)
    dumped = [json.loads(json.dumps(e.to_dict())) for e in run.events]
    assert [d["kind"] for d in dumped] == [e.kind for e in run.events]
    ask = next(d for d in dumped if d["kind"] == "ask")["ask"]
    assert ask["tool"] == "echo" and ask["input"] == {"text": "a"} and ask["answered"]
    result = next(d for d in dumped if d["kind"] == "tool_result")
    assert result["response"]["state"] == "denied"


async def test_a_callable_script_decides_every_turn():
    def brain(messages, tools):
        results = [m for m in messages if m["role"] == "tool"]
        if not results:
            return [echo_call("ping")]
        if len(results) == 1:
            return {"text": "again", "tool_calls": [echo_call(results[0]["content"])]}
        return None  # stop

    log: list = []
    agent = Agent(ScriptedModel(brain), toolkit(log), engine=PermissionEngine())
    run = await finish(agent)
    assert log == [("echo", "ping"), ("echo", "echo: ping")]
    assert "no turn left" in run.result
