"""Rules by effect, across tools: Read(...) rules apply to every read/search effect of every tool,
Edit(...)/Write(...) (one family) to every write/delete — case tables × the mode ladder, on a
real tree with real symlinks."""

from __future__ import annotations

import os

import pytest

from jupyter_agenttools.backends.local import LocalBackend
from jupyter_agenttools.builtin import Edit, Glob, Grep, Read, Write
from jupyter_agenttools.permission.effects import (
    PathEffect,
    check_effects,
    effect_matches,
    strictest,
)
from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.permission.types import (
    PermissionBehavior,
    PermissionContext,
    PermissionDecision,
    PermissionMode,
    PermissionRule,
)
from jupyter_agenttools.tools.base import Tool

ALLOW, ASK, DENY = "allow", "ask", "deny"
MODES = [m.value for m in PermissionMode]


@pytest.fixture
def tree(tmp_path):
    root = tmp_path.resolve()
    for d in ("home/.ssh", "home/.config/gh", "proj/data/secret", "proj/src", "outside"):
        (root / d).mkdir(parents=True)
    (root / "home/.ssh/id_rsa").write_text("KEY")
    (root / "home/.config/gh/hosts.yml").write_text("token")
    (root / "proj/data/secret/a.txt").write_text("s")
    (root / "proj/data/x.txt").write_text("x")
    (root / "proj/src/a.py").write_text("print(1)")
    (root / "outside/o.txt").write_text("o")
    os.symlink(root / "proj/data/secret", root / "proj/hidden")   # a second name for secret/
    os.symlink(root / "home/.ssh", root / "proj/keys")            # keys/.. is the home
    os.symlink(root / "proj/data", root / "outside/back")         # from outside into data/
    return root


def ctx(tree, mode="default"):
    return PermissionContext(mode=mode, cwd=str(tree / "proj"), project_root=str(tree / "proj"),
                             home=str(tree / "home"))


TOOLS = {cls.__name__: cls(LocalBackend()) for cls in (Read, Write, Edit, Glob, Grep)}


class Exporter(Tool):
    """A third-party tool: it writes ``target`` and reads ``source``, and says so."""

    name = "Exporter"
    rule_argument = "target"
    input_schema = {"type": "object", "properties": {"source": {"type": "string"},
                                                     "target": {"type": "string"}}}

    def path_effects(self, tool_input, context):
        return [PathEffect("read", tool_input["source"]),
                PathEffect("write", tool_input["target"])]

    def check_permissions(self, tool_input, context):
        return check_effects(self.path_effects(tool_input, context), context, self.name)


TOOLS["Exporter"] = Exporter()


def decide(tree, rules, tool, tool_input, mode="default"):
    engine = PermissionEngine(mode=mode, rules=rules, context=ctx(tree, mode))
    return engine.decide(TOOLS[tool], tool_input)


# --- one deny rule, every tool that reaches the folder -------------------------------------------

SECRET_DENY = {"deny": ["Read(data/secret/**)"]}

