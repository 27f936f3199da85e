"""JupyterKernelBackend: the primitives run inside another Jupyter kernel.

The kernel is either started here with jupyter_client (``JupyterKernelBackend.start``) or an
existing/new kernel on a Jupyter Server reached by URL + token (``JupyterKernelBackend.connect``:
REST for the kernel, the WebSocket ``/channels`` endpoint in its JSON form for messages).

Every primitive is a Python snippet executed in that kernel (so the kernel must be a Python
kernel). The snippet answers through ``display_data`` messages of a private MIME type, one JSON
object each, so bytes travel base64-encoded and output streams back as it arrives. Commands run
under the supervisor (``_supervise.py``, shipped with the helpers) in a new session; the snippet
enforces the timeout itself (the supervisor stops every process the command started, also
those that left its group), and an interrupt (sent when the caller is cancelled or the kernel
overruns) raises KeyboardInterrupt in the snippet whose ``finally`` stops the tree as well. If
the kernel is killed, the supervisor notices its parent's death and stops the tree.

A kernel that dies mid-call gives BackendError at once (not a hang). The next call recovers:
it restarts a kernel started here, or reconnects to the server's kernel (which the server
restarts by itself); ``await backend.restart()`` restarts explicitly. Commands orphaned by the
death are killed on recovery.

Every call answers within its time limit whatever the kernel does (issue 18): a command's
``timeout`` + TIMEOUT_SLACK + INTERRUPT_WAIT, an operation's OP_TIMEOUT + INTERRUPT_WAIT.
While it waits, the backend checks that the kernel still exists (for a server kernel, a REST
look-up every CHECK_EVERY seconds of silence: a kernel deleted through the API is noticed in
seconds); a request the kernel has not *started* by the deadline is given up with a clear error
(the kernel is busy with someone's cell, or hung) and carries an expiry (``not_after``, on the
kernel's clock) so that it never runs later unattended; one given up by a cancel before it
started is watched until that expiry and interrupted if it starts. An interrupt from outside
(a Jupyter interrupt, restart or shutdown) ends the call with an error that says so, and no
second interrupt is sent after a request has finished (a stray one hit the next call).
Recovery is bounded (RECOVER_TIMEOUT) and reported: ``backend.recoveries`` lists each, and a
warning is logged. A kernel found dead *between* calls is recovered before the next call.

Give the backend a kernel of its own (a sandbox kernel): on a kernel shared with a person's
notebook, its requests queue behind their cells, and it never interrupts work that is not its
own. Calls on one backend run one at a time. The helpers live in one global of that kernel,
``__agenttools_backend__``.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import datetime
import json
import logging
import queue
import time
import uuid
from typing import TYPE_CHECKING, Any, AsyncIterator, Iterable, Mapping, Sequence
from urllib.parse import quote, urlsplit, urlunsplit

from ..errors import BackendError
from .base import (
    OPS_SOURCE,
    BackendBase,
    DirEntry,
    ExecResult,
    FileStat,
    StreamItem,
    raise_remote_error,
)
from .supervisor import SupervisorReport, supervisor_source

if TYPE_CHECKING:
    from .sandbox import SandboxSpec

__all__ = ["JupyterKernelBackend"]

MIME = "application/x-agenttools-backend+json"
FILE_CHUNK = 512 * 1024  # raw bytes per message for file transfer
OP_TIMEOUT = 120.0  # seconds a non-command call may take before the kernel is interrupted
TIMEOUT_SLACK = 10.0  # kernel-side timeouts are enforced there; this is the host's backstop
INTERRUPT_WAIT = 5.0  # seconds an interrupted (or finished) request gets to reach idle
POLL = 0.5  # seconds between liveness checks while waiting
CHECK_EVERY = 2.0  # seconds of silence between checks that the kernel still exists
RECOVER_TIMEOUT = 60.0  # seconds a restart or reconnect may take
EXPIRY_MARGIN = 2.0  # seconds added to a request's expiry (clock estimate, latency)

log = logging.getLogger(__name__)

# Kernel-side code, installed once per kernel (re-installed automatically after a restart).
_KERNEL_SOURCE = OPS_SOURCE + r'''
import base64 as _b64, queue as _q, signal as _sig, subprocess as _sp, sys as _sys
import tempfile as _tf, threading as _th, time as _tm
from IPython.display import display as _display

_AGT_MIME = "application/x-agenttools-backend+json"
_agt_writes = {}

def _agt_emit(obj):
    _display({_AGT_MIME: obj}, raw=True)

def _agt_killpg(pid, sig):
    try:
        _o.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass

_AGT_SUPERVISED = _sys.platform.startswith("linux") and _o.path.isdir("/proc")

class _AgtStatus:
    """The supervisor's status lines (see _supervise.py), read by a thread."""

    def __init__(self, fd):
        self.lines, self.exited, self.done = [], _th.Event(), _th.Event()
        _th.Thread(target=self._read, args=(fd,), daemon=True).start()

    def _read(self, fd):
        try:
            with _o.fdopen(fd, "rb", 0) as f:
                buf = b""
                while True:
                    b = f.read(4096)
                    if not b:
                        break
                    buf += b
                    while b"\n" in buf:
                        line, buf = buf.split(b"\n", 1)
                        line = line.decode("utf-8", "replace")
                        self.lines.append(line)
                        if line.startswith("exit "):
                            self.exited.set()
        finally:
            self.exited.set()
            self.done.set()

