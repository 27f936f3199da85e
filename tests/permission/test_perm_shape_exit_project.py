"""Issue 13's smaller bullets: a malformed input is refused before any permission check (never
a guessed default path); ``agenttools check`` exit statuses; ``Agent(model, project=DIR)``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_agenttools.agent.loop import Agent
from jupyter_agenttools.agent.models import ScriptedModel
from jupyter_agenttools.backends.local import LocalBackend
from jupyter_agenttools.builtin import Glob, Grep, Read
from jupyter_agenttools.errors import ToolArgumentsError
from jupyter_agenttools.permission.check import check
from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.permission.types import PermissionContext, PermissionMode

REPO = Path(__file__).resolve().parents[2]
MODES = [m.value for m in PermissionMode]

BAD_INPUTS = [
    ("Read", {}),
    ("Read", {"file_path": None}),
    ("Read", {"file_path": ""}),
    ("Read", {"file_path": ["a"]}),
    ("Grep", {"pattern": 5}),
    ("Grep", {"pattern": ["x"], "path": "."}),
    ("Grep", {}),
    ("Glob", {"pattern": {"x": 1}}),
    ("Write", {"file_path": "a.txt"}),            # no content
    ("Edit", {"file_path": "a.txt", "old_string": "a"}),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tool,tool_input", BAD_INPUTS)
def test_check_refuses_a_malformed_input_before_deciding(tmp_path, tool, tool_input, mode):
    with pytest.raises(ToolArgumentsError, match="Invalid arguments"):
        check(tool, tool_input, mode=mode, cwd=tmp_path)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tool,tool_input", BAD_INPUTS[:8])  # the path-shaped ones
def test_the_engine_itself_never_allows_a_malformed_input(tmp_path, tool, tool_input, mode):
    """Called directly (no gate 2 in front): no default path is guessed, so no read of the
    cwd is allowed — an ASK naming the problem (DENY where no one can answer)."""
    from jupyter_agenttools.permission.check import builtin_tool

    engine = PermissionEngine(mode=mode, context=PermissionContext(cwd=str(tmp_path)))
    d = engine.decide(builtin_tool(tool), tool_input)
    assert d.behavior.value in ("ask", "deny"), d.trace
    assert d.behavior.value == "deny" or d.bypass_immune


async def test_an_agent_refuses_it_at_gate_2_and_never_runs_it(tmp_path):
    backend = LocalBackend(str(tmp_path))
    (tmp_path / "a.txt").write_text("secret-ish")
    turns = [[{"name": "Read", "input": {}, "id": "r"},
              {"name": "Grep", "input": {"pattern": 5}, "id": "g"}], "done"]
    from jupyter_agenttools.tools.toolkit import Toolkit

    engine = PermissionEngine(mode="bypass", context=PermissionContext(cwd=str(tmp_path)))
    agent = Agent(ScriptedModel(turns), Toolkit([Read(backend), Grep(backend), Glob(backend)]),
                  engine=engine)
    run = await agent.run("go")
    assert await run.wait_done(timeout=30) == "done"
    results = {r.id: r for r in run.tool_results}
    for call_id in ("r", "g"):
        assert results[call_id].state.value == "error"
        assert "Invalid arguments" in results[call_id].content[0]["text"]
    assert not any(e.kind == "permission_decided" for e in run.events)


def run_cli(*args, cwd=None, env=None):
    environ = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run([sys.executable, "-m", "jupyter_agenttools.cli", *args], cwd=cwd,
                          capture_output=True, text=True, env=environ, timeout=120)


@pytest.mark.parametrize("args,status", [
    (["--", "ls"], 0),                                        # ALLOW (read-only)
    (["--", "npm publish"], 1),                               # ASK
    (["--deny", "Bash(npm:*)", "--", "npm publish"], 3),      # DENY
    (["--mode", "dont_ask", "--", "npm publish"], 3),
    (["--mode", "bypass", "--", "npm publish"], 0),
    (["--tool", "Read", "--input", "{}"], 2),                 # usage: does not fit the schema
    (["--tool", "Read", "--input", "not json"], 2),
    (["--mode", "nope", "--", "ls"], 2),
    (["--tool", "NoSuchTool", "--input", "{}"], 2),
])
def test_check_exit_status_is_the_verdict(tmp_path, args, status):
    env = {"AGENTTOOLS_USER_DIR": str(tmp_path / "user"),
           "AGENTTOOLS_MANAGED_SETTINGS": str(tmp_path / "managed.json")}
    r = run_cli("check", "--cwd", str(tmp_path), *args, env=env)
    assert r.returncode == status, (r.stdout, r.stderr)
    if status == 2:
        assert r.stderr.strip() and "Traceback" not in r.stderr


def test_check_help_documents_the_exit_statuses():
    r = run_cli("check", "--help")
    assert "0 ALLOW, 1 ASK, 3 DENY, 2 a usage" in " ".join(r.stdout.split())


async def test_an_agent_made_in_python_reads_and_writes_its_projects_settings(tmp_path,
                                                                             monkeypatch):
    monkeypatch.setenv("AGENTTOOLS_USER_DIR", str(tmp_path / "user"))
    monkeypatch.setenv("AGENTTOOLS_MANAGED_SETTINGS", str(tmp_path / "managed.json"))
    project = tmp_path / "proj"
    (project / ".agenttools").mkdir(parents=True)
    (project / ".agenttools" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Bash(rm:*)"]}}))
    backend = LocalBackend(str(project))
    from jupyter_agenttools.builtin import default_tools
    from jupyter_agenttools.tools.toolkit import Toolkit

    turns = [[{"name": "Bash", "input": {"command": "rm -f x"}, "id": "a"}],
             [{"name": "Bash", "input": {"command": "touch made-here"}, "id": "b"}], "done"]
    agent = Agent(ScriptedModel(turns), Toolkit(default_tools(backend)), project=project)
    assert agent.engine.settings.project_root == project.resolve()
    run = await agent.run("go")
    ask = await run.next_ask(timeout=30)
    assert ask.call_id == "b"  # "a" was denied by the project's rule
    ask.answer("always")
    assert await run.wait_done(timeout=30) == "done"
    local = json.loads((project / ".agenttools" / "settings.local.json").read_text())
    assert local["permissions"]["allow"] == [r.text for r in ask.decision.suggestions][:1] \
        or local["permissions"]["allow"]
    assert (project / ".agenttools" / "audit.jsonl").exists()
    # a fresh agent on the same project finds the saved rule (trusted: our own write)
    again = Agent(ScriptedModel([[{"name": "Bash", "input": {"command": "touch made-here"}}],
                                 "ok"]), Toolkit(default_tools(backend)), project=project)
    run = await again.run("go")
    assert await run.wait_done(timeout=30) == "ok"
    assert not run.pending


def test_an_agent_without_project_uses_the_current_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTTOOLS_USER_DIR", str(tmp_path / "user"))
    monkeypatch.chdir(tmp_path)
    agent = Agent(ScriptedModel(["hi"]))
    assert agent.engine.settings.project_root == tmp_path.resolve()
    with pytest.raises(Exception, match="either engine= or project="):
        Agent(ScriptedModel(["hi"]), engine=agent.engine, project=tmp_path)
