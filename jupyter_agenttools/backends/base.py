"""Where tools run: the backend contract.

A backend needs three async primitives — ``exec_shell``, ``read_file``, ``write_file`` — and
gets every other operation (``getcwd``, ``stat``, ``scandir``, ``walk``, …) from defaults built on
them: each default runs a small Python program (``OPS_SOURCE``) on the backend through
``exec_shell`` and reads its JSON answer. Subclasses override the defaults with native versions.

Conventions every backend keeps:

- file errors raise the built-in ``OSError`` subclasses (FileNotFoundError, IsADirectoryError,
  NotADirectoryError, PermissionError, FileExistsError), the same on every backend;
- a backend that cannot carry out a primitive (kernel died, transport lost) raises BackendError;
- ``exec_shell`` never raises for the command itself: a program that cannot start gives exit code
  127 (126 when not executable) and the reason in ``stderr``; a timeout kills the whole process
  group and sets ``timed_out``;
- output kept in memory is capped (``memory_cap`` bytes per stream); the full stream then goes to
  a spool file named by ``offload_path`` / ``stderr_offload_path``.
"""

from __future__ import annotations

import abc
import contextlib
import dataclasses
import inspect
import json
import os
import posixpath
import tempfile
import uuid
from dataclasses import dataclass
from typing import Any, AsyncIterator, Iterable, Mapping, Sequence, Union

from ..errors import BackendError
from ..permission import resolver as _resolver
from ..permission.facts import PathFacts, PrefetchedFacts

__all__ = [
    "ExecResult",
    "describe_processes",
    "FileStat",
    "DirEntry",
    "BackendBase",
    "OPS_SOURCE",
    "DEFAULT_MEMORY_CAP",
    "default_offload_dir",
    "raise_remote_error",
]

DEFAULT_MEMORY_CAP = 1 << 20  # bytes of each output stream kept in memory
CHUNK_SIZE = 1 << 16

StreamItem = Union[tuple[str, bytes], "ExecResult"]


def default_offload_dir() -> str:
    """A per-user temp folder for spooled output and offloaded results."""
    path = os.path.join(tempfile.gettempdir(), f"agenttools-offload-{os.getuid()}")
    os.makedirs(path, mode=0o700, exist_ok=True)
    return path


@dataclass
class ExecResult:
    """What a command did. ``stdout``/``stderr`` hold at most the backend's memory cap (the head);
    when ``truncated``, the complete stream is in ``offload_path`` (stdout) /
    ``stderr_offload_path``. A killed command has a negative exit code (minus the signal)."""

    exit_code: int
    stdout: bytes | str = b""
    stderr: bytes | str = b""
    timed_out: bool = False
    truncated: bool = False
    offload_path: str | None = None
    stderr_offload_path: str | None = None
    #: processes stopped at a timeout or cancellation (None: nothing had to be stopped)
    stopped: int | None = None
    #: ``"pid:name"`` of processes still alive after that stop (should be empty)
    survivors: tuple[str, ...] = ()
    #: ``"pid:name"`` of processes a completed command left running in the background
    left_running: tuple[str, ...] = ()
    #: True when every process the command started was tracked (the supervisor's subreaper),
    #: False when only its process group could be (no supervisor on this platform/backend)
    tracked: bool = False
    #: "on" when it ran in the sandbox; "refused: …"/"failed: …" when it could not
    sandbox: str | None = None

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out

    @staticmethod
    def _text(value: bytes | str) -> str:
        return value.decode("utf-8", "replace") if isinstance(value, bytes) else value

    @property
    def stdout_text(self) -> str:
        return self._text(self.stdout)

    @property
    def stderr_text(self) -> str:
        return self._text(self.stderr)


