"""Kernel ▸ Interrupt stops the agent's runs.

An interrupt is a SIGINT to the kernel process. While a cell runs, ipykernel turns it into a
KeyboardInterrupt (or, for a cell inside a top-level ``await``, cancels that cell's coroutine:
``%%agent --wait`` catches that and cancels its run). Between cells ipykernel ignores SIGINT,
so a background ``%%agent`` run would never hear of it: this module installs a handler for
exactly that idle time. ipykernel swaps handlers around every execution (it saves the idle
handler in ``kernel.saved_sigint_handler`` before a cell and restores it after), so the handler
is put both there and, when idle, in place.
"""

from __future__ import annotations

import signal
import threading
from typing import Any, Callable

__all__ = ["install_interrupt_handler"]


def install_interrupt_handler(shell: Any, on_interrupt: Callable[[], None]
                              ) -> Callable[[], None] | None:
    """Call ``on_interrupt()`` (from the signal handler, so it must only schedule work) when
    SIGINT arrives while no cell runs; returns a function that puts things back, or None when
    this is not an ipykernel that swaps handlers (plain IPython, a thread)."""
    kernel = getattr(shell, "kernel", None)
    if kernel is None or threading.current_thread() is not threading.main_thread():
        return None
    idle_before = getattr(kernel, "saved_sigint_handler", None)
    current = signal.getsignal(signal.SIGINT)
    running_a_cell = current is signal.default_int_handler or idle_before is not None

    previous = idle_before if running_a_cell else current

    def handler(signum: int, frame: Any) -> None:
        on_interrupt()
        if callable(previous) and previous is not signal.default_int_handler:
            previous(signum, frame)  # someone else's idle handler keeps working

    kernel.saved_sigint_handler = handler  # restored by ipykernel after the current cell
    if current in (signal.SIG_IGN, signal.SIG_DFL, None):
        signal.signal(signal.SIGINT, handler)  # loaded while idle (e.g. from a config file)

    def restore() -> None:
        if getattr(kernel, "saved_sigint_handler", None) is handler:
            kernel.saved_sigint_handler = previous if previous is not None else signal.SIG_IGN
        if signal.getsignal(signal.SIGINT) is handler:
            signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_IGN)

    return restore
