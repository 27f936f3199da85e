"""Running code in the user's namespace for RunCode: output capture and a timeout that stops it.

Design (why it is built this way):

- **Same interpreter, same thread.** The agent's run is an asyncio task on the kernel's event
  loop, in the kernel's main thread. The code runs right there, in the notebook's namespace,
  like a cell: libraries that insist on the main thread (signals, matplotlib, some C
  extensions) work, and the variables it creates are the user's. The event loop waits while it
  runs, exactly as it does for a cell (code with a top-level ``await`` is awaited instead, and
  the loop stays free).
- **Capture without touching the run's own output.** The run's panel writes through widget
  state, never ``sys.stdout``. While the code runs, ``sys.stdout``/``sys.stderr`` are routers
  that send what *this* code writes (a context variable marks it) to RunCode's buffers and
  everything else — other threads, other tasks — to the kernel's streams as before. ``display()``
  calls are routed the same way by the host (IPython's display publisher). Figures the code
  leaves open in matplotlib are rendered to PNG and closed; a figure the user had open and
  the code drew on (it turned stale) is rendered too and stays open.
- **A timeout that really stops it: the kernel's own interrupt.** A watchdog thread sends
  SIGINT to the main thread at the deadline (again every 2 s while the code is still running),
  and a SIGINT handler installed for the duration raises KeyboardInterrupt in the code — what
  JupyterLab's "Interrupt kernel" does, and it also ends a blocking ``time.sleep`` or socket
  wait. The handler also makes the user's Interrupt button stop RunCode (between cells the
  kernel ignores SIGINT). A signal that arrives after the code ended is absorbed. Off the main
  thread (no signals there), an asynchronous exception is raised in the running thread instead.
  Limits: code that swallows KeyboardInterrupt, or a C call that never checks for signals,
  cannot be stopped short of restarting the kernel; the result then says so.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import contextvars
import ctypes
import io
import itertools
import linecache
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from . import guards

__all__ = ["Execution", "execute", "MAX_CAPTURE_CHARS"]

MAX_CAPTURE_CHARS = 1_000_000
RESEND_SECONDS = 2.0
_RUNS = itertools.count(1)
_CAPTURE: contextvars.ContextVar["_Buffers | None"] = contextvars.ContextVar(
    "agenttools_runcode_capture", default=None)


@dataclass
class Execution:
    stdout: str = ""
    stderr: str = ""
    result: dict[str, Any] | None = None  # MIME bundle of the last expression's value
    displays: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None  # formatted traceback
    error_name: str | None = None
    timed_out: bool = False
    interrupted: bool = False
    seconds: float = 0.0
    dropped: int = 0  # characters of output not kept (over MAX_CAPTURE_CHARS)
    #: bytes the code could add to the kernel's memory (None: it ran without a ceiling)
    memory_allowance: int | None = None


class _Buffers:
    def __init__(self) -> None:
        self.parts: dict[str, list[str]] = {"stdout": [], "stderr": []}
        self.size = 0
        self.dropped = 0

    def write(self, name: str, text: str) -> None:
        room = MAX_CAPTURE_CHARS - self.size
        if room <= 0:
            self.dropped += len(text)
            return
        kept = text[:room]
        self.parts[name].append(kept)
        self.size += len(kept)
        self.dropped += len(text) - len(kept)


class _Router(io.TextIOBase):
    """Stands in for sys.stdout/sys.stderr: this run's writes go to its buffers, the rest to
    the stream that was there before."""

    def __init__(self, original: Any, name: str):
        self._original = original
        self._name = name

    def write(self, text: str) -> int:
        buffers = _CAPTURE.get()
        if buffers is None:
            return self._original.write(text)
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        buffers.write(self._name, text)
        return len(text)

    def flush(self) -> None:
        if _CAPTURE.get() is None:
            self._original.flush()

    def isatty(self) -> bool:
        return False

    def writable(self) -> bool:
        return True

    def __getattr__(self, name: str) -> Any:
        return getattr(self._original, name)


@contextlib.contextmanager
def _routed_streams() -> Iterator[None]:
    out, err = _Router(sys.stdout, "stdout"), _Router(sys.stderr, "stderr")
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        yield
    finally:
        # someone may have replaced them meanwhile (the code itself): only undo our own
        if sys.stdout is out:
            sys.stdout = saved[0]
        if sys.stderr is err:
            sys.stderr = saved[1]


class _Watchdog:
    """Interrupts the thread running the code at the deadline, and again every few seconds
    while it is still running; never after ``stop()``."""

    def __init__(self, timeout: float):
        self.timeout = timeout
        self.fired = False
        self._active = True
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._ident = threading.get_ident()
        self.use_signal = threading.current_thread() is threading.main_thread()
        self._thread = threading.Thread(target=self._watch, name="runcode-watchdog",
                                        daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _watch(self) -> None:
        if self._done.wait(self.timeout):
            return
        while True:
            with self._lock:
                if not self._active:
                    return
                self.fired = True
                if self.use_signal:
                    signal.pthread_kill(self._ident, signal.SIGINT)
                else:
                    ctypes.pythonapi.PyThreadState_SetAsyncExc(
                        ctypes.c_ulong(self._ident), ctypes.py_object(KeyboardInterrupt))
            if self._done.wait(RESEND_SECONDS):
                return

    def stop(self) -> None:
        with self._lock:
            self._active = False
            self._done.set()
            if not self.use_signal:  # clear an asynchronous exception not yet raised
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self._ident), None)
        self._thread.join()


class _Interruptible:
    """SIGINT (the watchdog's or the user's Interrupt button) raises KeyboardInterrupt in the
    code while ``running``; outside that window it is absorbed."""

    def __init__(self) -> None:
        self.running = False
        self.saved: Any = None
        self.installed = False

    def _handler(self, signum: int, frame: Any) -> None:
        if self.running:
            raise KeyboardInterrupt

    def install(self) -> None:
        if threading.current_thread() is threading.main_thread():
            self.saved = signal.signal(signal.SIGINT, self._handler)
            self.installed = True

    def uninstall(self) -> None:
        if self.installed:
            _let_signals_run()
            signal.signal(signal.SIGINT, self.saved)
            self.installed = False


def _let_signals_run() -> None:
    # Python runs pending signal handlers between bytecodes; a call and a short sleep make
    # sure one sent just before the watchdog stopped is handled by our (absorbing) handler.
    time.sleep(0)
    _noop()


def _noop() -> None:
    return None


def _split(code: str, filename: str) -> tuple[Any, Any, bool]:
    """(code object of all but a final expression, the final expression or None, is_async)."""
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    tree = ast.parse(code, filename=filename, mode="exec")
    last = None
    final_statement = tree.body[-1] if tree.body else None
    if isinstance(final_statement, ast.Expr):
        tree.body.pop()
        last = ast.Expression(final_statement.value)
    body = compile(tree, filename, "exec", flags=flags)
    final = compile(last, filename, "eval", flags=flags) if last is not None else None
    is_async = any(c is not None and (c.co_flags & 0x80)  # CO_COROUTINE
                   for c in (body, final))
    return body, final, is_async


def _open_figures() -> dict[int, Any]:
    """The figures open in pyplot, by number (none when pyplot was never imported). Read from
    pyplot's registry, not with ``plt.figure(num)``, which would change the current figure."""
    helpers = sys.modules.get("matplotlib._pylab_helpers")
    if helpers is None:
        return {}
    try:
        return {m.num: m.canvas.figure for m in helpers.Gcf.get_all_fig_managers()}
    except Exception:
        return {}


