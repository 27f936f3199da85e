"""A running prompt: its events, its open questions, and how to answer, wait for or cancel it.

An ``AgentRun`` lives on the event loop that started it. Everything a person does to it —
``PendingAsk.answer``, ``AgentRun.cancel`` — may come from another thread (a widget callback,
a test thread): the work is handed to the loop with ``call_soon_threadsafe``. Answers are
idempotent: the first one wins, later ones return False and change nothing.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import logging
import threading
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Mapping

from ..errors import AnswerError, ToolArgumentsError
from ..permission.audit import audit_call
from .events import TERMINAL_KINDS, AskAnswered, Event, RunCancelled, RunFailed
from .models import Usage

if TYPE_CHECKING:
    from ..permission.types import PermissionDecision, PermissionRule
    from ..tools.base import Tool, ToolResponse

__all__ = ["AgentRun", "PendingAsk", "CHOICES", "RUN_STATES"]

log = logging.getLogger(__name__)

CHOICES = ("allow_once", "allow_session", "always", "deny")
_ASK_IDS = itertools.count(1)  # process-wide: ids stay unique across agents and runs


def new_ask_id() -> str:
    """A short id for a question, unique in this process ("ask-7"), for %agent answer."""
    return f"ask-{next(_ASK_IDS)}"
RUN_STATES = ("running", "waiting", "done", "failed", "cancelled")


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


class PendingAsk:
    """A tool call parked on a question.

    ``tool`` is the tool's name, ``input`` the validated input, ``decision`` the engine's ASK
    (``suggestions``, ``bypass_immune``, ``message``, ``trace``). Answer with ``answer``.
    """

    def __init__(self, run: "AgentRun", id: str, call_id: str, tool: "Tool",
                 tool_input: dict[str, Any], decision: "PermissionDecision"):
        self.id = id
        self.call_id = call_id
        self.tool = tool.name
        self.tool_obj = tool
        self.input = tool_input
        self.decision = decision
        self.answered = False
        #: the run ended (cancelled, failed) before an answer: answering does nothing
        self.closed = False
        self.choice: str | None = None
        self.rule: "PermissionRule | None" = None
        self.message: str | None = None
        self.new_input: dict[str, Any] | None = None
        self._run = run
        self._lock = threading.Lock()
        self._future: asyncio.Future[PendingAsk] = run._loop.create_future()

    @property
    def safety(self) -> bool:
        """A safety ASK: allow rules cannot silence it and "always" is not offered."""
        return bool(self.decision.bypass_immune)

    @property
    def suggestions(self) -> list["PermissionRule"]:
        return list(self.decision.suggestions or [])

    @property
    def summary(self) -> str:
        try:
            return self.tool_obj.input_summary(self.input)
        except Exception:  # a tool's summary must never break a question
            return repr(self.input)[:200]

    def answer(self, choice: str, *, rule: "PermissionRule | str | None" = None,
               input: Mapping[str, Any] | str | None = None, message: str | None = None) -> bool:
        """Answer the question; returns True, or False if it was already answered.

        ``choice``: ``"allow_once"``; ``"allow_session"`` (keeps ``rule`` — a PermissionRule
        or its text — or else the first suggestion, in the engine's memory: until the kernel
        restarts); ``"always"`` (saves that rule to the local settings layer); both are
        refused for a safety ASK; ``"deny"`` (``message`` reaches the model). ``input``
        replaces the tool input (validated against the tool's schema now, and checked against
        deny rules again).
        An invalid answer raises AnswerError and leaves the question open.
        """
        if not isinstance(choice, str) or choice.strip().lower() not in CHOICES:
            raise AnswerError(f"expected a choice among {', '.join(CHOICES)}, got {choice!r}")
        choice = choice.strip().lower()
        if message is not None and not isinstance(message, str):
            raise AnswerError(f"message must be a string, got {type(message).__name__}")
        with self._lock:
            if self.answered or self.closed:
                return False
            new_input = self._check_input(input) if input is not None else None
            saved = None
            if choice in ("always", "allow_session"):
                saved = self._resolve_rule(rule, choice)
                engine = self._run._engine
                # an engine without settings files keeps the rule for this session only
                layer = ("local" if choice == "always"
                         and getattr(engine, "settings", None) is not None else None)
                saved = engine.add_rule(saved, layer=layer) or saved
            elif rule is not None:
                raise AnswerError(f"a rule only goes with 'always' or 'allow_session', not "
                                  f"with {choice!r}")
            self.answered = True
            self.choice, self.rule, self.message, self.new_input = choice, saved, message, new_input
        try:
            with audit_call(self.call_id):  # the answer's record names the call it was about
                self._run._engine.record_answer(
                    self.tool_obj, new_input or self.input, self.decision,
                    "always_allow" if choice == "always" else choice, rule=saved)
        except Exception:  # the audit log must not undo an answer the person gave
            log.exception("could not record the answer to %s in the audit log", self.id)
        self._run._deliver_answer(self)
        return True

    def _check_input(self, value: Mapping[str, Any] | str) -> dict[str, Any]:
        from ..gates.arguments import parse_arguments

        if not isinstance(value, (str, Mapping)):
            raise AnswerError(f"input must be a dict or a JSON string, got {type(value).__name__}")
        try:
            return parse_arguments(self.tool_obj, value)
        except ToolArgumentsError as exc:
            raise AnswerError(f"the edited input does not fit {self.tool}: {exc}") from None

    def _resolve_rule(self, rule: "PermissionRule | str | None",
                      choice: str = "always") -> "PermissionRule":
        from ..permission.types import PermissionBehavior, PermissionRule

        if self.safety:
            raise AnswerError(
                f"{self.tool}: this is a safety question ({self.decision.message or 'sensitive'})"
                f"; allow rules cannot silence it, so {choice!r} is refused. Answer allow_once "
                "or deny."
            )
        if rule is None:
            if not self.suggestions:
                raise AnswerError(f"{self.tool}: there is no suggested rule to keep; pass "
                                  "rule='Tool(specifier)' or answer allow_once")
            rule = self.suggestions[0]
        if isinstance(rule, str):
            try:
                rule = PermissionRule.parse(rule, PermissionBehavior.ALLOW)
            except ValueError as exc:  # RuleSyntaxError
                raise AnswerError(str(exc)) from None
        if not isinstance(rule, PermissionRule):
            raise AnswerError(f"rule must be a PermissionRule or its text, got {rule!r}")
        # an allow rule; where it is kept (settings file or session) becomes its source
        return rule.with_(behavior=PermissionBehavior.ALLOW, source=None)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "call_id": self.call_id, "tool": self.tool, "input": self.input,
                "summary": self.summary, "safety": self.safety,
                "suggestions": [r.text for r in self.suggestions],
                "decision": self.decision.to_dict(), "answered": self.answered,
                "choice": self.choice, "rule": self.rule.text if self.rule else None,
                "message": self.message}

    def __repr__(self) -> str:
        status = f"answered {self.choice}" if self.answered else "open"
        kind = "safety ask" if self.safety else "ask"
        return f"<PendingAsk {self.id} {kind} {self.tool}: {self.summary!r} ({status})>"


class AgentRun:
    """One prompt's run. Created by ``Agent.run``; proceeds as an asyncio task.

    ``state`` is one of running, waiting (parked on questions), done, failed, cancelled.
    ``events`` keeps every event; ``async for ev in run`` (or ``run.stream()``) yields them
    live from the first; ``add_listener(callback)`` calls a sync callback per event.
    """

    def __init__(self, prompt: str, *, engine: Any, loop: asyncio.AbstractEventLoop | None = None):
        self.prompt = prompt
        self.state = "running"
        self.events: list[Event] = []
        self.result: str | None = None
        self.error: BaseException | None = None
        self.tool_results: list["ToolResponse"] = []
        #: tokens and cost of this run's model calls (as far as the model reported them)
        self.usage = Usage()
        self._engine = engine
        self._loop = loop or asyncio.get_running_loop()
        self._asks: list[PendingAsk] = []
        self._listeners: list[Callable[[Event], Any]] = []
        self._tick: asyncio.Future[None] = self._loop.create_future()
        self._task: asyncio.Task[None] | None = None
        self._outbox: collections.deque[Event] = collections.deque()
        self._emitting = False
        self.cancel_requested = False

    # --- events ------------------------------------------------------------------------------

    def emit(self, event: Event) -> None:
        """Record an event and tell listeners and iterators (loop thread only). An event
        emitted from inside a listener (an answer given in a callback) is delivered after the
        current one has reached every listener, so all listeners see the same order."""
        self._outbox.append(event)
        if self._emitting:
            return
        self._emitting = True
        try:
            while self._outbox:
                current = self._outbox.popleft()
                self.events.append(current)
                for callback in list(self._listeners):
                    try:
                        callback(current)
                    except Exception:  # a broken UI callback must not break the run
                        log.exception("agent run listener %r failed on %s", callback,
                                      current.kind)
        finally:
            self._emitting = False
        tick, self._tick = self._tick, self._loop.create_future()
        if not tick.done():
            tick.set_result(None)

    def add_listener(self, callback: Callable[[Event], Any], *, replay: bool = True) -> None:
        """Call ``callback(event)`` for every event (from the loop thread); with ``replay`` the
        events so far are replayed first, so a UI attached late misses nothing."""
        if replay:
            for event in list(self.events):
                callback(event)
        self._listeners.append(callback)

    def remove_listener(self, callback: Callable[[Event], Any]) -> None:
        if callback in self._listeners:
            self._listeners.remove(callback)

    async def stream(self) -> AsyncIterator[Event]:
        """Every event from the first, then live ones until the run ends."""
        index = 0
        while True:
            while index < len(self.events):
                event = self.events[index]
                index += 1
                yield event
                if event.kind in TERMINAL_KINDS:
                    return
            if self.done:
                return
            await asyncio.shield(self._tick)

    def __aiter__(self) -> AsyncIterator[Event]:
        return self.stream()

    # --- questions ---------------------------------------------------------------------------

    @property
    def pending(self) -> list[PendingAsk]:
        """The questions not answered yet, oldest first."""
        return [a for a in self._asks if not a.answered and not a.closed]

    @property
    def asks(self) -> list[PendingAsk]:
        """Every question of this run, answered or not."""
        return list(self._asks)

    def find_ask(self, ask_id: str) -> PendingAsk | None:
        return next((a for a in self._asks if a.id == ask_id or a.call_id == ask_id), None)

    async def next_ask(self, timeout: float | None = None) -> PendingAsk | None:
        """The oldest open question, waiting for one if needed; None if the run ends first.
        Raises TimeoutError (asyncio's) after ``timeout`` seconds."""

        async def wait() -> PendingAsk | None:
            while True:
                pending = self.pending
                if pending:
                    return pending[0]
                if self.done:
                    return None
                await asyncio.shield(self._tick)

        return await asyncio.wait_for(wait(), timeout)

    async def question(self, number: int = 1, timeout: float | None = None) -> PendingAsk | None:
        """The run's ``number``-th question (1 = the first), answered or not, waiting until it
        is asked; None if the run ends with fewer. Unlike ``next_ask`` it is the same question
        whoever answered it first (a click on its card, or code), so a notebook cell that
        fetches and answers it works either way (``answer`` on an answered question does
        nothing and returns False). Raises TimeoutError (asyncio's) after ``timeout`` s."""
        if not isinstance(number, int) or number < 1:
            raise ValueError(f"expected a question number from 1, got {number!r}")

        async def wait() -> PendingAsk | None:
            while True:
                if len(self._asks) >= number:
                    return self._asks[number - 1]
                if self.done:
                    return None
                await asyncio.shield(self._tick)

        return await asyncio.wait_for(wait(), timeout)

    def _add_ask(self, ask: PendingAsk) -> None:
        self._asks.append(ask)

    def _deliver_answer(self, ask: PendingAsk) -> None:
        def resolve() -> None:
            self.emit(AskAnswered(ask_id=ask.id, call_id=ask.call_id, choice=ask.choice or "",
                                  rule=ask.rule.text if ask.rule else None, message=ask.message))
            if not ask._future.done():
                ask._future.set_result(ask)

        if _on_loop(self._loop):
            resolve()
        else:
            self._loop.call_soon_threadsafe(resolve)

    # --- lifetime ----------------------------------------------------------------------------

    @property
    def done(self) -> bool:
        return self.state in ("done", "failed", "cancelled")

    async def wait_done(self, timeout: float | None = None) -> str | None:
        """Wait for the end of the run and return its final text.

        Raises the run's error if it failed (a developer-oriented exception), and asyncio's
        TimeoutError after ``timeout`` seconds (the run goes on)."""
        if self._task is not None and not self._task.done():
            done, _ = await asyncio.wait({self._task}, timeout=timeout)
            if not done:
                raise asyncio.TimeoutError(f"the run is still {self.state} after {timeout} s")
        if self.state == "failed" and self.error is not None:
            raise self.error
        return self.result

    def _attach(self, task: "asyncio.Task[None]") -> None:
        self._task = task
        task.add_done_callback(self._task_done)

    def _task_done(self, task: "asyncio.Task[None]") -> None:
        # A task cancelled before its first step never ran the loop's own handler.
        if self.done:
            return
        for ask in self._asks:
            ask.closed = True
        if task.cancelled():
            self.state = "cancelled"
            self.emit(RunCancelled(reason=self._cancel_reason))
        else:
            self.error = task.exception() or RuntimeError("the run ended without a result")
            self.state = "failed"
            self.emit(RunFailed(error=self.error))

    def cancel(self, reason: str = "cancelled by the user") -> bool:
        """Stop the run: running tool calls are cancelled (their processes killed) and open
        questions closed. Returns False if the run had already ended. Thread-safe."""
        if self.done:
            return False

        def do_cancel() -> None:
            if self._task is not None and not self._task.done():
                self.cancel_requested = True
                self._cancel_reason = reason
                self._task.cancel()

        if _on_loop(self._loop):
            do_cancel()
        else:
            self._loop.call_soon_threadsafe(do_cancel)
        return True

    _cancel_reason = "cancelled by the user"

    def __repr__(self) -> str:
        extra = f", {len(self.pending)} open question(s)" if self.pending else ""
        return f"<AgentRun {self.state}, {len(self.events)} events{extra}>"
