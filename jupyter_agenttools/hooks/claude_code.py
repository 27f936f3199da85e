"""Claude Code's ``PreToolUse`` command hook.

Format, from the hooks reference https://code.claude.com/docs/en/hooks (PreToolUse input and
"PreToolUse decision control"): stdin is one JSON object with ``session_id``,
``transcript_path``, ``cwd``, ``permission_mode``, ``hook_event_name`` ("PreToolUse"),
``tool_name``, ``tool_input`` and ``tool_use_id``. The answer, on exit 0, is
``{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision":
"allow"|"ask"|"deny", "permissionDecisionReason": …}}``: "allow" skips Claude Code's prompt
(its own deny/ask rules still apply), "ask" shows its prompt with our reason, "deny" blocks the
call and tells Claude why. Exit 0 without output leaves the call to Claude Code's own
permission flow (our answer for a tool we have no mapping for). Exit 2 would block with stderr
as the reason; any other code is a non-blocking error, so we never use one.

Bad input (not JSON, no tool name, a tool input that is not an object) is answered "ask", not
"deny": Claude Code then shows the call itself to a person, who can judge it (we could not
read it); where no one can answer (``-p``, ``dontAsk``) Claude Code turns an ask into a
denial. The error goes to stderr too.

Tools: Bash, Read, Write, Edit, MultiEdit (each edit an Edit), Glob, Grep, NotebookEdit (a
write of the notebook), LS (a listing, as Glob), WebFetch and WebSearch (ForeignTool: rules
``WebFetch(domain:example.com)``), ``mcp__server__tool`` (ForeignTool: ``mcp__server`` rules).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..permission.types import PermissionBehavior
from .common import (
    ForeignTool,
    HookAnswer,
    HookCall,
    HookInputError,
    HookRequest,
    pick,
    text_field,
)

__all__ = ["AGENT", "DOCS", "parse", "render", "render_bad_input"]

AGENT = "claude-code"
DOCS = "https://code.claude.com/docs/en/hooks"
EVENT = "PreToolUse"

_GREP_KEYS = ("pattern", "path", "glob", "type", "output_mode", "-i", "-n", "-A", "-B", "-C",
              "multiline", "head_limit")


def _calls(tool_name: str, tool_input: Mapping[str, Any]) -> list[HookCall] | None:
    """Our calls for one of Claude Code's; None when we have no mapping."""
    if tool_name == "Bash":
        text_field(tool_input, "command", where="Bash's tool_input")
        return [HookCall("Bash", pick(tool_input, "command"))]
    if tool_name == "Read":
        text_field(tool_input, "file_path", where="Read's tool_input")
        return [HookCall("Read", pick(tool_input, "file_path", "offset", "limit"))]
    if tool_name == "Write":
        text_field(tool_input, "file_path", where="Write's tool_input")
        data = pick(tool_input, "file_path", "content")
        data.setdefault("content", "")
        return [HookCall("Write", data)]
    if tool_name == "Edit":
        text_field(tool_input, "file_path", where="Edit's tool_input")
        return [HookCall("Edit", pick(tool_input, "file_path", "old_string", "new_string",
                                      "replace_all"))]
    if tool_name == "MultiEdit":
        path = text_field(tool_input, "file_path", where="MultiEdit's tool_input")
        edits = tool_input.get("edits")
        if not isinstance(edits, list) or not edits \
                or not all(isinstance(e, Mapping) for e in edits):
            raise HookInputError("expected 'edits' in MultiEdit's tool_input to be a list of "
                                 "objects")
        return [HookCall("Edit", {"file_path": path, **pick(e, "old_string", "new_string",
                                                             "replace_all")})
                for e in edits]
    if tool_name == "Glob":
        text_field(tool_input, "pattern", where="Glob's tool_input")
        return [HookCall("Glob", pick(tool_input, "pattern", "path"))]
    if tool_name == "Grep":
        text_field(tool_input, "pattern", where="Grep's tool_input")
        return [HookCall("Grep", pick(tool_input, *_GREP_KEYS))]
    if tool_name == "LS":
        path = text_field(tool_input, "path", where="LS's tool_input")
        return [HookCall("Glob", {"pattern": "*", "path": path})]
    if tool_name == "NotebookEdit":
        path = text_field(tool_input, "notebook_path", where="NotebookEdit's tool_input")
        source = tool_input.get("new_source")
        return [HookCall("Write", {"file_path": path,
                                   "content": source if isinstance(source, str) else ""})]
    if tool_name == "WebFetch":
        text_field(tool_input, "url", where="WebFetch's tool_input")
        return [HookCall(ForeignTool("WebFetch", rule_argument="url"),
                         pick(tool_input, "url", "prompt"))]
    if tool_name == "WebSearch":
        text_field(tool_input, "query", where="WebSearch's tool_input")
        return [HookCall(ForeignTool("WebSearch", rule_argument="query"),
                         pick(tool_input, "query", "allowed_domains", "blocked_domains"))]
    if tool_name.startswith("mcp__") and len(tool_name) > len("mcp__"):
        return [HookCall(ForeignTool(tool_name), dict(tool_input))]
    return None


def parse(data: Mapping[str, Any]) -> HookRequest | None:
    """The request in Claude Code's PreToolUse input; None for another event (not ours)."""
    event = data.get("hook_event_name", EVENT)
    if event != EVENT:
        return None
    tool_name = text_field(data, "tool_name")
    assert tool_name is not None
    tool_input = data.get("tool_input")
    if not isinstance(tool_input, Mapping):
        raise HookInputError(f"expected 'tool_input' to be an object, got "
                             f"{type(tool_input).__name__}")
    cwd = text_field(data, "cwd", required=False)
    calls = _calls(tool_name, tool_input)
    return HookRequest(
        AGENT, tool_name, calls or [], cwd=cwd,
        session_id=text_field(data, "session_id", required=False),
        call_id=text_field(data, "tool_use_id", required=False),
        unmapped=None if calls is not None else
        f"agenttools has no mapping for Claude Code's {tool_name}: its own rules decide")


def _output(decision: str, reason: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": EVENT,
                                              "permissionDecision": decision,
                                              "permissionDecisionReason": reason}},
                      ensure_ascii=False)


def render(answer: HookAnswer) -> tuple[str, int]:
    """(stdout, exit code) for an answer."""
    if answer.behavior is None:
        return "", 0
    name = {PermissionBehavior.ALLOW: "allow", PermissionBehavior.DENY: "deny"}.get(
        answer.behavior, "ask")
    return _output(name, answer.reason), 0


def render_bad_input(message: str) -> tuple[str, int, PermissionBehavior]:
    """(stdout, exit code, what was answered) when the input or the engine failed."""
    return (_output("ask", f"agenttools could not decide this call ({message}); please "
                           "check it yourself"), 0, PermissionBehavior.ASK)
