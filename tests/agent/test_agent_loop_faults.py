"""Fault injection, agent loop (issue 18): tools that block, raise BaseException, or never end.

Synchronous tools run in worker threads (the event loop keeps running), a cancel stops them
where Python can and says so where it cannot, SystemExit/KeyboardInterrupt stay in their call's
result, and every call has a time limit. Real Toolkit, real PermissionEngine, real threads.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from fault_figures import record

from jupyter_agenttools.agent.loop import DEFAULT_TOOL_TIME_LIMIT, OWN_LIMIT_GRACE, Agent
from jupyter_agenttools.agent.models import ScriptedModel
from jupyter_agenttools.builtin.bash import Bash
from jupyter_agenttools.errors import UsageError
from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.tools.base import ToolResultState
from jupyter_agenttools.tools.function import FunctionTool
from jupyter_agenttools.tools.toolkit import Toolkit
from jupyter_agenttools.tools.worker import STUCK_MESSAGE

pytestmark = pytest.mark.timeout(120)


def agent_with(functions: list[Any], turns: list[Any], **kw: Any) -> Agent:
    toolkit = Toolkit([FunctionTool(f, read_only=True) for f in functions])
    return Agent(ScriptedModel(turns), toolkit, engine=PermissionEngine(), **kw)


def calls(*items: tuple[str, dict]) -> list[dict]:
    return [{"name": name, "input": tool_input} for name, tool_input in items]


async def ticker(stop: asyncio.Event, gaps: list[float], period: float = 0.01) -> None:
    """How late the event loop wakes a 10 ms sleep: its latency while tools run."""
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        before = loop.time()
        await asyncio.sleep(period)
        gaps.append(loop.time() - before - period)


def by_id(run: Any) -> list[Any]:
    return sorted(run.tool_results, key=lambda r: r.id)


# --- the loop keeps running while synchronous tools block -------------------------------------


async def test_blocking_sync_tools_run_in_threads_while_the_loop_runs():
    """Three tools block until the *event loop* releases them: they can only finish if they
    run off the loop, all three at once."""
    started = [threading.Event() for _ in range(3)]
    release = threading.Event()
    threads: set[int] = set()

    def block(n: int) -> str:
        """Blocks until released."""
        threads.add(threading.get_ident())
        started[n].set()
        if not release.wait(30):
            return "never released"
        return f"released {n}"

    agent = agent_with([block], [calls(*[("block", {"n": n}) for n in range(3)]), "done"])
    run = await agent.run("go")
    while not all(e.is_set() for e in started):  # the loop runs while all three block
        await asyncio.sleep(0.01)
    release.set()
    await run.wait_done()
    assert run.state == "done"
    assert [r.text for r in by_id(run)] == ["released 0", "released 1", "released 2"]
    assert threading.main_thread().ident not in threads and len(threads) == 3


async def test_sync_generator_steps_run_in_the_thread_and_stream():
    seen: list[str] = []

    def produce(count: int):
        """Yields lines, blocking between them."""
        for i in range(count):
            seen.append(threading.get_ident())
            time.sleep(0.05)
            yield f"line {i}\n"

    agent = agent_with([produce], [calls(("produce", {"count": 3})), "done"])
    run = await agent.run("go")
    await run.wait_done()
    chunks = [e for e in run.events if e.kind == "tool_chunk"]
    assert [c.chunk.content[0]["text"] for c in chunks] == ["line 0\n", "line 1\n", "line 2\n"]
    assert len(set(seen)) == 1 and seen[0] != threading.main_thread().ident


async def test_event_loop_latency_while_three_sleep_4_tools_run():
    """The issue's case: three `time.sleep(4)` tools stalled the loop 12 s. Figures only."""
    def sleepy(n: int) -> str:
        """Sleeps 4 s."""
        time.sleep(4)
        return f"slept {n}"

    agent = agent_with([sleepy], [calls(*[("sleepy", {"n": n}) for n in range(3)]), "done"])
    stop, gaps = asyncio.Event(), []
    tick = asyncio.ensure_future(ticker(stop, gaps))
    begin = time.monotonic()
    run = await agent.run("go")
    await run.wait_done()
    wall = time.monotonic() - begin
    stop.set()
    await tick
    assert run.state == "done" and [r.text for r in by_id(run)] == [
        "slept 0", "slept 1", "slept 2"]
    assert len(gaps) > 50  # the loop kept ticking through the 4 s
    record("loop", "three_sleep_4_tools", wall_s=round(wall, 2), ticks=len(gaps),
           max_loop_latency_ms=round(1000 * max(gaps), 1),
           median_loop_latency_ms=round(1000 * sorted(gaps)[len(gaps) // 2], 2))


# --- cancel ------------------------------------------------------------------------------------


async def test_cancel_stops_python_busy_tools_and_reports_ones_blocked_in_c():
    busy_started, busy_cleaned = threading.Event(), threading.Event()
    sleep_started = threading.Event()

    def spin(label: str) -> str:
        """Busy in Python forever (a stop lands at the next instruction)."""
        busy_started.set()
        total = 0
        try:
            while True:
                total += 1
        finally:
            busy_cleaned.set()

    def nap(seconds: float) -> str:
        """Blocked inside C (time.sleep): cannot be stopped before it returns."""
        sleep_started.set()
        time.sleep(seconds)
        return "woke"

    agent = agent_with([spin, nap], [calls(("spin", {"label": "a"}), ("nap", {"seconds": 4})),
                                     "never"])
    run = await agent.run("go")
    while not (busy_started.is_set() and sleep_started.is_set()):
        await asyncio.sleep(0.01)
    begin = time.monotonic()
    run.cancel()
    await run.wait_done()
    cancel_s = time.monotonic() - begin
    assert run.state == "cancelled"
    spin_result, nap_result = by_id(run)
    assert spin_result.state is ToolResultState.INTERRUPTED
    assert busy_cleaned.wait(5)  # the stop reached the thread: its finally ran
    assert STUCK_MESSAGE not in spin_result.text
    assert nap_result.state is ToolResultState.INTERRUPTED
    assert STUCK_MESSAGE in nap_result.text and nap_result.metadata["thread_still_running"]
    # the conversation stays valid for the next prompt: every call has its tool message
    assert [m["role"] for m in agent.messages[-2:]] == ["tool", "tool"]
    record("loop", "cancel_with_sync_tools", cancel_to_cancelled_s=round(cancel_s, 2),
           busy_tool_stopped=busy_cleaned.is_set(), sleeping_tool_reported_stuck=True)


# --- BaseException stays in its call ----------------------------------------------------------


class Custom(BaseException):
    pass


RAISED = [SystemExit(3), SystemExit, KeyboardInterrupt(), Custom("custom")]


@pytest.mark.parametrize("kind", ["sync", "async", "sync generator", "async generator"])
@pytest.mark.parametrize("error", RAISED, ids=["SystemExit(3)", "SystemExit", "KeyboardInterrupt",
                                               "Custom"])
async def test_base_exceptions_of_a_tool_are_its_call_result(kind, error):
    def sync_tool(x: int) -> str:
        """Raises."""
        raise error

    async def async_tool(x: int) -> str:
        """Raises."""
        await asyncio.sleep(0)
        raise error

    def gen_tool(x: int):
        """Yields, then raises."""
        yield "part"
        raise error

    async def agen_tool(x: int):
        """Yields, then raises."""
        yield "part"
        raise error

    func = {"sync": sync_tool, "async": async_tool, "sync generator": gen_tool,
            "async generator": agen_tool}[kind]

    def fine(x: int) -> str:
        """Works."""
        return "fine"

    agent = agent_with([func, fine], [calls((func.__name__, {"x": 1}), ("fine", {"x": 2})),
                                      "the model goes on"])
    run = await agent.run("go")
    await run.wait_done()
    assert run.state == "done" and run.result == "the model goes on"
    broken, ok = by_id(run)
    name = error.__name__ if isinstance(error, type) else type(error).__name__
    assert broken.state is ToolResultState.ERROR
    assert f"the tool raised {name}" in broken.text and "only this call failed" in broken.text
    assert ok.text == "fine"


# --- time limits ---------------------------------------------------------------------------


async def test_every_kind_of_overrunning_tool_is_stopped_at_its_limit():
    cleaned = threading.Event()

    async def hang(x: int) -> str:
        """Waits forever (async)."""
        await asyncio.sleep(3600)
        return "never"

    def spin(x: int) -> str:
        """Busy forever (sync, Python)."""
        try:
            while True:
                pass
        finally:
            cleaned.set()

    def partial(x: int):
        """Some output, then blocks."""
        yield "first part\n"
        while True:
            time.sleep(0.01)

    agent = agent_with([hang, spin, partial],
                       [calls(("hang", {"x": 1}), ("spin", {"x": 2}), ("partial", {"x": 3})),
                        "after the limit"], tool_time_limit=1)
    begin = time.monotonic()
    run = await agent.run("go")
    await run.wait_done()
    wall = time.monotonic() - begin
    assert run.state == "done" and run.result == "after the limit"
    for result in by_id(run):
        assert result.state is ToolResultState.ERROR, result.text
        assert "did not finish within 1 s (the agent's tool_time_limit)" in result.text
        assert result.metadata["timed_out"] is True
    assert by_id(run)[2].text.startswith("first part\n")
    assert cleaned.wait(5)
    record("loop", "time_limit_1s", wall_s=round(wall, 2), calls=3)


async def test_a_sync_tool_blocked_in_c_at_its_limit_is_reported_still_running():
    def nap(seconds: float) -> str:
        """Blocked in C."""
        time.sleep(seconds)
        return "woke"

    agent = agent_with([nap], [calls(("nap", {"seconds": 3})), "on"], tool_time_limit=0.5)
    run = await agent.run("go")
    await run.wait_done()
    (result,) = run.tool_results
    assert result.state is ToolResultState.ERROR and STUCK_MESSAGE in result.text
    assert result.metadata["thread_still_running"] is True


def test_the_limit_of_a_call_bash_keeps_its_own():
    agent = Agent(ScriptedModel([]), Toolkit([Bash()]), engine=PermissionEngine())
    bash = agent.toolkit.get_tool("Bash")
    assert agent.tool_time_limit == DEFAULT_TOOL_TIME_LIMIT
    assert agent._time_limit(bash, {"command": "ls", "timeout": 5000}) == 5 + OWN_LIMIT_GRACE
    assert agent._time_limit(bash, {"command": "ls"}) == 120 + OWN_LIMIT_GRACE
    assert agent._time_limit(bash, {"command": "ls", "timeout": 10**9}) == 600 + OWN_LIMIT_GRACE
    tool = FunctionTool(lambda: "x", name="plain")
    assert agent._time_limit(tool, {}) == DEFAULT_TOOL_TIME_LIMIT
    assert Agent(ScriptedModel([]), Toolkit([]), tool_time_limit=None)._time_limit(
        tool, {}) is None


@pytest.mark.parametrize("bad", [0, -1, float("inf"), float("nan"), "60", True])
def test_a_bad_time_limit_is_refused(bad):
    with pytest.raises(UsageError, match="tool_time_limit"):
        Agent(ScriptedModel([]), Toolkit([]), tool_time_limit=bad)
