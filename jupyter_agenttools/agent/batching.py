"""Tool calls of one model turn, their states, and how they are grouped into batches (SPEC §7).

Calls keep the model's order. Maximal runs of concurrency-safe calls form a concurrent batch
(run together with asyncio.gather); every other call is a sequential batch of its own. A name
the toolkit does not know counts as safe: it fails gate 1 and has no side effect.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:
    from ..permission.types import PermissionContext, PermissionDecision, PermissionRule
    from ..tools.base import Tool, ToolResponse
    from ..tools.toolkit import Toolkit
    from .run import PendingAsk

__all__ = ["CallState", "ToolCall", "Batch", "make_batches", "matches_kept_rule"]


class CallState:
    PENDING = "pending"
    ASKING = "asking"
    ALLOWED = "allowed"
    FINISHED = "finished"


@dataclass
class ToolCall:
    """One call through the gates: PENDING → (ASKING →) ALLOWED → FINISHED, or straight to
    FINISHED on an error or a denial."""

    id: str
    name: str
    raw: str
    state: str = CallState.PENDING
    tool: "Tool | None" = None
    input: dict[str, Any] | None = None
    decision: "PermissionDecision | None" = None
    ask: "PendingAsk | None" = None
    result: "ToolResponse | None" = None
    started: bool = False
    #: the person edited the input when allowing: deny rules are checked again
    recheck: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Batch:
    concurrent: bool
    calls: list[ToolCall]


def _is_safe(call: ToolCall, toolkit: "Toolkit") -> bool:
    tool = toolkit.find_tool(call.name) if isinstance(call.name, str) else None
    if tool is None:
        return True
    tool_input = call.input
    if tool_input is None:
        try:
            tool_input = json.loads(call.raw) if call.raw.strip() else {}
        except (ValueError, RecursionError):
            tool_input = None
        if not isinstance(tool_input, dict):
            tool_input = None
    try:
        return bool(tool.is_concurrency_safe(tool_input))
    except Exception:  # a tool that cannot say runs alone
        return False


def make_batches(calls: Iterable[ToolCall], toolkit: "Toolkit") -> list[Batch]:
    """Split ``calls`` in order into maximal concurrent runs and single sequential calls."""
    batches: list[Batch] = []
    for call in calls:
        if _is_safe(call, toolkit):
            if batches and batches[-1].concurrent:
                batches[-1].calls.append(call)
            else:
                batches.append(Batch(True, [call]))
        else:
            batches.append(Batch(False, [call]))
    return batches


def matches_kept_rule(tool: "Tool", tool_input: dict[str, Any], kept: list["PermissionRule"],
                      context: "PermissionContext") -> bool:
    """Does a rule already suggested in this batch cover this call? (then no second question)"""
    for rule in kept:
        if rule.tool != tool.name:
            continue
        try:
            if tool.match_rule(rule, tool_input, context):
                return True
        except Exception:  # a broken matcher means "no": the call is asked about itself
            continue
    return False
