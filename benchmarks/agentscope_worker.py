"""AgentScope's engine over the same Bash commands, run by AgentScope's own interpreter.

    AGENTSCOPE_PYTHON=/tmp/asvenv/bin/python python benchmarks/run.py bash-decisions

bench_decisions.py starts this file with ``$AGENTSCOPE_PYTHON`` (a separate venv: agentscope
is never a dependency of ours) and writes ``{"commands": [...], "rounds": n, "cwd": dir}`` to
its stdin. It measures what bench_decisions measures for our engine: ``await
PermissionEngine(PermissionContext(mode=DEFAULT)).check_permission(Bash(cwd), {"command": c})``
(engine and tool built once; their API is async, so every call is awaited inside one running
event loop), each call timed on its own, plus a bare tree-sitter-bash parse of the same
commands in this process (its own floor). Prints one JSON line. Imports nothing of ours.
"""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import time
from importlib import metadata


def _dist(samples: list[int]) -> dict:
    s = sorted(samples)

    def pct(p: float) -> float:
        i = min(len(s) - 1, max(0, int(round(p * len(s) + 0.5)) - 1))
        return round(s[i] / 1e3, 2)

    return {"p50_us": pct(0.5), "p99_us": pct(0.99), "max_us": round(s[-1] / 1e3, 2)}


async def main() -> dict:
    import tree_sitter_bash
    from agentscope.permission import PermissionContext, PermissionEngine, PermissionMode
    from agentscope.tool import Bash
    from tree_sitter import Language, Parser

    job = json.load(sys.stdin)
    commands, rounds = job["commands"], job["rounds"]
    engine = PermissionEngine(PermissionContext(mode=PermissionMode.DEFAULT))
    bash = Bash(cwd=job.get("cwd"))
    check = engine.check_permission
    inputs = [{"command": c} for c in commands]
    encoded = [c.encode() for c in commands]
    parser = Parser(Language(tree_sitter_bash.language()))
    clock = time.perf_counter_ns

    for i in inputs[:20]:  # warm-up
        await check(bash, i)
    behaviors: dict[str, int] = {}
    for i in inputs:
        b = (await check(bash, i)).behavior
        b = getattr(b, "value", str(b)).lower()
        behaviors[b] = behaviors.get(b, 0) + 1

    engine_s: list[int] = []
    parse_s: list[int] = []
    for _ in range(rounds):
        gc.collect()
        for i in inputs:
            t0 = clock()
            await check(bash, i)
            engine_s.append(clock() - t0)
        for b in encoded:
            t0 = clock()
            parser.parse(b)
            parse_s.append(clock() - t0)
    n = len(inputs)
    best = [min(engine_s[i::n]) for i in range(n)]
    best_parse = [min(parse_s[i::n]) for i in range(n)]
    return {"version": metadata.version("agentscope"),
            "best_of_rounds": {"decisions_per_s": round(n / (sum(best) / 1e9)), **_dist(best)},
            "decisions": len(engine_s),
            "decisions_per_s": round(len(engine_s) / (sum(engine_s) / 1e9)),
            **_dist(engine_s),
            "parses_per_s": round(len(parse_s) / (sum(parse_s) / 1e9)),
            "parses_per_s_best_of_rounds": round(n / (sum(best_parse) / 1e9)),
            "decision_cost_in_parses_best": round(sum(best) / sum(best_parse), 2),
            "behaviors": behaviors}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main())))