def _agt_exec(argv, cwd, env, timeout, options=()):
    full = dict(_o.environ)
    full.update(env or {})
    status = sw = None
    if _AGT_SUPERVISED:
        sr, sw = _o.pipe()
        run = [_sys.executable, "-I", "-S", "-c", _AGT_SUPERVISOR, "--status-fd", str(sw),
               "--parent", str(_o.getpid()), "--grace", "0.5", "--on-exit", "wait"]
        run += list(options or ()) + ["--"] + list(argv)
    else:
        run = argv
    # An interrupt landing inside Popen would lose the child (created, but no Popen object to
    # kill it with): hold SIGINT back until the process is known, then honour it.
    deferred = []
    try:
        old_handler = _sig.signal(_sig.SIGINT, lambda signum, frame: deferred.append(signum))
    except ValueError:  # not the main thread: no handler to swap
        old_handler = None
    try:
        if cwd and not _o.path.isdir(cwd):
            raise (NotADirectoryError(20, "Not a directory", cwd) if _o.path.exists(cwd)
                   else FileNotFoundError(2, "No such file or directory", cwd))
        p = _sp.Popen(run, cwd=cwd or None, env=full, stdin=_sp.DEVNULL, stdout=_sp.PIPE,
                      stderr=_sp.PIPE, start_new_session=True,
                      pass_fds=(sw,) if sw is not None else ())
        if sw is not None:
            status = _AgtStatus(sr)
    except (FileNotFoundError, NotADirectoryError, PermissionError) as e:
        p = None
        code = 126 if isinstance(e, PermissionError) else 127
        msg = "cannot run %r: %s: %s\n" % (list(argv), e.strerror, e.filename or "")
        if sw is not None:
            _o.close(sr)
    finally:
        if sw is not None:
            _o.close(sw)
        if old_handler is not None:
            _sig.signal(_sig.SIGINT, old_handler)
    if p is None:
        _agt_emit({"k": "out", "s": "stderr", "n": 0,
                   "b": _b64.b64encode(msg.encode()).decode()})
        _agt_emit({"k": "exit", "code": code, "timed_out": False})
        return
    q = _q.Queue(maxsize=16)
    deadline = None if timeout is None else _tm.monotonic() + timeout
    open_streams, timed_out, seq, finished = 2, False, 0, False

    def pump(name, f):
        try:
            while True:
                b = _o.read(f.fileno(), 65536)
                if not b:
                    break
                q.put((name, b))
        finally:
            q.put((name, None))

    def drain(until):
        nonlocal open_streams, seq
        while open_streams:
            wait = until - _tm.monotonic()
            if wait <= 0:
                return
            try:
                name, b = q.get(timeout=min(wait, 0.5))
            except _q.Empty:
                continue
            if b is None:
                open_streams -= 1
            else:
                _agt_emit({"k": "out", "s": name, "n": seq, "b": _b64.b64encode(b).decode()})
                seq += 1

    def stop():
        # The supervisor stops the whole tree (SIGTERM, grace, freeze, SIGKILL) and reports;
        # the group kill after it only catches what a dead supervisor left.
        if status is not None and p.poll() is None:
            try:
                p.send_signal(_sig.SIGTERM)
                p.wait(5)
            except _sp.TimeoutExpired:
                pass
        else:
            _agt_killpg(p.pid, _sig.SIGTERM)
            try:
                p.wait(0.5)
            except _sp.TimeoutExpired:
                pass
        _agt_killpg(p.pid, _sig.SIGKILL)
        p.wait()

    try:
        _agt_emit({"k": "pid", "pid": p.pid})
        if deferred:
            raise KeyboardInterrupt
        for name, f in (("stdout", p.stdout), ("stderr", p.stderr)):
            _th.Thread(target=pump, args=(name, f), daemon=True).start()
        while open_streams:
            now = _tm.monotonic()
            if deadline is not None and now >= deadline:
                timed_out = True
                break
            drain(min(now + 0.5, deadline) if deadline is not None else now + 0.5)
        if not timed_out:
            # output closed; the command itself may still run (it closed its streams)
            while True:
                left = None if deadline is None else deadline - _tm.monotonic()
                if left is not None and left <= 0:
                    timed_out = True
                    break
                if status is not None:
                    if status.exited.wait(0.5 if left is None else min(left, 0.5)):
                        break
                else:
                    try:
                        p.wait(0.5 if left is None else min(left, 0.5))
                        break
                    except _sp.TimeoutExpired:
                        pass
        if timed_out:
            stop()
            drain(_tm.monotonic() + 0.5)
        elif status is not None:
            if p.poll() is None:
                p.send_signal(_sig.SIGUSR1)  # release: detached processes may stay
            try:
                p.wait(5)
            except _sp.TimeoutExpired:
                stop()
        else:
            p.wait()
        finished = True
    finally:
        if not finished:  # interrupted: nothing of the tree survives
            stop()
        for f in (p.stdout, p.stderr):
            try:
                f.close()
            except OSError:
                pass
    result = {"k": "exit", "code": p.returncode, "timed_out": timed_out}
    if status is not None:
        status.done.wait(2)
        result["status"] = list(status.lines)
    _agt_emit(result)

def _agt_read_range(path, offset, size):
    with open(path, "rb") as f:
        f.seek(offset)
        return _b64.b64encode(f.read(size)).decode()

def _agt_read(path, chunk):
    with open(path, "rb") as f:
        while True:
            b = f.read(chunk)
            if not b:
                break
            _agt_emit({"k": "data", "b": _b64.b64encode(b).decode()})
    _agt_emit({"k": "result", "v": {"ok": True}})

def _agt_write_begin(token, path):
    path = _o.path.realpath(path) if _o.path.islink(path) else path
    if _o.path.isdir(path):
        raise IsADirectoryError(21, "Is a directory", path)
    parent = _o.path.dirname(_o.path.abspath(path))
    _o.makedirs(parent, exist_ok=True)
    fd, tmp = _tf.mkstemp(prefix=".agt-", dir=parent)
    _agt_writes[token] = (_o.fdopen(fd, "wb"), tmp, path)

def _agt_write_chunk(token, b):
    _agt_writes[token][0].write(_b64.b64decode(b))

