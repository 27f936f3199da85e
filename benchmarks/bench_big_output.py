"""big-output: 200 MB of output through the Bash tool without holding it in memory.

What: ``Bash(LocalBackend).call(command="yes | head -c 200000000")`` consumed to its response,
as the agent loop does: wall time, MB/s, growth of this process's peak resident memory
(``VmHWM`` before vs after, in a fresh process), size of the offload file with the full output,
and how much text the model is shown.

Repetitions: 1 (it moves 200 MB; quick: 5 MB).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time

ABOUT = "200 MB through Bash (yes | head -c 200000000): wall time, peak RSS growth, offload size"


def _vm_hwm_kb() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


async def _once(size: int) -> dict:
    from jupyter_agenttools.backends.local import LocalBackend
    from jupyter_agenttools.builtin import Bash
    from jupyter_agenttools.tools.base import ToolResponse

    with tempfile.TemporaryDirectory() as tmp:
        bash = Bash(LocalBackend(tmp), offload_dir=tmp)
        async for _ in bash.call(command="true"):  # warm-up: imports, first spawn
            pass
        before = _vm_hwm_kb()
        start = time.perf_counter()
        response = ToolResponse()
        async for chunk in bash.call(command=f"yes | head -c {size}"):
            response.append_chunk(chunk)
        wall = time.perf_counter() - start
        growth_kb = _vm_hwm_kb() - before
        path = (response.metadata or {}).get("offload_path")
        offload = os.path.getsize(path) if path and os.path.exists(path) else None
        return {"bytes": size, "wall_s": round(wall, 3), "mb_per_s": round(size / 1e6 / wall, 1),
                "peak_rss_growth_mb": round(growth_kb / 1024, 1),
                "offload_bytes": offload, "shown_chars": len(response.text or ""),
                "offload_complete": offload is not None and offload >= size}


def run(quick: bool) -> dict:
    size = 5_000_000 if quick else 200_000_000
    out = asyncio.run(_once(size))
    out["reps"] = f"1 run of {size / 1e6:.0f} MB"
    return out


def summary(f: dict) -> str:
    off = f"{f['offload_bytes']:,}" if f["offload_bytes"] is not None else "none"
    return (f"{f['bytes'] / 1e6:.0f} MB in {f['wall_s']:.2f} s ({f['mb_per_s']:.0f} MB/s), "
            f"peak RSS +{f['peak_rss_growth_mb']} MB, offload file {off} bytes, "
            f"{f['shown_chars']:,} chars shown")