def _watch_figures() -> dict[int, tuple[Any, bool]]:
    """The open figures with their stale flags, which are then cleared: any change to a figure
    marks it stale again, so a figure the user had open and the code drew on
    (``plt.plot`` into the current figure) is told apart from one it left alone."""
    watched: dict[int, tuple[Any, bool]] = {}
    for num, fig in _open_figures().items():
        try:
            watched[num] = (fig, bool(fig.stale))
            fig.stale = False  # silent: only stale=True calls the figure's callback
        except Exception:
            continue
    return watched


def _restore_stale(watched: dict[int, tuple[Any, bool]]) -> None:
    for fig, was_stale in watched.values():
        with contextlib.suppress(Exception):
            if was_stale and not fig.stale:
                fig.stale = True


def _render_figures(watched: dict[int, tuple[Any, bool]], sink: list[dict[str, Any]]) -> None:
    """Figures the code made are rendered and closed; figures the user had open and the code
    drew on are rendered and left open (marked stale, so the notebook still shows them)."""
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return
    import base64

    for num, fig in sorted(_open_figures().items(), key=lambda item: item[0]):
        known = watched.get(num)
        new = known is None or known[0] is not fig
        if not new and not fig.stale:
            continue
        try:
            buffer = io.BytesIO()
            fig.savefig(buffer, format="png", bbox_inches="tight")
            sink.append({"image/png": base64.b64encode(buffer.getvalue()).decode("ascii"),
                         "text/plain": repr(fig)})
        except Exception as exc:  # a figure that cannot draw is reported, not raised
            sink.append({"text/plain": f"[figure {num} could not be rendered: {exc}]"})
        finally:
            if new:
                plt.close(fig)
            else:
                fig.stale = True


def _traceback(exc: BaseException, filename: str) -> str:
    tb = exc.__traceback__
    # drop this module's frames: the model needs the frames of its own code
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb or exc.__traceback__))


