"""The agent adds a cell to the notebook it runs in, in a real JupyterLab (with real-time
collaboration) and Debian's Chromium: the ScriptedModel reads the notebook and asks to insert a
cell (NotebookEdit, a write: a question in default mode); after a real click on "Allow once"
the new cell appears in the open notebook at once (the live shared document), and the file on
disk gets it when JupyterLab's room saves. Screenshots go to test-artifacts/."""

from __future__ import annotations

import time
from pathlib import Path

import nbformat
import pytest
from lab_harness import ARTIFACTS, CHROMIUM, running_lab, write_notebook

pytestmark = pytest.mark.browser

TOKEN = "agenttools-notebook-browser-test"
NEW_SOURCE = "df.describe()  # added by the agent"

CELLS = [
    '%load_ext jupyter_agenttools\n'
    'import pandas as pd\n'
    'from jupyter_agenttools import ScriptedModel\n'
    'df = pd.DataFrame({"city": ["Paris", "Lima"], "temp": [18.0, 22.0]})\n'
    'm = ScriptedModel([\n'
    '    [{"name": "reset_tools", "input": {"notebook": True}}],\n'
    '    [{"name": "NotebookRead", "input": {}}],\n'
    '    [{"name": "NotebookEdit", "input": {"cell_id": "c1", "edit_mode": "insert",\n'
    f'                                        "new_source": {NEW_SOURCE!r}}}}}],\n'
    '    "I added a cell that describes df."])',
    "%%agent --model m\nAdd a cell that summarises df.",
]


@pytest.fixture
def lab(tmp_path: Path):
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (Debian package 'chromium'; CI installs it)")
    root = tmp_path / "lab"
    root.mkdir()
    write_notebook(root / "agent.ipynb", CELLS)
    with running_lab(tmp_path, root, TOKEN) as (base, _log):
        yield base, root


def _settle(page, quiet: float = 3.0, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    calm_since = time.monotonic()
    while time.monotonic() < deadline:
        accept = page.locator(".jp-Dialog .jp-mod-accept")
        if accept.count() and accept.first.is_visible():
            accept.first.click()
            calm_since = time.monotonic()
        elif not page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").count():
            calm_since = time.monotonic()
        elif time.monotonic() - calm_since >= quiet:
            return
        page.wait_for_timeout(200)
    raise AssertionError("the notebook's kernel never settled")


def _run_all(page, attempts: int = 4) -> None:
    prompts = page.locator(".jp-Notebook .jp-Cell .jp-InputPrompt")
    for _ in range(attempts):
        page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if prompts.first.inner_text().strip() not in ("[ ]:", ""):
                return
            page.wait_for_timeout(250)
        _settle(page, quiet=1.0)
    raise AssertionError("the notebook's cells never started")


def test_the_agent_adds_a_cell_after_an_approval_click(lab):
    from playwright.sync_api import expect, sync_playwright

    base, root = lab
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(f"{base}/lab/tree/agent.ipynb?token={TOKEN}&reset")
            page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=60_000)
            _settle(page)
            page.wait_for_function("() => window.jupyterapp !== undefined", timeout=30_000)
            _run_all(page)

            cells = page.locator(".jp-Notebook .jp-Cell")
            agent_cell = cells.nth(1)
            allow = agent_cell.locator("button.agenttools-allow_once")
            allow.wait_for(timeout=90_000)
            expect(agent_cell.locator(".agenttools-question")).to_contain_text("NotebookEdit")
            expect(cells).to_have_count(2)  # nothing inserted before the answer
            allow.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "notebook-edit-question.png"))

            allow.click()  # a real click in the cell's output

            expect(cells).to_have_count(3, timeout=30_000)
            new_cell = cells.nth(2)
            expect(new_cell.locator(".jp-InputArea-editor")).to_contain_text(
                "added by the agent", timeout=30_000)
            expect(agent_cell.locator(".jp-RenderedMarkdown")).to_contain_text(
                "I added a cell that describes df.", timeout=30_000)
            new_cell.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "notebook-edit-added.png"))
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "notebook-edit-failure.png"))
            raise
        finally:
            browser.close()
    assert not errors, f"page errors: {errors}"
    # the room saves the document to the file on its own
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        nb = nbformat.read(str(root / "agent.ipynb"), 4)
        if len(nb.cells) == 3:
            break
        time.sleep(0.5)
    assert [c.source for c in nb.cells][2] == NEW_SOURCE
