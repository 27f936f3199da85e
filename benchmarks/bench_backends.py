"""Backends and the Bash tool: throughput, memory and latency (a measurement, not a test).

    python benchmarks/bench_backends.py [--quick]      (or through benchmarks/run.py)

Figures: 200 MB of output through the Bash tool on a LocalBackend (seconds, MB/s, peak memory
growth, offload file size); round-trip latency of a trivial command on Local, Kernel and
JupyterKernel backends; 10 MB file write/read through a JupyterKernelBackend.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

ABOUT = ("Bash tool: 200 MB of output (time, peak RSS growth, offload size); exec_shell "
         "round trip on Local/Kernel/JupyterKernel backends; 10 MB file transfer to/from "
         "another kernel")


def _vm_hwm_kb() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


async def _big_output(tmp: str, size: int) -> dict:
    from jupyter_agenttools.backends.local import LocalBackend
    from jupyter_agenttools.builtin import Bash
    from jupyter_agenttools.tools.base import ToolResponse

    bash = Bash(LocalBackend(tmp), offload_dir=tmp)
    before = _vm_hwm_kb()
    start = time.perf_counter()
    response = ToolResponse()
    async for chunk in bash.call(command=f"yes | head -c {size}"):
        response.append_chunk(chunk)
    seconds = time.perf_counter() - start
    path = response.metadata["offload_path"]
    out = {"bytes": size, "seconds": round(seconds, 2),
           "mb_per_s": round(size / 1e6 / seconds, 1),
           "peak_rss_growth_mb": round((_vm_hwm_kb() - before) / 1024, 1),
           "offload_bytes": os.path.getsize(path), "shown_chars": len(response.text)}
    os.unlink(path)
    return out


async def _latency_ms(backend, n: int) -> dict:
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        await backend.exec_shell(["true"])
        samples.append((time.perf_counter() - t) * 1000)
    return {"p50_ms": round(statistics.median(samples), 1), "max_ms": round(max(samples), 1)}


async def _measure(quick: bool) -> dict:
    from jupyter_agenttools.backends.jupyter_kernel import JupyterKernelBackend
    from jupyter_agenttools.backends.kernel import KernelBackend
    from jupyter_agenttools.backends.local import LocalBackend

    n = 5 if quick else 30
    figures: dict = {"reps": f"{n} round trips per backend"}
    with tempfile.TemporaryDirectory() as tmp:
        figures["big_output"] = await _big_output(tmp, 20_000_000 if quick else 200_000_000)
        figures["exec_local"] = await _latency_ms(LocalBackend(tmp), n)
        figures["exec_kernel"] = await _latency_ms(KernelBackend(), n)
        t = time.perf_counter()
        jk = await JupyterKernelBackend.start("python3")
        figures["jupyter_kernel_start_s"] = round(time.perf_counter() - t, 2)
        try:
            figures["exec_jupyter_kernel"] = await _latency_ms(jk, n)
            blob = os.urandom(10 * 1024 * 1024)
            path = os.path.join(tmp, "blob.bin")
            t = time.perf_counter()
            await jk.write_file(path, blob)
            write_s = time.perf_counter() - t
            t = time.perf_counter()
            ok = await jk.read_file(path) == blob
            figures["jupyter_kernel_10mb"] = {"write_s": round(write_s, 2),
                                              "read_s": round(time.perf_counter() - t, 2),
                                              "round_trip_equal": ok}
        finally:
            await jk.close()
    return figures


def run(quick: bool) -> dict:
    return asyncio.run(_measure(quick))


def summary(f: dict) -> str:
    b = f["big_output"]
    return (f"Bash {b['bytes'] / 1e6:.0f} MB in {b['seconds']} s ({b['mb_per_s']} MB/s), "
            f"peak RSS +{b['peak_rss_growth_mb']} MB, offload {b['offload_bytes']:,} B\n"
            f"exec p50: local {f['exec_local']['p50_ms']} ms, kernel "
            f"{f['exec_kernel']['p50_ms']} ms, jupyter kernel "
            f"{f['exec_jupyter_kernel']['p50_ms']} ms; 10 MB to/from a kernel: write "
            f"{f['jupyter_kernel_10mb']['write_s']} s, read {f['jupyter_kernel_10mb']['read_s']} s")


if __name__ == "__main__":
    figures = run("--quick" in sys.argv)
    print(json.dumps(figures))
    print(summary(figures))
