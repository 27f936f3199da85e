"""Rule path patterns (Claude Code semantics, one gitignore dialect through pathspec): the
anchors, names anywhere, the deny/allow readings — case tables × the mode ladder."""

from __future__ import annotations

import os

import pytest

from jupyter_agenttools.backends.local import LocalBackend
from jupyter_agenttools.builtin import Edit, Glob, Grep, Read, Write
from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.permission.paths import path_matches
from jupyter_agenttools.permission.types import PermissionBehavior, PermissionContext

MODES = ["default", "accept_edits", "explore", "bypass", "dont_ask"]


@pytest.fixture
def tree(tmp_path):
    root = tmp_path.resolve()
    for d in ("home/notes", "proj/data", "proj/src/deep", "proj/build/x", "tmp", "etc"):
        (root / d).mkdir(parents=True)
    for f in ("proj/data/a.csv", "proj/src/a.py", "proj/src/deep/b.py", "tmp/secret.env",
              "tmp/notes.txt", "home/notes/todo.md", "etc/hosts", "proj/build/x/out.o"):
        (root / f).write_text("x")
    os.symlink(root / "tmp", root / "proj/scratch")
    return root


def ctx(tree, mode="default"):
    return PermissionContext(mode=mode, cwd=str(tree / "proj/src"),
                             project_root=str(tree / "proj"), home=str(tree / "home"))


# pattern, path ({t} = the tree), allow reading matches, deny reading matches
TABLE = [
    # "//abs": the absolute path
    ("/{t}/etc/hosts", "{t}/etc/hosts", True, True),
    ("/{t}/etc/*", "{t}/etc/hosts", True, True),
    # "~/": the home
    ("~/notes/**", "~/notes/todo.md", True, True),
    ("~/notes/**", "{t}/proj/notes/todo.md", False, False),
    # "/p": the project's p (deny/ask: also the absolute /p)
    ("/data/**", "{t}/proj/data/a.csv", True, True),
    ("/data/*.csv", "../data/a.csv", True, True),
    ("/data/**", "{t}/data/a.csv", False, False),
    # with a "/" inside: relative to the project, not to the cwd
    ("src/*.py", "a.py", True, True),
    ("src/*", "deep/b.py", False, True),           # "*" is one level; deny covers below
    ("src/*.py", "deep/b.py", False, False),
    ("src/**", "deep/b.py", True, True),
    ("./data/*", "../data/a.csv", True, True),
    # no "/": a name anywhere, inside the project or not
    ("*.env", "{t}/tmp/secret.env", True, True),
    ("**/*.env", "{t}/tmp/secret.env", True, True),
    ("*.env", "../scratch/secret.env", True, True),   # through a symlink out of the project
    ("notes.txt", "{t}/tmp/notes.txt", True, True),
    ("*.py", "deep/b.py", True, True),
    ("*.py", "{t}/etc/hosts", False, False),
    # "dir/": a folder of that name anywhere and everything below
    ("build/", "{t}/proj/build/x/out.o", True, True),
    ("x/", "{t}/proj/build/x/out.o", True, True),
    # "**": the whole project, not the disk
    ("**", "a.py", True, True),
    ("**", "{t}/etc/hosts", False, False),
    # case: only deny/ask ignore it
    ("/{t}/ETC/hosts", "{t}/etc/hosts", False, True),
    # escaped glob characters are literal
    ("/{t}/etc/h\\*", "{t}/etc/hosts", False, False),
]


@pytest.mark.parametrize("pattern,path,allow,deny", TABLE)
def test_pattern_table(tree, pattern, path, allow, deny):
    c = ctx(tree)
    pattern, path = pattern.format(t=tree), path.format(t=tree)
    assert path_matches(pattern, path, c, broad=False) is allow
    assert path_matches(pattern, path, c, broad=True) is deny


TOOLS = {c.__name__: c(LocalBackend()) for c in (Read, Write, Edit, Glob, Grep)}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tool,tool_input", [
    ("Write", {"file_path": "{t}/tmp/secret.env", "content": "K=1"}),
    ("Edit", {"file_path": "../scratch/secret.env", "old_string": "x", "new_string": "y"}),
    ("Write", {"file_path": "/{t}/tmp//./secret.env", "content": ""}),
])
def test_deny_write_of_a_name_catches_it_outside_the_project(tree, mode, tool, tool_input):
    """The issue's case: a deny ``Write(*.env)`` must catch /tmp/secret.env."""
    engine = PermissionEngine(mode=mode, rules={"deny": ["Write(*.env)"]}, context=ctx(tree))
    tool_input = {k: v.format(t=tree) for k, v in tool_input.items()}
    decision = engine.decide(TOOLS[tool], tool_input)
    assert decision.behavior is PermissionBehavior.DENY and decision.step == "deny_rules"


@pytest.mark.parametrize("mode,expected", [("default", "ask"), ("accept_edits", "ask"),
                                           ("explore", "ask"), ("bypass", "ask"),
                                           ("dont_ask", "deny")])
@pytest.mark.parametrize("tool,tool_input", [
    ("Read", {"file_path": "{t}/tmp/secret.env"}),
    ("Grep", {"pattern": "K", "path": "{t}/tmp/secret.env"}),
    ("Read", {"file_path": "../scratch/secret.env"}),
])
def test_ask_read_of_a_name_anywhere(tree, mode, expected, tool, tool_input):
    engine = PermissionEngine(mode=mode, rules={"ask": ["Read(**/*.env)"]}, context=ctx(tree))
    tool_input = {k: v.format(t=tree) for k, v in tool_input.items()}
    decision = engine.decide(TOOLS[tool], tool_input)
    assert decision.behavior.value == expected and decision.step == "ask_rules"


@pytest.mark.parametrize("rule,path,allowed", [
    ("Read(/data/**)", "../data/a.csv", True),         # Claude Code: /p is the project's p
    ("Read(//{t}/etc/**)", "{t}/etc/hosts", True),
    ("Read({t}/etc/**)", "{t}/etc/hosts", False),      # that is {t}/proj{t}/etc: no
    ("Read(~/notes/**)", "~/notes/todo.md", True),
    ("Read(*.csv)", "../data/a.csv", True),            # inside anyway
    ("Read(hosts)", "{t}/etc/hosts", True),             # a name anywhere, outside too
])
def test_allow_rules_read_the_anchors_narrowly(tree, rule, path, allowed):
    engine = PermissionEngine(rules={"allow": [rule.format(t=tree)]}, context=ctx(tree))
    decision = engine.decide(TOOLS["Read"], {"file_path": path.format(t=tree)})
    assert (decision.behavior is PermissionBehavior.ALLOW) is allowed, decision.trace
