"""A kernel shut down while an agent's command runs takes the command's process group with it."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from jupyter_client.manager import start_new_kernel

REPO = Path(__file__).resolve().parents[2]

CELL = """
import asyncio
from jupyter_agenttools.backends.kernel import KernelBackend
backend = KernelBackend()
async def long_command():
    async for item in backend.exec_shell_stream(["bash", "-c", "sleep 300 & echo $!; wait"]):
        if isinstance(item, tuple):
            print("CHILD", item[1].decode().strip(), flush=True)
task = asyncio.get_running_loop().create_task(long_command())
await asyncio.sleep(1.0)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie waiting for its parent counts as gone
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.kernel
def test_kernel_shutdown_kills_running_commands(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    km, kc = start_new_kernel(kernel_name="python3", cwd=str(tmp_path), env=env)
    try:
        out: list[str] = []
        kc.execute_interactive(CELL, timeout=60,
                               output_hook=lambda m: out.append(m["content"].get("text", "")))
        pid = int("".join(out).split("CHILD", 1)[1].split()[0])
        assert _alive(pid)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)  # a graceful shutdown_request, as JupyterLab sends
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(pid), f"sleep {pid} outlived its kernel"
