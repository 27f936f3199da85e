"""A scratch dict that lives for exactly one engine decision.

The engine asks a tool several questions about the same call (read-only? its own check? does
each rule match? what to suggest?). A tool may keep expensive per-call work here (the Bash
tool keeps its parse and plan) so one decision analyses a command once. The dict is dropped
when the decision ends: nothing is cached across decisions.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from typing import Any, Callable

__all__ = ["decision_scope", "current_memo"]

_MEMO: ContextVar[dict[Any, Any] | None] = ContextVar("agenttools_decision_memo", default=None)


class decision_scope:  # noqa: N801 - used like the context-manager function it replaced
    """Open a fresh memo for one decision (nested scopes share the outer one). ``memo``:
    re-open a finished decision's memo (its suggestions, built when first read).

    ``with decision_scope() as memo:`` gives the memo in force. A small class rather than a
    ``@contextmanager`` generator: it is entered once per decision, and a generator-based
    manager costs about three times as much."""

    __slots__ = ("_memo", "_token")

    def __init__(self, memo: dict[Any, Any] | None = None):
        self._memo = memo
        self._token: Token[dict[Any, Any] | None] | None = None

    def __enter__(self) -> dict[Any, Any]:
        memo = self._memo
        if memo is None:
            outer = _MEMO.get()
            if outer is not None:
                return outer
            memo = {}
        self._token = _MEMO.set(memo)
        return memo

    def __exit__(self, *exc: object) -> None:
        token = self._token
        if token is not None:
            self._token = None
            _MEMO.reset(token)


#: ``current_memo()``: the memo of the decision under way, or None outside a decision (the
#: context variable's own ``get``: asked several times per decision, a wrapper frame each
#: time cost more than the lookup)
current_memo: Callable[[], dict[Any, Any] | None] = _MEMO.get
