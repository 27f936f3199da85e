"""Trusting a cloned project, as a person meets it in a real JupyterLab and Chromium.

The server's root holds a cloned repository, ``repo/``, whose ``.agenttools/settings.json``
ships an allow rule (``Bash(make test:*)``), a mode (``accept_edits``) and a deny rule. The
notebook inside it works in that project (its kernel starts there). Until the person trusts
the folder, the deny rule counts and the allow rule and the mode do not:

1. ``%load_ext`` says the project's settings are not trusted; the panel shows the kernel's
   project (``repo/``, not the server's root) as not trusted, with what is held back marked in
   the rule list and a **Trust this folder** button; the status bar says ``default``;
2. a run calling ``make test`` — what the shipped rule would approve — asks (and is denied);
3. a real click on **Trust this folder**: the panel, the kernel card and the status bar switch
   to the project's mode, the rule is in force, and the trust is recorded in the user
   settings (``trusted_projects``, with the hash of the trusted parts);
4. the same call in a new run is allowed by the rule, without a question (``make`` ran);
5. after a reload of the page the panel still shows the folder as trusted;
6. **Stop trusting** takes the trust back (the rule and the mode are held back again);
7. ``%agent trust`` in the notebook trusts it again, and the panel follows by itself;
8. a change of the trusted parts (a new allow rule, another mode) holds them back again:
   "Changed since you trusted it" with what changed (``+ allow Bash(curl:*)``, ``mode
   accept_edits → bypass``, from the copy of the trusted settings in the user's file), and the
   question card of a run that the trusted rule would have allowed says the same; **Trust
   again** trusts the new content.

Screenshots: test-artifacts/trust-*.png.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lab_harness import (
    cell,
    chromium_page,
    failure_screenshot,
    open_agent_panel,
    open_notebook,
    run_cell,
    screenshot,
    wait_kernel,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(420)]

TOKEN = "agenttools-trust-test"
RULE = "Bash(make test:*)"
PROJECT_SETTINGS = {"permissions": {"mode": "accept_edits", "allow": [RULE],
                                    "deny": ["Bash(git push:*)"]}}
MAKEFILE = "test:\n\techo ran > tested.txt\n"


def _model(name: str, answer: str) -> str:
    return (f"{name} = ScriptedModel([[{{'name': 'Bash', 'input': {{'command': 'make test'}}}}],\n"
            f"    {answer!r}])")


CELLS = [
    "%load_ext jupyter_agenttools\n"
    "from jupyter_agenttools import ScriptedModel\n"
    + _model("m_before", "I did not run the tests.") + "\n"
    + _model("m_after", "The tests ran."),
    "%%agent --model m_before --as before\nRun the tests.",
    "%%agent --model m_after --as after\nRun the tests again.",
    "%agent trust",
    _model("m_changed", "Not run.") + "\n",
    "%%agent --model m_changed --as changed\nRun the tests once more.",
]


@pytest.fixture
def lab(lab_server):
    def fill(root: Path) -> None:
        repo = root / "repo"
        (repo / ".agenttools").mkdir(parents=True)
        (repo / ".agenttools" / "settings.json").write_text(json.dumps(PROJECT_SETTINGS))
        (repo / "Makefile").write_text(MAKEFILE)

    return lab_server(TOKEN, {"repo/analysis.ipynb": CELLS}, prepare=fill)


def test_trusting_the_cloned_project_in_the_panel_lets_its_allow_rule_count(lab):
    from playwright.sync_api import expect

    repo = (lab.root / "repo").resolve()
    user_settings = lab.tmp_path / "user-settings" / "settings.json"
    with chromium_page(1400, 1000) as (page, errors), \
            failure_screenshot(page, "trust-failure", lab.log_path):
        open_notebook(page, lab.base, TOKEN, "repo/analysis.ipynb")
        run_cell(page, 0)
        # 1. the first thing a person reads says the project's settings are held back
        expect(cell(page, 0).locator(".jp-OutputArea-output")).to_contain_text(
            "project settings not trusted (%agent trust)")
        panel = open_agent_panel(page)
        kernel = panel.locator(".agenttools-kernel[data-notebook='repo/analysis.ipynb']")
        expect(kernel.locator(".agenttools-kernel-untrusted")).to_contain_text(
            "not trusted yet", timeout=15_000)
        kernel.locator(".agenttools-review-trust").click()  # the card's way to the button
        # the project shown is the notebook kernel's, not the server's root
        expect(panel.locator(".agenttools-project-select")).to_have_value(str(repo),
                                                                           timeout=15_000)
        expect(panel.locator(".agenttools-project-root")).to_have_text(str(repo))
        untrusted = panel.locator(".agenttools-untrusted")
        expect(untrusted).to_contain_text("not trusted", timeout=15_000)
        button = untrusted.locator("button.agenttools-trust-button")
        expect(button).to_have_text("Trust this folder")
        allow = panel.locator(f".agenttools-rule[data-rule='{RULE}'][data-layer='project']")
        expect(allow).to_have_attribute("data-active", "false")
        expect(allow.locator(".agenttools-held-back")).to_contain_text("not in force")
        deny = panel.locator(".agenttools-rule[data-rule='Bash(git push:*)']")
        expect(deny).to_have_attribute("data-active", "true")
        expect(panel.locator(".agenttools-effective-mode")).to_have_text("default")
        expect(panel.locator("#agenttools-mode-project")).to_have_value("accept_edits")
        expect(panel.locator(".agenttools-mode-row[data-layer='project'] .agenttools-held-back")
               ).to_contain_text("not in force")
        expect(page.locator("#agenttools-status-mode")).to_contain_text(
            "Agent: default · not trusted")
        screenshot(page, "trust-1-untrusted")

        # 2. what the shipped rule would approve still asks
        run_cell(page, 1)
        card = cell(page, 1).locator(".agenttools-question")
        expect(card.locator(".agenttools-question-title")).to_have_text(
            "Permission needed: Bash: make test", timeout=60_000)
        expect(card.locator(".agenttools-why")).to_contain_text(
            f"The project's rule {RULE} (.agenttools/settings.json) would allow it, but this "
            "folder is not trusted yet")
        # "Always allow" would save a rule that waits for the trust too: the card says so
        expect(card.locator(".agenttools-where")).to_contain_text(
            "counts only once you trust it")
        # the panel's list of open questions says the same
        expect(kernel.locator(".agenttools-pending-item .agenttools-why")).to_contain_text(
            "not trusted yet", timeout=15_000)
        card.scroll_into_view_if_needed()
        screenshot(page, "trust-2-asks")
        card.locator("button.agenttools-deny").click()
        expect(cell(page, 1).locator(".jp-RenderedMarkdown")).to_contain_text(
            "you denied it", timeout=30_000)
        assert not (repo / "tested.txt").exists()
        # the question's notification does not outlive the question (even one answered
        # before its toast was on screen)
        expect(page.locator(".Toastify__toast", has_text="The agent asks")).to_have_count(
            0, timeout=20_000)

        # 3. a real click on the button trusts the folder; everything shown follows
        button.click()
        trusted = panel.locator(".agenttools-trusted")
        expect(trusted).to_contain_text("Trusted", timeout=15_000)
        expect(panel.locator("button.agenttools-trust-button")).to_have_count(0)
        expect(allow).to_have_attribute("data-active", "true")
        expect(allow.locator(".agenttools-held-back")).to_have_count(0)
        expect(panel.locator(".agenttools-effective-mode")).to_have_text("accept_edits")
        expect(kernel.locator(".agenttools-kernel-untrusted")).to_have_count(0, timeout=15_000)
        expect(kernel.locator(".agenttools-mode-badge")).to_have_text("accept_edits",
                                                                      timeout=15_000)
        expect(page.locator("#agenttools-status-mode")).to_have_text(
            "Agent: accept_edits", timeout=15_000)
        recorded = json.loads(user_settings.read_text())["trusted_projects"][str(repo)]
        assert len(recorded["sha256"]) == 64 and recorded["trusted_at"]
        screenshot(page, "trust-3-trusted")

        # 4. the same call in a new run: allowed by the project's rule, no question
        run_cell(page, 2)
        final = cell(page, 2).locator(".jp-RenderedMarkdown")
        expect(final).to_contain_text("The tests ran.", timeout=60_000)
        expect(final).to_contain_text(f"allowed by {RULE}")
        expect(cell(page, 2).locator(".agenttools-question")).to_have_count(0)
        assert (repo / "tested.txt").read_text().strip() == "ran"
        cell(page, 2).scroll_into_view_if_needed()
        screenshot(page, "trust-4-allowed")

        # 5. after a reload the trust is still there (it lives in the user settings)
        page.reload()
        page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=60_000)
        wait_kernel(page)
        panel = open_agent_panel(page)
        expect(panel.locator(".agenttools-project-root")).to_have_text(str(repo),
                                                                       timeout=15_000)
        expect(panel.locator(".agenttools-trusted")).to_contain_text("Trusted",
                                                                     timeout=15_000)
        expect(panel.locator("button.agenttools-trust-button")).to_have_count(0)
        screenshot(page, "trust-5-reloaded")
        assert json.loads(user_settings.read_text())["trusted_projects"][str(repo)] == recorded

        # 6. "Stop trusting" takes it back: held back again, the button is back
        panel.locator("button.agenttools-untrust-button").click()
        expect(panel.locator("button.agenttools-trust-button")).to_have_text(
            "Trust this folder", timeout=15_000)
        expect(panel.locator(".agenttools-effective-mode")).to_have_text("default")
        expect(allow).to_have_attribute("data-active", "false")
        assert str(repo) not in json.loads(user_settings.read_text()).get("trusted_projects",
                                                                          {})

        # 7. `%agent trust` in the notebook: the panel follows by itself (no click on refresh)
        run_cell(page, 3)
        expect(cell(page, 3).locator(".jp-OutputArea-output")).to_contain_text("now in force")
        expect(panel.locator(".agenttools-trusted")).to_contain_text("Trusted", timeout=8_000)
        expect(allow).to_have_attribute("data-active", "true")
        screenshot(page, "trust-6-magic")

        # 8. someone changes the trusted parts (a git pull adds an allow rule): held back
        # again, and the panel says what happened
        changed = json.loads(json.dumps(PROJECT_SETTINGS))
        changed["permissions"]["allow"].append("Bash(curl:*)")
        changed["permissions"]["mode"] = "bypass"
        (repo / ".agenttools" / "settings.json").write_text(json.dumps(changed))
        untrusted = panel.locator(".agenttools-untrusted")
        expect(untrusted).to_contain_text("Changed since you trusted it", timeout=15_000)
        expect(untrusted.locator("button.agenttools-trust-button")).to_have_text("Trust again")
        expect(untrusted.locator(".agenttools-held-list")).to_contain_text("Bash(curl:*)")
        # what changed, read from the copy of what was trusted (in the user's own file)
        changes = untrusted.locator(".agenttools-trust-change")
        expect(changes).to_have_text(["+ allow Bash(curl:*) .agenttools/settings.json",
                                      "mode accept_edits → bypass .agenttools/settings.json"])
        expect(changes.first).to_have_attribute("data-change", "added")
        expect(kernel.locator(".agenttools-kernel-untrusted")).to_contain_text(
            "changed since you trusted them", timeout=15_000)
        screenshot(page, "trust-7-changed")

        # the question card of a call the trusted rule would have allowed says what changed
        run_cell(page, 4)
        run_cell(page, 5)
        card = cell(page, 5).locator(".agenttools-question")
        expect(card.locator(".agenttools-why")).to_contain_text(
            "this folder's settings changed since you trusted them (+ allow Bash(curl:*); "
            "mode accept_edits → bypass)", timeout=60_000)
        card.scroll_into_view_if_needed()
        screenshot(page, "trust-8-changed-card")
        card.locator("button.agenttools-deny").click()
        expect(cell(page, 5).locator(".jp-RenderedMarkdown")).to_contain_text(
            "you denied it", timeout=30_000)

        # Trust again: the new content is trusted, the list of changes is gone
        untrusted.locator("button.agenttools-trust-button").click()
        expect(panel.locator(".agenttools-trusted")).to_contain_text("Trusted", timeout=15_000)
        expect(panel.locator(".agenttools-trust-change")).to_have_count(0)
        expect(panel.locator(".agenttools-effective-mode")).to_have_text("bypass")
    assert not errors, f"page errors: {errors}"
