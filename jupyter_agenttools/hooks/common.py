"""What the three agents' pre-tool hooks share: map a call onto our tools, decide, audit.

An agent (Claude Code, Codex, Gemini CLI) runs ``agenttools hook <agent>`` before each tool
call, with the call as JSON on stdin. The agent module (``claude_code.py``, ``codex.py``,
``gemini_cli.py``) turns that JSON into a ``HookRequest`` (the agent's tool name and one or
more calls of *our* tools: Bash, Read, Write, Edit, Glob, Grep, or a ``ForeignTool`` for
WebFetch and MCP tools), ``decide`` runs them through the engine with the settings of the
project at the call's ``cwd``, and the agent module writes the answer in the agent's format.

Every decision is written to the project's audit log with ``agent`` set to the agent's name,
``agent_tool`` to its own tool name and ``call_id`` to its tool-use id. A call we have no
mapping for gets no opinion (``behavior`` None): the agent's own permission system decides,
which is not an allow.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..errors import AgentToolsError, JSONInputError
from ..permission.types import PermissionBehavior, PermissionDecision
from ..tools.base import Tool

__all__ = ["ForeignTool", "HookCall", "HookRequest", "HookAnswer", "HookInputError",
           "MAX_INPUT_BYTES", "read_payload", "find_project", "decide", "record_refusal",
           "pick", "text_field"]

#: A hook's stdin larger than this is refused (a Write of a huge file is still far below)
MAX_INPUT_BYTES = 32 * 1024 * 1024


class HookInputError(ValueError):
    """The hook's input is not what the agent documents: answered fail-closed."""


class ForeignTool(Tool):
    """A tool of the calling agent that has no counterpart here (WebFetch, WebSearch, MCP).

    It has no check of its own, so the engine's rules and mode decide (the default mode asks).
    Rules name it as the agent does: ``WebFetch(domain:example.com)`` (the host or a
    subdomain of it), ``WebSearch(query words)``, ``mcp__server`` / ``mcp__server__tool``.
    """

    def __init__(self, name: str, *, rule_argument: str | None = None):
        self.name = name
        self.description = f"{name} (a tool of the calling agent)"
        self.rule_argument = rule_argument

    def match_rule(self, rule: Any, tool_input: Mapping[str, Any], context: Any) -> bool:
        specifier = rule.specifier
        if specifier is not None and specifier.startswith("domain:") \
                and self.rule_argument == "url":
            url = tool_input.get("url")
            if not isinstance(url, str):
                return False
            host = (urlsplit(url).hostname or "").lower().rstrip(".")
            domain = specifier[len("domain:"):].strip().lower().rstrip(".")
            return bool(domain) and (host == domain or host.endswith("." + domain))
        return super().match_rule(rule, tool_input, context)


@dataclass
class HookCall:
    """One call of our tool: a built-in name or a Tool object, its input, maybe its own cwd."""

    tool: str | Tool
    tool_input: dict[str, Any]
    cwd: str | None = None


@dataclass
class HookRequest:
    agent: str
    agent_tool: str
    calls: list[HookCall]
    cwd: str | None = None
    session_id: str | None = None
    call_id: str | None = None
    #: why no mapping exists (calls is then empty: the agent decides)
    unmapped: str | None = None


@dataclass
class HookAnswer:
    """``behavior`` None: no opinion (the agent's own permission system decides)."""

    behavior: PermissionBehavior | None
    reason: str
    decisions: list[PermissionDecision] = field(default_factory=list)


# --- reading the input -------------------------------------------------------------------------


def read_payload(stream: Any = None) -> dict[str, Any]:
    """The JSON object on stdin (bounded, strict: duplicate keys, NaN, deep nesting refused)."""
    from ..strict_json import loads

    stream = sys.stdin.buffer if stream is None else stream
    raw = stream.read(MAX_INPUT_BYTES + 1)
    if len(raw) > MAX_INPUT_BYTES:
        raise HookInputError(f"the hook input is larger than {MAX_INPUT_BYTES} bytes")
    if not raw.strip():
        raise HookInputError("the hook input is empty; expected the agent's JSON on stdin")
    try:
        data = loads(raw)
    except JSONInputError as exc:
        raise HookInputError(f"the hook input is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise HookInputError(f"expected a JSON object on stdin, got {type(data).__name__}")
    return data


def text_field(data: Mapping[str, Any], key: str, *, required: bool = True,
               where: str = "the hook input") -> str | None:
    value = data.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value):
        raise HookInputError(f"expected {key!r} in {where} to be a non-empty string, got "
                             f"{type(value).__name__ if value is not None else 'nothing'}")
    return value


