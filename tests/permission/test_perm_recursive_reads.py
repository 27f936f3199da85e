"""Bash recursive reads honour ``Read(...)`` deny and ask rules like the Grep tool does.

The Grep and Glob tools skip the names a Read deny/ask rule names while they search; a program
run by Bash does not, so ``grep -r token .``, ``rg token``, ``git grep``, ``find -exec cat``,
``tar c .``, ``cp -r .`` over a folder that holds a denied name are refused (deny rule) or
asked (ask rule) — never allowed — in every mode. A search over a folder that holds no such
name stays what it was, and a tree too big to walk is read on the safe side (the rule applies).
"""

from __future__ import annotations

import os
import subprocess

import pytest

from jupyter_agenttools.permission import tree_names
from jupyter_agenttools.permission.check import check

MODES = ("default", "accept_edits", "explore", "bypass", "dont_ask")
DENIED = "deny deny deny deny deny"
ASKED = "ask ask ask ask deny"

RULES = ["Read(secrets/**)", "Read(token.txt)", "Read(*.key)", "Read(**/secrets)"]

READS_EVERYTHING = [
    "grep -r token .", "grep -r token", "grep -R token", "grep -rl token . | head -1",
    "rg token", "rg token .", "rg -uu token", "git grep token", "git grep -e token -- .",
    "find . -exec cat {} +", "find . -type f -exec grep -H token {} ;", "tar c .",
    "tar cf - . | wc -c", "tar czf ../out.tgz .", "cp -r . ../copy", "cd .. && grep -r token proj",
]

CLEAN = ["grep -r token src", "rg token src", "git grep token -- src", "tar cf - src | wc -c",
         "find src -exec cat {} +"]


@pytest.fixture()
def project(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    proj = tmp_path / "proj"
    (proj / "secrets").mkdir(parents=True)
    (proj / "secrets" / "token.txt").write_text("tok")
    (proj / "secrets" / "server.key").write_text("k")
    (proj / "src").mkdir()
    (proj / "src" / "a.py").write_text("token = None\n")
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AGENTTOOLS_USER_DIR", str(tmp_path / "user"))
    monkeypatch.setenv("AGENTTOOLS_MANAGED_SETTINGS", str(tmp_path / "managed.json"))
    monkeypatch.chdir(proj)
    return proj


def ladder(tool, tool_input, cwd, rules) -> str:
    return " ".join(check(tool, tool_input, mode=m, rules=rules, cwd=str(cwd)).behavior.value
                    for m in MODES)


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("command", READS_EVERYTHING)
def test_a_recursive_read_over_a_denied_name_is_denied(project, command, rule):
    assert ladder("Bash", {"command": command}, project, {"deny": [rule]}) == DENIED


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("command", READS_EVERYTHING)
def test_a_recursive_read_over_an_asked_name_asks(project, command, rule):
    got = ladder("Bash", {"command": command}, project, {"ask": [rule]})
    assert got.split()[:4] == ["ask"] * 4 and got.split()[4] == "deny", got


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("command", CLEAN)
def test_a_recursive_read_of_a_folder_without_such_names_is_not_refused(project, command,
                                                                       rule):
    d = check("Bash", {"command": command}, mode="bypass", rules={"deny": [rule]},
              cwd=str(project))
    assert d.behavior.value == "allow", d.reason


@pytest.mark.parametrize("rule", ["Read(token.txt)", "Read(*.key)"])
def test_the_grep_tool_skips_the_names_instead(project, rule):
    # the Grep tool filters names while it searches: its search of the project is not refused
    d = check("Grep", {"pattern": "token", "path": "."}, mode="default",
              rules={"deny": [rule]}, cwd=str(project))
    assert d.behavior.value == "allow", d.reason


def test_a_link_to_a_folder_holding_the_name_is_followed(project):
    os.symlink(project / "secrets", project / "src" / "more")
    rules = {"deny": ["Read(token.txt)"]}
    assert ladder("Bash", {"command": "grep -R token src"}, project, rules) == DENIED
    os.symlink(project / "secrets" / "token.txt", project / "src" / "notes.txt")
    os.unlink(project / "src" / "more")
    assert ladder("Bash", {"command": "grep -R token src"}, project, rules) == DENIED


def test_a_tree_too_big_to_walk_is_read_on_the_safe_side(project, monkeypatch):
    rules = {"deny": ["Read(absent.txt)"]}
    assert check("Bash", {"command": "grep -r token ."}, mode="bypass", rules=rules,
                 cwd=str(project)).behavior.value == "allow"
    monkeypatch.setattr(tree_names, "WALK_BUDGET", 2)
    assert ladder("Bash", {"command": "grep -r token ."}, project, rules) == DENIED


@pytest.mark.parametrize("command", ["cat secrets/*", "wc -c */*", "head -n1 secrets/*"])
def test_globs_that_expand_to_the_name_are_refused(project, command):
    assert ladder("Bash", {"command": command}, project, {"deny": ["Read(token.txt)"]}) \
        == DENIED


@pytest.mark.parametrize("command", ["ln secrets/token.txt x", "ln -f secrets/token.txt ../x",
                                     "ln -t src secrets/token.txt"])
def test_a_hard_link_of_a_denied_file_reads_it(project, command):
    # the new name would show the denied content to every later read
    assert ladder("Bash", {"command": command}, project, {"deny": ["Read(secrets/**)"]}) \
        == DENIED


def test_a_symbolic_link_is_judged_when_it_is_read(project):
    d = check("Bash", {"command": "ln -s secrets/token.txt x"}, mode="bypass",
              rules={"deny": ["Read(secrets/**)"]}, cwd=str(project))
    assert d.behavior.value == "allow"
    os.symlink(project / "secrets" / "token.txt", project / "x")
    assert ladder("Bash", {"command": "cat x"}, project, {"deny": ["Read(secrets/**)"]}) \
        == DENIED


# --- a hard link made before: another name of the one file a rule names -----------------------

@pytest.mark.parametrize("tool, tool_input, rule", [
    ("Read", {"file_path": "src/x.txt"}, "Read(secrets/token.txt)"),
    ("Bash", {"command": "cat src/x.txt"}, "Read(secrets/token.txt)"),
    ("Bash", {"command": "head -c 3 src/*.txt"}, "Read(secrets/token.txt)"),
    ("Write", {"file_path": "src/x.txt", "content": "x"}, "Edit(secrets/token.txt)"),
    ("Bash", {"command": "echo x > src/x.txt"}, "Edit(secrets/token.txt)"),
])
def test_a_hard_link_of_a_file_a_rule_names_is_that_file(project, tool, tool_input, rule):
    os.link(project / "secrets" / "token.txt", project / "src" / "x.txt")
    assert ladder(tool, tool_input, project, {"deny": [rule]}) == DENIED
    os.unlink(project / "src" / "x.txt")  # the twin: a file of its own
    (project / "src" / "x.txt").write_text("tok")
    d = check(tool, tool_input, mode="bypass", rules={"deny": [rule]}, cwd=str(project))
    assert d.behavior.value == "allow", d.reason
