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
    seconds = f"61.{os.getpid() % 100}"  # a command line no other test runs
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


# --- the real file and shell policies through the loop -------------------------------------------


def real_setup(tmp_path, turns):
    from jupyter_agenttools.permission.settings import SettingsStore
    from jupyter_agenttools.permission.types import PermissionContext

    project, home, outside = tmp_path / "project", tmp_path / "home", tmp_path / "outside"
    for d in (project, home / ".ssh", outside):
        d.mkdir(parents=True)
    (outside / "a.txt").write_text("alpha\n")
    (outside / "b.txt").write_text("beta\n")
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN FAKE KEY-----\n")
    store = SettingsStore(project, user_dir=tmp_path / "user",
                          managed_path=tmp_path / "managed-settings.json")
    context = PermissionContext(cwd=str(project), project_root=str(project), home=str(home))
    engine = PermissionEngine(settings=store, context=context)
    agent = Agent(ScriptedModel(turns), backend=LocalBackend(str(project)), engine=engine)
    return agent, project, home, outside


async def test_reads_outside_the_project_share_one_question_and_a_key_gets_its_own(tmp_path):
    agent, project, home, outside = real_setup(tmp_path, [])
    agent.model = ScriptedModel([[
        {"name": "Read", "input": {"file_path": str(outside / "a.txt")}, "id": "a"},
        {"name": "Read", "input": {"file_path": str(outside / "b.txt")}, "id": "b"},
        {"name": "Read", "input": {"file_path": str(home / ".ssh" / "id_rsa")}, "id": "key"},
    ], "read them"])
    run = await agent.run("read")
    await run.next_ask(timeout=10)
    await asyncio.sleep(0.05)
    plain, key = run.pending
    assert (plain.call_id, plain.safety) == ("a", False)
    assert (key.call_id, key.safety) == ("key", True)
    assert [r.text for r in plain.suggestions] == [f"Read(/{outside}/**)"]
    plain.answer("always")
    key.answer("deny", message="never read keys")
    assert await run.wait_done(timeout=10) == "read them"
    assert len(run.asks) == 2  # b.txt was covered by the rule saved for a.txt
    local = (project / ".agenttools" / "settings.local.json").read_text()
    assert f"Read(/{outside}/**)" in local
    results = {r.id: r for r in run.tool_results}
    assert "alpha" in results["a"].text and "beta" in results["b"].text
    assert results["key"].state is ToolResultState.DENIED
    assert "FAKE KEY" not in results["key"].text and "never read keys" in results["key"].text


async def test_bash_always_allow_saves_the_prefix_rule_and_the_next_call_runs(tmp_path):
    agent, project, home, outside = real_setup(tmp_path, [])
    agent.model = ScriptedModel([
        [{"name": "Bash", "input": {"command": "git commit -m first"}}], "one",
        [{"name": "Bash", "input": {"command": "git commit -m second"}}], "two",
        [{"name": "Bash", "input": {"command": "git commit -m x && git push"}}], "three",
    ])
    run = await agent.run("commit")
    ask = await run.next_ask(timeout=10)
    assert [r.text for r in ask.suggestions] == ["Bash(git commit:*)"]
    ask.answer("always")
    assert await run.wait_done(timeout=30) == "one"
    run2 = await agent.run("commit again")
    assert await run2.wait_done(timeout=30) == "two"
    assert "ask" not in [e.kind for e in run2.events]
    # the prefix rule does not stretch over a second sub-command
    run3 = await agent.run("commit and push")
    ask3 = await run3.next_ask(timeout=10)
    assert ask3 is not None and ask3.input == {"command": "git commit -m x && git push"}
    ask3.answer("deny")
    await run3.wait_done(timeout=30)
