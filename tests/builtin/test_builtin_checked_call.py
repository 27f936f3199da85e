"""A file tool's call does what its decision checked (red-team round, session 5), through the
real agent loop on a LocalBackend:

- a symbolic link created or changed between the decision and the call (here: while the
  question was open) makes the call refuse, instead of acting on a file nobody checked;
- a search (Grep, Glob) of a folder skips the files a deny or ask ``Read`` rule names by name
  (``deny Read(*.csv)``): the search itself is not refused for such files, so it must not
  print them — before, ``Grep`` of the project printed the csv files' lines.

Each attack has its harmless twin (nothing swapped, no rule) that keeps working.
"""

from __future__ import annotations

import json
import os

import pytest

from jupyter_agenttools.agent.loop import Agent
from jupyter_agenttools.agent.models import ScriptedModel
from jupyter_agenttools.backends.local import LocalBackend
from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.permission.settings import SettingsStore
from jupyter_agenttools.permission.types import PermissionContext
from jupyter_agenttools.tools.base import ToolResultState


def setup(tmp_path, turns, rules=None):
    project, home = tmp_path / "project", tmp_path / "home"
    for d in (project / "data", project / "src", home):
        d.mkdir(parents=True)
    (project / "data" / "customers.csv").write_text("needle,alice@example.com\n")
    (project / "data" / "notes.md").write_text("needle in the notes\n")
    (project / "src" / "a.py").write_text("needle = 1\n")
    (home / ".bashrc").write_text("# the user's\n")
    if rules:
        (project / ".agenttools").mkdir()
        (project / ".agenttools" / "settings.json").write_text(
            json.dumps({"permissions": rules}))
    store = SettingsStore(project, user_dir=tmp_path / "user",
                          managed_path=tmp_path / "managed-settings.json")
    context = PermissionContext(cwd=str(project), project_root=str(project), home=str(home))
    engine = PermissionEngine(settings=store, context=context)
    backend = LocalBackend(str(project))
    agent = Agent(ScriptedModel(turns), backend=backend, engine=engine)
    return agent, project, home


# --- a link swapped between the check and the call ------------------------------------------

SWAPS = [
    ("Write", {"file_path": "notes.txt", "content": "echo pwned\n"}),
    ("Edit", {"file_path": "notes.txt", "old_string": "plain", "new_string": "echo pwned"}),
]


@pytest.mark.parametrize("swap", [True, False], ids=["swapped", "twin"])
@pytest.mark.parametrize("tool,tool_input", SWAPS, ids=[s[0] for s in SWAPS])
async def test_a_link_swapped_while_the_question_is_open_is_not_followed(tmp_path, tool,
                                                                        tool_input, swap):
    turns = [[{"name": "Read", "input": {"file_path": "notes.txt"}, "id": "r"}], "read",
             [{"name": tool, "input": tool_input, "id": "w"}], "done"]
    agent, project, home = setup(tmp_path, turns)
    (project / "notes.txt").write_text("plain text\n")
    run = await agent.run("read")
    assert await run.wait_done(timeout=20) == "read"
    run = await agent.run("change it")
    ask = await run.next_ask(timeout=20)  # default mode: a write inside the project is asked
    assert ask.input == tool_input and not ask.safety
    if swap:  # meanwhile: notes.txt becomes a link to the user's ~/.bashrc
        os.unlink(project / "notes.txt")
        os.symlink(home / ".bashrc", project / "notes.txt")
    ask.answer("allow_once")
    assert await run.wait_done(timeout=20) == "done"
    (result,) = run.tool_results
    if swap:
        assert result.state is ToolResultState.ERROR
        assert "symbolic link changed" in result.text
        assert (home / ".bashrc").read_text() == "# the user's\n"
    else:
        assert result.state is ToolResultState.SUCCESS, result.text
        assert "pwned" in (project / "notes.txt").read_text()
        assert (home / ".bashrc").read_text() == "# the user's\n"


# --- searches skip what deny/ask Read rules name --------------------------------------------

CSV, NOTES, CODE = "alice@example.com", "needle in the notes", "needle = 1"
SEARCHES = [  # rules, lines hidden, lines shown (None: the search itself is refused)
    ({"deny": ["Read(*.csv)"]}, [CSV], [NOTES, CODE]),
    ({"deny": ["Read(**/*.{csv,tsv})"]}, [CSV], [NOTES, CODE]),
    ({"ask": ["Read(customers.*)"]}, [CSV], [NOTES, CODE]),
    ({"deny": ["Read(data/)"]}, [CSV, NOTES], [CODE]),       # a folder named data anywhere
    ({"deny": ["Read(/data/**)"]}, None, None),             # the project's data: refused
]


@pytest.mark.parametrize("use_ripgrep", [True, False], ids=["rg", "fallback"])
@pytest.mark.parametrize("rules,hidden,shown", SEARCHES)
async def test_grep_skips_the_files_deny_and_ask_read_rules_name(tmp_path, rules, hidden,
                                                                shown, use_ripgrep):
    turns = [[{"name": "Grep", "input": {"pattern": "needle", "output_mode": "content"},
               "id": "g"}], "done"]
    agent, project, home = setup(tmp_path, turns, rules)
    agent.toolkit.get_tool("Grep").use_ripgrep = use_ripgrep
    run = await agent.run("search")
    assert await run.wait_done(timeout=20) == "done"
    (result,) = run.tool_results
    if hidden is None:
        assert result.state is ToolResultState.DENIED
        return
    assert not run.asks, "the search needs no question"
    assert result.state is ToolResultState.SUCCESS, result.text
    assert not [line for line in hidden if line in result.text]
    assert all(line in result.text for line in shown)


@pytest.mark.parametrize("use_ripgrep", [True, False], ids=["rg", "fallback"])
async def test_grep_without_such_rules_still_finds_everything(tmp_path, use_ripgrep):
    turns = [[{"name": "Grep", "input": {"pattern": "needle", "output_mode": "content"},
               "id": "g"}], "done"]
    agent, project, home = setup(tmp_path, turns, {"deny": ["Read(*.tsv)"]})
    agent.toolkit.get_tool("Grep").use_ripgrep = use_ripgrep
    run = await agent.run("search")
    assert await run.wait_done(timeout=20) == "done"
    (result,) = run.tool_results
    assert "alice@example.com" in result.text and "needle in the notes" in result.text


@pytest.mark.parametrize("rules,listed", [({"deny": ["Read(*.csv)"]}, False),
                                          ({"deny": ["Read(*.tsv)"]}, True)])
async def test_glob_does_not_list_what_a_deny_read_rule_names(tmp_path, rules, listed):
    turns = [[{"name": "Glob", "input": {"pattern": "**/*"}, "id": "g"}], "done"]
    agent, project, home = setup(tmp_path, turns, rules)
    run = await agent.run("list")
    assert await run.wait_done(timeout=20) == "done"
    (result,) = run.tool_results
    assert result.state is ToolResultState.SUCCESS, result.text
    assert ("customers.csv" in result.text) is listed
    assert "notes.md" in result.text
