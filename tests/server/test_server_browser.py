"""The "Agent permissions" panel in a real JupyterLab, driven through Debian's Chromium.

JupyterLab runs on loopback with a token and throwaway settings, workspaces and agenttools
user/managed settings; the project is a temporary folder holding one notebook. The test opens
the panel, adds a rule by typing it (validated live), checks that it landed in the local
settings file and that it changes the decision of ``%agent check`` in the running notebook,
tries the same command in the panel's playground, and finds the kernel engine's decisions
(before and after the rule) in the audit view; ``%agent check`` itself is a dry run and is not
audited. Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lab_harness import ARTIFACTS, CHROMIUM, running_lab, write_notebook

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

TOKEN = "agenttools-panel-test"
COMMAND = "git push origin main"
RULE = "Bash(git push:*)"
CELLS = [
    "%load_ext jupyter_agenttools",
    f"%agent check {COMMAND}",  # a dry run: shows the decision, writes no audit line
    # the kernel's own engine deciding the call, as gate 4 of an agent run does (audited)
    "from jupyter_agenttools.jupyter.extension import current_session\n"
    "s = current_session()\n"
    f"print('engine:', s.engine.decide(s.toolkit.find_tool('Bash'), {{'command': {COMMAND!r}}})"
    ".behavior)",
]


@pytest.fixture
def lab(tmp_path: Path):
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing (Debian package 'chromium')"
    root = tmp_path / "project"
    root.mkdir()
    write_notebook(root / "check.ipynb", CELLS)
    with running_lab(tmp_path, root, TOKEN) as (base, log_path):
        yield base, root, log_path


KERNEL_IDLE = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  const kernel = w && w.sessionContext && w.sessionContext.session &&
                 w.sessionContext.session.kernel;
  return !!kernel && kernel.status === 'idle';
}"""


def _accept_dialog(page, timeout: int) -> bool:
    """On a loaded machine JupyterLab may ask which kernel to start: take its default."""
    accept = page.locator(".jp-Dialog .jp-mod-accept")
    try:
        accept.wait_for(timeout=timeout)
    except Exception:
        return False
    accept.click()
    return True


