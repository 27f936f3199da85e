"""The agent panel shows the running kernels' agents, in a real JupyterLab and Chromium.

The notebook works in a project folder of its own (it changes directory before
``%load_ext``, as the tutorials do), sets a session mode and a session rule, and starts a run
that waits on a question. The panel — at JupyterLab's default sidebar width — must show that
kernel's project (not the server's root), its effective mode with the override marked, the
session rule, the open question with a way to it, and that project's audit log, which
refreshes by itself. Screenshot: test-artifacts/panel-kernels.png.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from lab_harness import ARTIFACTS, CHROMIUM, running_lab, write_notebook

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

KERNEL_IDLE = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  const kernel = w && w.sessionContext && w.sessionContext.session &&
                 w.sessionContext.session.kernel;
  return !!kernel && kernel.status === 'idle';
}"""


@pytest.fixture
def lab(tmp_path: Path):
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (Debian package 'chromium'; CI installs it)")
    root = tmp_path / "root"
    root.mkdir()
    write_notebook(root / "elsewhere.ipynb", CELLS)
    with running_lab(tmp_path, root, TOKEN) as (base, _log):
        yield base, root


def _run_all(page) -> None:
    for _ in range(3):
        accept = page.locator(".jp-Dialog button.jp-mod-accept")
        if accept.count():
            accept.first.click()
        page.wait_for_function(KERNEL_IDLE, timeout=90_000)
        page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
        prompt = page.locator(".jp-Notebook .jp-Cell .jp-InputPrompt").first
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if prompt.inner_text().strip() not in ("[ ]:", ""):
                return
            page.wait_for_timeout(250)
    raise AssertionError("the cells never ran")


def test_panel_shows_the_kernels_project_mode_rules_questions_and_audit(lab):
    from playwright.sync_api import expect, sync_playwright

    base, root = lab
    project = str((root / "work").resolve())
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(f"{base}/lab/tree/elsewhere.ipynb?token={TOKEN}&reset")
            page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=60_000)
            page.wait_for_function("() => window.jupyterapp !== undefined", timeout=30_000)
            _run_all(page)
            cell = page.locator(".jp-Notebook .jp-Cell").nth(1)
            expect(cell.locator("button.agenttools-allow_once")).to_be_enabled(timeout=60_000)

            # the status bar: this notebook's mode, its override, and one question waiting
            status = page.locator("#agenttools-status-mode")
            expect(status).to_contain_text("Agent: accept_edits (session)", timeout=15_000)
            expect(status.locator(".agenttools-pending-badge")).to_have_text("1 ?")

            page.locator(".jp-SideBar.jp-mod-left [data-id='agenttools-permissions']").click()
            panel = page.locator("#agenttools-permissions")
            kernel = panel.locator(".agenttools-kernel[data-notebook='elsewhere.ipynb']")
            expect(kernel).to_be_visible(timeout=15_000)
            expect(kernel.locator(".agenttools-kernel-project")).to_have_text(project)
            expect(kernel.locator(".agenttools-mode-badge")).to_have_text("accept_edits")
            expect(kernel.locator(".agenttools-override")).to_contain_text(
                "set in this kernel (the settings say default)")
            expect(kernel.locator(".agenttools-session-rules")).to_contain_text(
                "Bash(make test:*)")
            question = kernel.locator(".agenttools-pending-item")
            expect(question).to_contain_text('Bash: python3 -c "print(6 * 7)"')
            expect(question.locator(".agenttools-why")).to_contain_text("accept_edits mode")

            # the project shown below is the kernel's, with its audit log
            expect(panel.locator(".agenttools-project-select")).to_have_value(project)
            expect(panel.locator(".agenttools-project-root")).to_have_text(project)
            rows = panel.locator(".agenttools-audit-row[data-tool='Bash']")
            expect(rows.first).to_be_visible(timeout=15_000)
            before = rows.count()
            page.screenshot(path=str(ARTIFACTS / "panel-kernels.png"))

            # "Show" brings the card into view; answering it there empties the list and the
            # audit view picks up the answer by itself (no click on refresh)
            question.locator(".agenttools-show-question").click()
            card = cell.locator(".agenttools-question")
            expect(card).to_be_focused(timeout=10_000)
            page.keyboard.press("1")  # the card's shortcut for "Allow once"
            expect(card.locator(".agenttools-answer")).to_contain_text("allowed once",
                                                                      timeout=30_000)
            expect(kernel.locator(".agenttools-pending-item")).to_have_count(0, timeout=15_000)
            expect(status.locator(".agenttools-pending-badge")).to_be_hidden()
            expect(rows).not_to_have_count(before, timeout=15_000)
            expect(panel.locator(".agenttools-audit-row", has_text="allow_once")).to_have_count(
                1, timeout=15_000)
            page.screenshot(path=str(ARTIFACTS / "panel-answered.png"))
            assert not errors, errors
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "panel-failure.png"))
            raise
        finally:
            browser.close()
