"""pipeline: what the five gates cost per call, for a tool that does nothing.

What: a no-op read-only ``FunctionTool`` called through the five gates exactly as the agent
loop chains them — (1) ``check_available``, (2) ``parse_arguments`` of the model's raw JSON,
(3) ``check_permission`` (engine in default mode), (4) ``Toolkit.call_tool`` (async generator,
consumed), (5) ``truncate_response`` — each call timed on its own, each gate too; against a
direct call of the same function. Also the amortised per-call time of the whole agent loop
(``Agent`` + ``ScriptedModel``: events, batching, history) for 10 calls per turn.

Repetitions: 3,000 gated calls after 200 warm-up, 3,000 direct calls; agent loop 10 calls x
20 turns, 3 runs (quick: 100 calls, 1 run of 10 x 2).
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time

from _common import dist_us

ABOUT = ("per-call overhead of the five gates for a no-op FunctionTool (median, p99) vs a "
         "direct function call; and per call through the whole agent loop")


def noop() -> str:
    """Do nothing."""
    return "ok"


async def _gated(calls: int, warm: int) -> dict:
    from jupyter_agenttools.gates.arguments import parse_arguments
    from jupyter_agenttools.gates.availability import check_available
    from jupyter_agenttools.gates.permission import check_permission
    from jupyter_agenttools.permission.engine import PermissionEngine
    from jupyter_agenttools.permission.types import PermissionBehavior
    from jupyter_agenttools.tools.base import ToolResponse
    from jupyter_agenttools.tools.function import FunctionTool
    from jupyter_agenttools.tools.toolkit import Toolkit
    from jupyter_agenttools.tools.truncate import truncate_response

    toolkit = Toolkit([FunctionTool(noop, read_only=True)])
    engine = PermissionEngine(mode="default")
    clock = time.perf_counter_ns
    totals: list[int] = []
    gates: list[list[int]] = [[], [], [], [], []]
    with tempfile.TemporaryDirectory() as offload:
        for n in range(warm + calls):
            t0 = clock()
            tool = check_available(toolkit, "noop")
            t1 = clock()
            tool_input = parse_arguments(tool, "{}")
            t2 = clock()
            decision = check_permission(engine, tool, tool_input)
            t3 = clock()
            response = None
            async for item in toolkit.call_tool(tool, tool_input, call_id=f"c{n}"):
                if isinstance(item, ToolResponse):
                    response = item
            t4 = clock()
            response = truncate_response(response, budget_chars=30000, offload_dir=offload)
            t5 = clock()
            if decision.behavior is not PermissionBehavior.ALLOW or response.text != "ok":
                raise RuntimeError(f"the no-op call did not run cleanly: {decision.behavior}, "
                                   f"{response.text!r}")
            if n >= warm:
                totals.append(t5 - t0)
                for g, (a, b) in enumerate(((t0, t1), (t1, t2), (t2, t3), (t3, t4), (t4, t5))):
                    gates[g].append(b - a)
    names = ("availability", "arguments", "permission", "execution", "finish")
    return {"gated": dist_us(totals),
            "per_gate_p50_us": {name: dist_us(s)["p50_us"] for name, s in zip(names, gates)}}


def _direct(calls: int) -> dict:
    clock = time.perf_counter_ns
    samples = []
    for _ in range(calls):
        t0 = clock()
        noop()
        samples.append(clock() - t0)
    return dist_us(samples)


async def _agent_loop(per_turn: int, turns: int) -> float:
    from jupyter_agenttools.agent.loop import Agent
    from jupyter_agenttools.agent.models import ScriptedModel
    from jupyter_agenttools.permission.engine import PermissionEngine
    from jupyter_agenttools.tools.function import FunctionTool
    from jupyter_agenttools.tools.toolkit import Toolkit

    script = [[{"name": "noop", "input": {}} for _ in range(per_turn)] for _ in range(turns)]
    agent = Agent(ScriptedModel(script + ["done"]), Toolkit([FunctionTool(noop, read_only=True)]),
                  engine=PermissionEngine(mode="default"), max_turns=turns + 1)
    start = time.perf_counter()
    run = await agent.run("go")
    await run.wait_done()
    wall = time.perf_counter() - start
    if run.state != "done" or len(run.tool_results) != per_turn * turns:
        raise RuntimeError(f"agent run ended {run.state} with {len(run.tool_results)} results")
    return wall / (per_turn * turns)


def run(quick: bool) -> dict:
    calls, warm = (100, 20) if quick else (3000, 200)
    loop_runs, turns = (1, 2) if quick else (3, 20)
    gated = asyncio.run(_gated(calls, warm))
    direct = _direct(calls)
    per_call = [asyncio.run(_agent_loop(10, turns)) for _ in range(loop_runs)]
    return {
        "reps": f"{calls} gated calls (+{warm} warm-up), {calls} direct calls, agent loop "
                f"{loop_runs} run(s) of 10 calls x {turns} turns",
        "gated_call": gated["gated"],
        "per_gate_p50_us": gated["per_gate_p50_us"],
        "direct_call": direct,
        "overhead_p50_us": round(gated["gated"]["p50_us"] - direct["p50_us"], 2),
        "overhead_p99_us": round(gated["gated"]["p99_us"] - direct["p99_us"], 2),
        "agent_loop_per_call_us": round(statistics.median(per_call) * 1e6, 1),
    }


def summary(f: dict) -> str:
    g = f["gated_call"]
    gates = ", ".join(f"{k} {v:.0f}" for k, v in f["per_gate_p50_us"].items())
    return (f"five gates p50 {g['p50_us']:.0f} us, p99 {g['p99_us']:.0f} us (direct call "
            f"p50 {f['direct_call']['p50_us']:.2f} us); agent loop "
            f"{f['agent_loop_per_call_us']:.0f} us/call\nper gate p50 us: {gates}")
