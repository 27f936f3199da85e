"""``agenttools hook <agent>`` as the agents run it: a real subprocess, the agent's documented
JSON on stdin, the answer on stdout and the exit code checked against each agent's contract.

Claude Code: https://code.claude.com/docs/en/hooks (PreToolUse).
Codex: https://developers.openai.com/codex/hooks (PreToolUse; only "deny" is enforced).
Gemini CLI: https://geminicli.com/docs/hooks/reference (BeforeTool).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_agenttools.permission.audit import AuditLog

REPO = Path(__file__).resolve().parents[2]
PROJECT_CWD: dict[str, str] = {}  # the agents run their hooks in the project


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    (root / ".agenttools").mkdir(parents=True)
    (root / "src").mkdir()
    (root / ".agenttools" / "settings.local.json").write_text(json.dumps({"permissions": {
        "deny": ["Bash(git push:*)", "Write(secrets/**)", "WebFetch(domain:evil.example)"],
        "allow": ["mcp__github", "WebFetch(domain:docs.python.org)", "Bash(make test)"],
    }}))
    monkeypatch.setenv("AGENTTOOLS_USER_DIR", str(tmp_path / "user"))
    monkeypatch.setenv("AGENTTOOLS_MANAGED_SETTINGS", str(tmp_path / "managed.json"))
    monkeypatch.setitem(PROJECT_CWD, "cwd", str(root))
    # the person trusts their project's settings (`agenttools trust`): its allow rules count
    from jupyter_agenttools.permission.settings import SettingsStore

    SettingsStore(root).set_trust()
    return root


def hook(agent: str, payload, *, args=()) -> tuple[int, str, str]:
    stdin = payload if isinstance(payload, (str, bytes)) else json.dumps(payload)
    if isinstance(stdin, str):
        stdin = stdin.encode()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), *sys.path]))
    proc = subprocess.run([sys.executable, "-m", "jupyter_agenttools", "hook", agent, *args],
                          input=stdin, capture_output=True, env=env, timeout=120,
                          cwd=PROJECT_CWD.get("cwd"))
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def audit(project) -> list[dict]:
    return AuditLog(project / ".agenttools" / "audit.jsonl").read()


# --- Claude Code ------------------------------------------------------------------------------


def claude(project, tool_name, tool_input, **extra):
    return {"session_id": "sess-1", "transcript_path": "/tmp/t.jsonl", "cwd": str(project),
            "permission_mode": "default", "hook_event_name": "PreToolUse",
            "tool_name": tool_name, "tool_input": tool_input, "tool_use_id": "toolu_01", **extra}


def claude_answer(stdout: str) -> dict:
    out = json.loads(stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse"
    return out


CLAUDE_CASES = [
    ("Bash", {"command": "git status", "description": "Show status"}, "allow"),
    ("Bash", {"command": "make test", "timeout": 120000}, "allow"),
    ("Bash", {"command": "rm -rf build"}, "ask"),
    ("Bash", {"command": "git push --force origin main"}, "deny"),
    ("Bash", {"command": "cat ~/.ssh/id_rsa"}, "ask"),
    ("Read", {"file_path": "{p}/src/a.py"}, "allow"),
    ("Write", {"file_path": "{p}/src/a.py", "content": "x = 1\n"}, "ask"),
    ("Write", {"file_path": "{p}/secrets/key.txt", "content": "k"}, "deny"),
    ("Edit", {"file_path": "{p}/src/a.py", "old_string": "1", "new_string": "2"}, "ask"),
    ("MultiEdit", {"file_path": "{p}/secrets/a", "edits": [{"old_string": "a",
                                                           "new_string": "b"}]}, "deny"),
    ("Glob", {"pattern": "**/*.py", "path": "{p}"}, "allow"),
    ("Grep", {"pattern": "TODO", "path": "{p}/src", "output_mode": "content"}, "allow"),
    ("NotebookEdit", {"notebook_path": "{p}/secrets/n.ipynb", "new_source": "1"}, "deny"),
    ("WebFetch", {"url": "https://docs.python.org/3/", "prompt": "summarise"}, "allow"),
    ("WebFetch", {"url": "https://api.evil.example/x", "prompt": "get"}, "deny"),
    ("WebFetch", {"url": "https://example.org/", "prompt": "get"}, "ask"),
    ("mcp__github__create_issue", {"title": "bug"}, "allow"),
    ("mcp__slack__post_message", {"text": "hi"}, "ask"),
]


@pytest.mark.parametrize(("tool_name", "tool_input", "expected"), CLAUDE_CASES,
                         ids=[f"{c[0]}-{c[2]}-{n}" for n, c in enumerate(CLAUDE_CASES)])
def test_claude_code_pretooluse(project, tool_name, tool_input, expected):
    tool_input = json.loads(json.dumps(tool_input).replace("{p}", str(project)))
    code, out, err = hook("claude-code", claude(project, tool_name, tool_input))
    assert code == 0, err
    answer = claude_answer(out)
    assert answer["permissionDecision"] == expected, answer
    assert answer["permissionDecisionReason"].startswith("agenttools")
    record = audit(project)[0]
    assert (record["agent"], record["agent_tool"], record["call_id"], record["session"]) == (
        "claude-code", tool_name, "toolu_01", "sess-1")
    assert record["behavior"] == ("ask" if expected == "ask" else expected)


def test_claude_code_deny_names_the_rule_and_its_file(project):
    _, out, _ = hook("claude-code", claude(project, "Bash", {"command": "git push origin"}))
    reason = claude_answer(out)["permissionDecisionReason"]
    assert "Bash(git push:*)" in reason and "settings.local.json" in reason


@pytest.mark.parametrize("payload,needle", [
    ("{not json", "not valid JSON"),
    ("", "empty"),
    ('["PreToolUse"]', "JSON object"),
    ('{"hook_event_name": "PreToolUse", "tool_input": {}}', "'tool_name'"),
    ('{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": "ls"}',
     "'tool_input'"),
    ('{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {}}', "'command'"),
    ('{"tool_name": "Bash", "tool_input": {"command": "ls", "command": "rm -rf /"}}',
     "appears twice"),
])
def test_claude_code_bad_input_asks_and_says_why(project, payload, needle):
    code, out, err = hook("claude-code", payload)
    assert code == 0
    answer = claude_answer(out)
    assert answer["permissionDecision"] == "ask"
    assert needle in answer["permissionDecisionReason"] and needle in err
    assert "https://code.claude.com/docs/en/hooks" in err


def test_claude_code_unknown_tool_is_left_to_claude_code(project):
    code, out, err = hook("claude-code", claude(project, "TodoWrite", {"todos": []}))
    assert (code, out) == (0, "")
    record = audit(project)[0]
    assert record["behavior"] == "passthrough" and record["agent_tool"] == "TodoWrite"


def test_claude_code_other_events_are_not_decided(project):
    payload = claude(project, "Bash", {"command": "ls"}, hook_event_name="PostToolUse")
    code, out, err = hook("claude-code", payload)
    assert (code, out) == (0, "") and "PostToolUse" in err


def test_a_corrupt_settings_file_fails_closed(project):
    (project / ".agenttools" / "settings.json").write_text('{"permissions": {"deny": [}')
    code, out, err = hook("claude-code", claude(project, "Bash", {"command": "git status"}))
    assert code == 0 and claude_answer(out)["permissionDecision"] == "ask"
    assert "settings.json" in err
    code, out, err = hook("codex", codex(project, "Bash", {"command": "git status"}))
    assert code == 2 and "settings.json" in err


def test_the_project_is_found_above_the_cwd(project):
    payload = claude(project, "Bash", {"command": "git push"})
    payload["cwd"] = str(project / "src")
    _, out, _ = hook("claude-code", payload)
    assert claude_answer(out)["permissionDecision"] == "deny"
    assert audit(project)[0]["tool"] == "Bash"


# --- Codex ------------------------------------------------------------------------------------


def codex(project, tool_name, tool_input):
    return {"session_id": "thread-1", "turn_id": "turn-1", "transcript_path": None,
            "cwd": str(project), "hook_event_name": "PreToolUse", "model": "gpt-5-codex",
            "permission_mode": "default", "tool_name": tool_name, "tool_input": tool_input,
            "tool_use_id": "call_1"}


PATCH = """*** Begin Patch
*** Update File: src/a.py
@@
-x = 1
+x = 2
*** Add File: {target}
+token
*** End Patch"""


def test_codex_allow_is_silent(project):
    code, out, err = hook("codex", codex(project, "Bash", {"command": "git status"}))
    assert (code, out) == (0, ""), err
    assert audit(project)[0]["behavior"] == "allow" and audit(project)[0]["agent"] == "codex"


def test_codex_deny(project):
    code, out, _ = hook("codex", codex(project, "Bash", {"command": "git push origin main"}))
    answer = json.loads(out)["hookSpecificOutput"]
    assert code == 0
    assert (answer["hookEventName"], answer["permissionDecision"]) == ("PreToolUse", "deny")
    assert "Bash(git push:*)" in answer["permissionDecisionReason"]


def test_codex_ask_is_a_denial_that_says_so_or_deferred(project):
    code, out, _ = hook("codex", codex(project, "Bash", {"command": "rm -rf build"}))
    answer = json.loads(out)["hookSpecificOutput"]
    assert code == 0 and answer["permissionDecision"] == "deny"
    assert "needs a person's approval" in answer["permissionDecisionReason"]
    assert audit(project)[0]["behavior"] == "ask"  # the audit keeps our verdict
    code, out, _ = hook("codex", codex(project, "Bash", {"command": "rm -rf build"}),
                        args=["--on-ask", "defer"])
    assert (code, out) == (0, "")


def test_codex_apply_patch_checks_every_file(project):
    ok = PATCH.format(target="src/b.py")
    code, out, _ = hook("codex", codex(project, "apply_patch", {"command": ok}),
                        args=["--on-ask", "defer"])
    assert (code, out) == (0, "")  # edits in the project: ask, deferred to Codex
    bad = PATCH.format(target="secrets/key.txt")
    code, out, _ = hook("codex", codex(project, "apply_patch", {"command": bad}))
    answer = json.loads(out)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny" and "Write(secrets/**)" in \
        answer["permissionDecisionReason"]
    assert {e["input"] for e in audit(project)[:2]} == {"src/a.py", "secrets/key.txt"}


def test_codex_mcp_tool(project):
    code, out, _ = hook("codex", codex(project, "mcp__github__get_issue", {"number": 1}))
    assert (code, out) == (0, "")
    code, out, _ = hook("codex", codex(project, "mcp__shell__exec", {"cmd": "ls"}))
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"


@pytest.mark.parametrize("payload,needle", [
    ("nope", "not valid JSON"),
    ('{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": 5}}',
     "'command'"),
    ('{"hook_event_name": "PreToolUse", "tool_name": "apply_patch", '
     '"tool_input": {"command": "no header"}}', "names no file"),
])
def test_codex_bad_input_blocks_with_exit_2(project, payload, needle):
    code, out, err = hook("codex", payload)
    assert (code, out) == (2, "") and needle in err


# --- Gemini CLI -------------------------------------------------------------------------------


def gemini(project, tool_name, tool_input, **extra):
    return {"session_id": "g-1", "transcript_path": "/tmp/g.json", "cwd": str(project),
            "hook_event_name": "BeforeTool", "timestamp": "2026-12-01T10:30:00Z",
            "tool_name": tool_name, "tool_input": tool_input, **extra}


GEMINI_CASES = [
    ("run_shell_command", {"command": "ls -la", "description": "list"}, "allow"),
    ("run_shell_command", {"command": "git push", "dir_path": "src"}, "deny"),
    ("run_shell_command", {"command": "rm -rf build"}, "deny"),  # ask → deny (can't ask)
    ("read_file", {"file_path": "{p}/src/a.py"}, "allow"),
    ("read_file", {"absolute_path": "{p}/src/a.py"}, "allow"),
    ("read_many_files", {"paths": ["src/a.py", "src/*.md"]}, "allow"),
    ("write_file", {"file_path": "{p}/secrets/x", "content": "k"}, "deny"),
    ("replace", {"file_path": "{p}/src/a.py", "old_string": "1", "new_string": "2"}, "deny"),
    ("glob", {"pattern": "*.py", "dir_path": "src"}, "allow"),
    ("search_file_content", {"pattern": "TODO", "dir_path": "src", "include": "*.py"},
     "allow"),
    ("list_directory", {"dir_path": "{p}/src"}, "allow"),
    ("web_fetch", {"prompt": "Summarise https://docs.python.org/3/library/os.html"}, "allow"),
    ("web_fetch", {"prompt": "Compare https://docs.python.org/3/ and https://evil.example/"},
     "deny"),
]


@pytest.mark.parametrize(("tool_name", "tool_input", "expected"), GEMINI_CASES,
                         ids=[f"{c[0]}-{c[2]}-{n}" for n, c in enumerate(GEMINI_CASES)])
def test_gemini_cli_beforetool(project, tool_name, tool_input, expected):
    tool_input = json.loads(json.dumps(tool_input).replace("{p}", str(project)))
    code, out, err = hook("gemini-cli", gemini(project, tool_name, tool_input))
    assert code == 0, err
    answer = json.loads(out)
    assert answer["decision"] == expected, answer
    if expected == "deny":
        assert answer["reason"].startswith("agenttools")
    assert audit(project)[0]["agent"] == "gemini-cli"


def test_gemini_cli_mcp_tool_named_from_its_context(project):
    payload = gemini(project, "create_issue", {"title": "x"},
                     mcp_context={"server_name": "github", "tool_name": "create_issue",
                                  "command": "github-mcp"})
    code, out, _ = hook("gemini-cli", payload)
    assert code == 0 and json.loads(out)["decision"] == "allow"
    assert audit(project)[0]["tool"] == "mcp__github__create_issue"


def test_gemini_cli_ask_can_be_deferred(project):
    payload = gemini(project, "run_shell_command", {"command": "rm -rf build"})
    code, out, _ = hook("gemini-cli", payload, args=["--on-ask", "defer"])
    assert (code, json.loads(out)) == (0, {})


@pytest.mark.parametrize("payload,needle", [
    ("{", "not valid JSON"),
    ('{"hook_event_name": "BeforeTool", "tool_name": "read_file", "tool_input": {}}',
     "'file_path'"),
])
def test_gemini_cli_bad_input_blocks_with_exit_2(project, payload, needle):
    code, out, err = hook("gemini-cli", payload)
    assert (code, out) == (2, "") and needle in err


def test_every_answer_is_audited_with_its_agent(project):
    hook("claude-code", claude(project, "Bash", {"command": "ls"}))
    hook("codex", codex(project, "Bash", {"command": "ls"}))
    hook("gemini-cli", gemini(project, "run_shell_command", {"command": "ls"}))
    hook("codex", "garbage")
    log = AuditLog(project / ".agenttools" / "audit.jsonl")
    assert [e["agent"] for e in log.read()] == ["codex", "gemini-cli", "codex", "claude-code"]
    assert [e["behavior"] for e in log.read(agent="codex")] == ["deny", "allow"]
