"""An error of a panel action shows where the person is looking, in a real JupyterLab.

The managed settings allow only ``default`` and ``accept_edits``. In a short window the panel
scrolls: the person scrolls down to the default-mode rows and picks ``bypass`` for the
project. The server refuses, and the panel must say so *in view* — the message used to go to
the top of the panel, out of sight, so the click seemed to do nothing. The error can be closed.
Screenshot: test-artifacts/panel-error.png.
"""

from __future__ import annotations

import json

import pytest
from lab_harness import (
    chromium_page,
    failure_screenshot,
    open_agent_panel,
    open_notebook,
    screenshot,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

TOKEN = "agenttools-panel-errors"

#: true when the element is inside the panel's visible (scrolled) area
IN_VIEW = """([selector]) => {
  const panel = document.querySelector('#agenttools-permissions');
  const element = panel.querySelector(selector);
  if (!element || element.hidden) return false;
  const p = panel.getBoundingClientRect(), e = element.getBoundingClientRect();
  return e.height > 0 && e.top >= p.top - 1 && e.bottom <= p.bottom + 1;
}"""


@pytest.fixture
def lab(lab_server, tmp_path):
    (tmp_path / "managed.json").write_text(json.dumps(
        {"permissions": {"allowed_modes": ["default", "accept_edits"]}}))
    return lab_server(TOKEN, {"note.ipynb": ["1 + 1"]})


def test_a_refused_action_says_why_in_view(lab):
    from playwright.sync_api import expect

    with chromium_page(1200, 560) as (page, errors), \
            failure_screenshot(page, "panel-error-failure", lab.log_path):
        open_notebook(page, lab.base, TOKEN, "note.ipynb")
        panel = open_agent_panel(page)
        select = panel.locator("#agenttools-mode-project")
        expect(select).to_be_visible(timeout=15_000)
        # scrolled down to the modes: the top of the panel is out of view
        panel.locator(".agenttools-rules-section").scroll_into_view_if_needed()
        assert panel.evaluate("node => node.scrollTop") > 0
        select.select_option("bypass")
        error = panel.locator(".agenttools-error")
        expect(error).to_contain_text("bypass", timeout=15_000)
        page.wait_for_function(IN_VIEW, arg=[".agenttools-error"], timeout=5_000)
        screenshot(page, "panel-error")
        # nothing was written; the error closes on request
        expect(select).to_have_value("")
        error.locator(".agenttools-error-close").click()
        expect(error).to_be_hidden()
    assert not errors, f"page errors: {errors}"
