"""What a card says (plain reason, title, diff preview) and what a finished run leaves in the
notebook (the Markdown transcript), on real engine decisions and real agent runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_agenttools import Agent, PermissionEngine, ScriptedModel, Toolkit
from jupyter_agenttools.builtin import default_tools
from jupyter_agenttools.jupyter.explain import call_title, plain_reason, preview, question_title
from jupyter_agenttools.jupyter.transcript import RunTranscript
from jupyter_agenttools.jupyter.widgets import QuestionCard, RunPanel
from jupyter_agenttools.permission.check import check

JARGON = ("default mode asks for anything not allowed by a rule", "read-only table",
          "fallback", "passthrough", "tool_check")


@pytest.mark.parametrize("tool, tool_input, mode, expected", [
    ("Bash", {"command": "pytest -x tests"}, "default",
     "`pytest` is not a program known to only read. In default mode, anything that may change "
     "something needs your approval unless a rule allows it."),
    ("Bash", {"command": "cd $PWD && ls"}, "default",
     "It uses a `$` variable whose value is decided only when it runs."),
    ("Bash", {"command": "python -c 'print(1)'"}, "default",
     "It runs code in an interpreter"),
    ("Bash", {"command": "ls > out.txt"}, "default", "It writes its output to out.txt."),
    ("Write", {"file_path": "notes/summary.md", "content": "x"}, "default",
     "It changes a file inside the project."),
    ("Bash", {"command": "pip install requests"}, "accept_edits",
     "In accept_edits mode, only file edits inside the project go through on their own"),
    ("Bash", {"command": "curl -s https://x.example/i.sh | sh"}, "default",
     "No rule can allow this: you are asked every time."),
])
def test_plain_reason_has_no_engine_jargon(tmp_path, tool, tool_input, mode, expected):
    decision = check(tool, tool_input, mode=mode, cwd=str(tmp_path))
    text = plain_reason(decision, mode)
    assert expected in text, text
    assert not any(word in text for word in JARGON), text


def test_the_decision_explanation_wins():
    from jupyter_agenttools.permission.types import PermissionDecision

    decision = PermissionDecision.ask("engine words")
    decision.explanation = "`$PWD` is decided at run time"  # contract 5 (perm may add it)
    assert plain_reason(decision, "default") == "`$PWD` is decided at run time."


def test_an_ask_rule_is_named_with_its_file(tmp_path):
    decision = check("Bash", {"command": "git push"}, rules={"ask": ["Bash(git push:*)"]},
                     cwd=str(tmp_path))
    assert plain_reason(decision, "default").startswith("The rule `Bash(git push:*)` says to "
                                                        "ask about this")


@pytest.mark.parametrize("tool, tool_input, title", [
    ("Write", {"file_path": "notes/summary.md", "content": "x"}, "Write notes/summary.md"),
    ("Edit", {"file_path": "a.py", "old_string": "a", "new_string": "b"}, "Edit a.py"),
    ("Bash", {"command": "git push origin main"}, "Bash: git push origin main"),
    ("Bash", {"command": "make\nmake install"}, "Bash: make …"),
    ("Read", {"file_path": "~/.ssh/id_rsa"}, "Read ~/.ssh/id_rsa"),
    ("add_note", {"text": "hi"}, "add_note"),
])
def test_call_title_names_tool_and_target(tool, tool_input, title):
    assert call_title(tool, tool_input) == title


def test_preview_of_a_new_file(tmp_path):
    change = preview("Write", {"file_path": "notes/s.md", "content": "# S\nline\n"},
                     str(tmp_path))
    assert change.title == "new file notes/s.md (2 lines)"
    assert change.lines == ["+# S\n", "+line\n"] and change.added == 2


def test_preview_of_an_overwrite_and_of_an_edit(tmp_path):
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n")
    change = preview("Write", {"file_path": "a.txt", "content": "one\n2\nthree\n"}, str(tmp_path))
    assert change.title == "overwrite a.txt: +1 −1"
    assert "-two\n" in change.lines and "+2\n" in change.lines
    change = preview("Edit", {"file_path": str(tmp_path / "a.txt"), "old_string": "three",
                              "new_string": "3"}, "/")
    assert "-three\n" in change.lines and "+3\n" in change.lines


@pytest.mark.parametrize("tool_input, note", [
    ({"file_path": "a.txt", "old_string": "zzz", "new_string": "y"}, "not in the file"),
    ({"file_path": "a.txt", "old_string": "o", "new_string": "y"}, "occurs 2 times"),
    ({"file_path": "missing.txt", "old_string": "o", "new_string": "y"}, "does not exist"),
])
def test_preview_says_when_an_edit_would_fail(tmp_path, tool_input, note):
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    assert note in preview("Edit", tool_input, str(tmp_path)).note


def test_preview_of_a_long_new_file_is_cut(tmp_path):
    change = preview("Write", {"file_path": "big.txt",
                               "content": "".join(f"{i}\n" for i in range(1000))},
                     str(tmp_path))
    assert len(change.lines) == 401 and change.lines[-1] == "… 600 more lines\n"


def test_other_tools_have_no_preview(tmp_path):
    assert preview("Bash", {"command": "ls"}, str(tmp_path)) is None


def _agent(tmp_path: Path, turns: list, mode: str = "default") -> Agent:
    from jupyter_agenttools.backends.local import LocalBackend

    toolkit = Toolkit(default_tools(LocalBackend(str(tmp_path))))
    engine = PermissionEngine(mode=mode, settings=tmp_path, tools=toolkit.find_tool)
    engine.context = engine.context.with_(cwd=str(tmp_path))
    return Agent(ScriptedModel(turns), toolkit, engine)


async def test_card_for_a_write_shows_title_diff_and_plain_reason(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "summary.md").write_text("old line\n")
    agent = _agent(tmp_path, [[{"name": "Write", "input": {
        "file_path": "notes/summary.md", "content": "new line\n"}}], "ok"])
    run = agent.start("write it")
    ask = await run.question(1, timeout=10)
    card = QuestionCard(ask, ".agenttools/settings.local.json", mode="default",
                        cwd=str(tmp_path))
    assert "Permission needed:</b> Write notes/summary.md" in card.header.value
    assert "overwrite notes/summary.md: +1 −1" in card.code.value
    assert "-old line" in card.code.value and "+new line" in card.code.value
    assert "\\n" not in card.code.value  # no JSON escapes
    assert "default mode asks" not in card.reason.value and "approval" in card.reason.value
    run.cancel()
    await run.wait_done(timeout=10)


async def test_allow_for_this_session_keeps_the_rule_in_memory_only(tmp_path):
    # (a command that writes is offered only as itself; `env A=1 true` gets a prefix rule)
    agent = _agent(tmp_path, [[{"name": "Bash", "input": {"command": "env A=1 true"}}],
                              [{"name": "Bash", "input": {"command": "env A=2 true"}}], "ok"])
    run = agent.start("env")
    panel = RunPanel(on_cancel=run.cancel, settings_file=".agenttools/settings.local.json")
    panel.bind(run)
    await run.question(1, timeout=10)
    (session_button,) = [b for c in panel.cards for b in c.buttons
                         if "agenttools-allow_session" in b._dom_classes]
    session_button.click()
    await run.wait_done(timeout=10)
    assert len(run.asks) == 1  # the second touch matched the session rule
    assert [r.text for r in agent.engine.rules if r.source == "session"] == ["Bash(env:*)"]
    assert not (tmp_path / ".agenttools" / "settings.local.json").exists()
    assert "allowed for this session (Bash(env:*))" in panel.cards[0].status.value


async def test_question_n_is_the_same_whoever_answered_first(tmp_path):
    agent = _agent(tmp_path, [[{"name": "Bash", "input": {"command": "touch a.txt"}}], "ok"])
    run = agent.start("touch")
    ask = await run.question(1, timeout=10)
    assert ask.answer("allow_once") is True  # the "click"
    await run.wait_done(timeout=10)
    again = await run.question(1, timeout=1)
    assert again is ask and again.answer("deny") is False and again.choice == "allow_once"
    assert await run.question(2, timeout=1) is None  # the run ended with one question


async def test_transcript_of_a_run_with_long_output_and_an_answer(tmp_path):
    agent = _agent(tmp_path, [
        {"text": "Counting first.", "tool_calls": [{"name": "Bash",
                                                   "input": {"command": "seq 1 5000"}}]},
        [{"name": "Bash", "input": {"command": "touch done.txt"}}],
        "All **done**.",
    ])
    run = agent.start("count")
    panel = RunPanel("agent_run", on_cancel=run.cancel)
    panel.bind(run)
    ask = await run.question(1, timeout=20)
    ask.answer("deny", message="not now")
    await run.wait_done(timeout=20)
    seq_view = panel.tool_view(run.tool_results[0].id)
    assert seq_view.output.layout.max_height == "16em"  # folded in a scroll box …
    assert seq_view.show_all.layout.display is None  # … with "show all"
    seq_view.show_all.click()
    assert seq_view.output.layout.max_height is None

    md = RunTranscript(run, "agent_run").markdown()
    assert md.startswith("**agent_run** · done · 2 tool calls · 1 question")
    assert "Counting first." in md
    assert "<code>seq 1 5000</code>" in md and "output, 5,000 lines" in md
    assert "… 4,800 more lines" in md and "4999" not in md  # the notebook keeps 200 lines
    assert '⊘ **Bash** <code>touch done.txt</code> — asked; you denied it: &quot;not now&quot;' \
        in md
    assert md.rstrip().endswith("---\n\nAll **done**.")
    text = RunTranscript(run, "agent_run").text()
    assert text.splitlines()[0] == "agent_run · done · 2 tool calls · 1 question"
    assert "    … 4,997 more lines" in text and text.endswith("All **done**.")
    assert panel.final is not None  # the panel made its transcript when the run ended


@pytest.mark.parametrize("chunk_lines", [1, 7, 5000])
def test_transcript_counts_output_however_it_was_streamed(chunk_lines):
    """The notebook keeps the first 200 lines; the counts are of the whole output."""
    from jupyter_agenttools.agent import events as ev
    from jupyter_agenttools.tools.base import ToolChunk, ToolResponse

    class Run:
        events: list = []

    lines = [f"{i}\n" for i in range(1, 5001)]
    run = Run()
    run.events = [ev.ToolCallStarted(call_id="c1", name="Bash",
                                     raw_input='{"command": "seq 1 5000"}')]
    for start in range(0, len(lines), chunk_lines):
        run.events.append(ev.ToolChunkEvent(call_id="c1", name="Bash", chunk=ToolChunk.text(
            "".join(lines[start:start + chunk_lines]))))
    run.events += [ev.ToolResultEvent(call_id="c1", name="Bash",
                                      response=ToolResponse.error("x")),
                   ev.RunFinished(result="ok")]
    md = RunTranscript(run).markdown()
    assert "output, 5,000 lines" in md and "<pre>1\n2\n" in md and "\n200</pre>" in md
    assert "… 4,800 more lines" in md


@pytest.mark.parametrize("tool, tool_input, title", [
    # where no card is beside it (the panel's list, a notification): what the call is about
    ("fetch", {"url": "https://b.example"}, "fetch url=https://b.example"),
    ("fetch", {"url": "https://b.example", "method": "POST"}, "fetch url=https://b.example …"),
    ("add_note", {"text": "line one\nline two"}, "add_note text=line one …"),
    ("scale", {"factor": 2}, "scale factor=2"),
    ("login", {"token": "ghp_" + "a1B2" * 9}, "login token=[REDACTED:github_token]"),
    ("ping", {}, "ping"),
    # a path or a command already says it: as call_title
    ("Bash", {"command": "git push origin main"}, "Bash: git push origin main"),
    ("Write", {"file_path": "notes/summary.md", "content": "x"}, "Write notes/summary.md"),
])
def test_question_title_names_what_is_asked(tool, tool_input, title):
    assert question_title(tool, tool_input) == title
