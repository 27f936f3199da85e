"""Gemini CLI's ``BeforeTool`` command hook.

Format, from the hooks reference https://geminicli.com/docs/hooks/reference (also
``docs/hooks/reference.md`` in google-gemini/gemini-cli): stdin has ``session_id``,
``transcript_path``, ``cwd``, ``hook_event_name`` ("BeforeTool"), ``timestamp``,
``tool_name``, ``tool_input`` and, for MCP tools, ``mcp_context`` (``server_name``,
``tool_name``, …). stdout must hold only the JSON answer; ``{"decision": "deny", "reason": …}``
(alias "block") stops the tool and sends the reason to the model as a tool error, ``{"decision":
"allow"}`` lets it run, ``{}`` has no opinion. Exit 2 blocks with stderr as the reason; other
codes are warnings and the call goes on, so we never use them.

BeforeTool runs when the tool executes, after Gemini CLI's own confirmation: it cannot ask a
person. So ASK is answered as a denial whose reason says approval is needed (``--on-ask defer``
answers ``{}`` instead, leaving the call to Gemini CLI's policy engine), and bad input is exit 2
(fail closed).

Tools: run_shell_command (Bash, in its ``dir_path``), read_file, read_many_files (a Read per
path, a Glob per pattern), write_file, replace (Edit), glob, search_file_content and
grep_search (Grep), list_directory (Glob), web_fetch (a WebFetch ForeignTool per URL in its
prompt), google_web_search (WebSearch), MCP tools (``mcp__server__tool``).
"""

from __future__ import annotations

import json
import re
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

AGENT = "gemini-cli"
DOCS = "https://geminicli.com/docs/hooks/reference"
EVENT = "BeforeTool"

_URL = re.compile(r"https?://[^\s<>\"'`)\]]+")
_GLOB_CHARS = re.compile(r"[*?\[]")


def _path(tool_input: Mapping[str, Any], tool_name: str, *keys: str) -> str:
    for key in keys:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return value
    raise HookInputError(f"expected {' or '.join(repr(k) for k in keys)} in {tool_name}'s "
                         "tool_input to be a non-empty string")


def _folder(tool_input: Mapping[str, Any]) -> str | None:
    for key in ("dir_path", "path", "directory"):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _many(tool_input: Mapping[str, Any]) -> list[HookCall]:
    entries: list[Any] = []
    for key in ("paths", "include"):
        value = tool_input.get(key)
        if isinstance(value, list):
            entries.extend(value)
    if not entries or not all(isinstance(e, str) and e for e in entries):
        raise HookInputError("expected 'paths' (or 'include') in read_many_files' tool_input "
                             "to be a list of paths or glob patterns")
    return [HookCall("Glob", {"pattern": e}) if _GLOB_CHARS.search(e)
            else HookCall("Read", {"file_path": e}) for e in entries]


