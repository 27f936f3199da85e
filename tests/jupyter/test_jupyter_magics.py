"""``%agent`` sub-commands in-process, on IPython's InteractiveShell (no kernel needed).

What needs a running loop and widget clicks (``%%agent``) is in test_jupyter_kernel_clicks.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from IPython.core.error import UsageError


@pytest.fixture
def shell(tmp_path: Path, monkeypatch):
    from IPython.core.interactiveshell import InteractiveShell

    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("AGENTTOOLS_USER_DIR", str(tmp_path / "user"))
    monkeypatch.setenv("AGENTTOOLS_MANAGED_SETTINGS", str(tmp_path / "managed.json"))
    monkeypatch.delenv("AGENTTOOLS_MODEL", raising=False)
    sh = InteractiveShell.instance()
    sh.config.pop("AgentTools", None)  # %config writes to the (shared) shell's Config
    sh.run_line_magic("load_ext", "jupyter_agenttools")
    sh.project = project
    try:
        yield sh
    finally:
        sh.run_line_magic("unload_ext", "jupyter_agenttools")
        sh.config.pop("AgentTools", None)


def agent(sh, line: str):
    return sh.run_line_magic("agent", line)


def test_load_creates_toolkit_engine_and_decorator(shell):
    from jupyter_agenttools.jupyter import current_session

    s = current_session(shell)
    names = {t.name for t in s.toolkit.tools}
    assert {"Bash", "Read", "Write", "Edit", "Glob", "Grep"} <= names
    assert type(s.backend).__name__ == "KernelBackend"
    assert s.project_dir == shell.project.resolve()
    assert callable(shell.user_ns["agent_tool"])
    assert "agent" in shell.magics_manager.magics["line"]
    assert "agent" in shell.magics_manager.magics["cell"]


def test_unload_removes_magics_config_and_names(shell):
    shell.run_line_magic("unload_ext", "jupyter_agenttools")
    try:
        assert "agent" not in shell.magics_manager.magics["line"]
        assert "agent" not in shell.magics_manager.magics["cell"]
        assert "agent_tool" not in shell.user_ns
        assert not [c for c in shell.configurables if type(c).__name__ in
                    ("AgentTools", "AgentMagics")]
    finally:
        shell.run_line_magic("load_ext", "jupyter_agenttools")


@pytest.mark.parametrize("line, message", [
    ("frobnicate", "unknown sub-command 'frobnicate'; %agent help lists them"),
    ("rlue allow Bash", "unknown sub-command 'rlue'; did you mean %agent rule?"),
    ("stauts", "did you mean %agent status?"),
    ("mode sideways", "expected a permission mode"),
    ("mode acept_edits", "did you mean 'accept_edits'?"),
    ("rule allow", "the following arguments are required: rule"),
    ("rule maybe Bash", "invalid choice: 'maybe'"),
    ("rule alow Bash", "did you mean 'allow'?"),
    ('rule allow "Bash(git"', "invalid permission rule"),
    ("rule allow Bash --layer managed", "invalid choice: 'managed'"),
    ("tool no_such_function", "expected the name of a function"),
    ("check", "expected a command to check"),
    ("check --tool Nope ls", "unknown tool 'Nope'"),
    ("check --mode sideways ls", "invalid choice: 'sideways'"),
    ("answer zz allow_once", "no question with id 'zz'"),
    ("answer zz sometimes", "invalid choice: 'sometimes'"),
    ("audit 0", "expected a positive number"),
    ("mcp srv", "expected either"),
    ("model no-such-provider:x", "cannot load model"),
    ("model openai:x --api-key-env AGENTTOOLS_TEST_UNSET_KEY",
     "AGENTTOOLS_TEST_UNSET_KEY is not set"),
    ("model --base-url http://localhost:1/v1", "go with a model"),
    ("model scripted2 --base-url http://localhost:1/v1", "go with an openai:NAME model"),
    ("cancel nothing_here", "is not a run started by %%agent"),
])
def test_misuse_is_a_usage_error(shell, line, message):
    with pytest.raises(UsageError, match=None) as info:
        agent(shell, line)
    assert message in str(info.value)


def test_cell_without_prompt_is_a_usage_error(shell):
    with pytest.raises(UsageError, match="empty"):
        shell.run_cell_magic("agent", "", "   \n")


def test_cell_outside_a_kernel_loop_is_a_usage_error(shell):
    shell.user_ns["m"] = "scripted"
    with pytest.raises(UsageError, match="running asyncio loop"):
        shell.run_cell_magic("agent", "--model scripted", "hello")


def test_help_lists_every_sub_command(shell):
    doc = shell.magics_manager.magics["line"]["agent"].__doc__
    for word in ("mode", "rule", "rules", "tool", "group", "skill", "mcp", "model", "backend",
                 "check", "pending", "answer", "audit", "cancel", "--wait", "--as"):
        assert word in doc


@pytest.mark.parametrize("mode", ["default", "accept_edits", "explore", "bypass", "dont_ask"])
def test_mode_sets_the_engine_and_the_trait(shell, capsys, mode):
    from jupyter_agenttools.jupyter import current_session

    agent(shell, f"mode {mode}")
    assert capsys.readouterr().out.strip() == f"mode: {mode} (set in this kernel)"
    s = current_session(shell)
    assert str(s.engine.mode) == mode and s.config.mode == mode


def test_config_magic_reaches_the_engine(shell):
    from jupyter_agenttools.jupyter import current_session

    shell.run_line_magic("config", "AgentTools.mode = 'explore'")
    assert str(current_session(shell).engine.mode) == "explore"
    shell.run_line_magic("config", "AgentTools.mode = ''")
    assert str(current_session(shell).engine.mode) == "default"


def test_rule_layers_and_rules_table(shell, capsys):
    agent(shell, 'rule allow "Bash(git status:*)"')
    agent(shell, 'rule deny "Bash(git push:*)" --layer project')
    agent(shell, 'rule ask "Read(secrets/**)" --layer local')
    out = capsys.readouterr().out
    assert "added allow rule Bash(git status:*) (this kernel only)" in out
    assert "(.agenttools/settings.json)" in out
    project = json.loads((shell.project / ".agenttools" / "settings.json").read_text())
    assert project["permissions"]["deny"] == ["Bash(git push:*)"]
    table = agent(shell, "rules")
    text = repr(table)
    lines = text.splitlines()
    assert lines[0] == "rules (mode default)"
    rows = [line.split() for line in lines[2:]]
    assert ["deny", "Bash(git", "push:*)", ".agenttools/settings.json"] in rows
    assert ["ask", "Read(secrets/**)", ".agenttools/settings.local.json"] in rows
    assert ["allow", "Bash(git", "status:*)", "session", "(this", "kernel)"] in rows
    assert "<table" in table._repr_html_()
    agent(shell, 'rule deny "Bash(git push:*)" --layer project --remove')
    assert "git push" not in repr(agent(shell, "rules"))


@pytest.mark.parametrize("command, tool, behavior", [
    ("git status", "Bash", "allow"),  # read-only fast path
    ("rm -rf /", "Bash", None),  # dangerous: ask (safety) or deny, never allow
    ("notes.txt", "Read", "allow"),
])
def test_check_renders_the_decision_and_trace(shell, command, tool, behavior):
    report = agent(shell, f"check --tool {tool} {command}")
    text = repr(report)
    first, second = text.splitlines()[:2]
    assert first == f"{tool}: {command}"
    assert second.startswith("mode default -> ")
    if behavior:
        assert report.behavior == behavior
    else:
        assert report.behavior in ("ask", "deny")
    assert len(report.decision.trace) >= 1
    html = report._repr_html_()
    assert "<table>" in html and report.decision.trace[0].step in html


def test_check_follows_rules_and_modes(shell):
    assert agent(shell, "check touch made.txt").behavior == "ask"
    assert agent(shell, "check --mode dont_ask touch made.txt").behavior == "deny"
    agent(shell, 'rule allow "Bash(touch:*)"')
    report = agent(shell, "check touch made.txt")
    assert report.behavior == "allow"
    assert "Bash(touch:*)" in repr(report)


def test_check_keeps_quotes_of_the_command(shell):
    report = agent(shell, 'check echo "a  b" > out.txt')
    assert repr(report).splitlines()[0] == 'Bash: echo "a  b" > out.txt'


def test_agent_tool_decorator_and_tool_magic(shell, capsys):
    from jupyter_agenttools.jupyter import current_session

    shell.run_cell('''
@agent_tool
def double(x: int) -> int:
    """Double a number."""
    return 2 * x

@agent_tool(read_only=True, group="basic")
def peek() -> str:
    """Look."""
    return "ok"

def triple(x: int) -> int:
    """Triple a number."""
    return 3 * x
''')
    agent(shell, "tool triple --read-only")
    s = current_session(shell)
    assert shell.user_ns["double"](2) == 4  # the decorator returns the function itself
    assert {"double", "peek", "triple"} <= {t.name for t in s.toolkit.tools}
    assert agent(shell, "check --tool double {\"x\": 1}").behavior == "ask"
    assert agent(shell, "check --tool triple {\"x\": 1}").behavior == "allow"


def test_group_and_model_and_backend(shell, capsys):
    from jupyter_agenttools import ScriptedModel
    from jupyter_agenttools.jupyter import current_session

    agent(shell, 'group data --description "Data tools" --instructions "Be careful"')
    s = current_session(shell)
    assert "data" in [g.name for g in s.toolkit.groups]
    shell.user_ns["mymodel"] = ScriptedModel(["hi"])
    agent(shell, "model mymodel")
    agent(shell, "backend local")
    out = capsys.readouterr().out
    assert "group data added (inactive)" in out
    assert "model: scripted (offline)" in out
    assert "backend: LocalBackend" in out
    assert s.model is shell.user_ns["mymodel"]
    assert type(s.toolkit.find_tool("Bash").backend).__name__ == "LocalBackend"


def test_audit_and_pending_tables(shell):
    assert repr(agent(shell, "pending")) == "pending questions: (none)"
    assert agent(shell, "audit 5").headers[0] == "time"


def test_audit_table_shows_outcomes_who_and_short_times(shell):
    """Decision, answer and outcome records in one table: an outcome's verdict is what came of
    the call, the HTML form shows the time of day (the whole time as tooltip) and no empty
    code boxes, the text form (what nbval compares) keeps the whole time."""
    import json

    from jupyter_agenttools.jupyter import current_session

    s = current_session(shell)
    s.audit.path.parent.mkdir(parents=True, exist_ok=True)
    base = {"time": "2026-12-03T12:47:50.532+00:00", "tool": "Bash", "input": "wc -l f",
            "user": "ana", "agent": "agenttools"}
    records = [dict(base, kind="decision", behavior="ask", mode="default", step="mode"),
               dict(base, kind="answer", behavior="ask", answer="allow_once"),
               dict(base, kind="outcome", state="error", exit_code=2)]
    s.audit.path.write_text("".join(json.dumps(r) + "\n" for r in records))
    table = agent(shell, "audit 3")
    by_verdict = {row[3]: row for row in table.rows}
    assert set(by_verdict) == {"ask", "ran: error (exit 2)"}
    assert [r[4] for r in table.rows].count("allow_once") == 1
    assert all(row[-1] == "agenttools" for row in table.rows)
    html = table._repr_html_()
    assert "<code></code>" not in html
    assert 'title="2026-12-03T12:47:50.532+00:00"><code>12:47:50</code>' in html
    assert "2026-12-03T12:47:50.532+00:00  Bash" in repr(table)


def test_traits_come_from_the_shell_config(shell):
    """What `c.AgentTools.… = …` in ipython_config.py does: config on the shell's Config."""
    from jupyter_agenttools.jupyter import current_session

    shell.run_line_magic("unload_ext", "jupyter_agenttools")
    shell.config.AgentTools.max_turns = 3
    shell.config.AgentTools.mode = "explore"
    try:
        shell.run_line_magic("load_ext", "jupyter_agenttools")
        s = current_session(shell)
        assert s.config.max_turns == 3 and str(s.engine.mode) == "explore"
    finally:
        shell.config.pop("AgentTools", None)


