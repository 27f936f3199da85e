"""Host side of the command supervisor (``_supervise.py``): how to start it, how to read it.

Every command the Local and Kernel backends run (and, through the same source shipped to the
kernel, the JupyterKernelBackend) goes through the supervisor, a child subreaper that finds and
stops every process the command started — also those that left its process group — at a
timeout, a cancellation or the death of the kernel. Its report says truthfully what was
stopped and what could not be.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from .base import describe_processes  # re-exported: it lives with ExecResult

__all__ = [
    "SUPERVISION",
    "KILL_GRACE",
    "SupervisorReport",
    "supervisor_source",
    "supervisor_argv",
    "SupervisedProcess",
    "describe_processes",
]

#: the supervisor needs Linux (/proc and prctl); elsewhere commands are stopped by group
SUPERVISION = sys.platform.startswith("linux") and os.path.isdir("/proc")
KILL_GRACE = 0.5  # seconds between SIGTERM and SIGKILL of a stopped command's processes
STOP_BOUND = 5.0  # seconds a stop may take before the host gives up on the supervisor


@functools.lru_cache(maxsize=1)
def supervisor_source() -> str:
    """The supervisor program's text (run with ``python -I -S -c``, here and in remote
    kernels)."""
    return (Path(__file__).with_name("_supervise.py")).read_text(encoding="utf-8")


#: runs the supervisor from this folder: imported, so its bytecode is cached (compiling the
#: source for every command would cost more than starting Python)
_BOOTSTRAP = ("import sys; sys.path.insert(0, sys.argv.pop(1)); "
              "import _supervise; _supervise.run()")


def supervisor_argv(python: str, argv: Sequence[str], *, status_fd: int = -1,
                    parent: int = 0, grace: float = KILL_GRACE, on_exit: str = "wait",
                    options: Sequence[str] = ()) -> list[str]:
    """The argv that runs ``argv`` under the supervisor (on this machine). ``options`` are
    more supervisor options (the sandbox's, from ``sandbox.SandboxSpec.options``)."""
    return [python, "-I", "-S", "-c", _BOOTSTRAP, str(Path(__file__).parent),
            "--status-fd", str(status_fd), "--parent", str(parent),
            "--grace", repr(float(grace)), "--on-exit", on_exit, *options, "--", *argv]


@dataclass
class SupervisorReport:
    """What the supervisor said about one command."""

    pid: int | None = None
    #: True: every descendant was tracked (subreaper); False: only the process group
    tracked: bool | None = None
    exit_code: int | None = None
    #: processes signalled by a stop (None: no stop happened)
    stopped: int | None = None
    #: "pid:name" of processes alive after a stop
    survivors: list[str] = field(default_factory=list)
    survivor_count: int = 0
    #: "pid:name" of processes still running when a completed command was released
    left: list[str] = field(default_factory=list)
    left_count: int = 0
    #: "on", or "refused: why"
    sandbox: str | None = None
    errors: list[str] = field(default_factory=list)

    def feed(self, line: str) -> None:
        words = line.split()
        if not words:
            return
        kind, rest = words[0], words[1:]
        try:
            if kind == "pid":
                self.pid = int(rest[0])
                self.tracked = rest[1:2] == ["tracked"]
            elif kind == "exit":
                self.exit_code = int(rest[0])
            elif kind == "stopped":
                self.stopped = int(rest[0]) + (self.stopped or 0)
                self.survivor_count = int(rest[1])
                self.survivors = rest[2:]
            elif kind == "left":
                self.left_count = int(rest[0])
                self.left = rest[1:]
            elif kind == "sandbox":
                self.sandbox = rest[0] if rest[0] == "on" else \
                    f"{rest[0]}: {' '.join(rest[1:])}"
            elif kind == "error":
                self.errors.append(" ".join(rest))
        except (IndexError, ValueError):
            self.errors.append(f"unreadable supervisor line {line!r}")


class SupervisedProcess:
    """A command started under the supervisor by asyncio (LocalBackend, KernelBackend).

    ``proc`` is the supervisor (its stdout/stderr are the command's: the supervisor does not
    hold them). ``stop()`` stops the whole tree; ``release()`` lets a completed command's
    detached processes be; both return the report."""

    def __init__(self, proc: asyncio.subprocess.Process, status_fd: int | None):
        self.proc = proc
        self.report = SupervisorReport()
        self._exited = asyncio.Event()
        self._status_done = asyncio.Event()
        self._status_task: asyncio.Task[None] | None = None
        if status_fd is not None:
            self._status_task = asyncio.ensure_future(self._read_status(status_fd))
        else:
            self._status_done.set()

    @classmethod
    async def start(cls, argv: Sequence[str], *, cwd: str, env: Mapping[str, str],
                    options: Sequence[str] = (), python: str | None = None,
                    limit: int = 1 << 16) -> "SupervisedProcess":
        """Start ``argv`` (supervised when the platform allows); OSError when it can't start
        (a missing cwd: FileNotFoundError/NotADirectoryError)."""
        if not SUPERVISION:
            proc = await asyncio.create_subprocess_exec(
                *argv, cwd=cwd, env=dict(env), stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                start_new_session=True, limit=limit)
            return cls(proc, None)
        if not os.path.isdir(cwd):
            raise (NotADirectoryError if os.path.exists(cwd) else FileNotFoundError)(
                2 if not os.path.exists(cwd) else 20,
                "Not a directory" if os.path.exists(cwd) else "No such file or directory",
                cwd)
        read_fd, write_fd = os.pipe()
        try:
            full = supervisor_argv(python or sys.executable, argv, status_fd=write_fd,
                                   parent=os.getpid(), options=options)
            proc = await asyncio.create_subprocess_exec(
                *full, cwd=cwd, env=dict(env), stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                start_new_session=True, limit=limit, pass_fds=(write_fd,))
        except BaseException:
            os.close(read_fd)
            raise
        finally:
            os.close(write_fd)
        return cls(proc, read_fd)

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def supervised(self) -> bool:
        return self._status_task is not None

    async def _read_status(self, fd: int) -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=1 << 20)
        transport = None
        try:
            transport, _ = await loop.connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", 0))
            while True:
                line = await reader.readline()
                if not line:
                    break
                self.report.feed(line.decode("utf-8", "replace"))
                if self.report.exit_code is not None:
                    self._exited.set()
        except (OSError, ValueError) as exc:
            self.report.errors.append(f"status channel: {exc}")
        finally:
            if transport is not None:
                transport.close()
            self._exited.set()
            self._status_done.set()

    async def wait_command(self, timeout: float | None) -> bool:
        """Wait for the command itself (not its detached children) to exit; False on timeout."""
        waiter = self._exited.wait() if self.supervised else self.proc.wait()
        try:
            await asyncio.wait_for(waiter, timeout)
        except asyncio.TimeoutError:
            return False
        return True

    @property
    def exit_code(self) -> int:
        if self.report.exit_code is not None:
            return self.report.exit_code
        code = self.proc.returncode
        return -1 if code is None else code

    def _signal(self, sig: int) -> None:
        # os.kill, not Process.send_signal: that polls (waitpid) first and may reap the exited
        # supervisor under asyncio's child watcher ("Unknown child process"). Until asyncio
        # reaps it, the pid cannot be reused, so signalling it by number is safe.
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self.proc.pid, sig)

    async def _finish(self, sig: int, bound: float) -> SupervisorReport:
        self._signal(sig)
        answered = True
        try:
            await asyncio.wait_for(self.proc.wait(), bound)
        except asyncio.TimeoutError:
            answered = False
            self.report.errors.append("the supervisor did not answer; its group was killed")
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._status_done.wait(), 1)
        if not answered or not self.supervised or self.report.stopped is None or \
                self.report.survivor_count:
            # Whatever is left in the group (the supervisor if it hung, everything when there
            # is no supervisor) is killed outright. Not after a clean report: the group id
            # may then already belong to someone else.
            _killpg(self.proc.pid, signal.SIGKILL)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.proc.wait(), 2)
        return self.report

    async def stop(self) -> SupervisorReport:
        """Stop the command and every process it started (SIGTERM, grace, SIGKILL)."""
        if not self.supervised:
            _killpg(self.proc.pid, signal.SIGTERM)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.proc.wait(), KILL_GRACE)
            return await self._finish(signal.SIGKILL, 2)
        if self.proc.returncode is not None:
            # The supervisor is gone (killed from outside): the group is all we can reach.
            _killpg(self.proc.pid, signal.SIGKILL)
            return self.report
        return await self._finish(signal.SIGTERM, STOP_BOUND)

    async def release(self) -> SupervisorReport:
        """The command completed: let the supervisor go, leaving detached processes be."""
        if not self.supervised:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.proc.wait(), 2)
            return self.report
        self._signal(signal.SIGUSR1)
        try:
            await asyncio.wait_for(self.proc.wait(), STOP_BOUND)
        except asyncio.TimeoutError:
            return await self.stop()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._status_done.wait(), 1)
        return self.report

    def kill_now(self) -> None:
        """Last resort without awaiting (interpreter exit): ask the supervisor to stop the
        tree — it keeps going after we are gone — and kill the group."""
        if self.supervised:
            self._signal(signal.SIGTERM)
        else:
            _killpg(self.proc.pid, signal.SIGKILL)


def _killpg(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)
