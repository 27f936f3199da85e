"""The approval click in a real browser: JupyterLab on loopback, Debian's Chromium via Playwright.

The test writes a notebook, starts ``jupyter lab`` (token, throwaway settings and workspaces),
runs the notebook's cells, clicks **Allow once** in the ``%%agent`` cell's output and waits for
the resumed run's result to appear in the same output. A screenshot goes to test-artifacts/.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from lab_harness import ARTIFACTS, CHROMIUM, running_lab, write_notebook

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
def lab(tmp_path: Path):
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (Debian package 'chromium'; CI installs it)")
    root = tmp_path / "lab"
    root.mkdir()
    write_notebook(root / "approve.ipynb", CELLS)
    with running_lab(tmp_path, root, TOKEN) as (base, _log):
        yield base, root


def _settle(page, quiet: float = 3.0, timeout: float = 90) -> None:
    """Wait until the notebook's kernel is idle and no dialog has shown for ``quiet`` seconds.

    JupyterLab may ask which kernel to start (its session start can race with the page
    load); the preferred one (Python 3) is accepted."""
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
    """Run every cell; again if none started (a command issued while the kernel connection
    was still being set up is dropped, like the lost first Shift+Enter)."""
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


def test_allow_once_click_in_jupyterlab(lab):
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
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(f"{base}/lab/tree/approve.ipynb?token={TOKEN}&reset")
            page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=60_000)
            _settle(page)
            # Run the cells by command rather than by key press: the first Shift+Enter after
            # the kernel turned idle is sometimes lost (jupyter-feasibility §6).
            page.wait_for_function("() => window.jupyterapp !== undefined", timeout=30_000)
            _run_all(page)

            cell = page.locator(".jp-Notebook .jp-Cell").nth(1)
            allow = cell.locator("button.agenttools-allow_once")
            allow.wait_for(timeout=60_000)
            expect(cell.locator(".agenttools-question")).to_contain_text("add_note")
            expect(cell.locator(".agenttools-status")).to_contain_text("waiting")
            page.screenshot(path=str(ARTIFACTS / "browser-question.png"))

            allow.click()  # a real click in the cell's output

            # when the run ends, its live panel gives way to the plain Markdown transcript
            # (what a saved notebook keeps): the answer, and the call with how it was allowed
            final = cell.locator(".jp-RenderedMarkdown")
            expect(final).to_contain_text("The note is written.", timeout=30_000)
            expect(final).to_contain_text("add_note")
            expect(final).to_contain_text("you allowed it once")
            expect(final).to_contain_text("agent_run · done")
            page.screenshot(path=str(ARTIFACTS / "browser-allow-once.png"))
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "browser-failure.png"))
            raise
        finally:
            browser.close()
    assert not errors, f"page errors: {errors}"
