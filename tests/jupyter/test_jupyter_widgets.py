"""The run panel and question cards on a real AgentRun, without a kernel.

ipywidgets 8 builds widgets without a kernel (a dummy comm), so the panel can follow a real
run of the agent loop under plain asyncio; ``Button.click()`` is what a comm click ends in.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_agenttools import Agent, PermissionEngine, ScriptedModel, Toolkit
from jupyter_agenttools.jupyter.widgets import SAFETY_MARK, QuestionCard, RunPanel
from jupyter_agenttools.permission.types import PermissionDecision, PermissionRule
from jupyter_agenttools.tools.function import FunctionTool


def _agent(tmp_path: Path, calls: list[dict], engine=None) -> tuple[Agent, list[str]]:
    notes: list[str] = []

    def add_note(text: str) -> str:
        """Append a note."""
        notes.append(text)
        return f"noted {text}"

    toolkit = Toolkit()
    toolkit.add_tool(FunctionTool(add_note))
    model = ScriptedModel([calls, "finished"])
    engine = engine or PermissionEngine(mode="default", settings=tmp_path)
    return Agent(model, toolkit, engine), notes


def _texts(widget) -> str:
    """Every HTML/Label value and Output text under a widget, for assertions."""
    out = []
    stack = [widget]
    while stack:
        w = stack.pop(0)
        if hasattr(w, "children"):
            stack.extend(w.children)
        if type(w).__name__ in ("HTML", "Label", "StatusLine"):
            out.append(w.value)
        if type(w).__name__ == "Output":
            out.extend(o.get("text", "") for o in w.outputs)
    return "\n".join(out)


def _buttons(panel: RunPanel, css: str):
    return [b for card in panel.cards for b in card.buttons if css in b._dom_classes]


async def test_panel_follows_the_run_and_the_click_resumes_it(tmp_path):
    agent, notes = _agent(tmp_path, [{"name": "add_note", "input": {"text": "hi"}}])
    run = agent.start("go")
    panel = RunPanel("agent_run", on_cancel=run.cancel)
    panel.bind(run)
    await run.next_ask(timeout=5)
    assert "waiting" in panel.status.value
    (allow,) = _buttons(panel, "agenttools-allow_once")
    allow.click()
    assert await run.wait_done(timeout=5) == "finished"
    assert notes == ["hi"]
    text = _texts(panel)
    assert "add_note" in text and "noted hi" in text and "finished" in text
    assert "allowed once" in text and "done" in panel.status.value
    assert all(b.disabled for card in panel.cards for b in card.buttons)
    assert panel.cancel_button.disabled
    assert repr(panel) == "<agent run panel>"
    assert panel._repr_mimebundle_()["text/plain"] == "<agent run panel>"


async def test_answer_from_code_updates_the_card(tmp_path):
    agent, notes = _agent(tmp_path, [{"name": "add_note", "input": {"text": "x"}}])
    run = agent.start("go")
    panel = RunPanel(on_cancel=run.cancel)
    panel.bind(run)
    ask = await run.next_ask(timeout=5)
    ask.answer("deny", message="no thanks")
    await run.wait_done(timeout=5)
    (card,) = panel.cards
    assert "denied" in card.status.value
    assert all(b.disabled for b in card.buttons)
    assert notes == [] and run.tool_results[0].state.value == "denied"


async def test_always_button_saves_the_suggested_rule(tmp_path):
    agent, notes = _agent(tmp_path, [{"name": "add_note", "input": {"text": "y"}}])
    run = agent.start("go")
    panel = RunPanel(on_cancel=run.cancel, settings_file=".agenttools/settings.local.json")
    panel.bind(run)
    await run.next_ask(timeout=5)
    (always,) = _buttons(panel, "agenttools-always")
    assert always.description == "Always allow"
    texts = _texts(panel)
    assert "<code>add_note</code>" in texts  # the rule it saves, in full, on its own line
    assert ".agenttools/settings.local.json" in texts
    always.click()
    await run.wait_done(timeout=5)
    assert notes == ["y"]
    local = (tmp_path / ".agenttools" / "settings.local.json").read_text()
    assert '"add_note"' in local


async def test_deny_button_sends_the_typed_message(tmp_path):
    agent, _ = _agent(tmp_path, [{"name": "add_note", "input": {"text": "z"}}])
    run = agent.start("go")
    panel = RunPanel(on_cancel=run.cancel)
    panel.bind(run)
    ask = await run.next_ask(timeout=5)
    (card,) = panel.cards
    card.message.value = "use the other file"
    (deny,) = _buttons(panel, "agenttools-deny")
    deny.click()
    await run.wait_done(timeout=5)
    assert ask.choice == "deny" and ask.message == "use the other file"


async def test_cancel_button_cancels_and_closes_open_questions(tmp_path):
    agent, notes = _agent(tmp_path, [{"name": "add_note", "input": {"text": "c"}}])
    run = agent.start("go")
    panel = RunPanel(on_cancel=run.cancel)
    panel.bind(run)
    await run.next_ask(timeout=5)
    panel.cancel_button.click()
    try:
        await run.wait_done(timeout=5)
    except BaseException:
        pass
    assert run.state == "cancelled" and notes == []
    assert "cancelled" in panel.status.value
    assert all(b.disabled for b in panel.cards[0].buttons)


class _Ask:
    """A stand-in PendingAsk for the card alone (the real one needs a run)."""

    def __init__(self, decision):
        self.id, self.tool, self.call_id = "ask-9", "Bash", "call_9"
        self.input = {"command": "cat ~/.ssh/id_rsa"}
        self.decision = decision
        self.answered, self.choice, self.rule = False, None, None
        self.calls = []

    def answer(self, choice, **kw):
        from jupyter_agenttools.errors import AnswerError

        if choice == "always" and self.decision.bypass_immune:
            raise AnswerError("always is refused for a safety question")
        self.calls.append((choice, kw))
        self.answered, self.choice = True, choice
        return True


@pytest.mark.parametrize("safety", [True, False])
def test_safety_card_is_marked_and_never_offers_always(safety):
    suggestion = PermissionRule.parse("Bash(cat:*)")
    decision = PermissionDecision.ask("reads a key file", safety=safety, suggestions=[suggestion])
    card = QuestionCard(_Ask(decision), ".agenttools/settings.local.json")
    classes = [c for b in card.buttons for c in b._dom_classes]
    assert ("agenttools-always" in classes) is (not safety)
    assert (SAFETY_MARK in card.header.value) is safety
    assert "cat ~/.ssh/id_rsa" in card.code.value
    assert "Reads a key file." in card.reason.value
    assert ("agenttools-allow_session" in classes) is (not safety)


@pytest.mark.parametrize("untrusted", [False, True])
def test_always_allow_in_an_untrusted_folder_says_the_rule_waits_for_trust(untrusted):
    """A rule "Always allow" saves to an untrusted project's settings does not count until the
    folder is trusted: the card says so before and after the click (not a silent no-op)."""
    decision = PermissionDecision.ask("why", suggestions=[PermissionRule.parse("Bash(cat:*)")])
    ask = _Ask(decision)
    card = QuestionCard(ask, ".agenttools/settings.local.json", untrusted=untrusted)
    always = next(b for b in card.buttons if "agenttools-always" in b._dom_classes)
    for text in (card.where.value, always.tooltip):
        assert ("once you trust" in text) is untrusted
    always.click()
    assert ask.calls and ask.calls[0][0] == "always"
    card.refresh()
    assert ("counts once you trust this folder" in card.status.value) is untrusted


def test_a_folder_changed_since_it_was_trusted_is_not_called_untrusted_yet():
    """Trusted once, changed since: the card says the settings changed and the rule counts once
    the folder is trusted again, not that it "is not trusted yet"."""
    decision = PermissionDecision.ask("why", suggestions=[PermissionRule.parse("Bash(cat:*)")])
    ask = _Ask(decision)
    card = QuestionCard(ask, ".agenttools/settings.local.json", untrusted=True,
                        trust_changed=True)
    always = next(b for b in card.buttons if "agenttools-always" in b._dom_classes)
    assert "not trusted yet" not in card.where.value
    assert "changed since you trusted them" in card.where.value
    assert "trust it again" in card.where.value and "trust this folder again" in always.tooltip
    always.click()
    card.refresh()
    assert "counts once you trust this folder again" in card.status.value


def test_a_refused_answer_is_shown_and_keeps_the_card_open():
    class Refusing(_Ask):
        def answer(self, choice, **kw):
            from jupyter_agenttools.errors import AnswerError

            raise AnswerError("the run is gone")

    card = QuestionCard(Refusing(PermissionDecision.ask("why")))
    card.buttons[0].click()  # must not raise out of the widget callback
    assert "the run is gone" in card.status.value
    assert not any(b.disabled for b in card.buttons)
