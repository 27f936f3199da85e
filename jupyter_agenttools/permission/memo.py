"""A scratch dict that lives for exactly one engine decision.

The engine asks a tool several questions about the same call (read-only? its own check? does
each rule match? what to suggest?). A tool may keep expensive per-call work here (the Bash
tool keeps its parse and plan) so one decision analyses a command once. The dict is dropped
when the decision ends: nothing is cached across decisions.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterator

__all__ = ["decision_scope", "current_memo"]

_MEMO: ContextVar[dict[Any, Any] | None] = ContextVar("agenttools_decision_memo", default=None)


@contextmanager
def decision_scope(memo: dict[Any, Any] | None = None) -> Iterator[dict[Any, Any]]:
    """Open a fresh memo for one decision (nested scopes share the outer one). ``memo``:
    re-open a finished decision's memo (its suggestions, built when first read)."""
    outer = _MEMO.get()
    if outer is not None and memo is None:
        yield outer
        return
    if memo is None:
        memo = {}
    token = _MEMO.set(memo)
    try:
        yield memo
    finally:
        _MEMO.reset(token)


def current_memo() -> dict[Any, Any] | None:
    """The memo of the decision under way, or None outside a decision."""
    return _MEMO.get()