def describe_processes(result: ExecResult) -> str:
    """Plain words about the processes of a finished command (for the Bash result). Here, not
    in supervisor.py, so the Bash tool loads no process machinery (asyncio) for a decision."""
    if result.stopped is not None:
        n = result.stopped
        if result.survivors:
            return (f"it was stopped, but {len(result.survivors)} of the processes it started "
                    f"could not be: {', '.join(result.survivors)}")
        if result.tracked:
            return (f"it was stopped together with every process it started "
                    f"({n} process{'es' if n != 1 else ''})")
        return "its process group was stopped (processes that left the group are not tracked " \
               "on this system)"
    if result.timed_out:
        return "it was stopped"
    if result.left_running:
        n = len(result.left_running)
        return (f"{n} process{'es' if n != 1 else ''} it started {'are' if n != 1 else 'is'} "
                f"still running in the background: {', '.join(result.left_running)}")
    return ""


@dataclass(frozen=True)
class FileStat:
    size: int
    mtime_ns: int
    is_dir: bool


@dataclass(frozen=True)
class DirEntry:
    name: str
    is_dir: bool
    size: int | None = None
    mtime_ns: int | None = None


# --- the operations program -------------------------------------------------------------------
# One self-contained Python source, run on the backend: by BackendBase through
# `python -c OPS_SOURCE op json-args` (answer on stdout), and by JupyterKernelBackend inside the
# remote kernel. Each op returns JSON-able data; file errors travel back by exception name.

OPS_SOURCE = r'''
import json as _j, os as _o, shutil as _sh, stat as _st

def _agt_stat(p):
    try:
        s = _o.stat(p)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return [s.st_size, s.st_mtime_ns, _st.S_ISDIR(s.st_mode)]

def _agt_scandir(p):
    out = []
    with _o.scandir(p) as it:
        for e in it:
            try:
                s = e.stat()
                out.append([e.name, _st.S_ISDIR(s.st_mode), s.st_size, s.st_mtime_ns])
            except OSError:  # dangling symlink
                out.append([e.name, False, None, None])
    out.sort()
    return out

def _agt_walk(root, max_entries, skip_dirs):
    """Files under root (relative paths, mtime_ns) and the .gitignore texts found; VCS folders
    skipped; stops after max_entries files (then the last item says so)."""
    files, ignores, n = [], {}, 0
    for d, dirs, names in _o.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in skip_dirs)
        rel = _o.path.relpath(d, root)
        rel = "" if rel == "." else rel
        if ".gitignore" in names:
            try:
                with open(_o.path.join(d, ".gitignore"), encoding="utf-8", errors="replace") as f:
                    ignores[rel] = f.read()
            except OSError:
                pass
        for name in sorted(names):
            full = _o.path.join(d, name)
            try:
                m = _o.stat(full).st_mtime_ns
            except OSError:
                m = 0
            files.append([_o.path.join(rel, name) if rel else name, m])
            n += 1
            if n >= max_entries:
                return {"files": files, "ignores": ignores, "complete": False}
    return {"files": files, "ignores": ignores, "complete": True}

def _agt_delete(p):
    if _o.path.islink(p) or (_o.path.exists(p) and not _o.path.isdir(p)):
        _o.unlink(p)
        return True
    if _o.path.isdir(p):
        _sh.rmtree(p)
        return True
    return False

_AGT_OPS = {
    "getcwd": lambda: _o.getcwd(),
    "expanduser": lambda p: _o.path.expanduser(p),
    "stat": _agt_stat,
    "exists": lambda p: _o.path.exists(p),
    "is_dir": lambda p: _o.path.isdir(p),
    "list_dir": lambda p: sorted(_o.listdir(p)),
    "scandir": _agt_scandir,
    "walk": _agt_walk,
    "delete_path": _agt_delete,
    "which": lambda name: _sh.which(name),
    "makedirs": lambda p: _o.makedirs(p, exist_ok=True),
}

def _agt_dispatch(op, args):
    try:
        return {"ok": _AGT_OPS[op](*args)}
    except OSError as e:
        return {"error": [type(e).__name__, e.errno, e.strerror or str(e), e.filename]}
    except Exception as e:
        return {"error": [type(e).__name__, None, str(e), None]}
'''

# The one path resolver runs on the backend too (permission decisions ask it for file facts in
# one round trip; tools resolve the path they act on with it): its module source is appended.
OPS_SOURCE += "\n" + inspect.getsource(_resolver) + r'''
_AGT_OPS["path_facts"] = gather_facts
'''