def _agt_write_end(token, commit):
    f, tmp, path = _agt_writes.pop(token)
    try:  # a full disk may fail the close (its flush), the chmod or the rename: no temp left
        f.close()
        if not commit:
            _o.unlink(tmp)
            return
        try:
            mode = _o.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            um = _o.umask(0)
            _o.umask(um)
            mode = 0o666 & ~um
        _o.chmod(tmp, mode)
        _o.replace(tmp, path)
    except BaseException:
        try:
            _o.unlink(tmp)
        except OSError:
            pass
        raise

def _agt_kill_group(pgid):
    _agt_killpg(pgid, _sig.SIGKILL)

_AGT_OPS.update(write_begin=_agt_write_begin, write_chunk=_agt_write_chunk,
                write_end=_agt_write_end, kill_group=_agt_kill_group,
                read_range=_agt_read_range)

def _agt_main(req):
    try:
        req = _j.loads(req)
        not_after = req.get("not_after")
        if not_after is not None and _tm.time() > not_after:
            # the host stopped waiting before this request started: it must not run now
            _agt_emit({"k": "fail", "error": ["Expired", None, "the request expired before "
                                              "the kernel started it", None]})
            return None
        _agt_run(req)
    except BaseException as e:  # KeyboardInterrupt included: the host must hear of it
        _agt_emit({"k": "fail", "error": [type(e).__name__, getattr(e, "errno", None),
                                          str(e), getattr(e, "filename", None)]})
    return None

def _agt_run(req):
    kind = req["kind"]
    if kind == "exec":
        _agt_exec(req["argv"], req["cwd"], req["env"], req["timeout"], req.get("options"))
    elif kind == "read":
        try:
            _agt_read(req["path"], req["chunk"])
        except OSError as e:
            _agt_emit({"k": "result", "v": {"error": [type(e).__name__, e.errno,
                                                      e.strerror or str(e), e.filename]}})
    else:
        _agt_emit({"k": "result", "v": _agt_dispatch(req["op"], req["args"])})
