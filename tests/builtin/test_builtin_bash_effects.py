"""Issue 13, the Bash side: Bash reports its file effects, rules apply by effect, allow rules
never silence a secret read or a write outside the working directories, several allow rules
cover a compound command together, suggestions follow the effects. Case tables × the mode
ladder, in a project with real symlinks (``link`` -> data/secret, ``keys`` -> ~/.ssh).
"""

from __future__ import annotations

import importlib.util
import os

import pytest

import jupyter_agenttools
from jupyter_agenttools.builtin import Bash
from jupyter_agenttools.permission.effects import PathEffect

MODES = ("default", "accept_edits", "explore", "bypass", "dont_ask")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    # a home of the test's own (HOME for the module): the real one is never touched
    home = str(tmp_path_factory.mktemp("bash_effects_home"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", home)
        yield _project(tmp_path_factory, home)


def _project(tmp_path_factory, home: str) -> str:
    root = tmp_path_factory.mktemp("bash_effects")
    (root / "data" / "secret").mkdir(parents=True)
    (root / "data" / "secret" / "a.txt").write_text("s\n")
    (root / "data" / "x.txt").write_text("x\n")
    (root / "src").mkdir()
    (root / "a.txt").write_text("a\n")
    os.symlink(root / "data" / "secret", root / "link")
    os.makedirs(os.path.join(home, ".ssh"))
    os.symlink(os.path.join(home, ".ssh"), root / "keys")
    return str(root)


def decide(project: str, command: str, mode: str = "default", **rules):
    return jupyter_agenttools.check("Bash", {"command": command}, mode=mode, cwd=project,
                                    rules=rules or None)


def ladder(project: str, command: str, **rules) -> dict[str, str]:
    out = {}
    for mode in MODES:
        d = decide(project, command, mode, **rules)
        out[mode] = d.behavior.value + ("!" if d.bypass_immune and d.behavior.value == "ask"
                                        else "")
    return out


def _expected(spec: str) -> dict[str, str]:
    return dict(zip(MODES, spec.split()))


# --- path_effects: the contract ----------------------------------------------------------------

@pytest.mark.parametrize("command, effects", [
    ("cat data/x.txt", [("read", "data/x.txt", (), False, False)]),
    ("grep -r x data", [("read", "data", (), False, False), ("search", "data", (), False, True)]),
    ("echo x > out.txt", [("write", "out.txt", (), False, False)]),
    ("rm -rf build", [("delete", "build", (), False, True)]),
    ("chmod -R 700 src", [("chmod", "src", (), False, True)]),
    ("ls *.py", [("read", "*.py", (), True, False)]),
    ("cd data && cat x.txt", [("read", "x.txt", (), False, False),
                              ("read", "x.txt", ("data",), False, False)]),
    ("cd $D && cat x", [("read", "x", None, False, False)]),
    ("cat ~/notes", [("read", "~/notes", (), False, False)]),
    ('cat "~/notes"', [("read", "./~/notes", (), False, False)]),   # quoted: no tilde
    ('echo "$(<secret.txt)"', [("read", "secret.txt", (), False, False)]),
    ("ls; > ~/.bashrc", [("write", "~/.bashrc", (), False, False)]),
    ("sudo tee /etc/motd", [("write", "/etc/motd", (), False, False)]),
    ("cat $F", []),                                   # decided at run time: asks instead
])
def test_path_effects(project, command, effects):
    got = Bash().path_effects({"command": command},
                              jupyter_agenttools.PermissionContext(cwd=project))
    assert [(e.kind, e.path, e.base, e.glob, e.recursive) for e in got] == effects
    assert all(isinstance(e, PathEffect) for e in got)


@pytest.mark.parametrize("bad", [None, 5, ["ls"], {"c": 1}])
def test_path_effects_refuse_a_bad_input(bad):
    with pytest.raises(ValueError, match="command"):
        Bash().path_effects({"command": bad})


# --- rules by effect, across tools ------------------------------------------------------------

DENIED = "deny deny deny deny deny"


@pytest.mark.parametrize("rule, command", [
    ("Read(data/secret/**)", "cat data/secret/a.txt"),
    ("Read(data/secret/**)", "grep -r x data/secret"),
    ("Read(data/secret/**)", "grep -r x data"),              # the search reaches it
    ("Read(data/secret/**)", "cd data && cat secret/a.txt"),
    ("Read(data/secret/**)", "cat link/a.txt"),              # through the symlink
    ("Read(data/secret/**)", "sudo head data/secret/a.txt"),
    ("Read(data/secret/**)", 'echo "$(<data/secret/a.txt)"'),
    ("Edit(data/**)", "echo x > data/x.txt"),
    ("Edit(data/**)", "cp a.txt data/"),
    ("Edit(data/**)", "rm -rf data"),
    ("Edit(data/**)", "sed -i s/a/b/ data/x.txt"),
    ("Edit(data/**)", "find data -delete"),
    ("Write(*.env)", "echo KEY=1 > /tmp/secret.env"),      # a name pattern matches anywhere
    ("Read(*.env)", "cat sub/prod.env"),
])
def test_a_deny_rule_applies_to_the_effect_in_every_mode(project, rule, command):
    assert ladder(project, command, deny=[rule]) == _expected(DENIED)


@pytest.mark.parametrize("rule, command", [
    ("Read(data/secret/**)", "cat data/x.txt"),
    ("Edit(data/**)", "cat data/x.txt"),
    ("Write(*.env)", "echo x > notes.txt"),
])
def test_a_deny_rule_leaves_other_effects_alone(project, rule, command):
    assert decide(project, command, deny=[rule]).behavior.value != "deny"


# --- allow rules silence "is this program OK", never a secret read or an outside write -------

SAFETY = "ask! ask! deny allow deny"  # explore denies, bypass ignores every ASK
CODE_LATER = "ask! ask! deny ask! deny"  # a file that runs code later: bypass asks too


@pytest.mark.parametrize("rule, command", [
    ("Bash(echo:*)", 'echo "$(<~/.ssh/id_rsa)"'),
    ("Bash(cat:*)", "cat ~/.ss?/id_rsa"),
    ("Bash(cat:*)", "cat keys/id_rsa"),
    ("Bash(cat:*)", "cat ~/.ssh/config"),
    ("Bash(cp:*)", "cp a.txt /tmp/elsewhere.txt"),
    ("Bash(rm:*)", "rm -rf /tmp/x"),
    ("Bash(tee:*)", "tee /tmp/out.txt"),
])
def test_an_allow_rule_does_not_silence_a_secret_read_or_an_outside_write(project, rule,
                                                                          command):
    assert ladder(project, command, allow=[rule]) == _expected(SAFETY)


def test_the_same_rules_allow_the_harmless_twins(project):
    for rule, command in (("Bash(cp:*)", "cp a.txt src/"), ("Bash(rm:*)", "rm -rf src/build"),
                          ("Bash(tee:*)", "tee out.txt")):
        assert decide(project, command, allow=[rule]).behavior.value == "allow", command


def test_several_allow_rules_cover_a_compound_command_together(project):
    rules = ["Bash(git add:*)", "Bash(git commit:*)"]
    assert ladder(project, "git add . && git commit -m x", allow=rules) == \
        _expected("allow allow deny allow allow")
    assert decide(project, "git add . && git push", allow=rules).behavior.value == "ask"


def test_a_loop_is_a_plain_ask_an_allow_rule_must_cover_every_inner_command(project):
    assert ladder(project, "for f in *.txt; do wc -l $f; done") == \
        _expected("ask ask deny allow deny")
    assert decide(project, "for f in *.txt; do wc -l $f; done",
                  allow=["Bash(wc:*)"]).behavior.value == "allow"
    assert decide(project, "for f in *.txt; do wc -l $f; rm $f; done",
                  allow=["Bash(wc:*)"]).behavior.value == "ask"
    assert decide(project, 'echo "$(git rev-parse HEAD)" | tee x.txt',
                  allow=["Bash(tee:*)"]).behavior.value == "allow"


# --- the protected tier and files that run code later ------------------------------------------

needs_protected_tier = pytest.mark.skipif(
    importlib.util.find_spec("jupyter_agenttools.permission.protected") is None,
    reason="the engine's protected tier (permission/protected.py) is not on this branch")


@needs_protected_tier
@pytest.mark.parametrize("command", [
    "dd if=/dev/zero of=/dev/sda", "chmod -R 000 ~", "cd ~ && rm -rf .", "mv x .agenttools/",
    "rm -r .agenttools", "echo '{}' > .agenttools/settings.local.json", "sudo rm -rf /",
    "cd /tmp; cd ~; rm -rf .", "find ~ -delete", "echo x > /dev/nvme0n1",
])
def test_the_protected_tier_is_denied_in_every_mode(project, command):
    assert ladder(project, command) == _expected(DENIED)


@pytest.mark.parametrize("command", [
    "echo x >> ~/.bashrc", "touch .git/hooks/pre-commit", "echo x > .git/config",
    "echo x > ~/.ipython/profile_default/startup/x.py",
    "echo x > ~/.jupyter/jupyter_server_config.py", "cp a.txt ~/.profile",
])
def test_files_that_run_code_later_are_a_safety_ask_bypass_included(project, command):
    assert ladder(project, command) == _expected(CODE_LATER)


# --- suggestions by effect ---------------------------------------------------------------------

@pytest.mark.parametrize("command, suggested", [
    ("rm -rf build", ["Bash(rm -rf build)"]),
    ("mv a.txt b.txt", ["Bash(mv a.txt b.txt)"]),
    ("git add . && git commit -m x", ["Bash(git add . && git commit -m x)"]),
    ("make test", ["Bash(make test:*)"]),
])
def test_suggestions_follow_the_effects(project, command, suggested):
    d = decide(project, command)
    assert [r.text for r in d.suggestions] == suggested
    # the suggestion approves the command it came from; an exact one no more than that
    rules = [r.text for r in d.suggestions]
    assert decide(project, command, allow=rules).behavior.value == "allow"
    if not any(r.endswith(":*)") for r in rules):
        assert decide(project, command + " ~/x", allow=rules).behavior.value != "allow"
