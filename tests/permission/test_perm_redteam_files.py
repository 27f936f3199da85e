"""Red-team round (session 5) of the file tools' permissions: each class found, as a case
table × the mode ladder, every attack with a harmless twin that keeps its verdict.

Classes:
- a rule pattern the dialect read differently from what its author wrote: ``{a,b}`` braces
  (gitignore has none: ``deny Read(**/*.{pem,key})`` matched nothing), a leading ``$HOME``
  (a folder named ``$HOME`` in the project), a leading ``!`` (a negation: now an error);
- malformed tool input judged as if well formed (``engine.decide`` is also called without
  gate 2): a missing or mistyped argument, an unknown key, a path no file can have (NUL, a
  lone surrogate) was ALLOWed in accept_edits/bypass.
"""

from __future__ import annotations

import os

import pytest

from jupyter_agenttools.errors import RuleSyntaxError
from jupyter_agenttools.permission.check import prepare
from jupyter_agenttools.permission.rules import load_rule
from jupyter_agenttools.permission.types import PermissionBehavior

MODES = ["default", "accept_edits", "explore", "bypass", "dont_ask"]
ALLOW, ASK, DENY = PermissionBehavior.ALLOW, PermissionBehavior.ASK, PermissionBehavior.DENY


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path.resolve()
    home = root / "home"
    proj = home / "proj"
    for d in ("src", "keys", "data"):
        (proj / d).mkdir(parents=True)
    for f in ("src/a.py", "keys/server.pem", "keys/server.key", "keys/server.crt",
              "data/a.csv", "data/a.json"):
        (proj / f).write_text("x")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AGENTTOOLS_USER_DIR", str(home / ".jupyter/agenttools"))
    monkeypatch.setenv("AGENTTOOLS_MANAGED_SETTINGS", str(root / "managed.json"))
    return proj


def decide(tool, tool_input, mode, cwd, rules=None):
    engine, t = prepare(tool, mode=mode, rules=rules, cwd=cwd)
    return engine.decide(t, tool_input)


# --- rule patterns: what the author wrote ---------------------------------------------------

