"""A real MCP server for the tests (run as a separate process).

    python mcp_server_fixture.py                 # stdio
    python mcp_server_fixture.py --http PORT     # streamable HTTP on 127.0.0.1:PORT/mcp

Tools: echo (read-only), add, header (an HTTP request header), fail (an error result), picture
(an image), document (an embedded resource), list_count (how many tools/list requests this
process served), slow, die (the process exits in the middle of the call).
"""

from __future__ import annotations

import asyncio
import base64
import os
import sys

import mcp.types as types

try:  # mcp >= 2
    from mcp.server.mcpserver import Context
    from mcp.server.mcpserver import MCPServer as FastMCP
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import Context, FastMCP
    from mcp.server.fastmcp.exceptions import ToolError

PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


class CountingServer(FastMCP):
    list_requests = 0

    async def list_tools(self):  # type: ignore[override]
        CountingServer.list_requests += 1
        return await super().list_tools()


server = CountingServer("fixture")


@server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool()
def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


@server.tool()
def fail(message: str) -> str:
    """Always fails with the message."""
    raise ToolError(message)


@server.tool()
def picture() -> types.ImageContent:
    """A one-pixel PNG."""
    return types.ImageContent(type="image", data=base64.b64encode(PIXEL).decode(),
                              mime_type="image/png")


@server.tool()
def document() -> types.EmbeddedResource:
    """An embedded text resource."""
    return types.EmbeddedResource(
        type="resource",
        resource=types.TextResourceContents(uri="file:///notes.txt", text="hello notes",
                                            mime_type="text/plain"))


@server.tool(name="weird.name")
def weird() -> str:
    """A tool whose name has a character tool names may not have."""
    return "weird"


@server.tool()
def header(name: str, ctx: Context) -> str:
    """The value of an HTTP request header ('' over stdio)."""
    headers = getattr(ctx, "headers", None)
    if headers is None:
        headers = getattr(getattr(ctx.request_context, "request", None), "headers", None)
    return (headers or {}).get(name.lower(), "")


@server.tool()
def list_count() -> str:
    """How many tools/list requests this server process has answered."""
    return str(CountingServer.list_requests)


@server.tool()
async def slow(seconds: float) -> str:
    """Sleep, then answer."""
    await asyncio.sleep(seconds)
    return "done"


@server.tool()
def die() -> str:
    """Exit the server process in the middle of the call."""
    sys.stderr.write("fixture: dying on purpose\n")
    sys.stderr.flush()
    os._exit(7)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
