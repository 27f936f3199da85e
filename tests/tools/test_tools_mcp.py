"""MCP: real server processes (tests/tools/mcp_server_fixture.py) over stdio and HTTP."""

from __future__ import annotations

import asyncio
import base64
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import pytest_asyncio

from jupyter_agenttools.errors import MCPConnectionError, ToolDefinitionError
from jupyter_agenttools.permission.types import PermissionBehavior, PermissionContext
from jupyter_agenttools.tools.base import ToolResponse, ToolResultState
from jupyter_agenttools.tools.mcp import MCPServer, MCPTool, mcp_tool_name
from jupyter_agenttools.tools.toolkit import INTERRUPTED_MESSAGE, ToolGroup, Toolkit

pytestmark = pytest.mark.asyncio(loop_scope="module")

FIXTURE = str(Path(__file__).with_name("mcp_server_fixture.py"))
S = ToolResultState


def fixture_server(name="fx", **kw):
    return MCPServer(name, command=sys.executable, args=[FIXTURE], **kw)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def shared():
    """One server process and toolkit for the read-mostly tests of this module."""
    server = fixture_server()
    toolkit = Toolkit(groups=[ToolGroup("ext", "External tools")])
    await toolkit.add_mcp(server, group="ext")
    toolkit.set_active_groups({"ext": True})
    yield toolkit, server
    await toolkit.aclose()
    assert not server.connected


async def call(toolkit, name, tool_input=None):
    items = [i async for i in toolkit.call_tool(toolkit.get_tool(name), tool_input or {},
                                                call_id="m1")]
    assert isinstance(items[-1], ToolResponse)
    assert sum(isinstance(i, ToolResponse) for i in items) == 1
    return items[-1]


async def list_requests(toolkit):
    return int((await call(toolkit, "mcp__fx__list_count")).text)


async def test_tools_listed_with_server_schema_and_flags(shared):
    toolkit, server = shared
    tools = await server.list_tools()
    by_name = {t.name: t for t in tools}
    assert {"mcp__fx__echo", "mcp__fx__add", "mcp__fx__fail", "mcp__fx__picture",
            "mcp__fx__document", "mcp__fx__weird_name"} <= set(by_name)
    echo = by_name["mcp__fx__echo"]
    assert isinstance(echo, MCPTool) and echo.server_name == "fx" and echo.mcp_name == "echo"
    assert echo.description == "Return the text unchanged."
    assert echo.input_schema["type"] == "object"
    assert echo.input_schema["properties"]["text"]["type"] == "string"
    assert echo.input_schema["required"] == ["text"]
    assert toolkit.group_of("mcp__fx__echo") == "ext"
    # the read-only hint, and what the permission hook makes of it
    ctx = PermissionContext()
    assert echo.is_read_only({}) and not echo.is_concurrency_safe({})
    assert echo.check_permissions({}, ctx).behavior is PermissionBehavior.PASSTHROUGH
    add = by_name["mcp__fx__add"]
    assert not add.is_read_only({})
    decision = add.check_permissions({"a": 1, "b": 2}, ctx)
    assert decision.behavior is PermissionBehavior.ASK and not decision.bypass_immune


async def test_server_rule_covers_all_its_tools(shared):
    from jupyter_agenttools.permission.rules import rule_matches
    from jupyter_agenttools.permission.types import PermissionRule

    toolkit, _ = shared
    echo, ctx = toolkit.get_tool("mcp__fx__echo"), PermissionContext()
    assert rule_matches(PermissionRule.parse("mcp__fx"), echo, {"text": "a"}, ctx)
    assert rule_matches(PermissionRule.parse("mcp__fx__echo"), echo, {"text": "a"}, ctx)
    assert not rule_matches(PermissionRule.parse("mcp__f"), echo, {"text": "a"}, ctx)
    assert not rule_matches(PermissionRule.parse("mcp__fx__add"), echo, {"text": "a"}, ctx)
    assert [s["name"] for s in toolkit.schemas()][0] == "reset_tools"
    assert "mcp__fx__echo" in [s["name"] for s in toolkit.schemas()]


async def test_round_trip_text(shared):
    toolkit, _ = shared
    response = await call(toolkit, "mcp__fx__echo", {"text": "héllo"})
    assert (response.state, response.text) == (S.SUCCESS, "héllo")
    assert (response.id, response.name) == ("m1", "mcp__fx__echo")
    assert (await call(toolkit, "mcp__fx__add", {"a": 40, "b": 2})).text == "42"


async def test_illegal_characters_in_the_tool_name(shared):
    toolkit, _ = shared
    assert mcp_tool_name("fx", "weird.name") == "mcp__fx__weird_name"
    assert (await call(toolkit, "mcp__fx__weird_name")).text == "weird"


async def test_image_and_resource_blocks(shared):
    toolkit, _ = shared
    image = await call(toolkit, "mcp__fx__picture")
    [block] = image.content
    assert block["type"] == "image" and block["mime_type"] == "image/png"
    assert base64.b64decode(block["data"]).startswith(b"\x89PNG")
    doc = await call(toolkit, "mcp__fx__document")
    assert doc.content == [{"type": "resource", "uri": "file:///notes.txt",
                            "text": "hello notes", "mime_type": "text/plain"}]


async def test_server_error_result(shared):
    toolkit, server = shared
    response = await call(toolkit, "mcp__fx__fail", {"message": "disk is full"})
    assert response.state is S.ERROR
    assert "disk is full" in response.text
    assert server.connected  # an error result is not a broken connection


