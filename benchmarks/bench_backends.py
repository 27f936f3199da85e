"""backends: the cost of one command and of moving a file, per backend.

What: ``await backend.exec_shell(["true"])`` round-trip latency, and ``write_file`` /
``read_file`` of 10 MB of random bytes (read back and compared), for LocalBackend (a
subprocess of this process), KernelBackend (the same, following this process's cwd/env) and
JupyterKernelBackend (a real IPython kernel started with jupyter_client; every operation is a
request executed inside the kernel). Kernel start time is reported on its own.

Repetitions: 20 ``true`` per backend after 2 warm-up, 3 write+read rounds of 10 MB; medians
(quick: 3 and 1 of 1 MB).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time

from _common import dist_us

ABOUT = "exec_shell(['true']) latency and 10 MB write/read throughput: Local, Kernel, JupyterKernel"

SIZE = 10 * 1024 * 1024


async def _measure(backend, tmp: str, n_exec: int, n_io: int, size: int) -> dict:
    for _ in range(2):
        await backend.exec_shell(["true"])
    samples = []
    for _ in range(n_exec):
        t0 = time.perf_counter_ns()
        result = await backend.exec_shell(["true"])
        samples.append(time.perf_counter_ns() - t0)
        if result.exit_code != 0:
            raise RuntimeError(f"`true` exited {result.exit_code}")
    lat = dist_us(samples)
    writes, reads = [], []
    blob = os.urandom(size)
    path = os.path.join(tmp, "blob.bin")
    for _ in range(n_io):
        t0 = time.perf_counter()
        await backend.write_file(path, blob)
        writes.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        back = await backend.read_file(path)
        reads.append(time.perf_counter() - t0)
        if back != blob:
            raise RuntimeError("the file read back differs from what was written")
        os.unlink(path)
    mb = size / 1e6
    return {"exec_true_p50_ms": round(lat["p50_us"] / 1e3, 2),
            "exec_true_p99_ms": round(lat["p99_us"] / 1e3, 2),
            "write_mb_per_s": round(mb / statistics.median(writes), 1),
            "read_mb_per_s": round(mb / statistics.median(reads), 1)}


async def _all(quick: bool) -> dict:
    from jupyter_agenttools.backends.kernel import KernelBackend
    from jupyter_agenttools.backends.local import LocalBackend

    n_exec, n_io, size = (3, 1, SIZE // 10) if quick else (20, 3, SIZE)
    out: dict = {"reps": f"{n_exec} exec_shell(['true']) per backend (+2 warm-up), "
                         f"{n_io} x {size / 2**20:.0f} MiB write+read", "io_bytes": size}
    with tempfile.TemporaryDirectory() as tmp:
        out["local"] = await _measure(LocalBackend(tmp), tmp, n_exec, n_io, size)
        out["kernel"] = await _measure(KernelBackend(), tmp, n_exec, n_io, size)
        try:
            from jupyter_agenttools.backends.jupyter_kernel import JupyterKernelBackend
        except ImportError as exc:
            out["jupyter_kernel"] = {"skipped": f"part missing: {exc}"}
            return out
        t0 = time.perf_counter()
        jk = await JupyterKernelBackend.start("python3", cwd=tmp)
        start_s = time.perf_counter() - t0
        try:
            out["jupyter_kernel"] = await _measure(jk, tmp, n_exec, n_io, size)
            out["jupyter_kernel"]["start_s"] = round(start_s, 2)
        finally:
            await jk.close()
    return out


def run(quick: bool) -> dict:
    return asyncio.run(_all(quick))


def summary(f: dict) -> str:
    lines = []
    for key, label in (("local", "Local"), ("kernel", "Kernel"),
                       ("jupyter_kernel", "JupyterKernel")):
        b = f.get(key, {})
        if "skipped" in b:
            lines.append(f"{label}: skipped ({b['skipped']})")
            continue
        lines.append(f"{label}: true p50 {b['exec_true_p50_ms']} ms, "
                     f"{f['io_bytes'] / 2**20:.0f} MiB write "
                     f"{b['write_mb_per_s']} MB/s, read {b['read_mb_per_s']} MB/s"
                     + (f", kernel start {b['start_s']} s" if "start_s" in b else ""))
    return "\n".join(lines)
