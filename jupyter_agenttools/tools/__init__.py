"""What can be called: the tool protocol, FunctionTool, groups and the Toolkit, skills, MCP.

Names resolve lazily, so importing this package (or ``tools.base`` through it) loads nothing
else; ``MCPServer`` brings in the mcp SDK only when it is asked for.
"""

from __future__ import annotations

from typing import Any

from .._lazy import lazy_attributes

_LAZY = {
    "Tool": "base",
    "ToolChunk": "base",
    "ToolResponse": "base",
    "ToolResultState": "base",
    "text_block": "base",
    "validate_tool_definition": "base",
    "FunctionTool": "function",
    "function_tool": "function",
    "ToolGroup": "toolkit",
    "Toolkit": "toolkit",
    "Skill": "skills",
    "load_skills": "skills",
    "ResetTools": "meta",
    "SkillTool": "meta",
    "MCPServer": "mcp",
    "MCPTool": "mcp",
}

__all__ = sorted(_LAZY)


_resolve, __dir__ = lazy_attributes(__name__, _LAZY, globals())


def __getattr__(name: str) -> Any:
    return _resolve(name)