_OPS_MAIN = OPS_SOURCE + r'''
import sys as _sys
_sys.stdout.write(_j.dumps(_agt_dispatch(_sys.argv[1], _j.loads(_sys.argv[2]))))
'''

_OS_ERRORS: dict[str, type[OSError]] = {
    cls.__name__: cls
    for cls in (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError,
                FileExistsError)
}


def raise_remote_error(error: Sequence[Any]) -> None:
    """Re-raise an ``[type_name, errno, message, filename]`` error sent back by a backend."""
    name, errno, message, filename = (list(error) + [None] * 4)[:4]
    cls = _OS_ERRORS.get(str(name))
    if cls is not None:
        if errno is not None:
            raise cls(errno, message, filename)
        raise cls(message)
    raise BackendError(f"backend operation failed: {name}: {message}")


class _Spool:
    """Keeps the first ``cap`` bytes of a stream in memory; past the cap, writes the whole stream
    (head included) to a file so nothing is lost and memory stays bounded."""

    def __init__(self, cap: int, spool_dir: str | None, label: str):
        self.cap = cap
        self.spool_dir = spool_dir
        self.label = label
        self.head = bytearray()
        self.size = 0
        self.path: str | None = None
        self._file: Any = None

    #: why the spool file could not be written ("" when it could): the output keeps its head
    error = ""

    @property
    def truncated(self) -> bool:
        return self.size > len(self.head)

    def feed(self, data: bytes) -> None:
        self.size += len(data)
        if self._file is not None:
            try:
                self._file.write(data)
            except OSError as exc:
                self._fail(exc)
            return
        if self.path is None and not self.error and len(self.head) + len(data) <= self.cap:
            self.head += data
            return
        if self.path is None and not self.error:
            try:
                directory = self.spool_dir or default_offload_dir()
                os.makedirs(directory, exist_ok=True)
                self.path = os.path.join(directory,
                                         f"exec-{self.label}-{uuid.uuid4().hex[:12]}.out")
                self._file = open(self.path, "wb")
                self._file.write(self.head)
                self._file.write(data)
            except OSError as exc:
                self._fail(exc)
        room = self.cap - len(self.head)
        if room > 0:
            self.head += data[:room]

    def _fail(self, exc: OSError) -> None:
        """A full or read-only disk: the command goes on, its output keeps the head only (a
        partly written spool file is removed: ``path`` never names an incomplete one)."""
        self.error = exc.strerror or str(exc)
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
        if self.path is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            self.path = None

    def close(self) -> None:
        if self._file is not None:
            try:
                self._file.close()
            except OSError as exc:
                self._file = None
                self._fail(exc)
            self._file = None


