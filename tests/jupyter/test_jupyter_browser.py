"""The approval click in a real browser: JupyterLab on loopback, Debian's Chromium via Playwright.

The test writes a notebook, starts ``jupyter lab`` (token, throwaway settings and workspaces),
runs the notebook's cells, clicks **Allow once** in the ``%%agent`` cell's output and waits for
the resumed run's result to appear in the same output. A screenshot goes to test-artifacts/.
"""

from __future__ import annotations

import pytest
from lab_harness import (
    cell,
    chromium_page,
    failure_screenshot,
    open_notebook,
    run_all_cells,
    screenshot,
    settle,
)

pytestmark = pytest.mark.browser

TOKEN = "agenttools-browser-test"

CELLS = [
    '%load_ext jupyter_agenttools\n'
    'from jupyter_agenttools import ScriptedModel\n'
    'notes = []\n'
    '@agent_tool\n'
    'def add_note(text: str) -> str:\n'
    '    """Append a note to the list."""\n'
    '    notes.append(text)\n'
    '    return f"noted {text}"\n'
    'm = ScriptedModel([[{"name": "add_note", "input": {"text": "from the browser"}}],\n'
    '                   "The note is written."])',
    "%%agent --model m\nWrite a note.",
]


@pytest.fixture
def lab(lab_server):
    return lab_server(TOKEN, {"approve.ipynb": CELLS})


def test_allow_once_click_in_jupyterlab(lab):
    from playwright.sync_api import expect

    with chromium_page(1280, 900) as (page, errors), \
            failure_screenshot(page, "browser-failure"):
        open_notebook(page, lab.base, TOKEN, "approve.ipynb", wait_app=False)
        settle(page)
        page.wait_for_function("() => window.jupyterapp !== undefined", timeout=30_000)
        run_all_cells(page)

        agent_cell = cell(page, 1)
        allow = agent_cell.locator("button.agenttools-allow_once")
        allow.wait_for(timeout=60_000)
        expect(agent_cell.locator(".agenttools-question")).to_contain_text("add_note")
        expect(agent_cell.locator(".agenttools-status")).to_contain_text("waiting")
        screenshot(page, "browser-question")

        allow.click()  # a real click in the cell's output

        # when the run ends, its live panel gives way to the plain Markdown transcript
        # (what a saved notebook keeps): the answer, and the call with how it was allowed
        final = agent_cell.locator(".jp-RenderedMarkdown")
        expect(final).to_contain_text("The note is written.", timeout=30_000)
        expect(final).to_contain_text("add_note")
        expect(final).to_contain_text("you allowed it once")
        expect(final).to_contain_text("agent_run · done")
        screenshot(page, "browser-allow-once")
    assert not errors, f"page errors: {errors}"