def _calls(tool_name: str, tool_input: Mapping[str, Any],
           mcp_context: Mapping[str, Any] | None) -> list[HookCall] | None:
    if tool_name == "run_shell_command":
        command = text_field(tool_input, "command", where="run_shell_command's tool_input")
        return [HookCall("Bash", {"command": command}, cwd=_folder(tool_input))]
    if tool_name == "read_file":
        path = _path(tool_input, tool_name, "file_path", "absolute_path")
        return [HookCall("Read", {"file_path": path, **pick(tool_input, "offset", "limit")})]
    if tool_name == "read_many_files":
        return _many(tool_input)
    if tool_name == "write_file":
        path = _path(tool_input, tool_name, "file_path")
        content = tool_input.get("content")
        return [HookCall("Write", {"file_path": path,
                                   "content": content if isinstance(content, str) else ""})]
    if tool_name == "replace":
        path = _path(tool_input, tool_name, "file_path")
        return [HookCall("Edit", {"file_path": path,
                                  **pick(tool_input, "old_string", "new_string")})]
    if tool_name == "glob":
        pattern = text_field(tool_input, "pattern", where="glob's tool_input")
        folder = _folder(tool_input)
        return [HookCall("Glob", {"pattern": pattern, **({"path": folder} if folder else {})})]
    if tool_name in ("search_file_content", "grep_search"):
        pattern = text_field(tool_input, "pattern", where=f"{tool_name}'s tool_input")
        data: dict[str, Any] = {"pattern": pattern}
        folder = _folder(tool_input)
        if folder:
            data["path"] = folder
        if isinstance(tool_input.get("include"), str):
            data["glob"] = tool_input["include"]
        return [HookCall("Grep", data)]
    if tool_name == "list_directory":
        folder = _folder(tool_input)
        if folder is None:
            raise HookInputError("expected 'dir_path' in list_directory's tool_input")
        return [HookCall("Glob", {"pattern": "*", "path": folder})]
    if tool_name == "web_fetch":
        prompt = text_field(tool_input, "prompt", where="web_fetch's tool_input")
        assert prompt is not None
        urls = _URL.findall(prompt) or [tool_input.get("url") or prompt]
        return [HookCall(ForeignTool("WebFetch", rule_argument="url"),
                         {"url": url, "prompt": prompt}) for url in urls]
    if tool_name == "google_web_search":
        query = text_field(tool_input, "query", where="google_web_search's tool_input")
        return [HookCall(ForeignTool("WebSearch", rule_argument="query"), {"query": query})]
    if mcp_context is not None:
        server, name = mcp_context.get("server_name"), mcp_context.get("tool_name")
        if isinstance(server, str) and isinstance(name, str) and server and name:
            return [HookCall(ForeignTool(f"mcp__{server}__{name}"), dict(tool_input))]
    if tool_name.startswith("mcp__") and len(tool_name) > len("mcp__"):
        return [HookCall(ForeignTool(tool_name), dict(tool_input))]
    return None


def parse(data: Mapping[str, Any]) -> HookRequest | None:
    event = data.get("hook_event_name", EVENT)
    if event != EVENT:
        return None
    tool_name = text_field(data, "tool_name")
    assert tool_name is not None
    tool_input = data.get("tool_input")
    if not isinstance(tool_input, Mapping):
        raise HookInputError(f"expected 'tool_input' to be an object, got "
                             f"{type(tool_input).__name__}")
    mcp_context = data.get("mcp_context")
    if mcp_context is not None and not isinstance(mcp_context, Mapping):
        raise HookInputError("expected 'mcp_context' to be an object")
    calls = _calls(tool_name, tool_input, mcp_context)
    return HookRequest(
        AGENT, tool_name, calls or [], cwd=text_field(data, "cwd", required=False),
        session_id=text_field(data, "session_id", required=False),
        call_id=None,
        unmapped=None if calls is not None else
        f"agenttools has no mapping for Gemini CLI's {tool_name}: its own policy decides")


def render(answer: HookAnswer, *, on_ask: str = "deny") -> tuple[str, int]:
    if answer.behavior is None:
        return "{}", 0
    if answer.behavior is PermissionBehavior.ALLOW:
        return json.dumps({"decision": "allow", "reason": answer.reason},
                          ensure_ascii=False), 0
    if answer.behavior is PermissionBehavior.ASK:
        if on_ask == "defer":
            return "{}", 0
        reason = (f"{answer.reason} — this call needs a person's approval, which a Gemini CLI "
                  "BeforeTool hook cannot ask for: approve it with an allow rule "
                  "(agenttools settings add) or run it yourself")
        return json.dumps({"decision": "deny", "reason": reason}, ensure_ascii=False), 0
    return json.dumps({"decision": "deny", "reason": answer.reason}, ensure_ascii=False), 0


def render_bad_input(message: str) -> tuple[str, int, PermissionBehavior]:
    return "", 2, PermissionBehavior.DENY
