"""Importing the package and the toolkit stays light: no heavy library comes along."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ["mcp", "openai", "ipywidgets", "IPython", "jupyter_server", "traitlets", "pydantic",
         "httpx", "anyio", "yaml", "docstring_parser", "jsonschema"]


@pytest.mark.parametrize("statement", [
    "import jupyter_agenttools.tools.function",
    "import jupyter_agenttools",
    "import jupyter_agenttools.tools",
    "import jupyter_agenttools.tools.toolkit",
    "from jupyter_agenttools.tools.toolkit import Toolkit, ToolGroup",
    "from jupyter_agenttools import Toolkit, FunctionTool, ToolChunk",
])
def test_import_does_not_load_heavy_libraries(statement):
    code = (f"import sys, json\n{statement}\n"
            f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert json.loads(out.stdout) == []


def test_building_and_calling_a_function_tool_stays_light():
    code = """
import sys, json, asyncio
from jupyter_agenttools.tools.toolkit import Toolkit
def add(a: int, b: int = 2) -> int:
    '''Add.

    Args:
        a: first.
    '''
    return a + b
tk = Toolkit(tools=[add])
async def main():
    return [c async for c in tk.call_tool(tk.get_tool("add"), {"a": 1})][-1].text
assert asyncio.run(main()) == "3"
print(json.dumps([m for m in ("mcp", "openai", "ipywidgets", "pydantic") if m in sys.modules]))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert json.loads(out.stdout) == []


def test_mcp_is_loaded_only_by_the_mcp_module():
    code = ("import sys\nfrom jupyter_agenttools.tools import MCPServer\n"
            "print('mcp' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "True"
