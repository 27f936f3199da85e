"""The agent adds a cell to the notebook it runs in, in a real JupyterLab (with real-time
collaboration) and Debian's Chromium: the ScriptedModel reads the notebook and asks to insert a
cell (NotebookEdit, a write: a question in default mode); after a real click on "Allow once"
the new cell appears in the open notebook at once (the live shared document), and the file on
disk gets it when JupyterLab's room saves. Screenshots go to test-artifacts/."""

from __future__ import annotations

import time

import nbformat
import pytest
from lab_harness import (
    chromium_page,
    failure_screenshot,
    open_notebook,
    run_all_cells,
    screenshot,
    settle,
)

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
def lab(lab_server):
    return lab_server(TOKEN, {"agent.ipynb": CELLS})


def test_the_agent_adds_a_cell_after_an_approval_click(lab):
    from playwright.sync_api import expect

    with chromium_page(1280, 1000) as (page, errors), \
            failure_screenshot(page, "notebook-edit-failure"):
        open_notebook(page, lab.base, TOKEN, "agent.ipynb", wait_app=False)
        settle(page)
        page.wait_for_function("() => window.jupyterapp !== undefined", timeout=30_000)
        run_all_cells(page)

        cells = page.locator(".jp-Notebook .jp-Cell")
        agent_cell = cells.nth(1)
        allow = agent_cell.locator("button.agenttools-allow_once")
        allow.wait_for(timeout=90_000)
        expect(agent_cell.locator(".agenttools-question")).to_contain_text("NotebookEdit")
        expect(cells).to_have_count(2)  # nothing inserted before the answer
        allow.scroll_into_view_if_needed()
        screenshot(page, "notebook-edit-question")

        allow.click()  # a real click in the cell's output

        expect(cells).to_have_count(3, timeout=30_000)
        new_cell = cells.nth(2)
        expect(new_cell.locator(".jp-InputArea-editor")).to_contain_text(
            "added by the agent", timeout=30_000)
        expect(agent_cell.locator(".jp-RenderedMarkdown")).to_contain_text(
            "I added a cell that describes df.", timeout=30_000)
        new_cell.scroll_into_view_if_needed()
        screenshot(page, "notebook-edit-added")
    assert not errors, f"page errors: {errors}"
    # the room saves the document to the file on its own
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        nb = nbformat.read(str(lab.root / "agent.ipynb"), 4)
        if len(nb.cells) == 3:
            break
        time.sleep(0.5)
    assert [c.source for c in nb.cells][2] == NEW_SOURCE