async def test_tool_list_is_cached_not_relisted(shared):
    toolkit, server = shared
    before = await list_requests(toolkit)
    for _ in range(3):
        await server.list_tools()
        toolkit.schemas()
        await call(toolkit, "mcp__fx__echo", {"text": "x"})
    assert await list_requests(toolkit) == before
    await server.list_tools(refresh=True)
    assert await list_requests(toolkit) == before + 1
    await toolkit.refresh_mcp("fx")
    assert await list_requests(toolkit) == before + 2
    assert toolkit.get_tool("mcp__fx__echo").is_read_only({})


async def test_cancelled_call_is_interrupted_and_server_stays_usable(shared):
    toolkit, server = shared
    seen = []

    async def consume():
        async for item in toolkit.call_tool(toolkit.get_tool("mcp__fx__slow"),
                                            {"seconds": 30}):
            seen.append(item)

    task = asyncio.create_task(consume())
    await asyncio.sleep(0.5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen[-1].state is S.INTERRUPTED and INTERRUPTED_MESSAGE in seen[-1].text
    assert server.connected
    assert (await call(toolkit, "mcp__fx__echo", {"text": "still here"})).text == "still here"


async def test_untrusted_read_only_hint():
    server = fixture_server("distrust", trust_read_only_hint=False)
    async with server:
        tools = {t.mcp_name: t for t in await server.list_tools()}
        assert not tools["echo"].is_read_only({})
        assert tools["echo"].check_permissions({}, PermissionContext()).behavior is \
            PermissionBehavior.ASK


async def test_server_dying_mid_call_gives_an_error_result_without_hanging():
    toolkit = Toolkit()
    server = fixture_server("dying")
    await toolkit.add_mcp(server)
    try:
        t0 = time.monotonic()
        response = await call(toolkit, "mcp__dying__die")
        assert time.monotonic() - t0 < 30
        assert response.state is S.ERROR
        assert "connection closed" in response.text
        assert "dying on purpose" in response.text  # the server's stderr tail
        assert not server.connected
        again = await call(toolkit, "mcp__dying__echo", {"text": "x"})
        assert again.state is S.ERROR and "not connected" in again.text
    finally:
        await toolkit.aclose()


async def test_call_timeout_gives_an_error_result():
    toolkit = Toolkit()
    server = fixture_server("timing", call_timeout=1.0)
    await toolkit.add_mcp(server)
    try:
        response = await call(toolkit, "mcp__timing__slow", {"seconds": 20})
        assert response.state is S.ERROR and "timed out after 1.0 s" in response.text
        assert (await call(toolkit, "mcp__timing__echo", {"text": "ok"})).text == "ok"
    finally:
        await toolkit.aclose()


@pytest.mark.parametrize("kw,error", [
    (dict(command="/nonexistent/mcp-server"), "No such file"),
    (dict(command=sys.executable,
          args=["-c", "import sys; sys.stderr.write('config missing: key X\\n'); sys.exit(3)"]),
     "config missing: key X"),
    (dict(command=sys.executable,
          args=["-c", "import sys, time; print('stuck on a prompt', file=sys.stderr, "
                      "flush=True); time.sleep(30)"],
          connect_timeout=2.0), "did not finish initialising within 2.0 s"),
], ids=["no such command", "exits at once", "never answers"])
async def test_server_that_fails_to_start(kw, error):
    server = MCPServer("broken", **kw)
    t0 = time.monotonic()
    with pytest.raises(MCPConnectionError, match="failed to start|did not finish") as info:
        await Toolkit().add_mcp(server)
    assert error in str(info.value)
    assert "'broken'" in str(info.value)
    if "time.sleep" in str(kw.get("args")):
        assert "stuck on a prompt" in str(info.value)  # stderr tail also on a timeout
    assert time.monotonic() - t0 < 20
    assert not server.connected


@pytest.mark.parametrize("kw,error", [
    (dict(name="a__b", command="x"), "no '__'"),
    (dict(name="has space", command="x"), "MCP server name"),
    (dict(name="ok"), "either command="),
    (dict(name="ok", command="x", url="http://h"), "either command="),
])
async def test_bad_server_configuration(kw, error):
    with pytest.raises(ToolDefinitionError, match=error):
        MCPServer(**kw)


async def test_listing_before_connect_is_a_clear_error():
    with pytest.raises(MCPConnectionError, match="not connected"):
        await fixture_server("idle").list_tools()


# --- streamable HTTP ----------------------------------------------------------------------


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def http_server_url():
    port = _free_port()
    proc = subprocess.Popen([sys.executable, FIXTURE, "--http", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail(f"HTTP fixture server exited: {proc.stderr.read().decode()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.2)
        else:
            pytest.fail("HTTP fixture server did not listen within 60 s")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def test_streamable_http_round_trip(http_server_url):
    toolkit = Toolkit()
    server = MCPServer("web", url=http_server_url, headers={"X-Agenttools-Test": "1"})
    await toolkit.add_mcp(server)
    try:
        echo = toolkit.get_tool("mcp__web__echo")
        assert echo.is_read_only({})
        assert (await call(toolkit, "mcp__web__echo", {"text": "over http"})).text == \
            "over http"
        sent = await call(toolkit, "mcp__web__header", {"name": "X-Agenttools-Test"})
        assert sent.text == "1"  # the configured headers reach the server
        failed = await call(toolkit, "mcp__web__fail", {"message": "nope"})
        assert failed.state is S.ERROR and "nope" in failed.text
    finally:
        await toolkit.aclose()


async def test_http_server_that_is_not_there():
    server = MCPServer("gone", url=f"http://127.0.0.1:{_free_port()}/mcp", connect_timeout=10)
    with pytest.raises(MCPConnectionError, match="'gone'.*failed to start.*ConnectError"):
        await server.connect()
    assert not server.connected