def pick(tool_input: Mapping[str, Any], *keys: str, rename: Mapping[str, str] | None = None
         ) -> dict[str, Any]:
    """The keys our tool knows, from the agent's input (``rename``: agent key → our key)."""
    out = {key: tool_input[key] for key in keys if key in tool_input}
    for theirs, ours in (rename or {}).items():
        if theirs in tool_input and ours not in out:
            out[ours] = tool_input[theirs]
    return out


def find_project(cwd: str | None, explicit: str | None = None) -> str:
    """The project whose settings decide: ``--project``, else the nearest folder at or above
    ``cwd`` holding ``.agenttools/``, else the nearest holding ``.git``, else ``cwd``."""
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit))
    start = os.path.abspath(cwd or os.getcwd())
    for marker in (".agenttools", ".git"):
        folder = start
        while True:
            if os.path.isdir(os.path.join(folder, marker)):
                return folder
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
    return start


# --- deciding ----------------------------------------------------------------------------------


def _tool_resolver() -> Callable[[str], Tool | None]:
    from ..permission.check import builtin_tool

    return builtin_tool


def _engine(request: HookRequest, project: str, mode: str | None) -> Any:
    from ..permission.audit import AuditLog
    from ..permission.engine import PermissionEngine
    from ..permission.settings import SettingsStore
    from ..permission.types import PermissionContext

    store = SettingsStore(project)
    cwd = os.path.abspath(request.cwd or project)
    context = PermissionContext(cwd=cwd, project_root=str(store.project_root))
    audit = AuditLog(store.audit_path, agent=request.agent)
    return PermissionEngine(mode=mode, settings=store, context=context, audit=audit,
                            tools=_tool_resolver(), session=request.session_id)


def _reason(decision: PermissionDecision) -> str:
    """The decision in words: its message, why (when the message does not say it), and the
    rule with the file it came from."""
    text = decision.message or decision.reason or decision.behavior.value
    if decision.reason and decision.reason not in text and decision.rule is None:
        text = f"{text.rstrip('.')} ({decision.reason})"
    if decision.rule is not None and decision.rule_source:
        text = f"{text.rstrip('.')} (from {decision.rule_source})"
    return text


def decide(request: HookRequest, *, project: str | None = None, mode: str | None = None
           ) -> HookAnswer:
    """The strictest decision over the request's calls (each one audited)."""
    from ..permission.audit import audit_call
    from ..permission.check import builtin_tool

    root = find_project(request.cwd, project)
    if not request.calls:
        record_refusal(request, root, None, request.unmapped or "no mapping")
        return HookAnswer(None, request.unmapped or f"agenttools has no mapping for "
                                                    f"{request.agent_tool}")
    engine = _engine(request, root, mode)
    decisions: list[PermissionDecision] = []
    with audit_call(request.call_id, agent_tool=request.agent_tool):
        for call in request.calls:
            tool = builtin_tool(call.tool) if isinstance(call.tool, str) else call.tool
            if tool is None:
                raise HookInputError(f"no tool {call.tool!r} here")  # a mapping bug
            context = None
            if call.cwd is not None:
                context = engine.context.with_(cwd=os.path.abspath(
                    os.path.join(engine.context.cwd, call.cwd)))
            decisions.append(engine.decide(tool, call.tool_input, context=context))
    worst = max(decisions, key=lambda d: d.behavior)
    behavior = worst.behavior
    if behavior is PermissionBehavior.PASSTHROUGH:  # nobody decided: a question, never a yes
        behavior = PermissionBehavior.ASK
    return HookAnswer(behavior, f"agenttools: {_reason(worst)}", decisions)


def record_refusal(request: HookRequest | None, project: str | None,
                   behavior: PermissionBehavior | None, reason: str, *,
                   agent: str | None = None) -> None:
    """Audit a hook answer the engine did not make (bad input, unmapped tool, engine
    failure); never raises: the answer matters more than its record."""
    from ..permission.audit import AuditLog

    try:
        root = project or find_project(request.cwd if request else None)
        log = AuditLog(os.path.join(root, ".agenttools", "audit.jsonl"),
                       agent=(request.agent if request else agent))
        tool = request.agent_tool if request else "(unreadable input)"
        log.record(kind="decision", session=request.session_id if request else None,
                   call_id=request.call_id if request else None,
                   agent_tool=tool, tool=tool, input=reason[:200], step="hook",
                   behavior=(behavior or PermissionBehavior.PASSTHROUGH).value, reason=reason)
    except (OSError, AgentToolsError, ValueError):
        pass
