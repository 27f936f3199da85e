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
from lab_harness import (
    CHROMIUM,
    chromium_page,
    failure_screenshot,
    open_agent_panel,
    open_notebook,
    run_all_when_idle,
    screenshot,
)

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
def lab(lab_server):
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing (Debian package 'chromium')"
    return lab_server(TOKEN, {"check.ipynb": CELLS}, root="project", require=False)


def test_panel_rule_changes_the_notebook_decision(lab):
    from playwright.sync_api import expect

    expect.set_options(timeout=30_000)  # generous: the CI machine has two shared cores
    local_file = lab.root / ".agenttools" / "settings.local.json"
    with chromium_page(1400, 1000) as (page, errors), \
            failure_screenshot(page, "agenttools-panel-failure", lab.log_path):
        open_notebook(page, lab.base, TOKEN, "check.ipynb", wait_app=False)
        page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for(
            timeout=60_000)
        page.wait_for_function("() => window.jupyterapp !== undefined", timeout=30_000)

        # The status bar shows the project's mode before anything is opened.
        expect(page.locator("#agenttools-status-mode")).to_have_text("Agent: default",
                                                                     timeout=30_000)

        # 1. Without a rule, `git push` is an ASK in the notebook.
        run_all_when_idle(page)
        check_cell = page.locator(".jp-Notebook .jp-Cell").nth(1)
        output = check_cell.locator(".jp-OutputArea-output")
        expect(output).to_contain_text("ASK", timeout=60_000)
        engine_output = page.locator(".jp-Notebook .jp-Cell").nth(2).locator(
            ".jp-OutputArea-output")
        expect(engine_output).to_have_text("engine: ask", timeout=60_000)

        # 2. Open the panel from the left sidebar (a real click on its tab).
        panel = open_agent_panel(page)
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
        run_all_when_idle(page)
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
        screenshot(page, "agenttools-panel-audit")

        # 7. A mode chosen in the panel reaches the file and the status bar.
        panel.locator("#agenttools-mode-project").select_option("accept_edits")
        expect(panel.locator(".agenttools-effective-mode")).to_have_text("accept_edits")
        expect(page.locator("#agenttools-status-mode")).to_have_text("Agent: accept_edits")
        project = json.loads((lab.root / ".agenttools" / "settings.json").read_text())
        assert project["permissions"]["mode"] == "accept_edits"

        screenshot(page, "agenttools-panel")
        screenshot(panel, "agenttools-panel-only")

        # 8. Removing the rule in the panel removes it from the file.
        item.locator(".agenttools-rule-remove").click()
        expect(item).to_have_count(0)
        assert json.loads(local_file.read_text())["permissions"]["allow"] == []
    assert not errors, f"page errors: {errors}"
