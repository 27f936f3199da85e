"""What changed since a project was trusted: the user trust keeps a copy of the trusted parts
(in the user's own settings file, never the project's), and a change is shown as a readable
diff — rules added or removed, the mode from → to — before the user trusts again. The copy is
only shown: the hash decides, and a copy that does not hash to the trusted one is ignored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.permission.settings import SettingsStore
from jupyter_agenttools.permission.trust import (
    changes_summary,
    trust_changes,
    trusted_parts,
)

SHIPPED = {"mode": "accept_edits", "allow": ["Bash(make test:*)"], "deny": ["Bash(rm:*)"],
           "additional_directories": ["../shared"]}


@pytest.fixture
def store(tmp_path):
    return SettingsStore(tmp_path / "proj", user_dir=tmp_path / "user",
                         managed_path=tmp_path / "managed.json")


def write(path: Path, permissions: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"permissions": permissions}, indent=2))


def edited(**changes) -> dict:
    data = json.loads(json.dumps(SHIPPED))
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


def texts(changes) -> list[str]:
    return [c["text"] for c in changes]


# (the project file after a `git pull`, what the user is shown: (layer, key, change, text))
CASES = [
    pytest.param(edited(allow=["Bash(make test:*)", "Bash(curl:*)"]),
                 [("project", "allow", "added", "+ allow Bash(curl:*)")], id="rule-added"),
    pytest.param(edited(allow=[]),
                 [("project", "allow", "removed", "− allow Bash(make test:*)")],
                 id="rule-removed"),
    pytest.param(edited(allow=["Bash(make:*)"]),
                 [("project", "allow", "removed", "− allow Bash(make test:*)"),
                  ("project", "allow", "added", "+ allow Bash(make:*)")], id="rule-widened"),
    pytest.param(edited(mode="bypass"),
                 [("project", "mode", "changed", "mode accept_edits → bypass")],
                 id="mode-changed"),
    pytest.param(edited(mode=None),
                 [("project", "mode", "removed", "mode accept_edits → (not set)")],
                 id="mode-removed"),
    pytest.param(edited(additional_directories=["../shared", "/"]),
                 [("project", "additional_directories", "added", "+ directory /")],
                 id="directory-added"),
    pytest.param(edited(allow=[{"rule": "Bash(make test:*)", "examples": ["make test x"]}]),
                 [("project", "allow", "changed",
                   "~ allow Bash(make test:*) (its examples changed)")], id="examples-changed"),
    pytest.param(edited(mode="dont_ask", allow=["Bash(make test:*)", "Bash"]),
                 [("project", "allow", "added", "+ allow Bash"),
                  ("project", "mode", "changed", "mode accept_edits → dont_ask")],
                 id="rule-and-mode"),
]


@pytest.mark.parametrize("after,expected", CASES)
def test_a_change_since_the_trust_is_shown_as_a_diff(store, after, expected):
    write(store.path("project"), SHIPPED)
    store.set_trust()
    write(store.path("project"), after)   # by hand, or a git pull
    state = store.current_trust()
    assert state.changed and not state.trusted
    changes = state.changes()
    assert [(c["layer"], c["key"], c["change"], c["text"]) for c in changes] == expected
    assert all(c["file"] == ".agenttools/settings.json" for c in changes)
    assert state.to_dict()["changes"] == changes     # what the panel and the REST answer get


def test_a_new_deny_rule_changes_nothing_that_needs_trust(store):
    write(store.path("project"), SHIPPED)
    store.set_trust()
    write(store.path("project"), edited(deny=["Bash(rm:*)", "Bash(curl:*)"]))
    state = store.current_trust()
    assert state.trusted and state.changes() == []


def test_the_local_file_is_named_and_diffed_apart(store):
    write(store.path("project"), SHIPPED)
    store.set_trust()
    write(store.path("local"), {"allow": ["Read(**)"], "mode": "bypass"})
    changes = store.current_trust().changes()
    assert [(c["layer"], c["file"], c["text"]) for c in changes] == [
        ("local", ".agenttools/settings.local.json", "+ allow Read(**)"),
        ("local", ".agenttools/settings.local.json", "mode (not set) → bypass")]


def test_the_copy_lives_in_the_user_file_and_follows_our_own_writes(store):
    write(store.path("project"), SHIPPED)
    store.set_trust()
    user = json.loads(store.path("user").read_text())
    entry = user["trusted_projects"][str(store.project_root)]
    assert entry["trusted"] == trusted_parts({"project": {"permissions": SHIPPED}})
    assert "trusted_projects" not in json.loads(store.path("project").read_text())
    # an "Always allow" click keeps the folder trusted, and the copy up to date: a later
    # change by someone else shows only what they changed
    PermissionEngine(settings=store).add_rule("Bash(ls:*)", layer="project")
    data = json.loads(store.path("project").read_text())
    data["permissions"]["mode"] = "bypass"
    store.path("project").write_text(json.dumps(data))
    assert texts(store.current_trust().changes()) == ["mode accept_edits → bypass"]


def test_a_copy_that_does_not_hash_to_the_trusted_one_is_not_shown(store):
    write(store.path("project"), SHIPPED)
    store.set_trust()
    path = store.path("user")
    user = json.loads(path.read_text())
    entry = user["trusted_projects"][str(store.project_root)]
    entry["trusted"]["project"]["allow"] = ["Bash(curl:*)"]   # edited by hand: a lie
    path.write_text(json.dumps(user))
    write(store.path("project"), edited(allow=["Bash(make test:*)", "Bash(curl:*)"]))
    state = store.current_trust()
    assert state.changed and state.changes() is None  # not known, rather than wrong


def test_a_trust_recorded_without_a_copy_says_it_cannot_show_the_change(store):
    write(store.path("project"), SHIPPED)
    store.set_trust()
    path = store.path("user")
    user = json.loads(path.read_text())
    del user["trusted_projects"][str(store.project_root)]["trusted"]  # an earlier version's
    path.write_text(json.dumps(user))
    write(store.path("project"), edited(mode="bypass"))
    assert store.current_trust().changes() is None
    store.set_trust()   # trusting again records the copy
    write(store.path("project"), edited(mode="dont_ask"))
    assert texts(store.current_trust().changes()) == ["mode bypass → dont_ask"]


def test_the_same_rules_in_another_order_say_so():
    before = {"project": {"allow": ["A", "B"]}, "local": {}}
    after = {"project": {"allow": ["B", "A"]}, "local": {}}
    assert texts(trust_changes(before, after)) == ["the same allow entries in another order"]


def test_the_summary_is_short():
    changes = trust_changes({"project": {}, "local": {}},
                            {"project": {"allow": ["A", "B", "C", "D"]}, "local": {}})
    assert changes_summary(changes) == "+ allow A; + allow B; + allow C; and 1 more"
    assert changes_summary(None) == changes_summary([]) == ""


def test_cli_trust_show_lists_what_changed(tmp_path):
    import os
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(repo),
           "AGENTTOOLS_USER_DIR": str(tmp_path / "user"),
           "AGENTTOOLS_MANAGED_SETTINGS": str(tmp_path / "managed.json")}
    proj = tmp_path / "proj"
    write(proj / ".agenttools" / "settings.json", SHIPPED)

    def cli(*args: str) -> str:
        return subprocess.run([sys.executable, "-m", "jupyter_agenttools.cli", "trust",
                               str(proj), *args], capture_output=True, text=True, env=env,
                              timeout=120, check=True).stdout

    cli()
    write(proj / ".agenttools" / "settings.json", edited(mode="bypass"))
    out = cli("--show")
    assert "changed: mode accept_edits → bypass (.agenttools/settings.json)" in out
    assert [c["text"] for c in json.loads(cli("--show", "--json"))["changes"]] == [
        "mode accept_edits → bypass"]
