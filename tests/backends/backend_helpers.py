"""Helpers for the backend tests: process checks, a primitives-only backend, a real server."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from typing import Iterator, Mapping, Sequence

from jupyter_agenttools.backends.base import BackendBase, ExecResult
from jupyter_agenttools.backends.local import LocalBackend


def pid_alive(pid: int) -> bool:
    """True while ``pid`` is a live process (a zombie counts as dead: it no longer runs)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def wait_dead(pids: Sequence[int], timeout: float = 5.0) -> list[int]:
    """The pids still alive after waiting up to ``timeout`` (reaping by init may lag)."""
    end = time.monotonic() + timeout
    while True:
        alive = [p for p in pids if pid_alive(p)]
        if not alive or time.monotonic() > end:
            return alive
        time.sleep(0.05)


class PrimitivesOnlyBackend(BackendBase):
    """Implements only the three primitives (by delegating to a LocalBackend), so every other
    operation runs through BackendBase's defaults."""

    def __init__(self, cwd: str | None = None):
        super().__init__()
        self._inner = LocalBackend(cwd)
        self.python_executable = sys.executable

    async def exec_shell(self, argv: Sequence[str], *, cwd: str | None = None,
                         timeout: float | None = None,
                         env: Mapping[str, str] | None = None) -> ExecResult:
        return await self._inner.exec_shell(argv, cwd=cwd, timeout=timeout, env=env)

    async def read_file(self, path: str) -> bytes:
        return await self._inner.read_file(path)

    async def write_file(self, path: str, data: bytes) -> None:
        await self._inner.write_file(path, data)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def jupyter_server(root_dir: str, token: str = "agenttools-test-token") -> Iterator[str]:
    """A real jupyter-server on loopback; yields its base URL and stops it afterwards."""
    port = free_port()
    log = tempfile.TemporaryFile()  # a pipe nobody reads could fill up and stall the server
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyter_server", f"--ServerApp.token={token}",
         f"--port={port}", "--ServerApp.ip=127.0.0.1", "--no-browser", "--allow-root",
         f"--ServerApp.root_dir={root_dir}", "--ServerApp.port_retries=0"],
        stdout=subprocess.DEVNULL, stderr=log)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2)
                break
            except OSError as exc:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    err = log.read().decode(errors="replace")
                    raise RuntimeError(f"jupyter_server did not start: {err[-2000:]}") from exc
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
