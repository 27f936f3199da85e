"""Codex's ``PreToolUse`` command hook.

Format, from https://developers.openai.com/codex/hooks (PreToolUse) and the schemas and parser
in openai/codex (``codex-rs/hooks/schema/generated/pre-tool-use.command.{input,output}.schema
.json``, ``codex-rs/hooks/src/events/pre_tool_use.rs``): stdin has ``session_id``,
``turn_id``, ``transcript_path``, ``cwd``, ``hook_event_name`` ("PreToolUse"), ``model``,
``permission_mode``, ``tool_name`` ("Bash", "apply_patch" or ``mcp__server__tool``),
``tool_input`` (``{"command": …}`` for Bash and apply_patch — the patch text for the latter —,
the arguments for MCP tools) and ``tool_use_id``.

Only a denial is enforced by Codex today: ``{"hookSpecificOutput": {"hookEventName":
"PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": …}}`` on exit 0, or
exit 2 with the reason on stderr. "allow" and "ask" are parsed but *fail open* (the hook run is
marked failed and the call proceeds), so:

- ALLOW → no output, exit 0: Codex's own approval policy and sandbox still apply;
- ASK → a denial whose reason says a person must approve (Codex cannot ask from this hook);
  ``--on-ask defer`` answers nothing instead, leaving the call to Codex's approval policy;
- DENY → the denial above;
- bad input → exit 2 with the reason on stderr (blocks even if our stdout were unreadable).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping
from typing import Any

from ..permission.types import PermissionBehavior
from .common import ForeignTool, HookAnswer, HookCall, HookInputError, HookRequest, text_field

__all__ = ["AGENT", "DOCS", "parse", "render", "render_bad_input", "patch_paths"]

AGENT = "codex"
DOCS = "https://developers.openai.com/codex/hooks"
EVENT = "PreToolUse"

# apply_patch's envelope: one header line per file it touches
_PATCH_FILE = re.compile(r"^\*\*\* (Add File|Update File|Delete File|Move to): (.+?)\s*$",
                         re.MULTILINE)


def patch_paths(patch: str) -> list[str]:
    """Every file an apply_patch text adds, updates, deletes or moves to, in order."""
    seen: dict[str, None] = {}
    for match in _PATCH_FILE.finditer(patch):
        seen.setdefault(match.group(2), None)
    return list(seen)


def _command(tool_input: Mapping[str, Any], tool_name: str) -> str:
    command = tool_input.get("command")
    if isinstance(command, list) and command and all(isinstance(w, str) for w in command):
        return shlex.join(command)  # an argv (older Codex builds)
    if not isinstance(command, str) or not command:
        raise HookInputError(f"expected 'command' in {tool_name}'s tool_input to be a "
                             "non-empty string")
    return command


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
    calls: list[HookCall] | None
    if tool_name == "Bash":
        calls = [HookCall("Bash", {"command": _command(tool_input, tool_name)})]
    elif tool_name == "apply_patch":
        paths = patch_paths(_command(tool_input, tool_name))
        if not paths:
            raise HookInputError("the apply_patch text names no file (no '*** Add File:', "
                                 "'*** Update File:', '*** Delete File:' or '*** Move to:')")
        calls = [HookCall("Write", {"file_path": path, "content": ""}) for path in paths]
    elif tool_name.startswith("mcp__") and len(tool_name) > len("mcp__"):
        calls = [HookCall(ForeignTool(tool_name), dict(tool_input))]
    else:
        calls = None
    return HookRequest(
        AGENT, tool_name, calls or [], cwd=text_field(data, "cwd", required=False),
        session_id=text_field(data, "session_id", required=False),
        call_id=text_field(data, "tool_use_id", required=False),
        unmapped=None if calls is not None else
        f"agenttools has no mapping for Codex's {tool_name}: its own approval policy decides")


def _deny(reason: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": EVENT,
                                              "permissionDecision": "deny",
                                              "permissionDecisionReason": reason}},
                      ensure_ascii=False)


def render(answer: HookAnswer, *, on_ask: str = "deny") -> tuple[str, int]:
    if answer.behavior is None or answer.behavior is PermissionBehavior.ALLOW:
        return "", 0
    if answer.behavior is PermissionBehavior.ASK:
        if on_ask == "defer":
            return "", 0
        return _deny(f"{answer.reason} — this call needs a person's approval, which a Codex "
                     "PreToolUse hook cannot ask for: approve it with an allow rule "
                     "(agenttools settings add) or run it yourself"), 0
    return _deny(answer.reason), 0


def render_bad_input(message: str) -> tuple[str, int, PermissionBehavior]:
    # exit 2: Codex blocks the call and shows stderr (written by the caller) as the reason
    return "", 2, PermissionBehavior.DENY
