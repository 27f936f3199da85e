"""What can be called: the tool protocol, FunctionTool, groups and the Toolkit, skills, MCP.

Names resolve lazily, so importing this package (or ``tools.base`` through it) loads nothing
else; ``MCPServer`` brings in the mcp SDK only when it is asked for.
"""

from __future__ import annotations

from typing import Any

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


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
