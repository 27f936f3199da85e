"""Gate 1: does the tool exist, and is its group active?

The toolkit's ``get_tool`` is the check (it raises ToolNotFound or ToolGroupInactive, whose
message tells the model to call ``reset_tools``); this gate adds nothing but a guard against a
model that sends no usable name.
"""

from __future__ import annotations

from typing import Any

from ..errors import ToolNotFound

__all__ = ["check_available"]


def check_available(toolkit: Any, name: Any) -> Any:
    """The tool called ``name``, or ToolNotFound / ToolGroupInactive."""
    if not isinstance(name, str) or not name.strip():
        raise ToolNotFound(str(name), [t["name"] for t in toolkit.schemas()])
    return toolkit.get_tool(name)
