"""The agent panel shows the running kernels' agents, in a real JupyterLab and Chromium.

The notebook works in a project folder of its own (it changes directory before
``%load_ext``, as the tutorials do), sets a session mode and a session rule, and starts a run
that waits on a question. The panel — at JupyterLab's default sidebar width — must show that
kernel's project (not the server's root), its effective mode with the override marked, the
session rule, the open question with a way to it, and that project's audit log, which
refreshes by itself. Screenshot: test-artifacts/panel-kernels.png.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from lab_harness import (
    chromium_page,
    failure_screenshot,
    open_agent_panel,
    open_notebook,
    run_from,
    screenshot,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

TOKEN = "agenttools-panel-kernels"

CELLS = [
    "import os, pathlib\n"
    "os.makedirs('work/data', exist_ok=True)\n"
    "os.chdir('work')\n"
    "%load_ext jupyter_agenttools\n"
    "%agent mode accept_edits\n"
    '%agent rule allow "Bash(make test:*)"\n'
    "from jupyter_agenttools import ScriptedModel\n"
    "m = ScriptedModel([[{'name': 'Bash', 'input': {'command': 'python3 -c \"print(6 * 7)\"'}}],\n"
    "                   'computed'])",
    "%%agent --model m --as compute\nCompute six times seven.",
]

def _usage_cell(base_url: str) -> str:
    """A run on a real OpenAI-protocol server that reports the tokens it used."""
    return ("os.environ['FAKE_KEY'] = 'not-a-secret'\n"
            f"%agent model openai:fake --base-url {base_url} --api-key-env FAKE_KEY")


@pytest.fixture
def lab(lab_server):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agent"))
    from openai_fake_server import FakeOpenAIServer, text_deltas

    with FakeOpenAIServer() as server:
        server.script = [{"chunks": text_deltas("Hello."),
                          "usage": {"prompt_tokens": 11, "completion_tokens": 7,
                                    "total_tokens": 18}}]
        yield lab_server(TOKEN, {"elsewhere.ipynb": CELLS + [_usage_cell(server.base_url),
                                                             "%%agent\nSay hello."]},
                         root="root")


def _run_all(page, command: str = "notebook:run-all-above", first: int = 0) -> None:
    """Run the cells above the usage cells (``run-all-above`` from cell 2), or from the usage
    cells on (``run-all-below``); ``first``: a cell whose prompt shows the run started."""
    run_from(page, command, len(CELLS), first)


def test_panel_shows_the_kernels_project_mode_rules_questions_and_audit(lab):
    from playwright.sync_api import expect

    project = str((lab.root / "work").resolve())
    with chromium_page(1280, 1000) as (page, errors), \
            failure_screenshot(page, "panel-failure"):
        open_notebook(page, lab.base, TOKEN, "elsewhere.ipynb")
        _run_all(page)
        cell = page.locator(".jp-Notebook .jp-Cell").nth(1)
        expect(cell.locator("button.agenttools-allow_once")).to_be_enabled(timeout=60_000)

        # the status bar: this notebook's mode, its override, and one question waiting
        status = page.locator("#agenttools-status-mode")
        expect(status).to_contain_text("Agent: accept_edits (session)", timeout=15_000)
        expect(status.locator(".agenttools-pending-badge")).to_have_text("1 ?")

        panel = open_agent_panel(page)
        kernel = panel.locator(".agenttools-kernel[data-notebook='elsewhere.ipynb']")
        expect(kernel).to_be_visible(timeout=15_000)
        expect(kernel.locator(".agenttools-kernel-project")).to_have_text(project)
        expect(kernel.locator(".agenttools-mode-badge")).to_have_text("accept_edits")
        expect(kernel.locator(".agenttools-override")).to_contain_text(
            "set in this kernel (the settings say default)")
        expect(kernel.locator(".agenttools-session-rules")).to_contain_text(
            "Bash(make test:*)")
        # no model of its own yet (only the run's): the panel says how to set one
        expect(kernel.locator(".agenttools-model-hint")).to_contain_text(
            "%agent model openai:gpt-4.1-mini")
        question = kernel.locator(".agenttools-pending-item")
        expect(question).to_contain_text('Bash: python3 -c "print(6 * 7)"')
        expect(question.locator(".agenttools-why")).to_contain_text("accept_edits mode")

        # the project shown below is the kernel's, with its audit log
        expect(panel.locator(".agenttools-project-select")).to_have_value(project)
        expect(panel.locator(".agenttools-project-root")).to_have_text(project)
        rows = panel.locator(".agenttools-audit-row[data-tool='Bash']")
        expect(rows.first).to_be_visible(timeout=15_000)
        before = rows.count()
        screenshot(page, "panel-kernels")

        # "Show" brings the card into view; answering it there empties the list and the
        # audit view picks up the answer by itself (no click on refresh)
        question.locator(".agenttools-show-question").click()
        card = cell.locator(".agenttools-question")
        expect(card).to_be_focused(timeout=10_000)
        card.press("1")  # the card's shortcut for "Allow once"
        # the card says so, or, when the run has ended by then, the transcript that
        # replaced the run's panel ("asked; you allowed it once")
        expect(cell).to_contain_text(re.compile(r"allowed (it )?once"), timeout=30_000)
        expect(kernel.locator(".agenttools-pending-item")).to_have_count(0, timeout=15_000)
        expect(status.locator(".agenttools-pending-badge")).to_be_hidden()
        expect(rows).not_to_have_count(before, timeout=15_000)
        expect(panel.locator(".agenttools-audit-row", has_text="allow_once")).to_have_count(
            1, timeout=15_000)
        # who wrote each record: this package's agent, for the OS user
        expect(panel.locator(".agenttools-audit-row[data-tool='Bash'] .agenttools-audit-who"
                             ).first).to_contain_text("agenttools")
        screenshot(panel.locator(".agenttools-audit-section"), "panel-audit-section")
        screenshot(page, "panel-answered")

        # a run on a real model server: its tokens show in the kernel's card
        _run_all(page, "notebook:run-all-below", len(CELLS))
        usage = kernel.locator(".agenttools-usage")
        expect(usage).to_contain_text("18 tokens (11 in, 7 out), 1 model call",
                                      timeout=60_000)
        expect(kernel.locator(".agenttools-kernel-model")).to_contain_text("openai:fake")
        expect(kernel.locator(".agenttools-model-hint")).to_have_count(0)
        screenshot(page, "panel-usage")
        assert not errors, errors
