"""Backends and Bash: throughput and latency figures (a measurement, not a test).

    python benchmarks/bench_backends.py [--quick]

Prints: 200 MB of output through the Bash tool on a LocalBackend (seconds, MB/s, peak memory
growth, offload file size); round-trip latency of a trivial command on Local, Kernel and
JupyterKernel backends; 10 MB file write/read through a JupyterKernelBackend.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from jupyter_agenttools.backends.jupyter_kernel import JupyterKernelBackend  # noqa: E402
from jupyter_agenttools.backends.kernel import KernelBackend  # noqa: E402
from jupyter_agenttools.backends.local import LocalBackend  # noqa: E402
from jupyter_agenttools.builtin import Bash  # noqa: E402
from jupyter_agenttools.tools.base import ToolResponse  # noqa: E402


def vm_hwm_kb() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


async def bash_200mb(tmp: str, size: int) -> None:
    bash = Bash(LocalBackend(tmp), offload_dir=tmp)
    before = vm_hwm_kb()
    start = time.perf_counter()
    response = ToolResponse()
    async for chunk in bash.call(command=f"yes | head -c {size}"):
        response.append_chunk(chunk)
    seconds = time.perf_counter() - start
    growth = vm_hwm_kb() - before
    path = response.metadata["offload_path"]
    print(f"Bash {size / 1e6:.0f} MB: {seconds:.2f} s ({size / 1e6 / seconds:.0f} MB/s), "
          f"peak RSS growth {growth / 1024:.1f} MB, offload {os.path.getsize(path):,} bytes, "
          f"{len(response.text):,} chars shown")
    os.unlink(path)


async def latency(name: str, backend, n: int) -> None:
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        await backend.exec_shell(["true"])
        samples.append((time.perf_counter() - t) * 1000)
    print(f"{name:14s} exec_shell(['true']): median {statistics.median(samples):.1f} ms, "
          f"max {max(samples):.1f} ms over {n}")


async def main(quick: bool) -> None:
    n = 5 if quick else 20
    with tempfile.TemporaryDirectory() as tmp:
        await bash_200mb(tmp, 20_000_000 if quick else 200_000_000)
        await latency("LocalBackend", LocalBackend(tmp), n)
        await latency("KernelBackend", KernelBackend(), n)
        t = time.perf_counter()
        jk = await JupyterKernelBackend.start("python3")
        print(f"JupyterKernelBackend.start: {time.perf_counter() - t:.2f} s")
        try:
            await latency("JupyterKernel", jk, n)
            t = time.perf_counter()
            await jk.stat(tmp)
            print(f"JupyterKernel  stat (in-kernel op): {(time.perf_counter() - t) * 1000:.1f} ms")
            blob = os.urandom(10 * 1024 * 1024)
            path = os.path.join(tmp, "blob.bin")
            t = time.perf_counter()
            await jk.write_file(path, blob)
            w = time.perf_counter() - t
            t = time.perf_counter()
            back = await jk.read_file(path)
            r = time.perf_counter() - t
            assert back == blob
            print(f"JupyterKernel  10 MB write {w:.2f} s, read {r:.2f} s")
        finally:
            await jk.close()


if __name__ == "__main__":
    asyncio.run(main("--quick" in sys.argv))
