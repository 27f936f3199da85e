"""Every example of issue 13's "Why" list, through ``check()`` (gate 2, then the engine) in every
mode, on a real tree: a project with ``keys -> ~/.ssh`` (a real symlink) and a private home.

The columns are the mode ladder default / accept_edits / explore / bypass / dont_ask; ``!`` marks
a bypass-immune verdict (a safety ASK, or the protected tier's DENY). The cases tested one by one
and the mechanisms behind them live in test_perm_effects, test_perm_protected, test_perm_trust,
test_perm_lockdown, test_perm_patterns and tests/builtin/test_builtin_bash_effects.py; this table
is the issue's own list, kept whole.
"""

from __future__ import annotations

import os

import pytest

from jupyter_agenttools.errors import ToolArgumentsError
from jupyter_agenttools.permission.check import check, prepare

MODES = ("default", "accept_edits", "explore", "bypass", "dont_ask")
SECRET_DENY = {"deny": ["Read(data/secret/**)"]}

CASES = [
    # a Read(...) rule applies to every read effect of every tool
    ("Bash", {"command": "cat data/secret/a.txt"}, SECRET_DENY, "deny deny deny deny deny"),
    ("Bash", {"command": "grep -r x data/secret"}, SECRET_DENY, "deny deny deny deny deny"),
    ("Grep", {"pattern": "x", "path": "data"}, SECRET_DENY, "deny deny deny deny deny"),
    ("Glob", {"pattern": "data/secret/*"}, SECRET_DENY, "deny deny deny deny deny"),
    # deny rules see both spellings: the kernel's (~/data/secret/a.txt) and the written one
    ("Read", {"file_path": "keys/../data/secret/a.txt"}, SECRET_DENY,
     "deny deny deny deny deny"),
    # Edit(...) and Write(...) are one family
    ("Write", {"file_path": "data/x.txt", "content": "x"}, {"deny": ["Edit(data/**)"]},
     "deny deny deny deny deny"),
    # symlinks before "..": keys/.. is the home, not the project
    ("Bash", {"command": "cat keys/../.config/gh/hosts.yml"}, None,
     "ask! ask! deny allow deny!"),
    ("Bash", {"command": "touch keys/../.ssh/authorized_keys"}, None,
     "ask! ask! deny allow deny!"),
    # a file that runs code later: bypass asks too (modes.py, code_later)
    ("Write", {"file_path": "keys/../.bashrc", "content": "x"}, None,
     "ask! ask! deny ask! deny!"),
    # the protected tier: bypass keeps it
    ("Bash", {"command": "dd if=/dev/zero of=/dev/sda"}, None, "deny! deny! deny! deny! deny!"),
    ("Bash", {"command": "chmod -R 000 ~"}, None, "deny! deny! deny! deny! deny!"),
    ("Bash", {"command": "cd ~ && rm -rf ."}, None, "deny! deny! deny! deny! deny!"),
    ("Write", {"file_path": ".agenttools/settings.local.json", "content": "{}"}, None,
     "deny! deny! deny! deny! deny!"),
    ("Bash", {"command": "mv x .agenttools/"}, None, "deny! deny! deny! deny! deny!"),
    ("Bash", {"command": "rm -r .agenttools"}, None, "deny! deny! deny! deny! deny!"),
    # allow rules silence "is this program OK", never a secret read
    ("Bash", {"command": 'echo "$(<~/.ssh/id_rsa)"'}, {"allow": ["Bash(echo:*)"]},
     "ask! ask! deny allow deny!"),
    ("Bash", {"command": "cat ~/.ss?/id_rsa"}, {"allow": ["Bash(cat:*)"]},
     "ask! ask! deny allow deny!"),
    # several allow rules cover a compound command together
    ("Bash", {"command": "git add . && git commit -m x"},
     {"allow": ["Bash(git add:*)", "Bash(git commit:*)"]}, "allow allow deny allow allow"),
    # a pattern without "/" is a file name anywhere, inside the project or not
    ("Write", {"file_path": "/tmp/secret.env", "content": "x"}, {"deny": ["Write(*.env)"]},
     "deny deny deny deny deny"),
    ("Read", {"file_path": "/tmp/secret.env"}, {"ask": ["Read(**/*.env)"]},
     "ask ask ask ask deny"),
]


@pytest.fixture()
def project(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("key")
    (home / ".config" / "gh").mkdir(parents=True)
    (home / ".config" / "gh" / "hosts.yml").write_text("token")
    proj = tmp_path / "proj"
    (proj / "data" / "secret").mkdir(parents=True)
    (proj / "data" / "secret" / "a.txt").write_text("s")
    (proj / "build").mkdir()
    os.symlink(home / ".ssh", proj / "keys")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AGENTTOOLS_USER_DIR", str(tmp_path / "user"))
    monkeypatch.setenv("AGENTTOOLS_MANAGED_SETTINGS", str(tmp_path / "managed.json"))
    monkeypatch.chdir(proj)
    return proj


def verdict(tool, tool_input, mode, rules, cwd) -> str:
    d = check(tool, tool_input, mode=mode, rules=rules, cwd=str(cwd))
    return d.behavior.value + ("!" if d.bypass_immune else "")


@pytest.mark.parametrize("tool, tool_input, rules, ladder", CASES,
                         ids=[f"{t}:{list(i.values())[0]}" for t, i, _, _ in CASES])
def test_the_issues_examples_in_every_mode(project, tool, tool_input, rules, ladder):
    got = [verdict(tool, tool_input, mode, rules, project) for mode in MODES]
    assert dict(zip(MODES, got)) == dict(zip(MODES, ladder.split()))


@pytest.mark.parametrize("tool, tool_input", [("Read", {}), ("Grep", {"pattern": 3}),
                                              ("Write", {"file_path": "x"}),
                                              ("Bash", {"command": ["ls"]})])
@pytest.mark.parametrize("mode", MODES)
def test_a_malformed_input_is_refused_before_any_decision(project, tool, tool_input, mode):
    with pytest.raises(ToolArgumentsError):
        check(tool, tool_input, mode=mode, cwd=str(project))


@pytest.mark.parametrize("command, offered", [
    ("rm -rf build", ["Bash(rm -rf build)"]),  # never Bash(rm:*)
    ("git add . && npm run build", ["Bash(git add . && npm run build)"]),  # one choice for all
])
def test_writers_are_suggested_exactly_never_by_program(project, command, offered):
    engine, bash = prepare("Bash", cwd=str(project))
    d = engine.decide(bash, {"command": command})
    assert d.behavior.value == "ask"
    assert [r.text for r in d.suggestions] == offered
