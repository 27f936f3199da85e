"""Small tools for the permission tests (also loaded by the CLI as ``perm_tools:Judge``)."""

from __future__ import annotations

from jupyter_agenttools.errors import DeveloperOrientedException
from jupyter_agenttools.permission.types import PermissionDecision, PermissionRule
from jupyter_agenttools.tools.base import Tool


class Judge(Tool):
    """Its check returns what ``input["verdict"]`` says; records every check call."""

    name = "Judge"
    rule_argument = "text"
    input_schema = {"type": "object", "properties": {"text": {"type": "string"},
                                                     "verdict": {"type": "string"}}}

    def __init__(self):
        self.checked = []

    def is_read_only(self, tool_input=None):
        return bool(tool_input and tool_input.get("read_only"))

    def check_permissions(self, tool_input, context):
        self.checked.append((dict(tool_input), context.mode))
        verdict = tool_input.get("verdict", "passthrough")
        if verdict == "allow":
            return PermissionDecision.allow("the judge allows")
        if verdict == "deny":
            return PermissionDecision.deny("the judge denies")
        if verdict == "ask":
            return PermissionDecision.ask("the judge wants to ask")
        if verdict == "safety":
            return PermissionDecision.ask("touches a credential", safety=True)
        return PermissionDecision.passthrough("the judge has no opinion")

    def suggest_rules(self, tool_input, context):
        text = tool_input.get("text", "")
        # the narrow one, plus allow-everything ones the engine must drop
        return [PermissionRule(self.name, f"{text}*"), PermissionRule(self.name),
                PermissionRule(self.name, "**"), PermissionRule(self.name, "/**"),
                PermissionRule(self.name, "*")]


class Explorer(Tool):
    """Read-only by declaration; its check must never matter."""

    name = "Explorer"
    read_only = True
    rule_argument = "path"


class Exploding(Tool):
    name = "Exploding"
    rule_argument = "text"

    def check_permissions(self, tool_input, context):
        raise RuntimeError("kaboom in the check")


class DevBroken(Tool):
    name = "DevBroken"

    def check_permissions(self, tool_input, context):
        raise DeveloperOrientedException("misconfigured tool")


class Func(Tool):
    """Like a FunctionTool: no main argument, plain ASK unless allowed."""

    name = "my_function"

    def check_permissions(self, tool_input, context):
        return PermissionDecision.ask("custom functions must be allowed")


def mcp_tool(name: str) -> Tool:
    t = Tool()
    t.name = name
    return t
