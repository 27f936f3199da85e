"""Helpers for the built-in tool tests: run a tool through the real Toolkit pipeline."""

from __future__ import annotations

from typing import Any

import jsonschema

from jupyter_agenttools.tools.base import Tool, ToolChunk, ToolResponse
from jupyter_agenttools.tools.toolkit import Toolkit


async def run_tool(tool: Tool, **tool_input: Any) -> tuple[list[ToolChunk], ToolResponse]:
    """Validate ``tool_input`` against the schema (gate 2), then call the tool through
    ``Toolkit.call_tool`` (gate 4); returns the streamed chunks and the final response."""
    jsonschema.validate(tool_input, tool.input_schema)
    toolkit = Toolkit([tool])
    chunks: list[ToolChunk] = []
    response: ToolResponse | None = None
    async for item in toolkit.call_tool(tool, tool_input):
        if isinstance(item, ToolResponse):
            response = item
        else:
            chunks.append(item)
    assert response is not None
    return chunks, response


def schema_errors(tool: Tool, tool_input: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft202012Validator(tool.input_schema)
    return [e.message for e in validator.iter_errors(tool_input)]
