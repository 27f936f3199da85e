"""The agent with the built-in tools on a real LocalBackend: the default toolkit, and
cancelling a long Bash call kills its process."""

from __future__ import annotations

import asyncio
import os

from jupyter_agenttools.agent.loop import Agent
from jupyter_agenttools.agent.models import ScriptedModel
from jupyter_agenttools.backends.local import LocalBackend
from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.tools.base import ToolResultState


def _pids_running(argv: list[str]) -> list[int]:
    """Live (non-zombie) processes whose command line is exactly ``argv``."""
    want = "\0".join(argv)
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().decode(errors="replace").rstrip("\0")
            with open(f"/proc/{entry}/stat") as f:
                state = f.read().rsplit(")", 1)[-1].split()[0]
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        if cmd == want and state != "Z":
            found.append(int(entry))
    return found


async def test_default_toolkit_is_the_builtin_tools_on_the_backend(tmp_path):
    agent = Agent(ScriptedModel([]), backend=LocalBackend(str(tmp_path)),
                  engine=PermissionEngine())
    names = [s["name"] for s in agent.toolkit.schemas()]
    assert names == ["Bash", "Read", "Write", "Edit", "Glob", "Grep"]


async def test_cancel_during_a_long_bash_call_kills_its_process(tmp_path):
    seconds = "61.%d" % (os.getpid() % 100)  # a command line no other test runs
    agent = Agent(ScriptedModel([[{"name": "Bash", "input": {"command": f"sleep {seconds}"}}],
                                 "never"]),
                  backend=LocalBackend(str(tmp_path)), engine=PermissionEngine())
    run = await agent.run("sleep")

    async def started() -> list[int]:
        while True:
            if run.pending:  # whatever the shell policy decides, the person allows it
                run.pending[0].answer("allow_once")
            pids = _pids_running(["sleep", seconds])
            if pids:
                return pids
            await asyncio.sleep(0.02)

    await asyncio.wait_for(started(), 20)
    assert run.cancel() is True
    await run.wait_done(timeout=10)
    assert run.state == "cancelled"
    assert _pids_running(["sleep", seconds]) == []  # killed, not merely abandoned
    (result,) = run.tool_results
    assert result.state is ToolResultState.INTERRUPTED