def test_bad_trait_values_are_refused(shell):
    from traitlets import TraitError

    from jupyter_agenttools.jupyter import current_session

    config = current_session(shell).config
    with pytest.raises(TraitError, match="expected a permission mode"):
        config.mode = "sideways"
    with pytest.raises(TraitError, match="max_turns"):
        config.max_turns = 0


@pytest.mark.parametrize("supported", [True, False])
def test_wait_rewrites_the_cell_only_where_the_kernel_can_take_clicks(shell, monkeypatch,
                                                                      supported):
    from jupyter_agenttools.jupyter import extension, magics

    monkeypatch.setattr(extension, "wait_supported", lambda: (supported, "x.y"))
    lines = ["%%agent --wait --as r\n", "do it\n"]
    out = magics._rewrite_wait(lines)
    if supported:
        assert len(out) == 1 and out[0].startswith("await ") and "_agent_wait" in out[0]
    else:
        assert out == lines
    assert magics._rewrite_wait(["%%agent --as r\n", "do it\n"]) == ["%%agent --as r\n",
                                                                      "do it\n"]


def test_wait_fallback_explains_itself(shell, monkeypatch, capsys):
    from jupyter_agenttools.jupyter import extension

    monkeypatch.setattr(extension, "wait_supported", lambda: (False, "7.3.0"))
    with pytest.raises(UsageError):  # no kernel loop here: the run itself cannot start
        shell.run_cell_magic("agent", "--wait --model scripted", "hello")
    out = capsys.readouterr().out
    assert "--wait needs ipykernel >= 7.4 (this kernel: 7.3.0)" in out
    assert "await agent_run.wait_done()" in out


