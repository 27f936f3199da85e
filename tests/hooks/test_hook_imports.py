"""``agenttools hook`` runs in a new process before EVERY tool call of another agent, so a call
loads only what its own decision needs: a Read loads no shell analysis, no call loads the
process machinery (asyncio, the local backend), the Python analysis, the agent or Jupyter.
(Which modules load, not how long: the time is measured by benchmarks/bench_hook.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_agenttools.builtin.notebook import notebook_tools
from jupyter_agenttools.permission.check import _NOTEBOOK_TOOLS, builtin_names, builtin_tool
from jupyter_agenttools.permission.settings import SettingsStore

REPO = Path(__file__).resolve().parents[2]

# runs the console script's code, then lists the loaded modules on stderr
PROBE = """
import json, sys
from jupyter_agenttools.cli import main
sys.argv = ["agenttools", "hook", sys.argv[1]]
try:
    code = main()
finally:
    sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n")
sys.exit(code)
"""

#: loaded by no hook call
NEVER = ("asyncio", "jupyter_agenttools.backends.local", "jupyter_agenttools.pycode",
         "jupyter_agenttools.builtin.notebook", "jupyter_agenttools.agent",
         "jupyter_agenttools.jupyter", "jupyter_server", "IPython", "openai", "mcp", "jsonschema",
         "logging")
SHELL = ("jupyter_agenttools.shell", "jupyter_agenttools.builtin.bash", "tree_sitter")
FILE_TOOLS = ("jupyter_agenttools.builtin.read", "jupyter_agenttools.builtin.write",
              "jupyter_agenttools.builtin.edit", "jupyter_agenttools.builtin.glob",
              "jupyter_agenttools.builtin.grep")


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    (root / ".agenttools").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("x = 1\n")
    (root / ".agenttools" / "settings.local.json").write_text(json.dumps({"permissions": {
        "deny": ["Bash(git push:*)", "Write(secrets/**)"], "allow": ["mcp__github"]}}))
    monkeypatch.setenv("AGENTTOOLS_USER_DIR", str(tmp_path / "user"))
    monkeypatch.setenv("AGENTTOOLS_MANAGED_SETTINGS", str(tmp_path / "managed.json"))
    SettingsStore(root).set_trust()  # its allow rules count (`agenttools trust`)
    return root


def loaded(project: Path, agent: str, payload: dict) -> tuple[str, set[str]]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), *sys.path]))
    proc = subprocess.run([sys.executable, "-c", PROBE, agent], input=json.dumps(payload).encode(),
                          capture_output=True, env=env, timeout=120, cwd=project)
    err = proc.stderr.decode()
    line = next(x for x in reversed(err.splitlines()) if x.startswith("MODULES "))
    return proc.stdout.decode(), set(json.loads(line[len("MODULES "):]))


def under(modules: set[str], prefixes: tuple[str, ...]) -> set[str]:
    return {m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes)}


def claude(project: Path, tool: str, tool_input: dict) -> dict:
    return {"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": str(project),
            "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool,
            "tool_input": tool_input, "tool_use_id": "toolu_1"}


# tool, input ({p} = the project), answer, module groups it must NOT load, one it must load
CASES = [
    ("Read", {"file_path": "{p}/src/a.py"}, "allow", SHELL, "jupyter_agenttools.builtin.read"),
    ("Write", {"file_path": "{p}/secrets/k", "content": "k"}, "deny", SHELL,
     "jupyter_agenttools.builtin.write"),
    ("Grep", {"pattern": "x", "path": "{p}/src"}, "allow", SHELL,
     "jupyter_agenttools.builtin.grep"),
    ("Bash", {"command": "ls -la"}, "allow", FILE_TOOLS[1:], "jupyter_agenttools.shell.analysis"),
    ("Bash", {"command": "git push origin main"}, "deny", FILE_TOOLS[1:],
     "jupyter_agenttools.builtin.bash.tool"),
    ("mcp__github__create_issue", {"title": "t"}, "allow", SHELL + FILE_TOOLS,
     "jupyter_agenttools.permission.engine"),
]


@pytest.mark.parametrize("tool,tool_input,answer,absent,present", CASES,
                         ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_a_hook_call_loads_only_what_its_decision_needs(project, tool, tool_input, answer,
                                                         absent, present):
    tool_input = {k: v.replace("{p}", str(project)) if isinstance(v, str) else v
                  for k, v in tool_input.items()}
    out, modules = loaded(project, "claude-code", claude(project, tool, tool_input))
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == answer, out
    assert present in modules  # the probe sees what the decision loads
    assert under(modules, NEVER) == set()
    assert under(modules, absent) == set()


def test_the_notebook_tool_names_check_knows_are_the_tools_made():
    assert sorted(_NOTEBOOK_TOOLS) == sorted(t.name for t in notebook_tools())


def test_every_builtin_is_found_by_name():
    names = builtin_names()
    assert set(_NOTEBOOK_TOOLS) <= set(names)
    assert {"Bash", "Read", "Write", "Edit", "Glob", "Grep"} <= set(names)
    for name in names:
        assert builtin_tool(name).name == name
    assert builtin_tool("NoSuchTool") is None