async def execute(code: str, namespace: dict[str, Any], *, timeout: float,
                  format_value: Callable[[Any], dict[str, Any]] | None = None,
                  capture_displays: Callable[[list[dict[str, Any]]], Any] | None = None,
                  memory_ceiling: bool = False) -> Execution:
    """Run ``code`` in ``namespace``; see the module docstring for how. ``memory_ceiling``:
    run it under ``guards.memory_ceiling`` (code that runs without a question)."""
    result = Execution()
    filename = f"<RunCode-{next(_RUNS)}>"
    lines = code.splitlines(True)
    linecache.cache[filename] = (len(code), None, lines, filename)
    try:
        body, final, is_async = _split(code, filename)
    except SyntaxError as exc:
        result.error = "".join(traceback.format_exception_only(type(exc), exc))
        result.error_name = "SyntaxError"
        return result
    buffers = _Buffers()
    token = _CAPTURE.set(buffers)
    displays: list[dict[str, Any]] = []
    figures_before = _watch_figures()
    started = time.monotonic()
    value: Any = None
    displaying = capture_displays(displays) if capture_displays else contextlib.nullcontext()
    # code with a top-level await leaves the loop free for the user's cells: no ceiling then
    # (the analysis never proves such code read-only, so it is code the user approved)
    ceiling = guards.memory_ceiling() if memory_ceiling and not is_async \
        else contextlib.nullcontext()
    try:
        with _routed_streams(), displaying, ceiling as allowance:
            result.memory_allowance = allowance
            if is_async:
                value = await _run_async(body, final, namespace, timeout, result)
            else:
                value = _run_sync(body, final, namespace, timeout, result)
            if value is not None and result.error is None:
                result.result = (format_value or _plain)(value)
            _render_figures(figures_before, displays)
    except BaseException as exc:  # formatting the value failed, or a display hook broke
        if isinstance(exc, asyncio.CancelledError):
            raise
        result.error = result.error or _traceback(exc, filename)
        result.error_name = result.error_name or type(exc).__name__
    finally:
        _CAPTURE.reset(token)
        _restore_stale(figures_before)
        result.seconds = time.monotonic() - started
    if result.error_name == "MemoryError" and result.memory_allowance is not None:
        result.error = (result.error or "") + (
            f"\nRunCode runs code that needs no question under a memory ceiling: it may add "
            f"{result.memory_allowance / 2 ** 30:.1f} GiB to the kernel (half of the memory "
            f"available when it started). Work on a part of the data, or ask the user to run "
            f"it.\n")
    result.stdout = "".join(buffers.parts["stdout"])
    result.stderr = "".join(buffers.parts["stderr"])
    result.dropped = buffers.dropped
    result.displays = displays
    return result


def _plain(value: Any) -> dict[str, Any]:
    return {"text/plain": repr(value)}


def _run_sync(body: Any, final: Any, namespace: dict[str, Any], timeout: float,
              result: Execution) -> Any:
    guard = _Interruptible()
    watchdog = _Watchdog(timeout)
    value = None
    guard.install()
    try:
        try:
            watchdog.start()
            guard.running = True
            exec(body, namespace)  # noqa: S102 - running the user's code is the point
            if final is not None:
                value = eval(final, namespace)  # noqa: S307
        except KeyboardInterrupt:
            guard.running = False
            result.timed_out = watchdog.fired
            result.interrupted = not watchdog.fired
            result.error_name = "KeyboardInterrupt"
            result.error = ("Timed out: the code was interrupted after "
                            f"{watchdog.timeout:g} s." if watchdog.fired else
                            "Interrupted: someone interrupted the kernel while the code ran.")
        except BaseException as exc:  # the user's code failed: that is a result
            guard.running = False
            result.error_name = type(exc).__name__
            result.error = _traceback(exc, body.co_filename)
        finally:
            guard.running = False
            watchdog.stop()
    except KeyboardInterrupt:  # a late interrupt while stopping: already accounted for
        pass
    finally:
        guard.uninstall()
    return value


async def _run_async(body: Any, final: Any, namespace: dict[str, Any],
                     timeout: float, result: Execution) -> Any:
    """Code with a top-level await: awaited on the loop, cancelled at the deadline."""

    async def run() -> Any:
        awaitable = eval(body, namespace)  # noqa: S307
        if asyncio.iscoroutine(awaitable):
            await awaitable
        if final is None:
            return None
        value = eval(final, namespace)  # noqa: S307
        return await value if final.co_flags & 0x80 else value

    try:
        return await asyncio.wait_for(run(), timeout)
    except asyncio.TimeoutError:
        result.timed_out = True
        result.error_name = "TimeoutError"
        result.error = f"Timed out: the code was cancelled after {timeout:g} s."
    except asyncio.CancelledError:
        raise
    except BaseException as exc:
        result.error_name = type(exc).__name__
        result.error = _traceback(exc, body.co_filename)
    return None
