"""``%agent help``, the sub-command table, ``%agent status``/``reset``/``model`` and what
``%load_ext`` prints and imports — in-process on IPython's InteractiveShell, plus one fresh
interpreter for the import check."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
from IPython.core.error import UsageError

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def shell(tmp_path: Path, monkeypatch, capsys):
    from IPython.core.interactiveshell import InteractiveShell

    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("AGENTTOOLS_USER_DIR", str(tmp_path / "user"))
    monkeypatch.setenv("AGENTTOOLS_MANAGED_SETTINGS", str(tmp_path / "managed.json"))
    monkeypatch.delenv("AGENTTOOLS_MODEL", raising=False)
    sh = InteractiveShell.instance()
    sh.config.pop("AgentTools", None)
    sh.run_line_magic("load_ext", "jupyter_agenttools")
    sh.project = project
    sh.load_output = capsys.readouterr().out
    try:
        yield sh
    finally:
        sh.run_line_magic("unload_ext", "jupyter_agenttools")
        sh.config.pop("AgentTools", None)


def agent(sh, line: str):
    return sh.run_line_magic("agent", line)


def test_load_prints_one_status_line(shell):
    lines = shell.load_output.strip().splitlines()
    assert len(lines) == 1
    line = lines[0]
    assert line.startswith("jupyter_agenttools: mode default · model none yet")
    assert "%agent model openai:NAME" in line and str(shell.project.resolve()) in line
    assert line.endswith("%agent help")


def test_status_line_names_a_mode_from_a_settings_file(shell, capsys):
    from jupyter_agenttools.jupyter import current_session

    s = current_session(shell)
    s.settings.set_mode("project", "explore")
    assert "mode explore (from .agenttools/settings.json)" in s.status_line()
    agent(shell, "mode accept_edits")
    assert "mode accept_edits (set in this kernel)" in s.status_line()


def test_an_untrusted_project_says_so_in_the_status_line_and_on_the_card(shell):
    """A cloned project's shipped allow rule does not count until trusted: the line
    ``%load_ext`` prints says so, and a question the rule would have approved names it."""
    import json
    from types import SimpleNamespace

    from jupyter_agenttools.jupyter import current_session

    s = current_session(shell)
    shipped = shell.project / ".agenttools" / "settings.json"
    shipped.parent.mkdir()
    shipped.write_text(json.dumps({"permissions": {"allow": ["Bash(make test:*)"]}}))
    s.settings.reload_if_changed()

    def ask(command: str) -> SimpleNamespace:
        return SimpleNamespace(tool_obj=s.toolkit.find_tool("Bash"),
                               input={"command": command},
                               decision=SimpleNamespace(bypass_immune=False))

    assert "project settings not trusted (%agent trust)" in s.status_line()
    hint = s.untrusted_hint(ask("make test"))
    assert "Bash(make test:*)" in hint and ".agenttools/settings.json" in hint
    assert "not trusted yet: %agent trust" in hint
    assert s.untrusted_hint(ask("make install")) == ""  # the rule would not allow it either
    agent(shell, "trust")
    assert "not trusted" not in s.status_line()
    assert s.untrusted_hint(ask("make test")) == ""


def test_help_lists_every_sub_command_with_an_example(shell):
    from jupyter_agenttools.jupyter.commands import SUBCOMMANDS

    overview = agent(shell, "help")
    text, markdown = repr(overview), overview._repr_markdown_()
    for name, sub in SUBCOMMANDS.items():
        assert f"  {name}" in text and sub.summary in text
        assert f"| `{name}` |" in markdown
        assert (sub.examples[0] if sub.examples else f"%agent {name}") in text
    assert "%%agent" in text and "%agent help rule" in text
    assert repr(agent(shell, "")) == text  # a bare %agent shows the same overview


@pytest.mark.parametrize("line", ["help rule", "rule --help", "rule -h"])
def test_help_of_one_sub_command_shows_its_options(shell, line):
    text = repr(agent(shell, line))
    assert text.startswith("usage: %agent rule [--layer {local,project,user}] [--remove]")
    assert "--layer" in text and "examples:" in text
    assert '%agent rule allow "Bash(git status:*)"' in text


def test_help_of_the_cell_form_and_of_raw_commands(shell):
    assert "--wait" in repr(agent(shell, "help agent"))
    text = repr(agent(shell, "help check"))
    assert "usage: %agent check [--tool TOOL] [--mode MODE] COMMAND" in text


def test_help_of_an_unknown_name_suggests_one(shell):
    with pytest.raises(UsageError, match="did you mean %agent rule\\?"):
        agent(shell, "help rulez")


def test_question_mark_help_is_short(shell):
    doc = shell.magics_manager.magics["line"]["agent"].__doc__
    assert "%agent SUB-COMMAND" in doc and "%agent help rule" in doc
    assert len(doc.splitlines()) < 70  # was 192 lines of argparse text


def test_a_sub_command_registered_elsewhere_dispatches_and_shows_in_help(shell, capsys):
    from jupyter_agenttools.jupyter import commands

    @commands.subcommand("hello-test", "say hello (a test sub-command)",
                         examples=["%agent hello-test --loud"])
    @commands.argument("--loud", action="store_true")
    def _hello(magics, args):
        print("HELLO" if args.loud else "hello", magics.session.project_dir.name)

    try:
        agent(shell, "hello-test --loud")
        assert capsys.readouterr().out.strip() == "HELLO project"
        assert "say hello (a test sub-command)" in repr(agent(shell, "help"))
        assert "--loud" in repr(agent(shell, "help hello-test"))
        with pytest.raises(UsageError, match="did you mean %agent hello-test"):
            agent(shell, "helo-test")
    finally:
        commands.SUBCOMMANDS.pop("hello-test")


def test_status_shows_mode_model_project_and_conversation(shell):
    table = agent(shell, "status")
    rows = dict(table.rows)
    assert rows["mode"] == "default (built-in default)"
    assert rows["model"] == "none yet"
    assert rows["conversation"] == "fresh" and rows["open questions"] == "none"


def test_status_providers_add_rows(shell):
    from jupyter_agenttools.jupyter import extension

    extension.STATUS_PROVIDERS.append(lambda session: [("tokens", "1,234 in, 56 out")])
    try:
        assert dict(agent(shell, "status").rows)["tokens"] == "1,234 in, 56 out"
    finally:
        extension.STATUS_PROVIDERS.pop()


def test_reset_forgets_the_conversation(shell, capsys):
    from jupyter_agenttools import ScriptedModel
    from jupyter_agenttools.jupyter import current_session

    s = current_session(shell)
    shell.user_ns["m"] = ScriptedModel(["a", "b"])
    first = s.agent_for("m")
    class FinishedRun:  # what Agent.runs holds after one prompt
        done = True

    first.runs.append(FinishedRun())
    assert s.agent_for("m") is first and s.conversation_length() == 1
    assert "1 earlier prompt(s); %agent reset" in dict(agent(shell, "status").rows)[
        "conversation"]
    agent(shell, "reset")
    assert capsys.readouterr().out.strip() == "fresh conversation: 1 earlier prompt(s) forgotten"
    assert s.agent_for("m") is not first and s.conversation_length() == 0


@pytest.mark.parametrize("line, label, base_url", [
    ("model openai:llama3.1 --base-url http://localhost:11434/v1",
     "openai:llama3.1 at http://localhost:11434/v1", "http://localhost:11434/v1"),
    ("model openai:gpt-4.1-mini", "openai:gpt-4.1-mini at api.openai.com", None),
])
def test_model_with_a_base_url(shell, capsys, monkeypatch, line, label, base_url):
    from jupyter_agenttools.agent.models import OpenAIChatModel
    from jupyter_agenttools.jupyter import current_session

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    agent(shell, line)
    assert capsys.readouterr().out.strip() == f"model: {label}"
    model = current_session(shell).model
    assert isinstance(model, OpenAIChatModel) and model.base_url == base_url


def test_model_key_from_a_named_environment_variable(shell, capsys, monkeypatch):
    from jupyter_agenttools.jupyter import current_session

    monkeypatch.setenv("AGENTTOOLS_TEST_AZURE_KEY", "secret-123")
    agent(shell, "model openai:my-deployment --base-url "
                 "https://example.openai.azure.com/openai/v1/ --api-key-env "
                 "AGENTTOOLS_TEST_AZURE_KEY")
    model = current_session(shell).model
    assert model.api_key == "secret-123" and model.model == "my-deployment"
    assert "secret-123" not in capsys.readouterr().out


def test_model_traits_give_the_same_settings(shell, monkeypatch):
    from jupyter_agenttools.jupyter import current_session

    monkeypatch.setenv("AGENTTOOLS_TEST_KEY", "k-9")
    shell.run_line_magic("config", "AgentTools.model = 'openai:qwen'")
    shell.run_line_magic("config", "AgentTools.base_url = 'http://localhost:8000/v1'")
    shell.run_line_magic("config", "AgentTools.api_key_env = 'AGENTTOOLS_TEST_KEY'")
    s = current_session(shell)
    model = s.make_agent().model
    assert (model.model, model.base_url, model.api_key) == ("qwen", "http://localhost:8000/v1",
                                                            "k-9")
    assert s.model_label() == "openai:qwen at http://localhost:8000/v1"


def test_answer_of_an_answered_question_changes_nothing(shell, capsys):
    """`%agent answer` after a click on the card (same id): it says so, it does not fail."""
    from jupyter_agenttools.jupyter import current_session

    class Answered:
        id, answered, closed, choice = "ask-77", True, False, "always"

    class Run:
        asks = [Answered()]
        pending: list = []

    current_session(shell).runs.append(Run())
    agent(shell, "answer ask-77 deny")
    assert capsys.readouterr().out.strip() == "ask-77 was already answered: always; nothing " \
                                               "changed"


def test_load_ext_does_not_import_jsonschema_or_the_model_clients():
    """%load_ext stays light: jsonschema (a second or more with rfc3987-syntax), openai, the
    widgets library, and the built-in tools with the shell and Python analyses (tree-sitter,
    the program tables) are imported later, when a run or a check needs them; the toolkit is
    there when asked for (benchmarks/bench_load.py measures the time)."""
    heavy = ("jsonschema", "openai", "ipywidgets", "mcp", "tree_sitter",
             "jupyter_agenttools.builtin", "jupyter_agenttools.shell",
             "jupyter_agenttools.pycode")
    code = ("import sys\n"
            "from IPython.core.interactiveshell import InteractiveShell\n"
            "sh = InteractiveShell.instance()\n"
            "sh.run_line_magic('load_ext', 'jupyter_agenttools')\n"
            f"print(sorted(m for m in {heavy!r} if m in sys.modules))\n"
            "from jupyter_agenttools.jupyter import current_session\n"
            "print(sorted(t.name for t in current_session(sh).toolkit.tools))\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120, cwd=str(REPO))
    assert out.returncode == 0, out.stderr
    loaded, tools = out.stdout.strip().splitlines()[-2:]
    assert loaded == "[]"
    assert {"Bash", "Read", "Write", "Edit", "NotebookEdit"} <= set(ast.literal_eval(tools))


def test_builtin_tool_schemas_are_valid_json_schemas():
    """validate_tool_definition skips the schema check for the built-in tools (so %load_ext
    need not import jsonschema): this is that check."""
    from jsonschema.validators import validator_for

    from jupyter_agenttools.builtin import default_tools

    tools = default_tools()
    assert len(tools) >= 6
    for tool in tools:
        validator_for(tool.input_schema).check_schema(tool.input_schema)
