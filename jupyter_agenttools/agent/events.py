"""What a run reports, one dataclass per kind of event.

Every event has a ``kind`` string (stable, for UIs and logs) and ``to_dict()``. In the order a
run produces them:

==================== ==================================================================
kind                 meaning
==================== ==================================================================
text_delta           a piece of the model's answer text
tool_call_started    the model asked for a tool call (raw arguments as sent)
permission_decision  gate 3's decision for a call (behavior, step, rule, trace…)
ask                  the call is parked on a question; ``ask`` is the PendingAsk to answer
ask_answered         a question was answered (by a click or from code)
tool_chunk           streamed tool output
tool_result          the final result of a call, after every gate (errors and denials too)
run_finished         the run ended normally; ``result`` is the final text
run_failed           a developer-oriented error ended the run; ``error`` is the exception
run_cancelled        the run was cancelled
==================== ==================================================================
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..permission.types import PermissionDecision
    from ..tools.base import ToolChunk, ToolResponse
    from .run import PendingAsk

__all__ = [
    "Event",
    "TextDelta",
    "ToolCallStarted",
    "PermissionDecided",
    "AskEvent",
    "AskAnswered",
    "ToolChunkEvent",
    "ToolResultEvent",
    "RunFinished",
    "RunFailed",
    "RunCancelled",
    "TERMINAL_KINDS",
]

TERMINAL_KINDS = frozenset({"run_finished", "run_failed", "run_cancelled"})


@dataclass
class Event:
    kind: str = field(init=False, default="event")
    time: float = field(init=False, default_factory=time.time)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            out[name] = _plain(getattr(self, name))
        return out


def _plain(value: Any) -> Any:
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, BaseException):
        return f"{type(value).__name__}: {value}"
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@dataclass
class TextDelta(Event):
    text: str = ""
    turn: int = 0
    kind: str = field(init=False, default="text_delta")


@dataclass
class ToolCallStarted(Event):
    call_id: str = ""
    name: str = ""
    raw_input: str = ""
    turn: int = 0
    kind: str = field(init=False, default="tool_call_started")


@dataclass
class PermissionDecided(Event):
    call_id: str = ""
    name: str = ""
    input: dict[str, Any] = field(default_factory=dict)
    decision: "PermissionDecision | None" = None
    kind: str = field(init=False, default="permission_decision")


@dataclass
class AskEvent(Event):
    ask: "PendingAsk | None" = None
    kind: str = field(init=False, default="ask")

    @property
    def call_id(self) -> str:
        return self.ask.call_id if self.ask else ""

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "time": self.time,
                "ask": self.ask.to_dict() if self.ask else None}


@dataclass
class AskAnswered(Event):
    ask_id: str = ""
    call_id: str = ""
    choice: str = ""
    rule: str | None = None
    message: str | None = None
    kind: str = field(init=False, default="ask_answered")


@dataclass
class ToolChunkEvent(Event):
    call_id: str = ""
    name: str = ""
    chunk: "ToolChunk | None" = None
    kind: str = field(init=False, default="tool_chunk")

    def to_dict(self) -> dict[str, Any]:
        c = self.chunk
        return {"kind": self.kind, "time": self.time, "call_id": self.call_id, "name": self.name,
                "chunk": None if c is None else {"content": c.content, "state": c.state.value,
                                                  "metadata": c.metadata}}


@dataclass
class ToolResultEvent(Event):
    call_id: str = ""
    name: str = ""
    response: "ToolResponse | None" = None
    kind: str = field(init=False, default="tool_result")

    @property
    def state(self) -> str:
        return self.response.state.value if self.response else ""

    @property
    def text(self) -> str:
        return self.response.text if self.response else ""


@dataclass
class RunFinished(Event):
    result: str = ""
    kind: str = field(init=False, default="run_finished")


@dataclass
class RunFailed(Event):
    error: BaseException | None = None
    kind: str = field(init=False, default="run_failed")


@dataclass
class RunCancelled(Event):
    reason: str = ""
    kind: str = field(init=False, default="run_cancelled")