def test_model_default_comes_from_the_environment(shell, monkeypatch, capsys):
    from jupyter_agenttools.jupyter.config import AgentTools

    monkeypatch.setenv("AGENTTOOLS_MODEL", "scripted")
    assert AgentTools().model == "scripted"
    monkeypatch.delenv("AGENTTOOLS_MODEL")
    assert AgentTools().model == ""
    shell.run_line_magic("config", "AgentTools.model = 'openai:some-model'")
    agent(shell, "model")
    assert capsys.readouterr().out.strip() == "model: openai:some-model"


def test_agent_is_reused_for_the_same_model_and_mode(shell):
    from jupyter_agenttools import ScriptedModel
    from jupyter_agenttools.jupyter import current_session

    s = current_session(shell)
    shell.user_ns["m1"] = ScriptedModel(["a"])
    shell.user_ns["m2"] = ScriptedModel(["b"])
    a1 = s.agent_for("m1")
    assert s.agent_for("m1") is a1  # idle, same model: the conversation goes on
    assert s.agent_for("m1", "explore") is not a1
    assert s.agent_for("m2") is not a1
    spec = s.agent_for("scripted")
    assert s.agent_for("scripted") is spec
    assert s.agent_for("m2", "explore").engine is not s.engine  # a run-only mode
    assert str(s.agent_for("m2", "explore").engine.mode) == "explore"


