"""concurrency: does a batch of concurrency-safe calls really run together?

What: one model turn with 8 calls of a tool that sleeps 100 ms (``asyncio.sleep``), through
the agent loop (``Agent`` + ``ScriptedModel``, default-mode engine): once with the tool marked
concurrency-safe (one batch, ideal wall 0.1 s), once with the same tool marked not safe (the
loop must run them one by one, ideal 0.8 s). Wall time from ``agent.run`` to ``wait_done``.

Repetitions: 5 runs each, median (quick: 1 run each).
"""

from __future__ import annotations

import asyncio
import statistics
import time

ABOUT = "8 tool calls sleeping 100 ms: one concurrent batch vs sequential, via the agent loop"

CALLS = 8
NAP = 0.1


async def nap() -> str:
    """Sleep 100 ms."""
    await asyncio.sleep(NAP)
    return "ok"


async def _wall(safe: bool) -> float:
    from jupyter_agenttools.agent.loop import Agent
    from jupyter_agenttools.agent.models import ScriptedModel
    from jupyter_agenttools.permission.engine import PermissionEngine
    from jupyter_agenttools.tools.function import FunctionTool
    from jupyter_agenttools.tools.toolkit import Toolkit

    tool = FunctionTool(nap, read_only=True, concurrency_safe=safe)
    script = [[{"name": "nap", "input": {}} for _ in range(CALLS)], "done"]
    agent = Agent(ScriptedModel(script), Toolkit([tool]), engine=PermissionEngine(mode="default"))
    start = time.perf_counter()
    run = await agent.run("go")
    await run.wait_done()
    wall = time.perf_counter() - start
    ok = [r for r in run.tool_results if r.text == "ok"]
    if run.state != "done" or len(ok) != CALLS:
        raise RuntimeError(f"run ended {run.state} with {len(ok)}/{CALLS} ok results")
    return wall


def run(quick: bool) -> dict:
    runs = 1 if quick else 5
    batch = [asyncio.run(_wall(True)) for _ in range(runs)]
    seq = [asyncio.run(_wall(False)) for _ in range(runs)]
    b, s = statistics.median(batch), statistics.median(seq)
    return {
        "reps": f"{runs} run(s) each of {CALLS} calls x {NAP * 1000:.0f} ms",
        "batch_wall_s": round(b, 4), "sequential_wall_s": round(s, 4),
        "speedup": round(s / b, 2),
        "batch_overhead_ms": round((b - NAP) * 1000, 1),
        "sequential_overhead_ms": round((s - CALLS * NAP) * 1000, 1),
    }


def summary(f: dict) -> str:
    return (f"batch {f['batch_wall_s']:.3f} s vs sequential {f['sequential_wall_s']:.3f} s "
            f"({f['speedup']}x; ideal {CALLS}x), batch overhead {f['batch_overhead_ms']} ms")
