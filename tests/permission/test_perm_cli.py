"""The ``agenttools`` command, run as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
MODES = ["default", "accept_edits", "explore", "bypass", "dont_ask"]
OUT_KEYS = {"id", "behavior", "bypass_immune", "step", "reason", "rule", "suggestions"}


def run(*args, stdin=None, cwd=None, env=None):
    environ = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(HERE)]),
               **(env or {})}
    return subprocess.run([sys.executable, "-m", "jupyter_agenttools.cli", *args],
                          input=stdin, capture_output=True, text=True, cwd=cwd, env=environ,
                          timeout=120)


def test_check_jsonl_with_several_tools_and_every_mode(tmp_path):
    rules = {"allow": ["Judge(ok*)"], "deny": ["Judge(rm*)"], "ask": ["Judge(push)"]}
    lines, expected = [], []
    table = {  # input -> per-mode behavior
        "ok go": ["allow", "allow", "deny", "allow", "allow"],
        "rm -rf": ["deny"] * 5,
        "push": ["ask", "ask", "ask", "ask", "deny"],
        "other": ["ask", "ask", "deny", "allow", "deny"],
    }
    for mode_i, mode in enumerate(MODES):
        for text, behaviors in table.items():
            lines.append({"id": f"{mode}/{text}", "tool": "perm_tools:Judge",
                          "input": {"text": text}, "mode": mode, "rules": rules})
            expected.append(behaviors[mode_i])
        lines.append({"id": f"{mode}/fn", "tool": "perm_tools:Func", "input": {}, "mode": mode})
        expected.append({"default": "ask", "accept_edits": "ask", "explore": "deny",
                         "bypass": "allow", "dont_ask": "deny"}[mode])
        lines.append({"id": f"{mode}/ro", "tool": "perm_tools:Explorer",
                      "input": {"path": "/x"}, "mode": mode})
        expected.append("allow")
    f = tmp_path / "in.jsonl"
    f.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    r = run("check", "--jsonl", str(f))
    assert r.returncode == 0, r.stderr
    out = [json.loads(x) for x in r.stdout.splitlines()]
    assert [o["id"] for o in out] == [x["id"] for x in lines]
    assert all(set(o) == OUT_KEYS for o in out)
    assert [o["behavior"] for o in out] == expected
    by_id = {o["id"]: o for o in out}
    assert by_id["default/rm -rf"]["rule"] == "Judge(rm*)"
    assert by_id["dont_ask/push"]["step"] == "ask_rules"
    assert by_id["default/other"]["suggestions"] == ["Judge(other*)"]
    assert by_id["default/fn"]["suggestions"] == ["my_function"]


def test_bad_lines_give_error_lines_and_exit_2(tmp_path):
    good = {"id": 1, "tool": "perm_tools:Judge", "input": {"text": "x"}}
    lines = [
        json.dumps(good),
        "{not json",
        json.dumps({"id": 3, "tool": "perm_tools:Judge", "input": "x"}),
        json.dumps({"id": 4, "tool": "NoSuchTool", "input": {}}),
        json.dumps({"id": 5, "tool": "perm_tools:Judge", "input": {}, "mode": "yolo"}),
        json.dumps({"id": 6, "tool": "perm_tools:Judge", "input": {},
                    "rules": {"allow": ["Judge("]}}),
        # extra keys are annotations (a corpus's label/family): carried, not an error
        json.dumps({"id": 7, "tool": "perm_tools:Judge", "input": {}, "label": "read_only"}),
        "",
        json.dumps({**good, "id": 8}),
    ]
    r = run("check", "--jsonl", "-", stdin="\n".join(lines) + "\n")
    assert r.returncode == 2
    out = [json.loads(x) for x in r.stdout.splitlines()]
    assert [o["id"] for o in out] == [1, None, 3, 4, 5, 6, 7, 8]
    assert out[0]["behavior"] == "ask" and out[-1]["behavior"] == "ask"
    errors = {o["id"]: o["error"] for o in out if "error" in o}
    assert set(errors) == {None, 3, 4, 5, 6}
    assert out[6]["behavior"] == "ask"
    assert all(set(o) == {"id", "error"} for o in out if "error" in o)
    assert "line 2" in errors[None] and "not JSON" in errors[None]
    assert "'input' must be an object" in errors[3]
    assert "NoSuchTool" in errors[4]
    assert "permission mode" in errors[5]
    assert "Judge(" in errors[6]
    assert "Traceback" not in r.stderr


def test_check_one_command_prints_the_six_step_trace():
    r = run("check", "--tool", "perm_tools:Judge", "--input", '{"text": "deploy"}',
            "--allow", "Judge(dep*)", "--deny", "Judge(deploy --force)")
    assert r.returncode == 0, r.stderr
    assert "decision: ALLOW at step 5 (allow_rules)" in r.stdout
    for n, step in enumerate(["deny_rules", "ask_rules", "read_only", "tool_check",
                              "allow_rules", "fallback"], 1):
        assert f"  {n} {step}" in r.stdout
    assert "rule: allow Judge(dep*)" in r.stdout


def test_check_json_output():
    r = run("check", "--mode", "dont_ask", "--json", "--tool", "perm_tools:Judge",
            "--input", '{"text": "k", "verdict": "safety"}')
    assert r.returncode == 3, r.stderr  # DENY
    d = json.loads(r.stdout)
    assert (d["behavior"], d["step"], d["bypass_immune"], d["mode"]) == (
        "deny", "tool_check", True, "dont_ask")
    assert len(d["trace"]) == 6 and d["suggestions"] == []


def test_bench_prints_figures(tmp_path):
    f = tmp_path / "in.jsonl"
    f.write_text("\n".join(json.dumps({"id": i, "tool": "perm_tools:Judge",
                                       "input": {"text": f"t{i}"}, "mode": m,
                                       "rules": {"allow": ["Judge(t1)"]}})
                           for i, m in enumerate(MODES)) + "\n")
    r = run("check", "--jsonl", str(f), "--bench", "20")
    assert r.returncode == 0, r.stderr
    figures = json.loads(r.stdout)
    assert set(figures) == {"decisions", "decisions_per_s", "p50_us", "p99_us", "max_us"}
    assert figures["decisions"] == 100
    assert 0 < figures["p50_us"] <= figures["p99_us"] <= figures["max_us"]


@pytest.mark.parametrize("args, message", [
    (["check"], "nothing to check"),
    (["check", "--tool", "perm_tools:Judge", "--input", "{bad"], "not JSON"),
    (["check", "--allow", "Bash(", "--", "ls"], "closing"),
    (["check", "--tool", "NoSuch", "--input", "{}"], "NoSuch"),
    (["check", "--bench", "3", "--", "ls"], "--bench needs --jsonl"),
    (["check", "--jsonl", "/nonexistent/in.jsonl"], "cannot read"),
    (["audit", "--since", "yesterday"], "ISO 8601"),
])
def test_errors_are_one_line_and_exit_2(args, message, tmp_path):
    r = run(*args, cwd=tmp_path)
    assert r.returncode == 2
    assert message in r.stderr and "Traceback" not in r.stderr


def test_settings_commands(tmp_path):
    env = {"AGENTTOOLS_USER_DIR": str(tmp_path / "user"),
           "AGENTTOOLS_MANAGED_SETTINGS": str(tmp_path / "managed.json")}
    proj = str(tmp_path / "proj")
    r = run("settings", "--project", proj, "add", "--layer", "local", "--behavior", "allow",
            "Bash(git status:*)", env=env)
    assert r.returncode == 0, r.stderr
    assert run("settings", "--project", proj, "add", "--layer", "user", "--behavior", "deny",
               "Read(~/.ssh/**)", env=env).returncode == 0
    assert run("settings", "--project", proj, "mode", "--layer", "project", "accept_edits",
               env=env).returncode == 0
    shown = run("settings", "--project", proj, env=env)
    assert shown.returncode == 0
    assert "accept_edits" in shown.stdout and "settings.local.json" in shown.stdout
    assert "Bash(git status:*)" in shown.stdout and "Read(~/.ssh/**)" in shown.stdout
    merged = json.loads(run("settings", "--project", proj, "--json", env=env).stdout)
    assert {(r["rule"], r["behavior"], Path(r["source"]).name) for r in merged["rules"]} == {
        ("Bash(git status:*)", "allow", "settings.local.json"),
        ("Read(~/.ssh/**)", "deny", "settings.json")}
    assert run("settings", "--project", proj, "remove", "--layer", "local", "--behavior",
               "allow", "Bash(git status:*)", env=env).returncode == 0
    again = run("settings", "--project", proj, "remove", "--layer", "local", "--behavior",
                "allow", "Bash(git status:*)", env=env)
    assert again.returncode == 2 and "no allow rule" in again.stderr
    corrupt = Path(proj) / ".agenttools" / "settings.json"
    corrupt.write_text('{"permissions": {\n  "mode": }')
    r = run("settings", "--project", proj, env=env)
    assert r.returncode == 2 and f"{corrupt}:2" in r.stderr and "Traceback" not in r.stderr


def test_audit_command(tmp_path):
    from jupyter_agenttools.permission.audit import AuditLog

    log = AuditLog(tmp_path / ".agenttools" / "audit.jsonl")
    log.record(kind="decision", tool="Bash", behavior="deny", input="rm -rf /", step="deny_rules",
               rule="Bash(rm:*)", mode="default")
    log.record(kind="decision", tool="Read", behavior="allow", input="/etc/hosts",
               step="read_only", mode="default")
    log.record(kind="answer", tool="Bash", behavior="ask", input="make", answer="allow_once",
               mode="default")
    r = run("audit", "--project", str(tmp_path))
    assert r.returncode == 0, r.stderr
    rows = r.stdout.splitlines()
    assert len(rows) == 3 and "answer=allow_once" in rows[0] and "DENY" in rows[2]
    r = run("audit", "--project", str(tmp_path), "--tool", "Bash", "--behavior", "deny",
            "--json")
    assert [json.loads(x)["input"] for x in r.stdout.splitlines()] == ["rm -rf /"]


def test_console_script_entry_point_is_main():
    from jupyter_agenttools import cli

    assert callable(cli.main)
    assert cli.main(["check", "--tool", "NoSuch", "--input", "{}"]) == 2


def test_check_with_project_settings(tmp_path):
    env = {"AGENTTOOLS_USER_DIR": str(tmp_path / "user"),
           "AGENTTOOLS_MANAGED_SETTINGS": str(tmp_path / "managed.json")}
    agent_dir = tmp_path / ".agenttools"
    agent_dir.mkdir()
    (agent_dir / "settings.json").write_text(json.dumps(
        {"permissions": {"mode": "dont_ask", "allow": ["Judge(ok)"]}}))
    args = ["check", "--project", str(tmp_path), "--json", "--tool", "perm_tools:Judge"]
    # not trusted yet: the project's allow rule and mode are shown as ignored, not applied
    r = run(*args, "--input", '{"text": "ok"}', env=env)
    d = json.loads(r.stdout)
    assert (d["behavior"], d["mode"], r.returncode) == ("ask", "default", 1)
    r = run("trust", str(tmp_path), env=env)
    assert r.returncode == 0 and "now in force: project allow: Judge(ok)" in r.stdout, r.stderr
    d = json.loads(run(*args, "--input", '{"text": "ok"}', env=env).stdout)
    assert (d["behavior"], d["mode"], d["rule_source"]) == (
        "allow", "dont_ask", str(agent_dir / "settings.json"))
    d = json.loads(run(*args, "--input", '{"text": "other"}', env=env).stdout)
    assert (d["behavior"], d["mode"]) == ("deny", "dont_ask")
    d = json.loads(run(*args, "--mode", "bypass", "--input", '{"text": "other"}',
                       env=env).stdout)
    assert (d["behavior"], d["mode"]) == ("allow", "bypass")