def test_the_tool_time_limit_trait_reaches_the_agent(shell):
    """Issue 18: the default time limit of a tool call is configurable (0: none)."""
    from traitlets import TraitError

    from jupyter_agenttools import ScriptedModel
    from jupyter_agenttools.agent.loop import DEFAULT_TOOL_TIME_LIMIT
    from jupyter_agenttools.jupyter import current_session

    s = current_session(shell)
    shell.user_ns["m1"] = ScriptedModel(["a"])
    assert s.agent_for("m1").tool_time_limit == DEFAULT_TOOL_TIME_LIMIT
    s.config.tool_time_limit = 42
    assert s.agent_for("m1").tool_time_limit == 42  # a new agent: the limit changed
    s.config.tool_time_limit = 0
    assert s.agent_for("m1").tool_time_limit is None
    for bad in (-1, float("inf"), float("nan"), "60"):
        with pytest.raises(TraitError):
            s.config.tool_time_limit = bad
    assert s.config.tool_time_limit == 0


def test_without_a_model_the_run_says_how_to_set_one(shell):
    """No model configured (or the bare 'scripted' spec): the run's one answer is the way to
    set a real model, with the exact lines, instead of an error or an empty 'done'."""
    from jupyter_agenttools.agent.models import ScriptedModel
    from jupyter_agenttools.jupyter import current_session
    from jupyter_agenttools.jupyter.extension import NO_MODEL_NOTEBOOK

    s = current_session(shell)
    for spec in (None, "scripted"):
        model = s.resolve_model(spec)
        assert isinstance(model, ScriptedModel) and model._end_text() == NO_MODEL_NOTEBOOK
    assert "%agent model openai:gpt-4.1-mini" in NO_MODEL_NOTEBOOK
    assert "--base-url http://localhost:11434/v1" in NO_MODEL_NOTEBOOK
    assert s.model_label() == "none yet"


@pytest.mark.parametrize("kind", ["truncated JSON", "folder is a file"])
def test_load_and_status_answer_with_a_settings_file_they_cannot_read(tmp_path, monkeypatch,
                                                                      capsys, kind):
    """%load_ext and %agent status are how a person finds what to fix: they answer, naming
    the file; before, both raised the SettingsError as a traceback (the extension half
    loaded)."""
    from IPython.core.interactiveshell import InteractiveShell

    project = tmp_path / "project"
    project.mkdir()
    if kind == "truncated JSON":
        (project / ".agenttools").mkdir()
        (project / ".agenttools" / "settings.json").write_text('{"permissions": {')
    else:
        (project / ".agenttools").write_text("not a folder")
    monkeypatch.chdir(project)
    monkeypatch.setenv("AGENTTOOLS_USER_DIR", str(tmp_path / "user"))
    monkeypatch.setenv("AGENTTOOLS_MANAGED_SETTINGS", str(tmp_path / "managed.json"))
    sh = InteractiveShell.instance()
    sh.config.pop("AgentTools", None)
    try:
        sh.run_line_magic("load_ext", "jupyter_agenttools")
        line = capsys.readouterr().out
        assert "nothing is decided until the settings file is fixed" in line
        assert "settings unreadable" in line and ".agenttools" in line
        rows = dict(map(tuple, agent(sh, "status").rows))
        assert "nothing is decided" in rows["mode"] and "settings unreadable" in rows["mode"]
        for line in ("mode", "rules", 'check Bash "ls"'):
            with pytest.raises(UsageError, match="(?s)settings file .*Fix that file"):
                agent(sh, line)  # one line naming the file, not a SettingsError traceback
    finally:
        sh.run_line_magic("unload_ext", "jupyter_agenttools")
        sh.config.pop("AgentTools", None)