# (tool, input, denied?) — every way to read data/secret, and neighbours that must stay free
READ_CASES = [
    ("Read", {"file_path": "data/secret/a.txt"}, True),
    ("Read", {"file_path": "hidden/a.txt"}, True),                   # a symlink to secret/
    ("Read", {"file_path": "src/../data/secret/a.txt"}, True),
    ("Read", {"file_path": "../outside/back/secret/a.txt"}, True),   # out and back in
    ("Read", {"file_path": "DATA/SECRET/a.txt"}, True),              # case ignored for deny
    ("Grep", {"pattern": "x", "path": "data/secret"}, True),
    ("Grep", {"pattern": "x", "path": "hidden"}, True),
    ("Grep", {"pattern": "x", "path": "data"}, True),                # traverses secret/
    ("Grep", {"pattern": "x"}, True),                                # the cwd traverses it
    ("Glob", {"pattern": "data/secret/*"}, True),
    ("Glob", {"pattern": "**/*.txt", "path": "data"}, True),
    ("Glob", {"pattern": "*", "path": "hidden"}, True),
    ("Exporter", {"source": "hidden/a.txt", "target": "src/out.txt"}, True),
    ("Read", {"file_path": "data/x.txt"}, False),
    ("Read", {"file_path": "data/secretive.txt"}, False),
    ("Grep", {"pattern": "x", "path": "src"}, False),
    ("Glob", {"pattern": "src/*.py"}, False),
    ("Write", {"file_path": "data/secret/new.txt", "content": ""}, False),  # a write: Edit rules
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tool,tool_input,denied", READ_CASES)
def test_a_read_deny_rule_applies_to_every_tool_that_reads(tree, mode, tool, tool_input,
                                                           denied):
    decision = decide(tree, SECRET_DENY, tool, tool_input, mode)
    if denied:
        assert decision.behavior is PermissionBehavior.DENY, decision.trace
        assert decision.step == "deny_rules"
        assert decision.rule.text == "Read(data/secret/**)"
    else:
        assert decision.step != "deny_rules"


WRITE_RULES = [{"deny": ["Edit(data/**)"]}, {"deny": ["Write(data/**)"]}]

WRITE_CASES = [
    ("Write", {"file_path": "data/new.txt", "content": "n"}, True),
    ("Edit", {"file_path": "data/x.txt", "old_string": "x", "new_string": "y"}, True),
    ("Write", {"file_path": "hidden/b.txt", "content": "n"}, True),   # symlink into data/
    ("Write", {"file_path": "../outside/back/y.txt", "content": "n"}, True),
    ("Exporter", {"source": "src/a.py", "target": "data/out.txt"}, True),
    ("Write", {"file_path": "src/new.txt", "content": "n"}, False),
    ("Read", {"file_path": "data/x.txt"}, False),                     # a read: Read rules
    ("Grep", {"pattern": "x", "path": "data"}, False),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rules", WRITE_RULES, ids=["Edit", "Write"])
@pytest.mark.parametrize("tool,tool_input,denied", WRITE_CASES)
def test_edit_and_write_rules_are_one_family_for_every_write(tree, mode, rules, tool,
                                                             tool_input, denied):
    decision = decide(tree, rules, tool, tool_input, mode)
    assert (decision.behavior is PermissionBehavior.DENY and decision.step == "deny_rules") \
        is denied, decision.trace


@pytest.mark.parametrize("mode,expected", [("default", ASK), ("accept_edits", ASK),
                                           ("explore", ASK), ("bypass", ASK),
                                           ("dont_ask", DENY)])
@pytest.mark.parametrize("tool,tool_input", [
    ("Read", {"file_path": "data/secret/a.txt"}),
    ("Grep", {"pattern": "x", "path": "data"}),
    ("Glob", {"pattern": "**", "path": "hidden"}),
    ("Edit", {"file_path": "hidden/a.txt", "old_string": "s", "new_string": "t"}),
])
def test_ask_rules_by_effect(tree, mode, expected, tool, tool_input):
    rules = {"ask": ["Read(data/secret/**)", "Edit(data/secret/**)"]}
    decision = decide(tree, rules, tool, tool_input, mode)
    assert decision.behavior.value == expected and decision.step == "ask_rules"


def test_kernel_order_symlink_before_dotdot(tree):
    """keys -> ~/.ssh, so keys/../.config/gh/hosts.yml is ~/.config/gh/hosts.yml (a token),
    not proj/.config/...: a Read deny on the home's .config catches it."""
    rules = {"deny": ["Read(~/.config/**)"]}
    decision = decide(tree, rules, "Read", {"file_path": "keys/../.config/gh/hosts.yml"})
    assert decision.behavior is PermissionBehavior.DENY
    # without the rule it is a secret: a safety ASK, never ALLOW, in every mode but bypass
    for mode in MODES:
        d = decide(tree, {}, "Read", {"file_path": "keys/../.config/gh/hosts.yml"}, mode)
        assert d.behavior is not PermissionBehavior.ALLOW or mode == "bypass", (mode, d.trace)


# --- allow rules across tools ----------------------------------------------------------------

@pytest.mark.parametrize("tool,tool_input,allowed", [
    ("Read", {"file_path": "../outside/o.txt"}, True),
    ("Grep", {"pattern": "o", "path": "../outside"}, True),
    ("Glob", {"pattern": "*.txt", "path": "../outside"}, True),
    ("Glob", {"pattern": "../outside/*"}, True),
    ("Grep", {"pattern": "o", "path": ".."}, False),          # more than the rule covers
    ("Write", {"file_path": "../outside/n.txt", "content": ""}, False),  # a Read rule
])
def test_a_read_allow_rule_covers_searches_of_its_folder(tree, tool, tool_input, allowed):
    outside = str(tree / "outside")
    decision = decide(tree, {"allow": [f"Read(/{outside}/**)"]}, tool, tool_input)
    assert (decision.behavior is PermissionBehavior.ALLOW) is allowed, decision.trace


def test_allow_needs_every_effect_covered(tree):
    """Exporter reads and writes; it reports complete effects? No: a third-party tool's
    effects allow only through its own rules unless it says ``effects_complete``."""
    rules = {"allow": ["Read(src/**)", "Edit(data/**)"]}
    tool_input = {"source": "src/a.py", "target": "data/o.txt"}
    assert decide(tree, rules, "Exporter", tool_input).behavior is not PermissionBehavior.ALLOW
    Exporter.effects_complete = True
    try:
        assert decide(tree, rules, "Exporter", tool_input).behavior is PermissionBehavior.ALLOW
        one = {"allow": ["Read(src/**)"]}
        assert decide(tree, one, "Exporter", tool_input).behavior is not \
            PermissionBehavior.ALLOW
    finally:
        del Exporter.effects_complete


def test_a_bare_family_rule_names_its_tool_only(tree):
    # "Read" allows the Read tool, not Grep; "Edit" denies the Edit tool, not Write
    assert decide(tree, {"allow": ["Read"]}, "Read",
                  {"file_path": "../outside/o.txt"}).behavior is PermissionBehavior.ALLOW
    assert decide(tree, {"allow": ["Read"]}, "Grep",
                  {"pattern": "o", "path": "../outside"}).behavior is PermissionBehavior.ASK
    assert decide(tree, {"deny": ["Edit"]}, "Write",
                  {"file_path": "src/n.txt", "content": ""}).step != "deny_rules"


# --- the effect values ------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{"kind": "exec", "path": "x"}, {"kind": "read", "path": 3}])
def test_path_effect_refuses_what_it_cannot_be(kwargs):
    with pytest.raises(ValueError):
        PathEffect(**kwargs)


def test_effect_with_unknown_base_matches_only_name_patterns(tree):
    c = ctx(tree)
    effect = PathEffect("read", "a.env", base=None)
    assert effect_matches(PermissionRule.parse("Read(*.env)", "deny"), effect, c)
    assert not effect_matches(PermissionRule.parse("Read(data/**)", "deny"), effect, c)
    assert not effect_matches(PermissionRule.parse("Read(*.env)", "allow"), effect, c)
    decision = check_effects([effect], c, "Bash")
    assert decision.is_safety_ask


def test_effect_base_is_applied_like_cd(tree):
    c = ctx(tree)
    rule = PermissionRule.parse("Read(data/secret/**)", "deny")
    assert effect_matches(rule, PathEffect("read", "a.txt", base=("data", "secret")), c)
    assert effect_matches(rule, PathEffect("read", "secret/a.txt", base=("src", "../data")), c)
    # cd keys; cat ../x  — the kernel's cwd is ~/.ssh, so ../x is ~/x
    home_rule = PermissionRule.parse("Read(~/x)", "deny")
    assert effect_matches(home_rule, PathEffect("read", "../x", base=("keys",)), c)
    assert not effect_matches(rule, PathEffect("read", "a.txt", base=("src",)), c)


def test_glob_effects_expand_on_the_facts(tree):
    c = ctx(tree)
    rule = PermissionRule.parse("Read(~/.ssh/id_rsa)", "deny")
    assert effect_matches(rule, PathEffect("read", "~/.ss?/id_*", glob=True), c)
    assert effect_matches(rule, PathEffect("read", "keys/*", glob=True), c)
    assert not effect_matches(rule, PathEffect("read", "src/*", glob=True), c)
    assert check_effects([PathEffect("read", "~/.ss?/id_*", glob=True)], c,
                         "Bash").is_safety_ask


def test_strictest_ranks_passthrough_above_allow():
    allow = PermissionDecision.allow("a read inside")
    passthrough = PermissionDecision.passthrough("a write: the rules decide")
    assert strictest([allow, passthrough]) is passthrough
    safety = PermissionDecision.ask("secret", safety=True)
    assert strictest([PermissionDecision.ask("plain"), safety, allow]) is safety
