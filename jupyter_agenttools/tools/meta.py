"""The toolkit's own tools: ``reset_tools`` (switch tool groups) and ``Skill`` (read a skill).

Both only change or reveal what the model sees, so both are read-only and always allowed:
an exploring agent must still be able to activate a group or read a skill.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from ..errors import SkillNotFound, ToolArgumentsError
from .base import Tool, ToolResponse

if TYPE_CHECKING:
    from ..permission.types import PermissionContext, PermissionDecision
    from .toolkit import Toolkit

__all__ = ["ResetTools", "SkillTool", "RESET_TOOLS", "SKILL_TOOL"]

RESET_TOOLS = "reset_tools"
SKILL_TOOL = "Skill"


class _AlwaysAllowed(Tool):
    read_only = True
    call_in_thread = False  # quick, and they change the toolkit the loop reads

    def check_permissions(self, tool_input: Mapping[str, Any],
                          context: "PermissionContext") -> "PermissionDecision":
        from ..permission.types import PermissionDecision

        return PermissionDecision.allow(f"{self.name} only changes what the model sees")


class ResetTools(_AlwaysAllowed):
    """Set which tool groups are active. The input is the final state, not a delta."""

    name = RESET_TOOLS
    # It changes the tool set the rest of a batch would see: run it alone.
    concurrency_safe = False
    description = (
        "Choose which tool groups are active. Pass one boolean per group: the values are the "
        "FINAL state, not a change — every group you do not set to true is deactivated. "
        "Activate only the groups the task needs and deactivate them when done. The result "
        "lists the active groups and the instructions for using them; follow those "
        "instructions. Call it again to re-read them."
    )

    def __init__(self, toolkit: "Toolkit") -> None:
        self.toolkit = toolkit

    @property
    def input_schema(self) -> dict[str, Any]:  # type: ignore[override]
        props = {
            g.name: {"type": "boolean", "default": False, "description": g.description}
            for g in self.toolkit.groups
        }
        return {"type": "object", "properties": props, "additionalProperties": False}

    def call(self, **tool_input: Any) -> ToolResponse:
        valid = [g.name for g in self.toolkit.groups]
        unknown = [k for k in tool_input if k not in valid]
        if unknown:
            raise ToolArgumentsError(
                f"Invalid group name(s): {', '.join(unknown)}. The valid groups are: "
                f"{', '.join(valid) or '(none)'}.")
        for key, value in tool_input.items():
            if not isinstance(value, bool):
                raise ToolArgumentsError(
                    f"Invalid argument {key!r}: expected true or false, got "
                    f"{type(value).__name__} {value!r}.")
        self.toolkit.set_active_groups(tool_input)
        return _text_response(self.toolkit.describe_active_groups())


def _text_response(text: str) -> ToolResponse:
    from .base import text_block

    return ToolResponse([text_block(text)])


class SkillTool(_AlwaysAllowed):
    """Return the body of one skill."""

    name = SKILL_TOOL
    concurrency_safe = True
    rule_argument = "skill"
    description = (
        "Read a skill: its full instructions (the SKILL.md body). Skills are listed in the "
        "system prompt with their folders; read one before following it. Skills are not tools."
    )
    input_schema = {
        "type": "object",
        "properties": {"skill": {"type": "string", "description": "the skill's name"}},
        "required": ["skill"],
        "additionalProperties": False,
    }

    def __init__(self, toolkit: "Toolkit") -> None:
        self.toolkit = toolkit

    def call(self, skill: str) -> ToolResponse:
        found = self.toolkit.skills.get(skill)
        if found is None:
            raise SkillNotFound(skill, list(self.toolkit.skills))
        return _text_response(found.body)