'''


# The helpers live in a private namespace of the kernel, installed on first use (and again
# after a restart). Each request travels as a *user expression*, not as cell code: ipykernel
# hashes every cell's code in pure Python (debugger file names), which made large file
# transfers crawl; expressions are plain evals. The cell itself only checks the install.
_NS = "__agenttools_backend__"
_CHECK_CODE = f"{_NS}['_agt_main']"
_INSTALL_CODE = (f"{_NS} = {{}}\n{_NS}['_AGT_SUPERVISOR'] = {supervisor_source()!r}\n"
                 f"exec({_KERNEL_SOURCE!r}, {_NS})\n")


def _expression(request: dict[str, Any]) -> dict[str, str]:
    return {"agt": f"{_NS}['_agt_main']({json.dumps(request)!r})"}


class _NotInstalled(Exception):
    pass


class _KernelDied(Exception):
    pass


class _DiedBeforeStart(BackendError):
    """The kernel vanished before it started our request: recover and send it once more."""

    def __init__(self, why: str):
        self.why = why
        super().__init__(f"the kernel died, or the connection to it was lost ({why}), before "
                         f"it started this request")


# --- transports ---------------------------------------------------------------------------------


class _ZMQTransport:
    """A kernel this process started with jupyter_client."""

    def __init__(self, kernel_name: str, cwd: str | None):
        self.kernel_name = kernel_name
        self.cwd = cwd
        self.km: Any = None
        self.kc: Any = None
        self._known_pid: int | None = None  # the kernel process we (re)started

    async def open(self) -> None:
        from jupyter_client.manager import AsyncKernelManager

        self.km = AsyncKernelManager(kernel_name=self.kernel_name)
        kw = {"cwd": self.cwd} if self.cwd else {}
        await self.km.start_kernel(**kw)
        await self._connect_client()

    async def _connect_client(self) -> None:
        self._known_pid = self.pid
        if self.kc is not None:
            self.kc.stop_channels()
        self.kc = self.km.client()
        self.kc.start_channels()
        try:
            await self.kc.wait_for_ready(timeout=60)
        except RuntimeError as exc:
            raise BackendError(f"kernel {self.kernel_name!r} did not become ready: {exc}") from None

    def execute(self, code: str, expressions: dict[str, str]) -> str:
        return self.kc.execute(code, silent=False, store_history=False, allow_stdin=False,
                               user_expressions=expressions)

    async def next_iopub(self, timeout: float) -> dict[str, Any] | None:
        try:
            return await self.kc.get_iopub_msg(timeout=timeout)
        except queue.Empty:
            return None

    async def drain_shell(self) -> None:
        with contextlib.suppress(queue.Empty):
            while True:
                await self.kc.get_shell_msg(timeout=0.001)

    async def alive(self) -> bool:
        return bool(await self.km.is_alive())

    async def interrupt(self) -> None:
        with contextlib.suppress(Exception):
            await self.km.interrupt_kernel()

    async def restart(self) -> None:
        if await self.km.is_alive():
            await self.km.restart_kernel(now=True)
        else:
            await self.km.start_kernel(**({"cwd": self.cwd} if self.cwd else {}))
        await self._connect_client()

    async def recover(self) -> str:
        if await self.alive() and self.pid != self._known_pid:
            await self._connect_client()  # restarted through the manager: adopt it
            return "the kernel was restarted by someone else (its state was lost)"
        await self.restart()  # the kernel process is ours: a dead one must be started again
        return "restarted the kernel (its state was lost)"

    async def quick_check(self) -> str | None:
        return await self.check()  # a process poll and a pid: cheap enough for every call

    async def check(self) -> str | None:
        """Why the kernel is gone, or None while it lives."""
        if not await self.alive():
            return "the kernel process exited"
        if self.pid != self._known_pid:  # restarted through the manager, not by us
            return "the kernel was restarted"
        return None

    @property
    def pid(self) -> int | None:
        return getattr(getattr(self.km, "provisioner", None), "pid", None)

    async def close(self) -> None:
        if self.kc is not None:
            self.kc.stop_channels()
        if self.km is not None:
            with contextlib.suppress(Exception):
                await self.km.shutdown_kernel(now=True)


class _WSTransport:
    """A kernel on a Jupyter Server: REST for its lifecycle, WebSocket channels for messages."""

    def __init__(self, url: str, token: str | None, kernel_id: str | None, kernel_name: str):
        self.url = url.rstrip("/")
        self.token = token
        self.kernel_id = kernel_id
        self.kernel_name = kernel_name
        self.created = False
        self.session = uuid.uuid4().hex
        self.ws: Any = None
        self.iopub: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.shell: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._reader: asyncio.Task[None] | None = None
        self._closed = True

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"token {self.token}"} if self.token else {}

    async def _http(self, method: str, path: str, body: Any = None) -> Any:
        from tornado.httpclient import AsyncHTTPClient, HTTPClientError

        kw: dict[str, Any] = {"method": method, "headers": self._headers(),
                              "request_timeout": 60}
        if method in ("POST", "PUT", "PATCH"):
            kw["body"] = json.dumps(body or {})
        try:
            resp = await AsyncHTTPClient().fetch(self.url + path, **kw)
        except HTTPClientError as exc:
            detail = exc.response.body.decode("utf-8", "replace")[:300] if exc.response else ""
            raise BackendError(f"Jupyter Server {method} {path} failed: HTTP {exc.code} "
                               f"{detail}".strip()) from None
        except OSError as exc:
            raise BackendError(f"cannot reach Jupyter Server at {self.url}: {exc}") from None
        return json.loads(resp.body) if resp.body else None

    async def open(self) -> None:
        if self.kernel_id is None:
            model = await self._http("POST", "/api/kernels", {"name": self.kernel_name})
            self.kernel_id = model["id"]
            self.created = True
        else:
            await self._http("GET", f"/api/kernels/{quote(self.kernel_id)}")
        await self._connect_ws()

    async def _connect_ws(self) -> None:
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        if self.ws is not None:
            self.ws.close()
        parts = urlsplit(self.url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        path = f"{parts.path}/api/kernels/{quote(str(self.kernel_id))}/channels"
        ws_url = urlunsplit((scheme, parts.netloc, path, f"session_id={self.session}", ""))
        try:
            self.ws = await websocket_connect(
                HTTPRequest(ws_url, headers=self._headers(), request_timeout=60),
                max_message_size=256 * 1024 * 1024)
        except Exception as exc:
            raise BackendError(f"cannot open the kernel WebSocket {ws_url}: {exc}") from None
        self.iopub = asyncio.Queue()
        self.shell = asyncio.Queue()
        self._closed = False
        self._reader = asyncio.ensure_future(self._read_loop(self.ws))
        # Wait until the channels carry messages (kernel_info round trip).
        msg_id = self._send("kernel_info_request", {})
        loop = asyncio.get_running_loop()
        end = loop.time() + 60
        while loop.time() < end:
            try:
                reply = await asyncio.wait_for(self.shell.get(), end - loop.time())
            except asyncio.TimeoutError:
                break
            if reply.get("parent_header", {}).get("msg_id") == msg_id:
                return
        raise BackendError(f"kernel {self.kernel_id} did not answer kernel_info over WebSocket")

    async def _read_loop(self, ws: Any) -> None:
        try:
            while True:
                raw = await ws.read_message()
                if raw is None:
                    break
                if isinstance(raw, bytes):  # binary-framed protocol: not requested, skip
                    continue
                msg = json.loads(raw)
                channel = msg.get("channel")
                if channel == "iopub":
                    self.iopub.put_nowait(msg)
                elif channel == "shell":
                    self.shell.put_nowait(msg)
        except Exception:  # connection lost: same as closed
            pass
        finally:
            if ws is self.ws:
                self._closed = True
                self.iopub.put_nowait(None)

    def _send(self, msg_type: str, content: dict[str, Any]) -> str:
        msg_id = uuid.uuid4().hex
        msg = {
            "header": {"msg_id": msg_id, "msg_type": msg_type, "username": "agenttools",
                       "session": self.session, "version": "5.3",
                       "date": datetime.datetime.now(datetime.timezone.utc).isoformat()},
            "parent_header": {}, "metadata": {}, "content": content, "channel": "shell",
            "buffers": [],
        }
        self.ws.write_message(json.dumps(msg))
        return msg_id

    def execute(self, code: str, expressions: dict[str, str]) -> str:
        if self._closed:
            raise _KernelDied("the kernel WebSocket is closed")
        return self._send("execute_request", {
            "code": code, "silent": False, "store_history": False,
            "user_expressions": expressions, "allow_stdin": False, "stop_on_error": True})

    async def next_iopub(self, timeout: float) -> dict[str, Any] | None:
        try:
            if timeout <= 0:
                msg = self.iopub.get_nowait()
            else:
                msg = await asyncio.wait_for(self.iopub.get(), timeout)
        except (asyncio.TimeoutError, asyncio.QueueEmpty):
            return None
        if msg is None:
            raise _KernelDied("the kernel WebSocket closed")
        return msg

    async def drain_shell(self) -> None:
        while not self.shell.empty():
            self.shell.get_nowait()

    async def alive(self) -> bool:
        return not self._closed

    async def interrupt(self) -> None:
        with contextlib.suppress(BackendError):
            await self._http("POST", f"/api/kernels/{quote(str(self.kernel_id))}/interrupt")

    async def restart(self) -> None:
        try:
            await self._http("POST", f"/api/kernels/{quote(str(self.kernel_id))}/restart")
        except BackendError:
            if not self.created:
                raise
            # The kernel we created is gone altogether: make a new one.
            self.kernel_id = None
            await self.open()
            return
        await self._connect_ws()

    async def recover(self) -> str:
        """After a lost connection or a kernel death: the server restarts dead kernels by
        itself, so reconnect; make a new kernel only if ours is gone and was ours."""
        old_id = self.kernel_id
        try:
            await self._http("GET", f"/api/kernels/{quote(str(self.kernel_id))}")
        except BackendError as exc:
            if not self.created:
                raise BackendError(f"the kernel {old_id} is gone from the server and was not "
                                   f"started by this backend, so it is not replaced: {exc}") \
                    from None
            self.kernel_id = None
            await self.open()
            return (f"started a new kernel {self.kernel_id} (kernel {old_id} was gone; its "
                    f"state was lost)")
        await self._connect_ws()
        return f"reconnected to kernel {self.kernel_id}"

    async def quick_check(self) -> str | None:
        """Before each call: only what costs nothing (a REST look-up each call would)."""
        return "the kernel WebSocket closed" if self._closed else None

    async def check(self) -> str | None:
        """Why the kernel is gone (deleted on the server, dead), or None: it exists, or the
        server could not tell in 5 s (the caller's deadline still holds)."""
        if self._closed:
            return "the kernel WebSocket closed"
        from tornado.httpclient import AsyncHTTPClient, HTTPClientError

        try:
            resp = await AsyncHTTPClient().fetch(
                f"{self.url}/api/kernels/{quote(str(self.kernel_id))}",
                headers=self._headers(), request_timeout=5)
        except HTTPClientError as exc:
            if exc.code == 404:
                return "the kernel was shut down (deleted) on the server"
            return None
        except Exception:  # unreachable for now: the deadline decides
            return None
        try:
            state = json.loads(resp.body).get("execution_state")
        except (ValueError, AttributeError):
            return None
        return "the kernel is dead (the server could not restart it)" if state == "dead" \
            else None

    @property
    def pid(self) -> int | None:
        return None

    async def close(self) -> None:
        if self.ws is not None:
            self.ws.close()
            self.ws = None
        if self._reader is not None:
            self._reader.cancel()
        if self.created and self.kernel_id:
            with contextlib.suppress(BackendError):
                await self._http("DELETE", f"/api/kernels/{quote(self.kernel_id)}")
            self.kernel_id = None


# --- the backend --------------------------------------------------------------------------------


class JupyterKernelBackend(BackendBase):
    """Build with ``await JupyterKernelBackend.start(...)`` or ``await …connect(...)``."""

    supports_sandbox = True

    def __init__(self, transport: Any, *, memory_cap: int | None = None,
                 spool_dir: str | None = None):
        kw: dict[str, Any] = {"spool_dir": spool_dir}
        if memory_cap is not None:
            kw["memory_cap"] = memory_cap
        super().__init__(**kw)
        self._transport = transport
        self._lock = asyncio.Lock()
        self._dead: str | None = None
        self._orphan_groups: set[int] = set()
        self._closed = False
        #: every restart or reconnect: ``{"at", "why", "what", "seconds"}`` (newest last)
        self.recoveries: list[dict[str, Any]] = []
        self._verify = False  # something odd happened: check the kernel before the next call
        self._clock_offset: float | None = None  # kernel clock - our clock (seconds)
        self._reaper: asyncio.Future[None] | None = None  # watches an abandoned request
        self._busy: set[str] = set()  # requests (anyone's) the kernel started, not finished
        self._kernel_session: str | None = None  # the kernel's session id: new after a restart

    @classmethod
    async def start(cls, kernel_name: str = "python3", cwd: str | None = None,
                    **kw: Any) -> "JupyterKernelBackend":
        """Start a kernel of ``kernel_name`` (a Python kernelspec) with jupyter_client."""
        transport = _ZMQTransport(kernel_name, cwd)
        try:
            await transport.open()
        except BaseException:
            await transport.close()
            raise
        return cls(transport, **kw)

    @classmethod
    async def connect(cls, url: str, token: str | None = None, kernel_id: str | None = None,
                      kernel_name: str = "python3", **kw: Any) -> "JupyterKernelBackend":
        """Use kernel ``kernel_id`` on the Jupyter Server at ``url``, or start a new one of
        ``kernel_name`` there (shut down again by ``close``)."""
        transport = _WSTransport(url, token, kernel_id, kernel_name)
        try:
            await transport.open()
        except BaseException:
            await transport.close()
            raise
        return cls(transport, **kw)

    @property
    def kernel_pid(self) -> int | None:
        """The kernel's process id when it was started here (None for a server kernel)."""
        return self._transport.pid

    @property
    def kernel_id(self) -> str | None:
        return getattr(self._transport, "kernel_id", None)

    async def restart(self) -> None:
        """Restart the kernel (its state is lost), e.g. after it died or hung."""
        async with self._lock:
            self._check_open()
            await self._settle_reaper()
            await self._recover_unlocked(self._transport.restart, "restart() was called")

    async def _recover_unlocked(self, how: Any, why: str) -> None:
        """Restart or reconnect, within RECOVER_TIMEOUT; recorded in ``recoveries``."""
        begin = time.monotonic()
        try:
            what = await asyncio.wait_for(how(), RECOVER_TIMEOUT)
        except asyncio.TimeoutError:
            raise BackendError(f"could not restart or reconnect the kernel within "
                               f"{RECOVER_TIMEOUT:g} s ({why})") from None
        self._dead = None
        self._verify = False
        self._clock_offset = None
        self._kernel_session = None
        self._busy.clear()
        self._report(why, what or "restarted the kernel (its state was lost)",
                     time.monotonic() - begin)
        orphans, self._orphan_groups = self._orphan_groups, set()
        for pgid in orphans:
            with contextlib.suppress(Exception):
                async for _ in self._exchange_unlocked(
                        {"kind": "op", "op": "kill_group", "args": [pgid]}, None):
                    pass

    def _report(self, why: str, what: str, seconds: float = 0.0) -> None:
        self.recoveries.append({"at": time.time(), "why": why, "what": what,
                                "seconds": round(seconds, 3)})
        log.warning("JupyterKernelBackend: %s; %s", why, what)

    async def close(self) -> None:
        self._closed = True
        if self._reaper is not None:
            self._reaper.cancel()
        await self._transport.close()

    def _check_open(self) -> None:
        if self._closed:
            raise BackendError("this JupyterKernelBackend is closed")

    # --- one request/response exchange with the kernel ----------------------------------------

    async def _exchange(self, request: dict[str, Any], timeout: float | None
                        ) -> AsyncIterator[dict[str, Any]]:
        """Run one request in the kernel and yield the objects it emits, in order."""
        async with self._lock:
            self._check_open()
            await self._settle_reaper()
            t = self._transport
            if self._dead is None:
                # died, vanished or restarted since the last call: recover before sending
                self._dead = await (t.check() if self._verify else t.quick_check())
                self._verify = False
            if self._dead is not None:
                # The previous call saw the kernel die or the connection drop: recover
                # (restart our own kernel, or reconnect to the server's) before going on.
                try:
                    await self._recover_unlocked(t.recover, self._dead)
                except Exception as exc:
                    raise BackendError(f"the kernel is gone ({self._dead}) and could not be "
                                       f"restarted or reconnected: {exc}") from None
            try:
                async for item in self._exchange_unlocked(request, timeout):
                    yield item
                return
            except _DiedBeforeStart as exc:
                why = exc.why
            try:  # nothing of it ran: once more, on the recovered kernel
                await self._recover_unlocked(t.recover, why)
            except Exception as exc:
                raise BackendError(f"the kernel is gone ({why}) and could not be restarted "
                                   f"or reconnected: {exc}") from None
            async for item in self._exchange_unlocked(request, timeout):
                yield item

    async def _settle_reaper(self) -> None:
        """Let the watch over an abandoned request end first (it is bounded)."""
        reaper, self._reaper = self._reaper, None
        if reaper is not None:
            with contextlib.suppress(BaseException):
                await reaper

    async def _exchange_unlocked(self, request: dict[str, Any], timeout: float | None
                                 ) -> AsyncIterator[dict[str, Any]]:
        """One request, without the lock: yields what the kernel emits for it."""
        loop = asyncio.get_running_loop()
        limit = OP_TIMEOUT if timeout is None else timeout + TIMEOUT_SLACK
        deadline = loop.time() + limit
        await self._wait_free(deadline, limit)
        limit = max(deadline - loop.time(), POLL)
        if self._clock_offset is not None and limit < 1e8:
            request = {**request, "not_after": time.time() + self._clock_offset + limit
                       + EXPIRY_MARGIN}
        try:
            async for item in self._run(_CHECK_CODE, _expression(request), limit):
                yield item
            return
        except _NotInstalled:
            pass  # nothing was yielded: the check failed before the request ran
        async for _ in self._run(_INSTALL_CODE, {}, OP_TIMEOUT):
            pass
        async for item in self._run(_CHECK_CODE, _expression(request), limit):
            yield item

    async def _wait_free(self, deadline: float, limit: float) -> None:
        """Wait, until ``deadline``, while the kernel runs someone else's request: ours would
        queue behind it, and a request given up in that queue might still run later. Nothing
        is sent before the kernel is free."""
        t = self._transport
        loop = asyncio.get_running_loop()
        last_check = loop.time()
        while True:
            try:
                msg = await t.next_iopub(POLL if self._busy else 0)
            except _KernelDied as exc:
                raise self._died(str(exc), started=False) from None
            if msg is not None:
                self._track(msg)
                if self._dead is not None:
                    raise self._died(self._dead, started=False)
                continue
            if not self._busy:
                return
            now = loop.time()
            if now - last_check >= CHECK_EVERY:
                last_check = now
                gone = await t.check()
                if gone is not None:
                    raise self._died(gone, started=False)
            if now > deadline:
                raise BackendError(f"the kernel stayed busy with other work (another client's "
                                   f"cell, or an earlier request that does not end) for "
                                   f"{limit:g} s; this request was not sent")

    def _track(self, msg: dict[str, Any]) -> None:
        """Follow the kernel's state from any message: which requests it runs, its clock,
        and a restart or death announced while we were not reading."""
        self._note_clock(msg)
        if (msg.get("msg_type") or msg.get("header", {}).get("msg_type")) != "status":
            return
        state = msg.get("content", {}).get("execution_state")
        parent = msg.get("parent_header", {}).get("msg_id")
        if state == "busy" and parent:
            self._busy.add(parent)
        elif state == "idle":
            self._busy.discard(parent)
        elif state in ("restarting", "dead"):
            self._busy.clear()
            self._dead = f"the kernel is {state}"
        elif state == "starting":
            self._busy.clear()

    async def _run(self, code: str, expressions: dict[str, str], limit: float
                   ) -> AsyncIterator[dict[str, Any]]:
        """Execute ``code`` + ``expressions``; yield the objects emitted, until idle. Answers
        within ``limit`` + INTERRUPT_WAIT seconds whatever the kernel does."""
        t = self._transport
        loop = asyncio.get_running_loop()
        try:
            msg_id = t.execute(code, expressions)
        except _KernelDied as exc:
            raise self._died(str(exc), started=False) from None
        deadline = loop.time() + limit
        last_heard = last_check = loop.time()
        interrupted_at: float | None = None
        # started: the kernel runs it; finished: it emitted its last item (exit/result/fail)
        done = started = finished = False
        error: tuple[str, str] | None = None
        try:
            while True:
                try:
                    msg = await t.next_iopub(POLL)
                except _KernelDied as exc:
                    raise self._died(str(exc), started) from None
                now = loop.time()
                if msg is None:
                    if now - max(last_heard, last_check) >= CHECK_EVERY or \
                            not await t.alive():
                        last_check = now
                        gone = await t.check()
                        if gone is not None:
                            raise self._died(gone, started)
                    if interrupted_at is None and now > deadline:
                        if not started:
                            # Queued behind someone else's cell, or a hung kernel: never
                            # interrupt work that is not ours. It expires kernel-side.
                            raise BackendError(
                                f"the kernel did not start this request within {limit:g} s: "
                                f"it is busy with other work, or hung")
                        if finished:
                            raise BackendError("the kernel did not finish its answer in time")
                        await t.interrupt()
                        interrupted_at = now
                    elif interrupted_at is not None and now > interrupted_at + INTERRUPT_WAIT:
                        raise BackendError("the kernel did not answer, even after an "
                                           "interrupt; restart the backend")
                    continue
                last_heard = now
                self._track(msg)
                mtype = msg.get("msg_type") or msg.get("header", {}).get("msg_type")
                content = msg.get("content", {})
                if mtype == "status" and content.get("execution_state") in ("restarting",
                                                                             "dead"):
                    raise self._died(f"the kernel is {content['execution_state']}", started)
                if msg.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                started = True
                session = msg.get("header", {}).get("session")
                if session and session != self._kernel_session:
                    if self._kernel_session is not None:  # someone restarted it meanwhile
                        self._report("the kernel was restarted outside this backend",
                                     "its state was lost; went on with the restarted kernel")
                    self._kernel_session = session
                if mtype == "display_data" and MIME in content.get("data", {}):
                    item = content["data"][MIME]
                    kind = item.get("k")
                    if kind in ("exit", "result", "fail"):
                        finished = True
                    if kind == "fail" and str(item["error"][0]) == "KeyboardInterrupt":
                        if interrupted_at is not None:
                            continue  # ours: reported below, with the reason
                        self._verify = True  # restarted or shut down next? look first
                        raise BackendError(
                            "the kernel was interrupted from outside this backend (a Jupyter "
                            "interrupt, restart or shutdown) while it ran this request, which "
                            "was stopped")
                    if kind == "fail" and str(item["error"][0]) == "Expired":
                        raise BackendError("the request expired before the kernel started it")
                    yield item
                elif mtype == "error":
                    error = (str(content.get("ename")), str(content.get("evalue")))
                    finished = True
                elif mtype == "status" and content.get("execution_state") == "idle":
                    done = True
                    break
        finally:
            if not done and self._dead is None:
                await self._abandon(msg_id, started, finished, deadline)
            with contextlib.suppress(Exception):
                await t.drain_shell()
        if interrupted_at is not None:
            raise BackendError("the kernel overran its time limit and was interrupted")
        if error is not None:
            if error[0] == "NameError" and _NS in error[1]:
                raise _NotInstalled()
            raise BackendError(f"the kernel-side helper failed: {error[0]}: {error[1]}")

    async def _abandon(self, msg_id: str, started: bool, finished: bool,
                       deadline: float) -> None:
        """We stop reading a request before its end (cancelled, an error, a deadline): stop
        its kernel-side work, in bounded time. A request that already gave its last item is
        left to end by itself (an interrupt now would hit the next request); one that has
        not started is watched in the background until its expiry."""
        t = self._transport
        if not started:
            loop = asyncio.get_running_loop()
            until = deadline + EXPIRY_MARGIN if self._clock_offset is not None \
                else max(deadline, loop.time() + 15.0)
            self._reaper = asyncio.ensure_future(self._reap(msg_id, until))
            return
        with contextlib.suppress(BaseException):
            if not finished:
                await t.interrupt()
            await asyncio.wait_for(self._wait_idle(msg_id), INTERRUPT_WAIT)

    async def _reap(self, msg_id: str, until: float) -> None:
        """Watch a request given up before it started: if it starts before its expiry, stop
        it; if it expired (the kernel refused it) or ends, nothing to do."""
        t = self._transport
        loop = asyncio.get_running_loop()
        try:
            while loop.time() < until:
                msg = await t.next_iopub(POLL)
                if msg is not None:
                    self._track(msg)
                if msg is None or msg.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                content = msg.get("content", {})
                if content.get("execution_state") == "idle":
                    return
                item = content.get("data", {}).get(MIME)
                if item is None:
                    continue
                if item.get("k") != "fail" or str(item["error"][0]) != "Expired":
                    await t.interrupt()  # it started after all: ours to stop
                await asyncio.wait_for(self._wait_idle(msg_id), INTERRUPT_WAIT)
                return
        except Exception:  # the kernel died meanwhile: the next call finds out
            return

    def _note_clock(self, msg: dict[str, Any]) -> None:
        """Estimate the kernel's clock from its messages' dates (for request expiry)."""
        date = msg.get("header", {}).get("date")
        try:
            if isinstance(date, str):
                date = datetime.datetime.fromisoformat(date.replace("Z", "+00:00"))
            if isinstance(date, datetime.datetime) and date.tzinfo is not None:
                self._clock_offset = date.timestamp() - time.time()
        except ValueError:
            pass

    async def _wait_idle(self, msg_id: str) -> None:
        while True:
            msg = await self._transport.next_iopub(POLL)
            if msg is not None:
                self._track(msg)
            if msg and msg.get("parent_header", {}).get("msg_id") == msg_id and \
                    msg.get("content", {}).get("execution_state") == "idle":
                return

    def _died(self, why: str, started: bool = True) -> BackendError:
        self._dead = why
        if not started:  # the kernel never saw it: safe to recover and send it again
            return _DiedBeforeStart(why)
        return BackendError(f"the kernel died, or the connection to it was lost ({why}); the "
                            f"next call recovers it (or call restart())")

    async def _call(self, op: str, *args: Any, timeout: float | None = None) -> Any:
        answer: Any = None
        async for item in self._exchange({"kind": "op", "op": op, "args": list(args)}, timeout):
            if item.get("k") == "result":
                answer = item["v"]
            elif item.get("k") == "fail":
                answer = {"error": item["error"]}
        if answer is None:
            raise BackendError(f"the kernel gave no answer to {op}")
        if "error" in answer:
            raise_remote_error(answer["error"])
        return answer["ok"]

    # --- primitives ---------------------------------------------------------------------------

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
        """Runs in the kernel under the supervisor (shipped with the helpers), so a timeout, a
        cancellation or the kernel's death stops every process the command started;
        ``sandbox=`` needs bubblewrap on the kernel's machine."""
        request = {"kind": "exec", "argv": [str(a) for a in argv], "cwd": cwd,
                   "env": dict(env) if env else None,
                   "timeout": None if timeout is None else float(timeout),
                   "options": sandbox.options(extra_env=env or ()) if sandbox else []}
        final: ExecResult | None = None
        pgid: int | None = None
        expected = 0
        try:
            async for item in self._exchange(request, timeout if timeout is not None else 1e9):
                k = item.get("k")
                if k == "out":
                    n = int(item.get("n", expected))
                    if n != expected:
                        # IOPub is a PUB socket: a slow reader can lose messages. Say so.
                        yield "stderr", (f"\n[agenttools: {n - expected} output chunk(s) were "
                                         f"lost between the kernel and this process]\n").encode()
                    expected = n + 1
                    yield item["s"], base64.b64decode(item["b"])
                elif k == "pid":
                    pgid = int(item["pid"])
                elif k == "exit":
                    final = _exit_result(item)
                elif k == "fail":
                    raise_remote_error(item["error"])
        except BackendError:
            if pgid is not None and final is None and self._dead is not None:
                # The kernel died under its command: kill the orphaned group on restart.
                self._orphan_groups.add(pgid)
            raise
        if final is None:
            raise BackendError("the kernel finished the command without reporting its exit")
        yield final

    async def read_file(self, path: str) -> bytes:
        data = bytearray()
        answer: Any = None
        async for item in self._exchange({"kind": "read", "path": path, "chunk": FILE_CHUNK},
                                         None):
            if item.get("k") == "data":
                data += base64.b64decode(item["b"])
            elif item.get("k") == "result":
                answer = item["v"]
            elif item.get("k") == "fail":
                answer = {"error": item["error"]}
        if answer is None:
            raise BackendError(f"the kernel gave no answer reading {path}")
        if "error" in answer:
            raise_remote_error(answer["error"])
        return bytes(data)

    async def write_file(self, path: str, data: bytes) -> None:
        await self.write_stream(path, [bytes(data)])

    async def write_stream(self, path: str, chunks: AsyncIterator[bytes] | Iterable[bytes]
                           ) -> None:
        token = uuid.uuid4().hex
        await self._call("write_begin", token, path)
        ok = False
        try:
            async for block in _rechunk(chunks, FILE_CHUNK):
                await self._call("write_chunk", token, base64.b64encode(block).decode())
            ok = True
        finally:
            if self._dead is None:
                await self._call("write_end", token, ok)

    async def read_stream(self, path: str, chunk_size: int = FILE_CHUNK
                          ) -> AsyncIterator[bytes]:
        """The file in ranges, one round trip each, so memory stays bounded."""
        offset = 0
        while True:
            block = base64.b64decode(await self._call("read_range", path, offset, chunk_size))
            if not block:
                return
            yield block
            offset += len(block)

    # --- derived operations, run directly in the kernel (no subprocess) ------------------------

    async def getcwd(self) -> str:
        return await self._call("getcwd")

    async def path_facts(self, requests: Sequence[Sequence[Any]],
                         directories: Iterable[str] = (), listings: Iterable[str] = ()
                         ) -> dict[str, Any]:
        """One request to the kernel: the resolver runs there, on the kernel's files."""
        return await self._call("path_facts", [list(r) for r in requests], list(directories),
                                list(listings))

    async def expanduser(self, path: str) -> str:
        return await self._call("expanduser", path)

    async def stat(self, path: str) -> FileStat | None:
        s = await self._call("stat", path)
        return None if s is None else FileStat(int(s[0]), int(s[1]), bool(s[2]))

    async def exists(self, path: str) -> bool:
        return bool(await self._call("exists", path))

    async def is_dir(self, path: str) -> bool:
        return bool(await self._call("is_dir", path))

    async def list_dir(self, path: str) -> list[str]:
        return list(await self._call("list_dir", path))

    async def scandir(self, path: str) -> list[DirEntry]:
        return [DirEntry(n, bool(d), s, m) for n, d, s, m in await self._call("scandir", path)]

    async def walk(self, root: str, *, max_entries: int = 200_000,
                   skip_dirs: Iterable[str] = (".git", ".hg", ".svn")) -> dict[str, Any]:
        return await self._call("walk", root, max_entries, list(skip_dirs))

    async def delete_path(self, path: str) -> bool:
        return bool(await self._call("delete_path", path))

    async def which(self, program: str) -> str | None:
        return await self._call("which", program)


def _exit_result(item: Mapping[str, Any]) -> ExecResult:
    """The kernel's exit message as an ExecResult, with what the supervisor reported."""
    timed_out = bool(item["timed_out"])
    code = int(item["code"]) if item.get("code") is not None else -1
    lines = item.get("status")
    if lines is None:  # no supervisor on the kernel's machine: the group was all there was
        return ExecResult(code, timed_out=timed_out)
    report = SupervisorReport()
    for line in lines:
        report.feed(str(line))
    if report.exit_code is not None:
        code = report.exit_code
    elif timed_out:
        code = -15
    return ExecResult(code, timed_out=timed_out, stopped=report.stopped,
                      survivors=tuple(report.survivors), left_running=tuple(report.left),
                      tracked=bool(report.tracked), sandbox=report.sandbox)


async def _rechunk(chunks: AsyncIterator[bytes] | Iterable[bytes], size: int
                   ) -> AsyncIterator[bytes]:
    buf = bytearray()

    async def source() -> AsyncIterator[bytes]:
        if hasattr(chunks, "__aiter__"):
            async for c in chunks:
                yield c
        else:
            for c in chunks:
                yield c

    async for c in source():
        buf += c
        while len(buf) >= size:
            yield bytes(buf[:size])
            del buf[:size]
    if buf:
        yield bytes(buf)
