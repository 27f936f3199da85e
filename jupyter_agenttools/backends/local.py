"""LocalBackend: commands as subprocesses of this machine, files through the OS."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import os
import shutil
import sys
import tempfile
from typing import TYPE_CHECKING, Any, AsyncIterator, Iterable, Mapping, Sequence

from ..permission.facts import LocalFacts
from ..permission.resolver import gather_facts
from . import checked_files
from .base import CHUNK_SIZE, OPS_SOURCE, BackendBase, DirEntry, ExecResult, FileStat, StreamItem
from .supervisor import SUPERVISION, SupervisedProcess, SupervisorReport

if TYPE_CHECKING:
    from .sandbox import SandboxSpec

__all__ = ["LocalBackend"]

DRAIN_GRACE = 0.5  # seconds to wait for pipes after the tree is dead (a process out of reach)


class LocalBackend(BackendBase):
    """Runs each command under the supervisor (``supervisor.py``: a child subreaper in a new
    session) with stdin closed; a timeout or a cancellation stops every process the command
    started, also those that left its process group, and so does the kernel's death.
    ``sandbox=`` runs it in bubblewrap (``sandbox.py``). ``cwd`` defaults to the process's current
    directory at construction and stays fixed; ``env`` entries are merged over ``os.environ``."""

    python_executable = sys.executable
    path = os.path
    os_name = os.name
    #: exec_shell/exec_shell_stream accept ``sandbox=`` (a SandboxSpec)
    supports_sandbox = True

    def __init__(self, cwd: str | None = None, *, env: Mapping[str, str] | None = None,
                 memory_cap: int | None = None, spool_dir: str | None = None):
        kw: dict[str, Any] = {"spool_dir": spool_dir}
        if memory_cap is not None:
            kw["memory_cap"] = memory_cap
        super().__init__(**kw)
        self._cwd = os.path.abspath(os.path.expanduser(cwd)) if cwd else os.getcwd()
        self._env = dict(env) if env else {}

    # --- the environment commands see (KernelBackend overrides these) -------------------------

    def _current_cwd(self) -> str:
        return self._cwd

    def _base_env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self._env)
        return env

    def _resolve(self, path: str) -> str:
        path = os.path.expanduser(path)
        return path if os.path.isabs(path) else os.path.join(self._current_cwd(), path)

    # --- commands -----------------------------------------------------------------------------

    async def exec_shell(self, argv: Sequence[str], *, cwd: str | None = None,
                         timeout: float | None = None,
                         env: Mapping[str, str] | None = None,
                         sandbox: "SandboxSpec | None" = None) -> ExecResult:
        return await self.collect(self.exec_shell_stream(argv, cwd=cwd, timeout=timeout, env=env,
                                                         sandbox=sandbox))

    async def exec_shell_stream(self, argv: Sequence[str], *, cwd: str | None = None,
                                timeout: float | None = None,
                                env: Mapping[str, str] | None = None,
                                sandbox: "SandboxSpec | None" = None
                                ) -> AsyncIterator[StreamItem]:
        full_env = self._base_env()
        if env:
            full_env.update(env)
        workdir = self._resolve(cwd) if cwd else self._current_cwd()
        if sandbox is not None and not SUPERVISION:
            yield "stderr", b"cannot run in the sandbox: it needs Linux (bubblewrap)\n"
            yield ExecResult(126, sandbox="refused: the sandbox needs Linux")
            return
        options = sandbox.options(extra_env=env or ()) if sandbox is not None else ()
        try:
            proc = await SupervisedProcess.start(argv, cwd=workdir, env=full_env,
                                                 options=options, limit=CHUNK_SIZE)
        except (FileNotFoundError, NotADirectoryError) as exc:
            what = workdir if not os.path.isdir(workdir) else (argv[0] if argv else "")
            yield "stderr", f"cannot run {list(argv)!r}: {exc.strerror}: {what}\n".encode()
            yield ExecResult(127)
            return
        except PermissionError as exc:
            yield "stderr", f"cannot run {list(argv)!r}: {exc.strerror}\n".encode()
            yield ExecResult(126)
            return

        _LIVE.add(proc)
        # Two readers feed one bounded queue: output comes out in arrival order and a slow
        # consumer applies back-pressure instead of growing memory.
        queue: asyncio.Queue[tuple[str, bytes] | None] = asyncio.Queue(maxsize=8)

        async def pump(name: str, reader: asyncio.StreamReader) -> None:
            while chunk := await reader.read(CHUNK_SIZE):
                await queue.put((name, chunk))
            await queue.put(None)

        # stdout/stderr are pipes: the process was started with stdout=PIPE, stderr=PIPE
        readers = [asyncio.ensure_future(pump("stdout", proc.proc.stdout)),  # type: ignore[arg-type]
                   asyncio.ensure_future(pump("stderr", proc.proc.stderr))]  # type: ignore[arg-type]
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + max(0.0, float(timeout))
        open_streams = 2
        timed_out = finished = False
        try:
            while open_streams:
                wait = None if deadline is None else deadline - loop.time()
                if wait is not None and wait <= 0:
                    timed_out = True
                    break
                try:
                    item = await asyncio.wait_for(queue.get(), wait)
                except asyncio.TimeoutError:
                    timed_out = True
                    break
                if item is None:
                    open_streams -= 1
                else:
                    yield item
            if not timed_out:
                # Output is closed; the command itself may still run (it closed its streams).
                wait = None if deadline is None else max(0.0, deadline - loop.time())
                timed_out = not await proc.wait_command(wait)
            if timed_out:
                report = await proc.stop()
                # Whatever the dying tree still wrote is output too; a pipe held by a process
                # the supervisor could not reach is not waited for.
                end = loop.time() + DRAIN_GRACE
                while open_streams and loop.time() < end:
                    try:
                        item = await asyncio.wait_for(queue.get(), end - loop.time())
                    except asyncio.TimeoutError:
                        break
                    if item is None:
                        open_streams -= 1
                    else:
                        yield item
            else:
                report = await proc.release()
            finished = True
            yield _result(proc, report, timed_out)
        finally:
            # Cancellation or an abandoned generator: nothing the command started survives,
            # also processes that left its process group. (A command that ran to its end may
            # leave a deliberately detached process behind: release() reports it.)
            if not finished:
                with contextlib.suppress(BaseException):
                    await proc.stop()
            _LIVE.discard(proc)
            for r in readers:
                r.cancel()
            for stream in (proc.proc.stdout, proc.proc.stderr):
                transport = getattr(stream, "_transport", None)
                if transport is not None:
                    transport.close()

    # --- files --------------------------------------------------------------------------------

    async def read_file(self, path: str) -> bytes:
        return await asyncio.to_thread(_read_bytes, self._resolve(path))

    async def write_file(self, path: str, data: bytes) -> None:
        await asyncio.to_thread(_write_atomic, self._resolve(path), [bytes(data)])

    # the file a permission check resolved: opened so that it is that file (checked_files.py)
    verifies_open = True

    async def read_file_at(self, path: str) -> bytes:
        return await asyncio.to_thread(checked_files.read_checked, self._resolve(path))

    async def read_stream_at(self, path: str, chunk_size: int = CHUNK_SIZE * 16
                             ) -> AsyncIterator[bytes]:
        fd = await asyncio.to_thread(checked_files.open_checked, self._resolve(path))
        f = os.fdopen(fd, "rb")
        try:
            while chunk := await asyncio.to_thread(f.read, chunk_size):
                yield chunk
        finally:
            f.close()

    async def write_file_at(self, path: str, data: bytes) -> None:
        await asyncio.to_thread(checked_files.write_checked, self._resolve(path), [bytes(data)])

    async def read_stream(self, path: str, chunk_size: int = CHUNK_SIZE * 16
                          ) -> AsyncIterator[bytes]:
        f = await asyncio.to_thread(open, self._resolve(path), "rb")
        try:
            while chunk := await asyncio.to_thread(f.read, chunk_size):
                yield chunk
        finally:
            f.close()

    async def write_stream(self, path: str, chunks: AsyncIterator[bytes] | Iterable[bytes]
                           ) -> None:
        target = _real_target(self._resolve(path))
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".agt-", dir=os.path.dirname(target) or ".")
        try:
            with os.fdopen(fd, "wb") as f:
                if hasattr(chunks, "__aiter__"):
                    async for c in chunks:
                        await asyncio.to_thread(f.write, c)
                else:
                    for c in chunks:
                        f.write(c)
            _finish_atomic(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    async def getcwd(self) -> str:
        return self._current_cwd()

    async def expanduser(self, path: str) -> str:
        home = self._base_env().get("HOME")
        if home and (path == "~" or path.startswith("~/")):
            return home + path[1:]
        return os.path.expanduser(path)

    async def stat(self, path: str) -> FileStat | None:
        try:
            s = os.stat(self._resolve(path))
        except (FileNotFoundError, NotADirectoryError):
            return None
        import stat as _stat

        return FileStat(s.st_size, s.st_mtime_ns, _stat.S_ISDIR(s.st_mode))

    async def exists(self, path: str) -> bool:
        return os.path.exists(self._resolve(path))

    async def is_dir(self, path: str) -> bool:
        return os.path.isdir(self._resolve(path))

    async def list_dir(self, path: str) -> list[str]:
        return sorted(os.listdir(self._resolve(path)))

    async def scandir(self, path: str) -> list[DirEntry]:
        def run() -> list[DirEntry]:
            out = []
            with os.scandir(self._resolve(path)) as it:
                for e in it:
                    try:
                        s = e.stat()
                        out.append(DirEntry(e.name, e.is_dir(), s.st_size, s.st_mtime_ns))
                    except OSError:
                        out.append(DirEntry(e.name, False))
            return sorted(out, key=lambda d: d.name)

        return await asyncio.to_thread(run)

    async def walk(self, root: str, *, max_entries: int = 200_000,
                   skip_dirs: Iterable[str] = (".git", ".hg", ".svn")) -> dict[str, Any]:
        return await asyncio.to_thread(_ops()["_agt_walk"], self._resolve(root), max_entries,
                                       list(skip_dirs))

    async def delete_path(self, path: str) -> bool:
        p = self._resolve(path)
        if os.path.islink(p) or (os.path.exists(p) and not os.path.isdir(p)):
            os.unlink(p)
            return True
        if os.path.isdir(p):
            await asyncio.to_thread(shutil.rmtree, p)
            return True
        return False

    async def which(self, program: str) -> str | None:
        return shutil.which(program, path=self._base_env().get("PATH"))

    facts_are_local = True

    def local_facts(self) -> LocalFacts:
        home = self._base_env().get("HOME") or os.path.expanduser("~")
        return LocalFacts(self._current_cwd(), home)

    async def path_facts(self, requests: Sequence[Sequence[Any]],
                         directories: Iterable[str] = (), listings: Iterable[str] = ()
                         ) -> dict[str, Any]:
        return gather_facts([list(r) for r in requests], list(directories), list(listings),
                            cwd=self._current_cwd())


@functools.lru_cache(maxsize=1)
def _ops() -> dict[str, Any]:
    """The operations program, loaded here too, so local walks are the same code as remote."""
    ns: dict[str, Any] = {}
    exec(compile(OPS_SOURCE, "<agenttools-ops>", "exec"), ns)
    return ns


# Commands still running. When the interpreter exits (a kernel shut down while an agent's
# command runs) they are stopped: nothing outlives the kernel that started it. (A SIGKILLed
# kernel cannot run this; the supervisors notice their parent's death and stop their trees.)
_LIVE: set[SupervisedProcess] = set()


@atexit.register
def _kill_live_commands() -> None:
    for proc in list(_LIVE):
        proc.kill_now()
    _LIVE.clear()


def _result(proc: SupervisedProcess, report: SupervisorReport, timed_out: bool) -> ExecResult:
    """The command's result with what the supervisor said about its processes."""
    code = proc.exit_code
    if proc.supervised and report.exit_code is None and timed_out:
        code = -15  # stopped before the supervisor saw it exit (its own code is not the command's)
    return ExecResult(
        code, timed_out=timed_out, stopped=report.stopped, survivors=tuple(report.survivors),
        left_running=tuple(report.left), tracked=bool(report.tracked),
        sandbox=report.sandbox)


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _real_target(path: str) -> str:
    # Write through a symlink to its target instead of replacing the link with a file.
    return os.path.realpath(path) if os.path.islink(path) else path


def _finish_atomic(tmp: str, target: str) -> None:
    try:
        mode = os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(tmp, mode)
    os.replace(tmp, target)


def _write_atomic(path: str, parts: list[bytes]) -> None:
    target = _real_target(path)
    parent = os.path.dirname(target) or "."
    if os.path.isdir(target):
        raise IsADirectoryError(21, "Is a directory", target)
    os.makedirs(parent, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".agt-", dir=parent)
    try:
        with os.fdopen(fd, "wb") as f:
            for p in parts:
                f.write(p)
        _finish_atomic(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