# deny rule, path read, denied?
PATTERNS = [
    ("**/*.{pem,key}", "keys/server.pem", True),
    ("**/*.{pem,key}", "keys/server.key", True),
    ("**/*.{pem,key}", "keys/server.crt", False),           # the twin: not named
    ("*.{pem,key}", "keys/server.key", True),
    ("keys/server.{pem,key}", "keys/server.pem", True),
    ("{keys,data}/**", "data/a.csv", True),
    ("{keys,data}/**", "src/a.py", False),
    ("data/a.{csv,{json,yaml}}", "data/a.json", True),      # nested braces
    ("data/a.{csv}", "data/a.csv", False),                  # no comma: a literal brace
    ("$HOME/proj/data/**", "data/a.csv", True),
    ("${HOME}/proj/data/**", "data/a.csv", True),
    ("$HOME/proj/data/**", "src/a.py", False),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("pattern,path,denied", PATTERNS)
def test_a_deny_rule_means_what_its_author_wrote(project, pattern, path, denied, mode):
    d = decide("Read", {"file_path": path}, mode, project, {"deny": [f"Read({pattern})"]})
    if denied:
        assert d.behavior is DENY and d.step == "deny_rules", d.reason
    else:
        assert d.rule is None, d.reason


@pytest.mark.parametrize("mode", ["default", "dont_ask"])
@pytest.mark.parametrize("pattern,path,allowed", [
    ("data/*.{csv,json}", "data/a.json", True),
    ("data/*.{csv,json}", "src/a.py", False),
    ("$HOME/proj/src/**", "src/a.py", True),
])
def test_an_allow_rule_with_braces_allows_each_alternative_only(project, pattern, path,
                                                                allowed, mode):
    d = decide("Edit", {"file_path": path, "old_string": "x", "new_string": "y"}, mode,
               project, {"allow": [f"Edit({pattern})"]})
    assert (d.behavior is ALLOW) is allowed, d.reason


@pytest.mark.parametrize("text", ["Read(!secret/**)", "Edit(!*.py)", "Write(!x)"])
def test_a_negated_path_pattern_is_a_clear_error(text):
    with pytest.raises(RuleSyntaxError, match="negation"):
        load_rule(text, "deny")
    load_rule(text.replace("(!", "(\\!"), "deny")  # a name starting with "!" is written so


# --- malformed input: never an ALLOW ---------------------------------------------------------

MALFORMED = [
    ("Write", {"file_path": "src/a.py"}),                                  # content missing
    ("Write", {"file_path": "src/a.py", "content": 5}),
    ("Write", {"file_path": "src/a.py", "content": "x", "mode": "0777"}),  # unknown key
    ("Write", {"file_path": "src/a\x00b.py", "content": "x"}),
    ("Write", {"file_path": "src/\ud800.py", "content": "x"}),
    ("Edit", {"file_path": "src/a.py", "old_string": "x", "new_string": "y",
              "replace_all": "yes"}),
    ("Edit", {"file_path": "src/a.py", "old_string": "x"}),
    ("Read", {"file_path": "src/a.py", "offset": "1"}),
    ("Read", {"file_path": "src/a.py", "limit": True}),
    ("Read", {"file_path": "src/a.py", "follow": False}),
    ("Read", {"file_path": "src/a\x00.py"}),
    ("Glob", {"pattern": "*.py", "path": 3}),
    ("Glob", {"pattern": "*.py", "exclude": "x"}),
    ("Grep", {"pattern": "x", "output_mode": "everything"}),
    ("Grep", {"pattern": "x", "-i": "yes"}),
    ("Grep", {"pattern": "x", "--pre": "sh"}),
]
WELL_FORMED = [
    ("Write", {"file_path": "src/a.py", "content": "x"}),
    ("Edit", {"file_path": "src/a.py", "old_string": "x", "new_string": "y",
              "replace_all": True}),
    ("Read", {"file_path": "src/a.py", "offset": 1, "limit": 10}),
    ("Read", {"file_path": "src/\udc80.py"}),   # an undecodable byte: a name a file can have
    ("Glob", {"pattern": "*.py", "path": "src"}),
    ("Grep", {"pattern": "x", "output_mode": "content", "-i": True, "-C": 2}),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tool,tool_input", MALFORMED)
def test_malformed_input_is_never_allowed(project, tool, tool_input, mode):
    d = decide(tool, tool_input, mode, project)
    assert d.behavior in (ASK, DENY), d.reason
    assert d.bypass_immune
    assert tool in d.reason


@pytest.mark.parametrize("mode", ["accept_edits", "bypass"])
@pytest.mark.parametrize("tool,tool_input", WELL_FORMED)
def test_well_formed_twins_stay_allowed(project, tool, tool_input, mode):
    d = decide(tool, tool_input, mode, project)
    assert d.behavior is ALLOW, d.reason


def test_the_path_checks_do_not_touch_the_files(project):
    # (the checks above run on a project that stays as it was)
    assert sorted(os.listdir(project / "src")) == ["a.py"]


# --- the notebook tools act on the file their check resolved --------------------------------

# (path, where the kernel reaches it) through lnk -> a/b/c: "lnk/../.." is "a", not the parent
NOTEBOOK_PATHS = [
    ("lnk/../../x.ipynb", "a/x.ipynb"),
    ("lnk/../y.ipynb", "a/b/y.ipynb"),
    ("a/b/../x.ipynb", "a/x.ipynb"),    # the twin: no link, both readings agree
    ("x.ipynb", "x.ipynb"),
]


@pytest.mark.parametrize("mode", ["default", "accept_edits", "bypass"])
@pytest.mark.parametrize("path,reached", NOTEBOOK_PATHS)
def test_notebook_tools_act_where_their_check_looked(project, monkeypatch, path, reached,
                                                     mode):
    (project / "a/b/c").mkdir(parents=True)
    os.symlink(project / "a/b/c", project / "lnk")
    monkeypatch.chdir(project)
    engine, tool = prepare("NotebookEdit", mode=mode, cwd=project)
    d = engine.decide(tool, {"notebook_path": path, "new_source": "1", "edit_mode": "insert"})
    assert tool.resolve(path) == str(project / reached)  # where the call writes
    if mode == "accept_edits":
        assert d.behavior is ALLOW and str(project / reached) in d.reason, d.reason
    engine, reader = prepare("NotebookRead", mode=mode, cwd=project)
    assert reader.resolve(path) == str(project / reached)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tool_input", [
    {"notebook_path": "a.ipynb", "new_source": 5},
    {"notebook_path": "a.ipynb", "new_source": "x", "bogus": 1},
    {"notebook_path": "a.ipynb", "new_source": "x", "edit_mode": "replace-all"},
])
def test_malformed_notebook_edits_are_never_allowed(project, tool_input, mode):
    d = decide("NotebookEdit", tool_input, mode, project)
    assert d.behavior in (ASK, DENY) and d.bypass_immune, d.reason


# --- what a question shows is the name that is used ------------------------------------------

SPOOFS = [
    ("Write", "src/a.py\r\x1b[K"),        # a carriage return and an ANSI erase
    ("Write", "src/\u202eyp.a"),          # a right-to-left override: shows as src/a.py
    ("Write", "src/a\x01.py"),
    ("Write", "../outside\n.txt"),
    ("Read", "../outside\x1b[2K.txt"),
]


@pytest.mark.parametrize("mode", ["default", "accept_edits", "dont_ask"])
@pytest.mark.parametrize("tool,path", SPOOFS)
def test_a_question_never_shows_control_or_format_characters(project, tool, path, mode):
    tool_input = {"file_path": path, "content": "x"} if tool == "Write" else {"file_path": path}
    d = decide(tool, tool_input, mode, project)
    for text in (d.reason, d.message):
        assert text.isprintable(), text
    twin = decide(tool, {**tool_input, "file_path": "src/a.py"}, mode, project)
    if mode == "accept_edits" or tool == "Read":
        assert twin.behavior is ALLOW, twin.reason  # the plain name keeps its verdict
