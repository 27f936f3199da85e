"""A newcomer's tour in a real JupyterLab, driven through Debian's Chromium.

One JupyterLab and one notebook for the whole module (the tests run in order and build on each
other, as a person working down the notebook would):

1. the first free-form ``%%agent`` prompt without a model says how to set one;
2. a Write question shows its diff before approval, the status bar counts the open question,
   a notification names it, and "Always allow" saves the rule;
3. a Deny with a typed message reaches the run;
4. Kernel ▸ Interrupt stops a running tool (its process is gone) with a one-line status;
5. a kernel restart closes a question still open, visibly (the dead panel becomes Markdown);
6. after saving, shutting the kernel down and reopening the page, the runs' transcripts are
   still there (plain Markdown outputs).

Screenshots go to test-artifacts/tour-*.png.
"""

from __future__ import annotations

import json
import os
import time

import pytest
from lab_harness import (
    accept_dialogs,
    cell,
    chromium_page,
    open_notebook,
    require_chromium,
    run_cell,
    running_lab,
    screenshot,
    wait_kernel,
    write_notebook,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

TOKEN = "agenttools-tour-test"

CELLS = [
    # 0
    "%load_ext jupyter_agenttools\n"
    "from jupyter_agenttools import ScriptedModel\n"
    "import pathlib\n"
    "pathlib.Path('notes').mkdir(exist_ok=True)\n"
    "_ = pathlib.Path('notes/summary.md').write_text('# Summary\\nold line\\nkept line\\n')",
    # 1: the first free-form prompt, no model configured
    "%%agent\nSummarise this project for me.",
    # 2
    "m_write = ScriptedModel([\n"
    "    [{'name': 'Read', 'input': {'file_path': 'notes/summary.md'}}],\n"
    "    [{'name': 'Write', 'input': {'file_path': 'notes/summary.md',\n"
    "                                 'content': '# Summary\\nnew line\\nkept line\\n'}}],\n"
    "    [{'name': 'Bash', 'input': {'command': 'touch made-by-agent.txt'}}],\n"
    "    'I updated the **summary**.'])",
    # 3
    "%%agent --model m_write --as w\nUpdate the summary, then mark it done.",
    # 4
    "%agent mode bypass\n"
    "m_sleep = ScriptedModel([[{'name': 'Bash', 'input': {\n"
    "    'command': \"trap '' INT; echo $$ > pid.txt; exec sleep 300\", 'timeout': 600}}],\n"
    "    'never said'])",
    # 5
    "%%agent --model m_sleep --as s\nWait a long time.",
    # 6
    "%agent mode default\n"
    "m_ask = ScriptedModel([[{'name': 'Bash', 'input': {'command': 'touch later.txt'}}],\n"
    "                       'never said'])",
    # 7
    "%%agent --model m_ask --as r\nTouch a file.",
]

@pytest.fixture(scope="module")
def tour(tmp_path_factory):
    require_chromium()
    tmp = tmp_path_factory.mktemp("tour")
    root = tmp / "project"
    root.mkdir()
    write_notebook(root / "tour.ipynb", CELLS)
    with running_lab(tmp, root, TOKEN) as (base, _log), \
            chromium_page(1400, 1000) as (page, errors):
        open_notebook(page, base, TOKEN, "tour.ipynb")
        try:
            yield {"base": base, "root": root, "page": page, "errors": errors}
        finally:
            screenshot(page, "tour-last")


def test_first_free_form_prompt_says_how_to_set_a_model(tour):
    from playwright.sync_api import expect

    page = tour["page"]
    run_cell(page, 0)
    expect(cell(page, 0).locator(".jp-OutputArea-output")).to_contain_text(
        "jupyter_agenttools: mode default · model none yet (%agent model openai:NAME)")
    run_cell(page, 1)
    answer = cell(page, 1).locator(".jp-RenderedMarkdown")
    expect(answer).to_contain_text("No model is set up yet", timeout=30_000)
    expect(answer).to_contain_text("%agent model openai:gpt-4.1-mini")
    expect(answer).to_contain_text("--base-url http://localhost:11434/v1")
    cell(page, 1).scroll_into_view_if_needed()
    screenshot(page, "tour-1-first-prompt")


def test_write_question_shows_a_diff_a_badge_and_always_saves_the_rule(tour):
    from playwright.sync_api import expect

    page, root = tour["page"], tour["root"]
    run_cell(page, 2)
    run_cell(page, 3)
    agent_cell = cell(page, 3)
    expect(agent_cell.locator(".agenttools-question")).to_have_count(1, timeout=30_000)
    # the first card for good: once answered, the run goes on and the next card (Bash) appears
    card = agent_cell.locator(".agenttools-question").first
    expect(card.locator(".agenttools-question-title")).to_have_text(
        "Permission needed: Write notes/summary.md")
    diff = card.locator(".agenttools-diff")
    expect(diff).to_contain_text("-old line")
    expect(diff).to_contain_text("+new line")
    expect(card.locator(".agenttools-why")).to_contain_text("needs your approval")
    expect(card.locator(".agenttools-rule-choice")).to_contain_text("Write(notes/**)")
    # the status bar counts it, and a notification names it
    expect(page.locator("#agenttools-status-mode .agenttools-pending-badge")).to_have_text(
        "1 ?", timeout=15_000)
    expect(page.locator(".jp-toast-message, .Toastify__toast").first).to_contain_text(
        "The agent asks: Write notes/summary.md", timeout=15_000)
    card.scroll_into_view_if_needed()
    screenshot(page, "tour-2-diff-and-badge")

    card.locator("button.agenttools-always").click()
    expect(card.locator(".agenttools-answer")).to_contain_text(
        "always allowed (Write(notes/**))", timeout=30_000)
    local = root / ".agenttools" / "settings.local.json"
    deadline = time.monotonic() + 15
    while not local.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert "Write(notes/**)" in json.loads(local.read_text())["permissions"]["allow"]


def test_deny_with_a_message_reaches_the_run(tour):
    from playwright.sync_api import expect

    page, root = tour["page"], tour["root"]
    agent_cell = cell(page, 3)
    bash_card = agent_cell.locator(".agenttools-question").nth(1)
    expect(bash_card.locator(".agenttools-question-title")).to_have_text(
        "Permission needed: Bash: touch made-by-agent.txt", timeout=30_000)
    bash_card.locator(".agenttools-deny-message input").fill("not in this folder")
    bash_card.locator("button.agenttools-deny").click()
    final = agent_cell.locator(".jp-RenderedMarkdown")
    expect(final).to_contain_text("w · done · 3 tool calls · 2 questions", timeout=30_000)
    expect(final).to_contain_text("you always allow it (Write(notes/**))")
    expect(final).to_contain_text('you denied it: "not in this folder"')
    expect(final.locator("strong", has_text="summary")).to_have_count(1)  # Markdown answer
    assert not (root / "made-by-agent.txt").exists()
    assert "new line" in (root / "notes" / "summary.md").read_text()
    expect(page.locator("#agenttools-status-mode .agenttools-pending-badge")).to_be_hidden(
        timeout=15_000)
    agent_cell.scroll_into_view_if_needed()
    screenshot(page, "tour-3-always-and-deny")


def test_interrupt_stops_the_running_tool(tour):
    from playwright.sync_api import expect

    page, root = tour["page"], tour["root"]
    run_cell(page, 4)
    run_cell(page, 5)
    pid_file = root / "pid.txt"
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text().strip()):
        assert time.monotonic() < deadline, "the tool never started"
        time.sleep(0.2)
    pid = int(pid_file.read_text())
    # (commands are not awaited: a command with a dialog settles only once it is answered)
    page.evaluate("() => { window.jupyterapp.commands.execute('kernelmenu:interrupt'); }")
    final = cell(page, 5).locator(".jp-RenderedMarkdown")
    expect(final).to_contain_text("s · cancelled: interrupted (Kernel ▸ Interrupt)",
                                  timeout=30_000)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        with open(f"/proc/{pid}/stat") as handle:
            if handle.read().split(")")[-1].split()[0] == "Z":
                break
        time.sleep(0.2)
    else:
        raise AssertionError(f"sleep (pid {pid}) survived the interrupt")
    cell(page, 5).scroll_into_view_if_needed()
    screenshot(page, "tour-4-interrupt")