def _run_all(page) -> None:
    """Run every cell once the kernel is really there and idle."""
    for _ in range(3):
        _accept_dialog(page, 1_000)
        page.wait_for_function(KERNEL_IDLE, timeout=60_000)
        # By command rather than Shift+Enter, which is sometimes lost right after the kernel
        # turns idle (jupyter-feasibility §6); not awaited: its promise settles only when
        # every cell has run.
        page.evaluate(
            "() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
        if not _accept_dialog(page, 2_000):
            return


def test_panel_rule_changes_the_notebook_decision(lab):
    from playwright.sync_api import expect, sync_playwright

    base, root, log_path = lab
    expect.set_options(timeout=30_000)  # generous: the CI machine has two shared cores
    local_file = root / ".agenttools" / "settings.local.json"
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(f"{base}/lab/tree/check.ipynb?token={TOKEN}&reset")
            page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=60_000)
            page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for(
                timeout=60_000)
            page.wait_for_function("() => window.jupyterapp !== undefined", timeout=30_000)

            # The status bar shows the project's mode before anything is opened.
            expect(page.locator("#agenttools-status-mode")).to_have_text("Agent: default",
                                                                         timeout=30_000)

            # 1. Without a rule, `git push` is an ASK in the notebook.
            _run_all(page)
            check_cell = page.locator(".jp-Notebook .jp-Cell").nth(1)
            output = check_cell.locator(".jp-OutputArea-output")
            expect(output).to_contain_text("ASK", timeout=60_000)
            engine_output = page.locator(".jp-Notebook .jp-Cell").nth(2).locator(
                ".jp-OutputArea-output")
            expect(engine_output).to_have_text("engine: ask", timeout=60_000)

            # 2. Open the panel from the left sidebar (a real click on its tab).
            page.locator(".jp-SideBar.jp-mod-left [data-id='agenttools-permissions']").click()
            panel = page.locator("#agenttools-permissions")
            expect(panel).to_be_visible()
            expect(panel.locator("h2")).to_have_text("Agent")
            expect(panel.locator(".agenttools-effective-mode")).to_have_text("default")
            expect(panel.locator("#agenttools-mode-managed")).to_be_disabled()

            # 3. Live validation: a broken rule is refused before it reaches a file.
            rule_input = panel.locator(".agenttools-add-rule")
            add = panel.locator(".agenttools-add-button")
            status = panel.locator(".agenttools-add-status")
            rule_input.fill("Bash(git push")
            expect(status).to_have_attribute("data-ok", "false")
            expect(status).to_contain_text("closing ')'")
            expect(add).to_be_disabled()
            assert not local_file.exists()

            rule_input.fill(RULE)
            expect(status).to_have_attribute("data-ok", "true")
            expect(add).to_be_enabled()
            panel.locator(".agenttools-add-behavior").select_option("allow")
            panel.locator(".agenttools-add-layer").select_option("local")
            add.click()

            item = panel.locator(
                f".agenttools-rule[data-rule='{RULE}'][data-behavior='allow'][data-layer='local']")
            expect(item).to_be_visible()
            expect(item.locator(".agenttools-file")).to_contain_text("settings.local.json")
            assert json.loads(local_file.read_text())["permissions"]["allow"] == [RULE]

            # 4. The running kernel picks the rule up without a restart.
            _run_all(page)
            expect(output).to_contain_text("ALLOW", timeout=60_000)
            expect(output).to_contain_text(RULE)
            expect(engine_output).to_have_text("engine: allow", timeout=60_000)

            # 5. The playground shows the same verdict with its six-step trace.
            panel.locator(".agenttools-check-tool").select_option("Bash")
            panel.locator(".agenttools-check-input").fill(COMMAND)
            panel.locator(".agenttools-check-button").click()
            decision = panel.locator(".agenttools-check-result .agenttools-decision")
            expect(decision).to_have_attribute("data-behavior", "allow")
            expect(panel.locator(".agenttools-decision-rule")).to_contain_text(RULE)
            expect(panel.locator(".agenttools-trace-step")).to_have_count(6)

            # 6. The audit view lists the notebook's decisions, newest first, filterable.
            panel.locator(".agenttools-audit-tool").fill("Bash")
            panel.locator(".agenttools-audit-refresh").click()
            rows = panel.locator(".agenttools-audit-row")
            expect(rows.first).to_have_attribute("data-behavior", "allow")
            expect(rows.first).to_contain_text(COMMAND)
            panel.locator(".agenttools-audit-behavior").select_option("ask")
            expect(rows.first).to_have_attribute("data-behavior", "ask")
            expect(panel.locator(".agenttools-audit-row[data-behavior='allow']")).to_have_count(0)
            panel.locator(".agenttools-audit-section").scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "agenttools-panel-audit.png"))

            # 7. A mode chosen in the panel reaches the file and the status bar.
            panel.locator("#agenttools-mode-project").select_option("accept_edits")
            expect(panel.locator(".agenttools-effective-mode")).to_have_text("accept_edits")
            expect(page.locator("#agenttools-status-mode")).to_have_text("Agent: accept_edits")
            project = json.loads((root / ".agenttools" / "settings.json").read_text())
            assert project["permissions"]["mode"] == "accept_edits"

            page.screenshot(path=str(ARTIFACTS / "agenttools-panel.png"))
            panel.screenshot(path=str(ARTIFACTS / "agenttools-panel-only.png"))

            # 8. Removing the rule in the panel removes it from the file.
            item.locator(".agenttools-rule-remove").click()
            expect(item).to_have_count(0)
            assert json.loads(local_file.read_text())["permissions"]["allow"] == []
        except BaseException:
            page.screenshot(path=str(ARTIFACTS / "agenttools-panel-failure.png"))
            print(log_path.read_text()[-4000:])
            raise
        finally:
            browser.close()
    assert not errors, f"page errors: {errors}"
