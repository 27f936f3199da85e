"""An MCP stdio server's whole process tree ends with it (close(), its own exit, a SIGKILLed
host), and its stderr is kept bounded, in memory, with nothing left in /tmp."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from jupyter_agenttools.backends.supervisor import SUPERVISION
from jupyter_agenttools.tools.mcp import STDERR_KEEP, MCPServer

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.skipif(not SUPERVISION, reason="the supervisor needs Linux /proc")]

FIXTURE = str(Path(__file__).with_name("mcp_server_fixture.py"))
REPO = Path(__file__).resolve().parents[2]

# Starts helpers (one ignoring SIGTERM, one in a new session, one double-forked), writes a
# lot to stderr if asked, then becomes the fixture server.
LAUNCHER = textwrap.dedent("""
    import os, subprocess, sys
    pids, noise = sys.argv[1], int(sys.argv[2])
    live = "echo $$ >> " + pids + "; exec sleep 300"
    subprocess.Popen(["bash", "-c", "trap '' TERM; " + live], stdout=subprocess.DEVNULL)
    subprocess.Popen(["setsid", "bash", "-c", live], stdout=subprocess.DEVNULL)
    subprocess.Popen(["bash", "-c", "( bash -c '" + live + "' & )"], stdout=subprocess.DEVNULL)
    for _ in range(300):
        if os.path.exists(pids) and len(open(pids).read().split()) >= 3:
            break
        __import__("time").sleep(0.05)
    for i in range(noise):
        sys.stderr.write("noise line %06d %s\\n" % (i, "x" * 90))
    sys.stderr.flush()
    os.execv(sys.executable, [sys.executable, sys.argv[3]])
""")


def _pids(path: Path) -> list[int]:
    return [int(x) for x in path.read_text().split()] if path.exists() else []


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False


def _wait_dead(pids: list[int], timeout: float) -> list[int]:
    end = time.monotonic() + timeout
    while True:
        alive = [p for p in pids if _alive(p)]
        if not alive or time.monotonic() > end:
            return alive
        time.sleep(0.05)


def launcher_server(name: str, pidfile: Path, noise: int = 0) -> MCPServer:
    return MCPServer(name, command=sys.executable,
                     args=["-c", LAUNCHER, str(pidfile), str(noise), FIXTURE])


async def test_close_stops_the_servers_whole_tree(tmp_path):
    pidfile = tmp_path / "pids"
    server = launcher_server("tree", pidfile)
    await server.connect()
    try:
        assert [t.mcp_name for t in await server.list_tools()]  # it works
        pids = _pids(pidfile)
        assert len(pids) == 3 and all(_alive(p) for p in pids)
    finally:
        t0 = time.monotonic()
        await server.close()
        closing = time.monotonic() - t0
    # the SIGTERM-ignoring helper, the setsid one and the double-forked one: all gone
    assert _wait_dead(pids, 3.0) == []
    assert closing < 10


async def test_stderr_is_bounded_in_memory_and_leaves_no_file(tmp_path):
    before = set(os.listdir(tempfile.gettempdir()))
    pidfile = tmp_path / "pids"
    server = launcher_server("noisy", pidfile, noise=20000)  # about 2 MB of stderr
    await server.connect()
    try:
        await server.list_tools()
        tail = server._stderr.text()
        assert len(tail.encode()) <= STDERR_KEEP + 100
        assert "earlier bytes dropped" in tail
        assert "noise line 019999" in tail  # the most recent lines are the ones kept
        assert "noise line 019999" in server.stderr_tail()
    finally:
        await server.close()
    created = {n for n in set(os.listdir(tempfile.gettempdir())) - before
               if n.startswith("mcp-noisy")}
    assert created == set()
    assert _wait_dead(_pids(pidfile), 3.0) == []


HOST = textwrap.dedent("""
    import asyncio, sys
    from jupyter_agenttools.tools.mcp import MCPServer
    async def main():
        server = MCPServer("host", command=sys.executable,
                           args=["-c", sys.argv[1], sys.argv[2], "0", sys.argv[3]])
        await server.connect()
        await server.list_tools()
        print("READY", flush=True)
        await asyncio.sleep(300)
    asyncio.run(main())
""")


def test_sigkilled_host_takes_the_servers_tree_with_it(tmp_path):
    """The host (a kernel) dies with SIGKILL: no close() runs, the tree still goes."""
    pidfile = tmp_path / "pids"
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    host = subprocess.Popen([sys.executable, "-c", HOST, LAUNCHER, str(pidfile), FIXTURE],
                            stdout=subprocess.PIPE, env=env)
    try:
        line = host.stdout.readline()
        assert line.strip() == b"READY"
        pids = _pids(pidfile)
        assert len(pids) == 3
        server_pids = [int(p) for p in subprocess.run(
            ["pgrep", "-f", FIXTURE], capture_output=True, text=True).stdout.split()]
        assert server_pids
        host.send_signal(signal.SIGKILL)
        host.wait(10)
        assert _wait_dead(pids + server_pids, 5.0) == []
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
