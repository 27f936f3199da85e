"""A small MCP server for tutorial 05 (stdio): a read-only lookup and a tool that writes.

    python mcp_demo_server.py
"""

from __future__ import annotations

import mcp.types as types

try:  # mcp >= 2
    from mcp.server.mcpserver import MCPServer as FastMCP
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP

server = FastMCP("demo")

CAPITALS = {"france": "Paris", "japan": "Tokyo", "kenya": "Nairobi", "peru": "Lima"}
SAVED: list[str] = []


@server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
def capital(country: str) -> str:
    """The capital city of a country."""
    return CAPITALS.get(country.strip().lower(), "unknown")


@server.tool()
def save_fact(fact: str) -> str:
    """Remember a fact on the server (changes the server's state)."""
    SAVED.append(fact)
    return f"saved fact #{len(SAVED)}"


if __name__ == "__main__":
    server.run()
