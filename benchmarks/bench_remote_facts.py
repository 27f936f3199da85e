"""What a decision costs when the tools run in another kernel: the one round trip that fetches
its file-system facts (``backend.path_facts``), against the same decision on local facts.

    python benchmarks/bench_remote_facts.py [N]

Prints, per file-tool call: round trips per decision (always 1 on a remote backend, 0 locally),
the median and p90 time of fetching the facts, of deciding on them, and of a local decision.
Timings are noisy on a shared machine: read the ratios of one run.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from jupyter_agenttools.backends.jupyter_kernel import JupyterKernelBackend
from jupyter_agenttools.backends.local import LocalBackend
from jupyter_agenttools.builtin import Glob, Grep, Read, Write
from jupyter_agenttools.gates.permission import decision_context
from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.permission.types import PermissionContext

CALLS = [
    (Read, {"file_path": "src/a.py"}),
    (Read, {"file_path": "keys/../notes.txt"}),
    (Write, {"file_path": "src/new.py", "content": "x"}),
    (Grep, {"pattern": "x", "path": "src"}),
    (Glob, {"pattern": "**/*.py"}),
]


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))]


async def main(n: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="bench-facts-")).resolve()
    (root / "src").mkdir()
    (root / "src/a.py").write_text("x = 1\n")
    (root / "notes.txt").write_text("n")
    os.symlink(root / "src", root / "keys")
    context = PermissionContext(cwd=str(root), project_root=str(root), home=str(root))
    engine = PermissionEngine(context=context, rules={"deny": ["Read(secret/**)"],
                                                      "allow": ["Read(//srv/**)"]})
    remote = await JupyterKernelBackend.start("python3", cwd=str(root))
    calls = 0
    original = remote.path_facts

    async def counted(*args, **kwargs):
        nonlocal calls
        calls += 1
        return await original(*args, **kwargs)

    remote.path_facts = counted  # type: ignore[method-assign]
    local = LocalBackend(str(root))
    print(f"{'call':36} {'trips':>5} {'fetch ms':>14} {'decide µs':>14} {'local µs':>14}")
    try:
        for cls, tool_input in CALLS:
            rtool, ltool = cls(remote), cls(local)
            fetch, decide, local_t = [], [], []
            before = calls
            for _ in range(n):
                t0 = time.perf_counter()
                ctx = await decision_context(engine, rtool, tool_input)
                t1 = time.perf_counter()
                engine.decide(rtool, tool_input, context=ctx)
                t2 = time.perf_counter()
                lctx = await decision_context(engine, ltool, tool_input)
                engine.decide(ltool, tool_input, context=lctx)
                t3 = time.perf_counter()
                fetch.append((t1 - t0) * 1e3)
                decide.append((t2 - t1) * 1e6)
                local_t.append((t3 - t2) * 1e6)
            trips = (calls - before) / n
            label = f"{cls.__name__} {list(tool_input.values())[0]}"
            print(f"{label[:36]:36} {trips:5.1f} "
                  f"{statistics.median(fetch):7.2f}/{pct(fetch, .9):6.2f} "
                  f"{statistics.median(decide):7.0f}/{pct(decide, .9):6.0f} "
                  f"{statistics.median(local_t):7.0f}/{pct(local_t, .9):6.0f}")
    finally:
        await remote.close()
    print("(median/p90; a remote decision = one round trip + deciding on the fetched facts)")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 50))