class BackendBase(abc.ABC):
    """The three primitives plus defaults for everything else (see the module docstring)."""

    #: interpreter used by the default operations and Python-side helpers on the backend
    python_executable: str = "python3"
    #: path semantics of the backend (not of the host)
    path = posixpath
    os_name = "posix"
    #: whether exec_shell/exec_shell_stream take ``sandbox=`` (a ``sandbox.SandboxSpec``)
    supports_sandbox = False

    def __init__(self, *, memory_cap: int = DEFAULT_MEMORY_CAP, spool_dir: str | None = None):
        self.memory_cap = memory_cap
        self.spool_dir = spool_dir
        #: path -> (mtime_ns, size) as seen by this backend's stat when the Read tool read it;
        #: shared by the Read, Write and Edit tools using this backend (read-before-write rule)
        self.file_read_state: dict[str, tuple[int, int]] = {}

    # --- primitives ---------------------------------------------------------------------------

    @abc.abstractmethod
    async def exec_shell(self, argv: Sequence[str], *, cwd: str | None = None,
                         timeout: float | None = None,
                         env: Mapping[str, str] | None = None) -> ExecResult:
        """Run ``argv`` (no shell) with stdin closed. ``env`` is merged over the backend's
        environment; ``timeout`` in seconds kills the command's whole process group."""

    @abc.abstractmethod
    async def read_file(self, path: str) -> bytes:
        """The file's bytes."""

    @abc.abstractmethod
    async def write_file(self, path: str, data: bytes) -> None:
        """Write atomically (temp file + rename), creating parent folders."""

    # --- the file a permission check resolved ----------------------------------------------------

    #: whether the ``*_at`` methods below verify what they open (else they are the plain
    #: primitives: a backend that cannot hold an open to a checked path)
    verifies_open = False

    async def read_file_at(self, path: str) -> bytes:
        """The bytes of the file at ``path``, a physical path (what :meth:`resolve` returned
        for the permission check), raising ``PathChangedError`` when what opens is another file
        (a symbolic link swapped in since). Default: :meth:`read_file`."""
        return await self.read_file(path)

    def read_stream_at(self, path: str, chunk_size: int = CHUNK_SIZE * 16
                       ) -> AsyncIterator[bytes]:
        """:meth:`read_stream` of the file at the physical ``path``, verified as
        :meth:`read_file_at`."""
        return self.read_stream(path, chunk_size)

    async def write_file_at(self, path: str, data: bytes) -> None:
        """:meth:`write_file` of the physical ``path``, inside the folder the check resolved
        (atomic; ``PathChangedError`` when a link was swapped in). Default:
        :meth:`write_file`."""
        await self.write_file(path, data)

    # --- streaming ----------------------------------------------------------------------------

    async def exec_shell_stream(self, argv: Sequence[str], *, cwd: str | None = None,
                                timeout: float | None = None,
                                env: Mapping[str, str] | None = None
                                ) -> AsyncIterator[StreamItem]:
        """Yield ``("stdout"|"stderr", bytes)`` chunks as output arrives, then one ExecResult
        (whose stdout/stderr are empty: the chunks were the output). Default: run
        ``exec_shell`` and yield its output at once."""
        result = await self.exec_shell(argv, cwd=cwd, timeout=timeout, env=env)
        for name, value, spooled in (("stdout", result.stdout, result.offload_path),
                                     ("stderr", result.stderr, result.stderr_offload_path)):
            if spooled:
                with open(spooled, "rb") as f:
                    while chunk := f.read(CHUNK_SIZE):
                        yield name, chunk
            elif value:
                yield name, value.encode() if isinstance(value, str) else value
        yield dataclasses.replace(result, stdout=b"", stderr=b"", truncated=False,
                                  offload_path=None, stderr_offload_path=None)

    async def collect(self, stream: AsyncIterator[StreamItem]) -> ExecResult:
        """Gather a chunk stream into one ExecResult, spooling past ``memory_cap``."""
        spools = {"stdout": _Spool(self.memory_cap, self.spool_dir, "stdout"),
                  "stderr": _Spool(self.memory_cap, self.spool_dir, "stderr")}
        final: ExecResult | None = None
        try:
            async for item in stream:
                if isinstance(item, ExecResult):
                    final = item
                else:
                    spools[item[0]].feed(item[1])
        finally:
            for s in spools.values():
                s.close()
        if final is None:  # pragma: no cover - a stream always ends with its result
            raise BackendError("command stream ended without a result")
        out, err = spools["stdout"], spools["stderr"]
        return dataclasses.replace(final, stdout=bytes(out.head), stderr=bytes(err.head),
                                   truncated=out.truncated or err.truncated,
                                   offload_path=out.path, stderr_offload_path=err.path)

    # --- derived operations (defaults through exec_shell) -------------------------------------

    async def _op(self, op: str, *args: Any) -> Any:
        result = await self.exec_shell([self.python_executable, "-c", _OPS_MAIN, op,
                                        json.dumps(list(args))], timeout=120)
        if result.exit_code != 0 or result.truncated:
            raise BackendError(f"backend operation {op} failed (exit {result.exit_code}): "
                               f"{result.stderr_text.strip()[-2000:]}")
        try:
            answer = json.loads(result.stdout_text)
        except ValueError:
            raise BackendError(f"backend operation {op} gave no answer: "
                               f"{result.stdout_text[:200]!r}") from None
        if "error" in answer:
            raise_remote_error(answer["error"])
        return answer["ok"]

    async def getcwd(self) -> str:
        return await self._op("getcwd")

    async def expanduser(self, path: str) -> str:
        return await self._op("expanduser", path)

    async def abspath(self, path: str) -> str:
        """``path`` made absolute against this backend's home and current directory."""
        if path.startswith("~"):
            path = await self.expanduser(path)
        if not self.path.isabs(path):
            path = self.path.join(await self.getcwd(), path)
        return self.path.normpath(path)

    async def stat(self, path: str) -> FileStat | None:
        """Size, mtime (ns) and kind, following symlinks; None when nothing is there."""
        s = await self._op("stat", path)
        return None if s is None else FileStat(int(s[0]), int(s[1]), bool(s[2]))

    async def exists(self, path: str) -> bool:
        return bool(await self._op("exists", path))

    async def is_dir(self, path: str) -> bool:
        return bool(await self._op("is_dir", path))

    async def list_dir(self, path: str) -> list[str]:
        return list(await self._op("list_dir", path))

    async def scandir(self, path: str) -> list[DirEntry]:
        return [DirEntry(n, bool(d), s, m) for n, d, s, m in await self._op("scandir", path)]

    async def walk(self, root: str, *, max_entries: int = 200_000,
                   skip_dirs: Iterable[str] = (".git", ".hg", ".svn")) -> dict[str, Any]:
        """``{"files": [[relpath, mtime_ns], …], "ignores": {reldir: .gitignore text},
        "complete": bool}`` for the tree under ``root``."""
        return await self._op("walk", root, max_entries, list(skip_dirs))

    async def delete_path(self, path: str) -> bool:
        """Remove a file, symlink or whole folder; False when nothing was there."""
        return bool(await self._op("delete_path", path))

    async def which(self, program: str) -> str | None:
        return await self._op("which", program)

    # --- file facts for permission decisions (the one resolver, run on this backend) ---------

    #: True when this backend's files are this process's files (LocalBackend, KernelBackend):
    #: decisions then ask ``os.*`` directly (``local_facts``), with no round trip
    facts_are_local = False

    def local_facts(self) -> PathFacts | None:
        """Facts answered in this process for this backend's cwd, or None for a remote one."""
        return None

    async def path_facts(self, requests: Sequence[Sequence[Any]],
                         directories: Iterable[str] = (), listings: Iterable[str] = ()
                         ) -> dict[str, Any]:
        """Everything a permission decision will ask about these path words, in one round trip
        (``permission.resolver.gather_facts`` run on the backend): cwd, home, the symlinks met
        while resolving each word, the kinds of the results, directory listings for globs."""
        return await self._op("path_facts", [list(r) for r in requests], list(directories),
                              list(listings))

    async def resolve(self, path: str, *, follow_last: bool = True) -> str:
        """``path`` (absolute, relative to the cwd, or ``~``) resolved by the one resolver on this
        backend's files: the path a tool acts on, the same one its permission check saw."""
        local = self.local_facts()
        if local is not None:
            return local.resolve_word(path, (), follow_last).physical
        answer = await self.path_facts([[path, [], follow_last, False]])
        return PrefetchedFacts(answer, source=type(self).__name__).resolve_word(
            path, (), follow_last).physical

    async def read_stream(self, path: str, chunk_size: int = CHUNK_SIZE * 16
                          ) -> AsyncIterator[bytes]:
        data = await self.read_file(path)
        for i in range(0, len(data), chunk_size):
            yield data[i:i + chunk_size]

    async def write_stream(self, path: str, chunks: AsyncIterator[bytes] | Iterable[bytes]
                           ) -> None:
        parts: list[bytes] = []
        if hasattr(chunks, "__aiter__"):
            async for c in chunks:
                parts.append(c)
        else:
            parts.extend(chunks)
        await self.write_file(path, b"".join(parts))

    async def close(self) -> None:  # noqa: B027 - a no-op default, not abstract
        """Release what the backend holds (processes, connections)."""

    async def __aenter__(self) -> "BackendBase":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()
