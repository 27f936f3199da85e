"""Agent loop overhead: N tool calls through the five gates on ScriptedModel, and the wall
time of a concurrent batch of sleeping calls. Run: python benchmarks/bench_agent_loop.py"""

from __future__ import annotations

import asyncio
import statistics
import time

from jupyter_agenttools.agent.loop import Agent
from jupyter_agenttools.agent.models import ScriptedModel
from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.tools.function import FunctionTool
from jupyter_agenttools.tools.toolkit import Toolkit


def echo(text: str) -> str:
    """Echo."""
    return text


async def nap(seconds: float) -> str:
    """Sleep."""
    await asyncio.sleep(seconds)
    return "ok"


def toolkit() -> Toolkit:
    return Toolkit([FunctionTool(echo, read_only=True), FunctionTool(nap, read_only=True)])


async def gate_overhead(calls_per_turn: int, turns: int) -> float:
    script = [[{"name": "echo", "input": {"text": f"{t}-{i}"}} for i in range(calls_per_turn)]
              for t in range(turns)] + ["done"]
    agent = Agent(ScriptedModel(script), toolkit(), engine=PermissionEngine(),
                  max_turns=turns + 1)
    start = time.perf_counter()
    run = await agent.run("go")
    await run.wait_done()
    return (time.perf_counter() - start) / (calls_per_turn * turns)


async def batch_wall(n: int, seconds: float) -> float:
    script = [[{"name": "nap", "input": {"seconds": seconds}} for _ in range(n)], "done"]
    agent = Agent(ScriptedModel(script), toolkit(), engine=PermissionEngine())
    start = time.perf_counter()
    run = await agent.run("go")
    await run.wait_done()
    return time.perf_counter() - start


async def main() -> None:
    per_call = [await gate_overhead(10, 50) for _ in range(5)]
    print(f"per tool call through the gates (500 calls, 5 runs): median "
          f"{statistics.median(per_call) * 1e6:.0f} µs")
    walls = [await batch_wall(5, 0.3) for _ in range(5)]
    print(f"5 concurrent calls of 0.3 s: median wall {statistics.median(walls):.3f} s "
          f"(sequential would be 1.5 s)")


if __name__ == "__main__":
    asyncio.run(main())
