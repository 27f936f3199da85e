"""Strict settings (issue 18): the schema, typos and misplaced keys, duplicate keys, NaN,
deep nesting, files that are not plain files, writes through symlinks, temp files."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from perm_tools import Judge

from jupyter_agenttools.errors import SettingsError
from jupyter_agenttools.permission import settings_file
from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.permission.settings import SettingsStore
from jupyter_agenttools.permission.types import PermissionBehavior as B
from jupyter_agenttools.permission.types import PermissionMode


@pytest.fixture
def store(tmp_path):
    return SettingsStore(tmp_path / "proj", user_dir=tmp_path / "user",
                         managed_path=tmp_path / "etc" / "managed-settings.json")


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


# Each: file text, line, key path, words the message must hold. Every one of them would, with
# plain json.loads and a lenient reader, have dropped or changed a rule without a word.
BAD = [
    ('{"permissions": {\n  "Deny": ["Judge(rm)"]}}', 2, "permissions.Deny",
     ["unknown key 'Deny'", "did you mean 'deny'"]),
    ('{"permissions": {\n  "denny": ["Judge(rm)"]}}', 2, "permissions.denny",
     ["unknown key 'denny'", "did you mean 'deny'"]),
    ('{\n  "deny": ["Judge(rm)"]\n}', 2, "deny",
     ["unknown key 'deny' at the top level", "did you mean 'permissions.deny'"]),
    ('{"permissions": {\n  "enabled": true}}', 2, "permissions.enabled",
     ["did you mean 'sandbox.enabled'"]),
    ('{\n  "permissions": null\n}', 2, "permissions", ["must be an object, got null"]),
    ('{"permissions": {\n  "deny": null}}', 2, "permissions.deny", ["must be a list, got null"]),
    ('{"permissions": {\n  "deny": ["Judge(rm)"],\n  "deny": []\n}}', 3, "permissions.deny",
     ["'deny' appears twice", "merge them"]),
    ('{"permissions": {"mode": "default"},\n "permissions": {}}', 2, "permissions",
     ["appears twice"]),
    ('{"permissions": {\n  "mode": NaN}}', 2, "permissions.mode", ["NaN is not a JSON number"]),
    ('{"permissions": {"allow": [\n  {"rule": "Judge(a)", "examples": [{"n": Infinity}]}]}}',
     2, "permissions.allow[0].examples[0].n", ["Infinity is not a JSON number"]),
    ('{"permissions": {"allow": [\n  {"rule": "Judge(a)", "examples": [{"n": 1e999}]}]}}',
     2, "permissions.allow[0].examples[0].n", ["1e999 is not a JSON number"]),
    ('{"permissions": {\n  "mode": "BYPASS"}}', 2, "permissions.mode",
     ["must be one of", "got 'BYPASS'", "did you mean 'bypass'"]),
    ('{"permissions": {\n  "mode": " bypass "}}', 2, "permissions.mode",
     ["did you mean 'bypass'"]),
    ('{"permissions": {\n  "mode": "acceptEdits"}}', 2, "permissions.mode",
     ["did you mean 'accept_edits'"]),
    ('{"permissions": {"ask": [\n  {"rule": "Judge(a)", "exampels": []}]}}', 2,
     "permissions.ask[0].exampels", ["did you mean 'examples'"]),
    ('{"permissions": {"ask": [\n  {"examples": ["a"]}]}}', 2, "permissions.ask[0]",
     ["missing 'rule'"]),
    ('{"permissions": {"ask": [\n  ""]}}', 2, "permissions.ask[0]", ["non-empty string"]),
    ('{"permissions": {"ask": [\n  7]}}', 2, "permissions.ask[0]", ["must be a rule"]),
    ('{"permissions": {"deny": [\n  "\\ud800"]}}', 2, "permissions.deny[0]",
     ["lone surrogate"]),
    ('{"permissions": {\n  "disable_bypass_mode": "yes"}}', 2,
     "permissions.disable_bypass_mode", ["must be true or false"]),
    ('{"permissions": {\n  "allowed_modes": ["default", "default"]}}', 2,
     "permissions.allowed_modes", ["same value twice"]),
    ('{"sandbox": {\n  "network": true, "writeable": []}}', 2, "sandbox.writeable",
     ["did you mean 'writable'"]),
    ('{"trusted_projects": {\n  "/p": {"sha256": "abc"}}}', 2, 'trusted_projects["/p"].sha256',
     ["expected form"]),
    ('{"Permissions": {}}', 1, "Permissions", ["did you mean 'permissions'",
                                               "case-sensitive"]),
    ("[" * 100_000 + "]" * 100_000, 1, None, ["nested deeper than 64 levels"]),
    ('{"permissions": {"allow": [\n  {"rule": "Judge(a)", "examples": [' + '{"a": ' * 70 + "1"
     + "}" * 70 + "]}]}}", 2, None, ["nested deeper than 64 levels"]),
    ('{"permissions": {"deny": [\n  "Judge(a"]}}', 2, "permissions.deny[0]",
     ["missing the closing"]),
]


@pytest.mark.parametrize("text, line, key, words", BAD, ids=[str(i) for i in range(len(BAD))])
def test_bad_file_is_a_clear_error_naming_file_line_and_key(store, text, line, key, words):
    path = store.path("project")
    write(path, text)
    with pytest.raises(SettingsError) as exc:
        store.load()
    err = exc.value
    assert (err.path, err.line) == (str(path), line)
    if key is not None:
        assert err.key == key
    assert f"{path}:{line}:" in str(err)
    for word in words:
        assert word in str(err)


@pytest.mark.parametrize("text, line, key, words", BAD[:12], ids=[str(i) for i in range(12)])
def test_engine_fails_closed_until_the_typo_is_fixed(store, text, line, key, words):
    """A layer that does not load never lets the others decide alone: its deny rules may be
    the ones a typo hides. The engine refuses, every time, until the file is fixed."""
    engine = PermissionEngine(settings=store)
    write(store.path("user"), json.dumps({"permissions": {"allow": ["Judge"]}}))
    assert engine.decide(Judge(), {"text": "rm"}).behavior is B.ALLOW
    write(store.path("project"), text)
    for _ in range(2):
        with pytest.raises(SettingsError):
            engine.decide(Judge(), {"text": "rm"})
    write(store.path("project"), json.dumps({"permissions": {"deny": ["Judge(rm)"]}}))
    assert engine.decide(Judge(), {"text": "rm"}).behavior is B.DENY


@pytest.mark.parametrize("text", [b[0] for b in BAD[:8]])
def test_writes_refuse_an_invalid_file_and_leave_it_as_it_was(store, text):
    path = store.path("local")
    write(path, text)
    for act in (lambda: store.add_rule("local", "deny", "Judge(x)"),
                lambda: store.remove_rule("local", "deny", "Judge(rm)"),
                lambda: store.set_mode("local", "default")):
        with pytest.raises(SettingsError):
            act()
    assert path.read_text(encoding="utf-8") == text


def test_a_write_never_produces_a_file_the_next_load_refuses(store):
    store.add_rule("local", "allow", "Judge(a)")
    before = store.path("local").read_bytes()
    refused = [
        {"rule": "Judge(b)", "examples": [{"n": float("nan")}]},
        {"rule": "Judge(b)", "examples": ["\ud800"]},
        {"rule": "Judge(b)", "examples": [{"deep": _nested(80)}]},
        {"rule": "Judge(b)", "examples": [{"x": object()}]},
    ]
    for entry in refused:
        with pytest.raises(SettingsError, match="refusing to write"):
            store.add_rule("local", "allow", entry)
    with pytest.raises(SettingsError, match="more than"):
        store.add_rule("local", "allow", "Judge(" + "x" * settings_file.MAX_SETTINGS_BYTES + ")")
    assert store.path("local").read_bytes() == before
    assert [r.text for r in store.load().rules] == ["Judge(a)"]


def _nested(n: int) -> dict:
    value: dict = {}
    for _ in range(n):
        value = {"a": value}
    return value


def test_valid_files_with_every_contract_key_load(store):
    """Every key of contract 1 (PROTOCOL.md) is accepted, `$schema` included."""
    full = {
        "$schema": str(settings_file.SCHEMA_PATH),
        "permissions": {
            "mode": "explore", "allow": ["Judge(a)"], "ask": [{"rule": "Judge(b)",
                                                               "examples": ["b"],
                                                               "counter_examples": ["c"]}],
            "deny": ["Judge(rm)"], "additional_directories": ["../shared"],
            "disable_bypass_mode": True, "allowed_modes": ["default", "explore"],
            "managed_rules_only": False,
        },
        "sandbox": {"enabled": True, "network": False, "writable": ["/tmp/w"],
                    "hidden": ["~/.ssh"], "env_allow": ["PATH"], "required": True},
        "trusted_projects": {"/home/u/p": {"sha256": "0" * 64,
                                           "trusted_at": "2024-01-01T00:00:00Z"}},
    }
    for layer in ("managed", "project", "user"):
        write(store.path(layer), json.dumps(full))
    merged = store.load()
    assert merged.mode is PermissionMode.EXPLORE
    assert merged.by_layer["managed"].data == full
    assert {r.text for r in merged.rules} == {"Judge(a)", "Judge(b)", "Judge(rm)"}


def test_schema_modes_are_the_engine_modes_and_both_validators_agree(store, tmp_path):
    import fastjsonschema
    from jsonschema import Draft7Validator

    schema = settings_file.schema()
    Draft7Validator.check_schema(schema)
    assert schema["definitions"]["mode"]["enum"] == [m.value for m in PermissionMode]
    fast = fastjsonschema.compile(schema)
    slow = Draft7Validator(schema)
    good = ['{}', '{"permissions": {}}', '{"permissions": {"mode": "dont_ask"}}',
            '{"sandbox": {}}', '{"$schema": "x", "trusted_projects": {}}']
    # the cases the schema refuses (the others are refused earlier, by strict JSON, or
    # later, by the rule parser)
    earlier_or_later = ("nested", "surrogate", "appears twice", "JSON number", "closing")
    texts = good + [b[0] for b in BAD if not any(w in b[3][0] for w in earlier_or_later)]
    for text in texts:
        data = json.loads(text)
        try:
            fast(data)
            fast_ok = True
        except fastjsonschema.JsonSchemaException:
            fast_ok = False
        assert fast_ok == slow.is_valid(data), text
        assert fast_ok == (text in good), text


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "directory", "too_big", "not_utf8"])
def test_only_a_plain_file_of_bounded_size_is_read(store, kind):
    """A cloned repo can ship any of these as its settings file: the load answers at once
    with a clear error (a FIFO would block the open, /dev/zero would read until MemoryError)."""
    path = store.path("project")
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
        words = "FIFO"
    elif kind == "dev_zero":
        os.symlink("/dev/zero", path)
        words = "character device"
    elif kind == "directory":
        path.mkdir()
        words = "directory"
    elif kind == "too_big":
        path.write_text('{"permissions": {"allow": []}}' + " " * settings_file.MAX_SETTINGS_BYTES)
        words = "more than the"
    else:
        path.write_bytes(b'{"permissions": {"deny": ["\xff"]}}')
        words = "not UTF-8"
    with pytest.raises(SettingsError, match=words):
        store.load()
    with pytest.raises(SettingsError):
        store.add_rule("project", "deny", "Judge(x)")
    if kind == "fifo":
        assert stat.S_ISFIFO(os.lstat(path).st_mode)
    if kind == "dev_zero":
        assert os.readlink(path) == "/dev/zero"


def test_writes_through_a_symlink_update_its_target(store, tmp_path):
    dotfiles = tmp_path / "dotfiles" / "agenttools-user.json"
    write(dotfiles, json.dumps({"permissions": {"deny": ["Judge(rm)"]}}))
    link = store.path("user")
    link.parent.mkdir(parents=True)
    os.symlink(dotfiles, link)
    store.add_rule("user", "allow", "Judge(ls)")
    store.set_mode("user", "explore")
    assert os.path.islink(link) and os.readlink(link) == str(dotfiles)
    assert json.loads(dotfiles.read_text()) == {"permissions": {
        "deny": ["Judge(rm)"], "allow": ["Judge(ls)"], "mode": "explore"}}
    assert not [p for p in dotfiles.parent.iterdir() if p.suffix == ".tmp"]


def test_a_lock_file_that_is_a_symlink_is_refused_and_its_target_untouched(store, tmp_path):
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me")
    path = store.path("local")
    path.parent.mkdir(parents=True)
    os.symlink(precious, str(path) + ".lock")
    with pytest.raises(SettingsError, match="lock file .* is a symlink"):
        store.add_rule("local", "allow", "Judge(a)")
    assert precious.read_text() == "keep me" and not path.exists()


def test_temp_files_of_killed_writers_are_removed_by_the_next_write_and_ignored(store):
    store.add_rule("local", "allow", "Judge(a)")
    folder = store.path("local").parent
    stale = [folder / "settings.local.json.k1l2ed.tmp", folder / "settings.local.json.x.tmp"]
    for p in stale:
        p.write_text('{"permissions": {"allow": [')
    other = folder / "settings.json.abc.tmp"  # another layer's: its own writer cleans it
    other.write_text("{}")
    store.add_rule("local", "allow", "Judge(b)")
    assert not any(p.exists() for p in stale) and other.exists()
    ignore = (folder / ".gitignore").read_text().split()
    assert {"*.tmp", "*.lock", "audit.jsonl", "audit.jsonl.*"} <= set(ignore)


def test_an_old_gitignore_of_ours_gets_the_new_lines_but_a_persons_is_left(store):
    folder = store.path("local").parent
    folder.mkdir(parents=True)
    (folder / ".gitignore").write_text("# written by jupyter_agenttools: personal, not shared\n"
                                       "settings.local.json\naudit.jsonl\n*.lock\n")
    store.add_rule("local", "allow", "Judge(a)")
    assert (folder / ".gitignore").read_text().split().count("*.tmp") == 1
    store.add_rule("local", "allow", "Judge(b)")
    assert (folder / ".gitignore").read_text().split().count("*.tmp") == 1
    (folder / ".gitignore").write_text("mine\n")
    store.add_rule("local", "allow", "Judge(c)")
    assert (folder / ".gitignore").read_text() == "mine\n"


@pytest.mark.parametrize("text, words", [
    ("[" * 100_000 + "]" * 100_000, "nested deeper than 64 levels"),
    ('{"permissions": {"denny": ["Bash(rm:*)"]}}', "did you mean 'deny'"),
], ids=["deep", "typo"])  # short ids: the test id travels in PYTEST_CURRENT_TEST
@pytest.mark.parametrize("command", [["settings", "show"], ["check", "Bash", "ls"]],
                         ids=["settings", "check"])
def test_the_cli_answers_a_bad_file_in_one_line_without_a_traceback(tmp_path, text, words,
                                                                    command):
    import subprocess
    import sys

    project = tmp_path / "proj"
    write(project / ".agenttools" / "settings.json", text)
    env = {**os.environ, "AGENTTOOLS_USER_DIR": str(tmp_path / "user"),
           "AGENTTOOLS_MANAGED_SETTINGS": str(tmp_path / "managed.json"),
           "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.run([sys.executable, "-m", "jupyter_agenttools.cli", command[0],
                           "--project", str(project), *command[1:]],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr and words in proc.stderr
    assert f"{project / '.agenttools' / 'settings.json'}:1" in proc.stderr


@pytest.mark.parametrize("layer", ["managed", "local", "project", "user"])
@pytest.mark.parametrize("where", ["the file", "a folder above it"])
def test_a_settings_link_to_nothing_stops_the_engine_instead_of_dropping_the_layer(
        store, tmp_path, layer, where):
    """A missing file is an empty layer; a symbolic link to a target that is gone (a moved
    dotfiles checkout, a policy mount not mounted) is not: its deny rules, or the managed
    lock-down, would vanish without a word. Before, such a layer silently counted as empty."""
    path = store.path(layer)
    link = path if where == "the file" else path.parent
    link.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(tmp_path / "gone" / link.name, link)
    with pytest.raises(SettingsError, match="symbolic link.*which does not exist"):
        store.load()
    engine = PermissionEngine(settings=store)
    with pytest.raises(SettingsError):
        engine.decide(Judge(), {"command": "ls"})


def test_a_managed_link_to_nothing_stops_an_engine_without_a_store(tmp_path, monkeypatch):
    from jupyter_agenttools.permission.lockdown import managed_lockdown

    link = tmp_path / "managed-settings.json"
    os.symlink(tmp_path / "unmounted" / "policy.json", link)
    monkeypatch.setenv("AGENTTOOLS_MANAGED_SETTINGS", str(link))
    with pytest.raises(SettingsError, match="which does not exist"):
        managed_lockdown(link)
    with pytest.raises(SettingsError):
        PermissionEngine().decide(Judge(), {"text": "ls"})


@pytest.mark.parametrize("fault", ["replace", "fsync", "mkdir"])
def test_a_settings_write_on_a_full_or_read_only_disk_is_a_settings_error(
        store, monkeypatch, fault):
    """"Always allow" (and every settings write) on a full or read-only disk: a SettingsError
    naming the file (the server answers 409 with it, ``%agent`` one line), the file as it was
    and no temp file beside it. Before, the bare OSError reached the person as a traceback
    or an 'internal error' 500."""
    import errno

    from jupyter_agenttools.permission import settings as settings_module

    path = store.path("local")
    write(path, json.dumps({"permissions": {"deny": ["Judge(rm)"]}}))
    before = path.read_text()

    def refuse(*args, **kwargs):
        raise OSError(errno.ENOSPC if fault == "fsync" else errno.EROFS,
                      os.strerror(errno.ENOSPC if fault == "fsync" else errno.EROFS))

    if fault == "mkdir":
        user = store.path("user")
        monkeypatch.setattr(Path, "mkdir", refuse)
        with pytest.raises(SettingsError, match="cannot write it: Read-only file system"):
            store.add_rule("user", "allow", "Judge(ls)")
        assert not user.exists()
        return
    monkeypatch.setattr(settings_module.os, fault, refuse)
    engine = PermissionEngine(settings=store)
    with pytest.raises(SettingsError, match="cannot write it: .*; it is unchanged"):
        engine.add_rule("Judge(ls)", layer="local")
    assert path.read_text() == before
    assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name)) == [
        path.name, path.name + ".lock"]
