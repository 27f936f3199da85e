"""Workspace trust: a project's own settings files may add deny/ask rules at once; their allow
rules, mode and additional directories count only once the user trusts the folder — case
tables × the mode ladder, on real files, through the engine, the CLI and our own writes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from perm_tools import Judge

from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.permission.settings import SettingsStore
from jupyter_agenttools.permission.trust import NO_TRUST_NEEDED
from jupyter_agenttools.permission.types import PermissionMode

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


@pytest.fixture
def store(tmp_path):
    return SettingsStore(tmp_path / "proj", user_dir=tmp_path / "user",
                         managed_path=tmp_path / "managed.json")


def write(path: Path, permissions: dict, **top) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"permissions": permissions, **top}, indent=2))


def decide(store, text, mode=None):
    engine = PermissionEngine(settings=store, mode=mode)
    return engine.decide(Judge(), {"text": text}), engine


# what a cloned repository ships, and what each part does before / after trust
CLONED = {"mode": "bypass", "allow": ["Judge(build*)"], "deny": ["Judge(rm*)"],
          "ask": ["Judge(push*)"], "additional_directories": ["../shared"]}


@pytest.mark.parametrize("layer", ["project", "local"])
@pytest.mark.parametrize("text,untrusted,trusted", [
    ("build all", "ask", "allow"),     # its allow rule: only once trusted
    ("rm -rf x", "deny", "deny"),      # its deny rule: at once
    ("push it", "ask", "ask"),         # its ask rule: at once
    ("other", "ask", "allow"),         # its mode (bypass): only once trusted
])
def test_a_cloned_projects_settings_before_and_after_trust(store, layer, text, untrusted,
                                                           trusted):
    write(store.path(layer), CLONED)
    d, engine = decide(store, text)
    assert d.behavior.value == untrusted, d.trace
    assert engine.mode is PermissionMode.DEFAULT
    assert str(store.project_root.parent / "shared") not in \
        {os.path.normpath(p) for p in engine.context.working_directories}
    ignored = {(i["layer"], i["key"]) for i in store.load().ignored}
    assert ignored == {(layer, "allow"), (layer, "mode"), (layer, "additional_directories")}
    state = store.set_trust()
    assert state.trusted and not state.changed
    d, engine = decide(store, text)
    assert d.behavior.value == trusted, d.trace
    assert engine.mode is PermissionMode.BYPASS
    assert store.load().ignored == []


@pytest.mark.parametrize("session_mode,untrusted,trusted", [
    ("default", "ask", "allow"), ("accept_edits", "ask", "allow"), ("explore", "deny", "deny"),
    ("bypass", "allow", "allow"), ("dont_ask", "deny", "allow"),
])
def test_untrusted_allow_rules_never_allow_in_any_mode(store, session_mode, untrusted, trusted):
    write(store.path("project"), {"allow": ["Judge(build*)"]})
    assert decide(store, "build", session_mode)[0].behavior.value == untrusted
    store.set_trust()
    assert decide(store, "build", session_mode)[0].behavior.value == trusted


@pytest.mark.parametrize("edit,still_trusted", [
    ({"deny": ["Judge(rm*)"]}, True),                 # stricter: no new trust needed
    ({"ask": ["Judge(x)"]}, True),
    ({"allow": ["Judge(curl*)"]}, False),             # more permissive: ask again
    ({"mode": "dont_ask"}, False),
    ({"additional_directories": ["/"]}, False),
])
def test_a_changed_file_asks_again_only_when_it_grants_more(store, edit, still_trusted):
    write(store.path("project"), {"allow": ["Judge(build*)"]})
    store.set_trust()
    data = json.loads(store.path("project").read_text())
    for key, value in edit.items():
        data["permissions"][key] = data["permissions"].get(key, []) + value \
            if isinstance(value, list) else value
    store.path("project").write_text(json.dumps(data))   # by hand, or a git pull
    state = store.current_trust()
    assert state.trusted is still_trusted and state.changed is not still_trusted
    # a changed file holds back every allow rule, the ones trusted before included
    expected = "allow" if still_trusted else "ask"
    assert decide(store, "build")[0].behavior.value == expected


def test_our_own_writes_keep_a_trusted_project_trusted(store):
    write(store.path("project"), {"allow": ["Judge(build*)"]})
    store.set_trust()
    engine = PermissionEngine(settings=store)
    for n in range(3):  # three "Always allow" clicks
        engine.add_rule(f"Judge(tool{n})", layer="local")
        assert store.current_trust().trusted
        assert engine.decide(Judge(), {"text": f"tool{n}"}).behavior.value == "allow"
    store.set_mode("local", "dont_ask")
    assert store.current_trust().trusted and engine.mode is PermissionMode.DONT_ASK
    entry = json.loads(store.path("user").read_text())["trusted_projects"][
        str(store.project_root)]
    assert len(entry["also_sha256"]) >= 4  # every earlier state stays trusted (crash-safe)


def test_a_fresh_project_written_only_by_us_needs_no_trust_step(store):
    assert store.current_trust().digest == NO_TRUST_NEEDED
    engine = PermissionEngine(settings=store)
    engine.add_rule("Judge(go)", layer="local")          # the first "Always allow"
    assert engine.decide(Judge(), {"text": "go"}).behavior.value == "allow"


def test_our_write_to_an_untrusted_file_does_not_launder_it(store):
    """The user adds a rule to a project that shipped its own allow rule: the shipped rule
    must not become trusted by the user's click."""
    write(store.path("local"), {"allow": ["Judge(evil*)"]})
    engine = PermissionEngine(settings=store)
    engine.add_rule("Judge(mine)", layer="local")
    assert not store.current_trust().trusted
    assert engine.decide(Judge(), {"text": "evil"}).behavior.value == "ask"
    assert engine.decide(Judge(), {"text": "mine"}).behavior.value == "ask"  # held back too
    assert {i["value"] for i in store.load().ignored} == {"Judge(evil*)", "Judge(mine)"}


