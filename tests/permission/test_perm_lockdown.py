"""Managed lock-down: disable_bypass_mode, allowed_modes, managed_rules_only — every way of
choosing a mode (engine, check(), CLI, config trait) × the mode ladder; a session never
overrides the managed layer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from perm_tools import Judge

from jupyter_agenttools.errors import ModeUnavailable
from jupyter_agenttools.permission.check import check
from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.permission.settings import SettingsStore
from jupyter_agenttools.permission.types import PermissionMode

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
MODES = [m.value for m in PermissionMode]


def write(path: Path, permissions: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"permissions": permissions}))


@pytest.fixture
def managed(tmp_path, monkeypatch):
    path = tmp_path / "managed.json"
    monkeypatch.setenv("AGENTTOOLS_MANAGED_SETTINGS", str(path))
    monkeypatch.setenv("AGENTTOOLS_USER_DIR", str(tmp_path / "user"))
    return path


@pytest.fixture
def store(tmp_path, managed):
    return SettingsStore(tmp_path / "proj", user_dir=tmp_path / "user", managed_path=managed)


# managed permissions, then for each mode: can a session choose it?
LOCKS = [
    ({}, {m: True for m in MODES}),
    ({"disable_bypass_mode": True}, {m: m != "bypass" for m in MODES}),
    ({"allowed_modes": ["default", "explore"]},
     {m: m in ("default", "explore") for m in MODES}),
    ({"allowed_modes": ["bypass", "default"], "disable_bypass_mode": True},
     {m: m == "default" for m in MODES}),
]


@pytest.mark.parametrize("lock,available", LOCKS)
@pytest.mark.parametrize("mode", MODES)
def test_every_way_of_choosing_a_mode_obeys_the_managed_file(managed, store, lock, available,
                                                             mode):
    write(managed, lock)
    ok = available[mode]
    # the engine, built with a mode, set later, or asked for one decision
    for make in (lambda: PermissionEngine(mode=mode),
                 lambda: PermissionEngine(mode=mode, settings=store)):
        if ok:
            assert make().mode.value == mode
        else:
            with pytest.raises(ModeUnavailable, match="managed settings"):
                make()
    engine = PermissionEngine(settings=store)
    if ok:
        engine.mode = mode
        assert engine.decide(Judge(), {"text": "x"}, mode=mode).trace
    else:
        with pytest.raises(ModeUnavailable):
            engine.mode = mode
        with pytest.raises(ModeUnavailable):
            engine.decide(Judge(), {"text": "x"}, mode=mode)
        with pytest.raises(ModeUnavailable):
            check(Judge(), {"text": "x"}, mode=mode)
    # the config trait of the notebook
    from traitlets import TraitError

    from jupyter_agenttools.jupyter.config import AgentTools

    config = AgentTools()
    if ok:
        config.mode = mode
    else:
        with pytest.raises(TraitError, match="managed settings"):
            config.mode = mode


@pytest.mark.parametrize("lock,available", LOCKS)
@pytest.mark.parametrize("layer_mode", MODES)
def test_a_settings_mode_the_lockdown_forbids_is_ignored_and_shown(store, managed, lock,
                                                                  available, layer_mode):
    write(managed, lock)
    write(store.path("user"), {"mode": layer_mode})
    engine = PermissionEngine(settings=store)
    merged = store.load()
    if available[layer_mode]:
        assert engine.mode.value == layer_mode
    else:
        assert engine.mode.value != layer_mode and available[engine.mode.value]
        assert ("user", "mode") in {(i["layer"], i["key"]) for i in merged.ignored}


def test_a_session_in_bypass_drops_it_when_the_administrator_disables_it(store, managed):
    engine = PermissionEngine(settings=store, mode="bypass")
    assert engine.mode is PermissionMode.BYPASS
    write(managed, {"disable_bypass_mode": True})
    assert engine.mode is PermissionMode.DEFAULT
    d = engine.decide(Judge(), {"text": "rm -rf /"})
    assert d.behavior.value == "ask"  # never bypass's ALLOW


def test_the_fallback_mode_is_the_managed_one_else_the_first_allowed(store, managed):
    write(managed, {"allowed_modes": ["explore", "dont_ask"]})
    assert PermissionEngine(settings=store).mode is PermissionMode.EXPLORE
    assert PermissionEngine().mode is PermissionMode.EXPLORE   # no settings store: same file
    write(managed, {"allowed_modes": ["explore", "dont_ask"], "mode": "dont_ask"})
    assert PermissionEngine(settings=store).mode is PermissionMode.DONT_ASK


@pytest.mark.parametrize("rule_layer,kept", [("managed", True), ("user", False),
                                             ("project", False), ("local", False),
                                             ("session", False)])
@pytest.mark.parametrize("mode,expected_without", [("default", "ask"), ("dont_ask", "deny"),
                                                   ("accept_edits", "ask")])
def test_managed_rules_only_ignores_every_other_allow_rule(store, managed, rule_layer, kept,
                                                           mode, expected_without):
    lock = {"managed_rules_only": True}
    if rule_layer == "managed":
        lock["allow"] = ["Judge(go)"]
    write(managed, lock)
    rules = ()
    if rule_layer == "session":
        rules = ["Judge(go)"]
    elif rule_layer != "managed":
        write(store.path(rule_layer), {"allow": ["Judge(go)"], "deny": ["Judge(rm*)"]})
        store.set_trust()
    engine = PermissionEngine(settings=store, mode=mode, rules=rules)
    d = engine.decide(Judge(), {"text": "go"})
    assert d.behavior.value == ("allow" if kept else expected_without), d.trace
    if rule_layer not in ("managed", "session"):
        # deny rules of the other layers still apply: they only make things stricter
        assert engine.decide(Judge(), {"text": "rm x"}).behavior.value == "deny"
        assert ("allow" in {i["key"] for i in store.load().ignored})


def test_lockdown_keys_outside_the_managed_file_are_ignored_and_shown(store, managed):
    write(store.path("user"), {"disable_bypass_mode": True, "managed_rules_only": True})
    engine = PermissionEngine(settings=store, mode="bypass")  # the user file cannot lock
    assert engine.mode is PermissionMode.BYPASS
    keys = {(i["layer"], i["key"]) for i in store.load().ignored}
    assert keys == {("user", "disable_bypass_mode"), ("user", "managed_rules_only")}


def run_cli(*args, env):
    environ = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(HERE)]), **env}
    return subprocess.run([sys.executable, "-m", "jupyter_agenttools.cli", *args],
                          capture_output=True, text=True, env=environ, timeout=120)


def test_cli_refuses_a_forbidden_mode_with_a_clear_error(tmp_path, managed):
    write(managed, {"disable_bypass_mode": True})
    env = {"AGENTTOOLS_MANAGED_SETTINGS": str(managed),
           "AGENTTOOLS_USER_DIR": str(tmp_path / "user")}
    r = run_cli("check", "--mode", "bypass", "--", "ls", env=env)
    assert r.returncode == 2
    assert "cannot use the bypass mode" in r.stderr and str(managed) in r.stderr
    assert "Traceback" not in r.stderr
    r = run_cli("check", "--mode", "default", "--", "ls", env=env)
    assert r.returncode == 0, r.stderr
    r = run_cli("settings", "--project", str(tmp_path), env=env)
    assert "managed lock-down: bypass disabled" in r.stdout
