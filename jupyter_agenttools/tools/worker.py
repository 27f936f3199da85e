"""A worker thread for one call of a synchronous tool.

A plain ``def call()`` (a FunctionTool around a sync function, a sync generator) would run on
the event loop and stall everything on it — other tool calls, the widgets, the kernel's
comms — for as long as it takes: three ``time.sleep(4)`` tools froze the loop 12 s. So the toolkit
runs each blocking step of such a call (the call itself, then each ``next()`` of a generator it
returns) in a thread of its own, in order, with the caller's context variables.

Cancelling (the run is cancelled, or the call overran its time limit) raises ToolCallStopped in
that thread at its next Python instruction (``PyThreadState_SetAsyncExc``): a tool busy in
Python code stops at once and its ``finally`` blocks run. A tool blocked inside C (a long
``time.sleep``, a socket read without timeout) cannot be stopped that way: after GRACE seconds
the call is reported as still running in the background (``stuck``) and its result, when it
comes, is dropped. The thread is a daemon: it never holds up interpreter exit.
"""

from __future__ import annotations

import asyncio
import contextvars
import queue
import threading
from typing import Any, Callable

from ..errors import ToolCallStopped

__all__ = ["ToolThread", "GRACE", "STUCK_MESSAGE"]

#: Seconds a cancelled call's thread is given to stop before it is reported as stuck.
GRACE = 0.5
STUCK_MESSAGE = ("[The tool's worker thread is blocked outside Python and could not be stopped; "
                 "it goes on in the background and its result will be dropped.]")


def _resolve(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():
        return  # the caller was cancelled: the late result is dropped
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class ToolThread:
    """Runs the blocking steps of one tool call, one after the other, in one daemon thread."""

    def __init__(self, name: str):
        self.name = name
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._idle = threading.Event()
        self._idle.set()
        self._lock = threading.Lock()  # a stop is only sent while a job runs
        self._running_job = False
        #: a stop was sent to this thread
        self.interrupted = False
        #: the thread did not stop within GRACE seconds of the stop (blocked outside Python)
        self.stuck = False

    async def run(self, func: Callable[..., Any], *args: Any) -> Any:
        """``func(*args)`` in the worker; cancelling the caller stops the worker's job."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._idle.clear()
        self._jobs.put((future, loop, contextvars.copy_context(), func, args))
        if self._thread is None:
            self._thread = threading.Thread(target=self._main, daemon=True,
                                            name=f"agenttools-tool-{self.name}")
            self._thread.start()
        try:
            return await future
        except asyncio.CancelledError:
            await self._stop()
            raise

    def close(self) -> None:
        """End the thread once its current job (if any) is over."""
        if self._thread is not None:
            self._jobs.put(None)

    async def _stop(self) -> None:
        import ctypes  # only when a call is stopped: 5 ms off every %load_ext

        with self._lock:
            if self._running_job and self._thread is not None and self._thread.ident:
                self.interrupted = True
                ctypes.pythonapi.PyThreadState_SetAsyncExc(
                    ctypes.c_ulong(self._thread.ident), ctypes.py_object(ToolCallStopped))
        loop = asyncio.get_running_loop()
        end = loop.time() + GRACE
        while not self._idle.is_set() and loop.time() < end:
            await asyncio.sleep(0.01)
        self.stuck = not self._idle.is_set()

    def _main(self) -> None:
        while True:
            try:
                job = self._jobs.get()
                if job is None:
                    return
                future, loop, context, func, args = job
                with self._lock:
                    self._running_job = True
                try:
                    result, error = context.run(func, *args), None
                except BaseException as exc:  # the tool's, or our stop: the caller decides
                    result, error = None, exc
                finally:
                    with self._lock:
                        self._running_job = False
                    self._idle.set()
                if isinstance(error, ToolCallStopped):
                    error = asyncio.CancelledError()
                try:
                    loop.call_soon_threadsafe(_resolve, future, result, error)
                except RuntimeError:  # the loop is closed: nobody waits any more
                    pass
            except ToolCallStopped:  # a stop that landed between jobs: nothing to stop
                self._idle.set()
