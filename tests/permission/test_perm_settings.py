"""Settings layers: merge, deny wins, sources, atomic locked writes, corrupt files, reload."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from perm_tools import Judge

from jupyter_agenttools.errors import RuleExampleError, SettingsError
from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.permission.settings import LAYERS, SettingsStore
from jupyter_agenttools.permission.types import PermissionBehavior as B
from jupyter_agenttools.permission.types import PermissionMode

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def store(tmp_path):
    return SettingsStore(tmp_path / "proj", user_dir=tmp_path / "user",
                         managed_path=tmp_path / "etc" / "managed-settings.json")


def write(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))


def perms(**kw):
    return {"permissions": kw}


def test_layer_paths(store, tmp_path):
    assert store.path("local") == (tmp_path / "proj/.agenttools/settings.local.json").resolve()
    assert store.path("project") == (tmp_path / "proj/.agenttools/settings.json").resolve()
    assert store.path("user") == tmp_path / "user" / "settings.json"
    assert store.path("managed") == tmp_path / "etc" / "managed-settings.json"
    with pytest.raises(SettingsError, match="unknown layer"):
        store.path("global")


def test_env_overrides_default_locations(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTTOOLS_USER_DIR", str(tmp_path / "u"))
    monkeypatch.setenv("AGENTTOOLS_MANAGED_SETTINGS", str(tmp_path / "m.json"))
    s = SettingsStore(tmp_path)
    assert s.path("user") == tmp_path / "u" / "settings.json"
    assert s.path("managed") == tmp_path / "m.json"


def test_merge_scalars_highest_wins_and_rules_keep_their_file(store):
    write(store.path("user"), perms(mode="bypass", allow=["Judge(u)"]))
    write(store.path("project"), perms(mode="dont_ask", allow=["Judge(p)"],
                                       additional_directories=["data", "/abs/dir"]))
    write(store.path("local"), perms(deny=["Judge(l)"]))
    write(store.path("managed"), perms(ask=["Judge(m)"]))
    store.set_trust()  # the project's allow rules, mode and directories count once trusted
    merged = store.load()
    assert merged.mode is PermissionMode.DONT_ASK
    assert merged.mode_source == str(store.path("project"))
    assert [(r.text, r.behavior, r.source) for r in merged.rules] == [
        ("Judge(m)", B.ASK, str(store.path("managed"))),
        ("Judge(l)", B.DENY, str(store.path("local"))),
        ("Judge(p)", B.ALLOW, str(store.path("project"))),
        ("Judge(u)", B.ALLOW, str(store.path("user"))),
    ]
    assert merged.additional_directories == (str(store.project_root / "data"), "/abs/dir")
    assert set(merged.by_layer) == set(LAYERS)


@pytest.mark.parametrize("deny_layer", ["managed", "local", "project", "user"])
@pytest.mark.parametrize("allow_layer", ["managed", "local", "project", "user"])
def test_deny_anywhere_beats_allow_anywhere(store, deny_layer, allow_layer):
    files = {layer: {"allow": [], "deny": []} for layer in LAYERS}
    files[allow_layer]["allow"].append("Judge(git *)")
    files[deny_layer]["deny"].append("Judge(git push*)")
    for layer, p in files.items():
        write(store.path(layer), perms(**p))
    store.set_trust()
    engine = PermissionEngine(settings=store, mode="bypass")
    d = engine.decide(Judge(), {"text": "git push origin", "verdict": "allow"})
    assert (d.behavior, d.step, d.rule.text) == (B.DENY, "deny_rules", "Judge(git push*)")
    assert d.rule_source == str(store.path(deny_layer))
    d = engine.decide(Judge(), {"text": "git status"}, mode="default")
    assert (d.behavior, d.rule_source) == (B.ALLOW, str(store.path(allow_layer)))


def test_engine_mode_follows_settings_unless_set(store):
    write(store.path("project"), perms(mode="explore"))
    store.set_trust()
    engine = PermissionEngine(settings=store)
    assert engine.mode is PermissionMode.EXPLORE
    assert engine.context.mode is PermissionMode.EXPLORE
    engine.mode = "bypass"
    assert engine.mode is PermissionMode.BYPASS
    engine.mode = None
    assert engine.mode is PermissionMode.EXPLORE


def test_additional_directories_extend_the_context(store):
    write(store.path("project"), perms(additional_directories=["../shared"]))
    store.set_trust()
    engine = PermissionEngine(settings=store)
    shared = str(store.project_root / "../shared")
    assert shared in engine.context.working_directories
    judge = Judge()
    engine.decide(judge, {"text": "x"})
    assert judge.checked  # the check ran with that context
    assert os.path.realpath(shared) in engine.context.all_working_directories


def test_add_remove_set_mode_write_the_right_file(store):
    r = store.add_rule("local", "allow", "Judge(a)")
    assert r.source == str(store.path("local"))
    store.add_rule("local", "allow", "Judge(a)")  # no duplicate
    store.add_rule("project", "deny", {"rule": "Judge(b)", "examples": ["b"]})
    store.add_rule("user", "ask", "Judge(c)")
    store.set_mode("project", "accept_edits")
    assert json.loads(store.path("local").read_text()) == perms(allow=["Judge(a)"])
    assert json.loads(store.path("project").read_text()) == perms(
        deny=[{"rule": "Judge(b)", "examples": ["b"]}], mode="accept_edits")
    user = json.loads(store.path("user").read_text())
    assert user["permissions"] == {"ask": ["Judge(c)"]}
    # our own writes to a project that needed no trust keep it trusted (trust.py)
    assert store.current_trust().trusted and str(store.project_root) in user["trusted_projects"]
    assert store.remove_rule("local", "allow", "Judge( a )".replace(" ", "")) is True
    assert store.remove_rule("local", "allow", "Judge(a)") is False
    store.set_mode("project", None)
    assert "mode" not in json.loads(store.path("project").read_text())["permissions"]


def test_agenttools_dir_gets_a_gitignore(store):
    store.add_rule("project", "allow", "Judge(a)")
    ignore = (store.project_root / ".agenttools" / ".gitignore").read_text().split()
    assert "settings.local.json" in ignore and "audit.jsonl" in ignore


def test_unknown_keys_are_refused_not_dropped_and_the_file_is_kept(store):
    """A key we don't know may be a misspelt rule list: it stops the load (naming the key),
    and a write leaves the file as it was (strict settings, issue 18)."""
    text = json.dumps({"theme": {"x": 1}, "permissions": {"allow": ["Judge(a)"]}}, indent=2)
    write(store.path("project"), text)
    with pytest.raises(SettingsError, match="unknown key 'theme'") as exc:
        store.load()
    assert exc.value.key == "theme" and exc.value.line == 2
    with pytest.raises(SettingsError, match="unknown key 'theme'"):
        store.add_rule("project", "allow", "Judge(b)")
    assert store.path("project").read_text() == text


def test_managed_layer_is_read_only(store):
    with pytest.raises(SettingsError, match="read-only"):
        store.add_rule("managed", "deny", "Judge(x)")
    assert not store.path("managed").exists()


CORRUPT = [
    ('{"permissions": {\n  "allow": ["Judge(a)",]\n}}', 2, "invalid JSON"),
    ('{"permissions": {\n  "mode": "yolo"\n}}', 2, "'permissions.mode' must be one of"),
    ('{"permissions": {\n  "allow": "Judge(a)"\n}}', 2, "'permissions.allow' must be a list"),
    ('{"permissions": {\n  "deny": [\n    "Judge(a",\n  ]}}', 4, "invalid JSON"),
    ('{"permissions": {\n  "deny": [\n    "Judge(a"\n  ]}}', 3, "closing"),
    ('{"permissions": {\n\n  "ask": [{"rule": "Judge(a)", "exampels": []}]}}', 3, "unknown key"),
    ('["not", "an", "object"]', 1, "JSON object"),
    ('{"permissions": []}', 1, "'permissions' must be an object"),
    ('{"permissions": {"additional_directories": "/tmp"}}', 1, "additional_directories"),
]


@pytest.mark.parametrize("text, line, problem", CORRUPT)
def test_corrupt_file_is_reported_with_file_and_line_and_left_untouched(store, text, line,
                                                                        problem):
    path = store.path("project")
    write(path, text)
    before = path.read_bytes()
    with pytest.raises(SettingsError) as exc:
        store.load()
    assert exc.value.path == str(path) and exc.value.line == line
    assert f"{path}:{line}" in str(exc.value) and problem in str(exc.value)
    with pytest.raises(SettingsError):
        store.add_rule("project", "allow", "Judge(new)")
    with pytest.raises(SettingsError):
        store.set_mode("project", "default")
    assert path.read_bytes() == before


def test_corrupt_file_stops_the_engine_until_fixed(store):
    engine = PermissionEngine(settings=store)
    store.add_rule("local", "allow", "Judge(a)")
    assert engine.decide(Judge(), {"text": "a"}).behavior is B.ALLOW
    write(store.path("local"), '{"permissions": {"allow": ["Judge(a)"')
    for _ in range(2):  # never falls back silently to the old rules
        with pytest.raises(SettingsError, match="settings.local.json:1"):
            engine.decide(Judge(), {"text": "a"})
    write(store.path("local"), perms(deny=["Judge(a)"]))
    assert engine.decide(Judge(), {"text": "a"}).behavior is B.DENY


def test_changes_on_disk_apply_without_restart(store):
    engine = PermissionEngine(settings=store)
    judge = Judge()
    assert engine.decide(judge, {"text": "deploy"}).behavior is B.ASK
    # another process (a second kernel, an editor) changes the file; the user trusts it
    write(store.path("project"), perms(allow=["Judge(deploy)"]))
    assert engine.decide(judge, {"text": "deploy"}).behavior is B.ASK  # not trusted yet
    store.set_trust()
    assert engine.decide(judge, {"text": "deploy"}).behavior is B.ALLOW
    write(store.path("user"), perms(deny=["Judge(dep*)"]))
    assert engine.decide(judge, {"text": "deploy"}).behavior is B.DENY
    os.unlink(store.path("user"))
    write(store.path("project"), perms(mode="dont_ask"))
    store.set_trust()
    assert engine.decide(judge, {"text": "deploy"}).behavior is B.DENY
    assert engine.mode is PermissionMode.DONT_ASK
    assert store.reload_if_changed() is False  # nothing changed since: just a stat


def test_engine_add_rule_writes_to_a_layer_and_checks_examples(store):
    engine = PermissionEngine(settings=store, tools=[Judge()])
    from jupyter_agenttools.permission.types import PermissionRule

    engine.add_rule(PermissionRule.parse("Judge(ok*)", examples=["ok go"]), layer="local")
    d = engine.decide(Judge(), {"text": "ok go"})
    assert (d.behavior, d.rule_source) == (B.ALLOW, str(store.path("local")))
    with pytest.raises(RuleExampleError):
        engine.add_rule(PermissionRule.parse("Judge(no*)", examples=["yes"]), layer="local")
    assert "Judge(no*)" not in store.path("local").read_text()
    assert engine.remove_rule(PermissionRule.parse("Judge(ok*)"), layer="local") is True
    assert engine.decide(Judge(), {"text": "ok go"}).behavior is B.ASK


def test_rule_with_failing_examples_in_a_file_is_rejected_naming_the_file(store):
    write(store.path("project"), perms(allow=[{"rule": "Judge(git *)",
                                               "examples": ["git status", "svn up"]}]))
    store.set_trust()
    engine = PermissionEngine(settings=store, tools=[Judge()])
    with pytest.raises(RuleExampleError) as exc:
        engine.decide(Judge(), {"text": "git status"})
    assert str(store.path("project")) in str(exc.value) and "'svn up'" in str(exc.value)


WRITER = textwrap.dedent("""
    import sys
    from jupyter_agenttools.permission.settings import SettingsStore
    root, user, tag, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    store = SettingsStore(root, user_dir=user, managed_path=user + "/managed.json")
    print("ready", flush=True)
    sys.stdin.readline()  # start together
    for i in range(n):
        store.add_rule("local", "allow", f"Bash(cmd-{tag}-{i})")
""")


def test_concurrent_writers_lose_nothing(store, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(store.project_root),
                               str(tmp_path / "user"), tag, "500"], env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
             for tag in ("a", "b")]
    for p in procs:
        assert p.stdout.readline().strip() == "ready"
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    for p in procs:
        assert p.wait(timeout=240) == 0
    rules = json.loads(store.path("local").read_text())["permissions"]["allow"]
    assert len(rules) == 1000 and len(set(rules)) == 1000
    assert {f"Bash(cmd-{t}-{i})" for t in "ab" for i in range(500)} == set(rules)
    leftovers = [p.name for p in store.path("local").parent.iterdir() if p.suffix == ".tmp"]
    assert leftovers == []