def test_trust_is_honoured_in_the_user_layer_only(store):
    digest = store.current_trust().digest
    write(store.path("project"), {"allow": ["Judge(x)"]},
          trusted_projects={str(store.project_root): {"sha256": digest}})
    assert not store.current_trust().trusted
    ignored = {(i["layer"], i["key"]) for i in store.load().ignored}
    assert ("project", "trusted_projects") in ignored


def test_revoke_and_a_moved_folder(store, tmp_path):
    write(store.path("project"), {"allow": ["Judge(x)"]})
    store.set_trust()
    assert store.current_trust().trusted
    store.set_trust(False)
    assert not store.current_trust().trusted
    store.set_trust()
    moved = tmp_path / "elsewhere"
    os.rename(store.project_root, moved)   # trust is keyed by folder
    other = SettingsStore(moved, user_dir=tmp_path / "user",
                          managed_path=tmp_path / "managed.json")
    assert not other.current_trust().trusted


def run_cli(*args, env):
    environ = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(HERE)]), **env}
    return subprocess.run([sys.executable, "-m", "jupyter_agenttools.cli", *args],
                          capture_output=True, text=True, env=environ, timeout=120)


def test_cli_trust_show_revoke_and_settings_show(tmp_path):
    env = {"AGENTTOOLS_USER_DIR": str(tmp_path / "user"),
           "AGENTTOOLS_MANAGED_SETTINGS": str(tmp_path / "managed.json")}
    proj = tmp_path / "proj"
    write(proj / ".agenttools" / "settings.json", {"allow": ["Bash"], "mode": "bypass"})
    r = run_cli("settings", "--project", str(proj), env=env)
    assert "project trust: NOT trusted" in r.stdout
    assert "project  allow: Bash  -- the project's settings are not trusted yet" in r.stdout
    r = run_cli("trust", str(proj), "--show", "--json", env=env)
    assert json.loads(r.stdout)["trusted"] is False
    r = run_cli("trust", str(proj), env=env)
    assert r.returncode == 0 and "now in force: project mode: bypass" in r.stdout
    r = run_cli("check", "--project", str(proj), "--json", "--", "curl x | sh", env=env)
    assert (json.loads(r.stdout)["mode"], r.returncode) == ("bypass", 0)
    r = run_cli("trust", str(proj), "--revoke", env=env)
    assert r.returncode == 0 and "no longer trusted" in r.stdout
    r = run_cli("check", "--project", str(proj), "--json", "--", "curl x | sh", env=env)
    assert (json.loads(r.stdout)["mode"], r.returncode) == ("default", 1)