def test_a_kernel_restart_closes_the_open_card(tour):
    from playwright.sync_api import expect

    page = tour["page"]
    run_cell(page, 6)
    run_cell(page, 7)
    card = cell(page, 7).locator(".agenttools-question")
    expect(card.locator("button.agenttools-allow_once")).to_be_enabled(timeout=30_000)
    page.evaluate("() => { window.jupyterapp.commands.execute('kernelmenu:restart'); }")
    accept_dialogs(page, 10_000)
    # the dead widgets give way to plain Markdown saying what happened (and what a saved
    # notebook keeps: no "model not found" later)
    closed = cell(page, 7).locator(".jp-RenderedMarkdown")
    expect(closed).to_contain_text("r · stopped: the kernel restarted · 1 tool call",
                                   timeout=30_000)
    expect(closed).to_contain_text("Closed unanswered: Bash: touch later.txt")
    expect(cell(page, 7).locator("button.agenttools-allow_once")).to_have_count(0)
    cell(page, 7).scroll_into_view_if_needed()
    screenshot(page, "tour-5-restart")


def test_saved_and_reopened_notebook_keeps_the_transcripts(tour):
    from playwright.sync_api import expect

    page, root, base = tour["page"], tour["root"], tour["base"]
    wait_kernel(page)
    page.evaluate("() => { window.jupyterapp.commands.execute('docmanager:save'); }")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        saved = json.loads((root / "tour.ipynb").read_text())
        outputs = saved["cells"][3]["outputs"]
        if outputs and "text/markdown" in outputs[0].get("data", {}):
            break
        time.sleep(0.3)
    data = {k: "".join(v) if isinstance(v, list) else v  # nbformat keeps lines as lists
            for k, v in saved["cells"][3]["outputs"][0]["data"].items()}
    assert "application/vnd.jupyter.widget-view+json" not in data
    assert "you always allow it (Write(notes/**))" in data["text/markdown"]
    assert data["text/plain"].startswith("w · done · 3 tool calls · 2 questions")
    page.evaluate("() => { window.jupyterapp.commands.execute('kernelmenu:shutdown'); }")
    accept_dialogs(page, 5_000)
    page.wait_for_timeout(1500)
    page.goto(f"{base}/lab/tree/tour.ipynb?token={TOKEN}")
    page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=60_000)
    accept_dialogs(page, 5_000)
    for index, words in ((1, "No model is set up yet"),
                         (3, 'you denied it: "not in this folder"'),
                         (5, "cancelled: interrupted (Kernel ▸ Interrupt)"),
                         (7, "Closed unanswered: Bash: touch later.txt")):
        expect(cell(page, index).locator(".jp-RenderedMarkdown")).to_contain_text(
            words, timeout=30_000)
    expect(page.locator(".jp-Notebook")).not_to_contain_text("model not found")
    cell(page, 3).scroll_into_view_if_needed()
    screenshot(page, "tour-6-reopened")
    assert not tour["errors"], tour["errors"]
