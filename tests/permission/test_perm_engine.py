"""The engine: six steps × five modes, safety ASKs, suggestions, errors, middlewares, rules."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from perm_tools import DevBroken, Exploding, Explorer, Func, Judge, mcp_tool

from jupyter_agenttools.errors import DeveloperOrientedException, RuleExampleError
from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.permission.modes import MODE_TABLE
from jupyter_agenttools.permission.rules import load_rule, rule_matches, validate_examples
from jupyter_agenttools.permission.types import (
    STEPS,
    PermissionContext,
    PermissionDecision,
    PermissionMode,
    PermissionRule,
)
from jupyter_agenttools.permission.types import (
    PermissionBehavior as B,
)

MODES = ["default", "accept_edits", "explore", "bypass", "dont_ask"]
A, K, D = B.ALLOW, B.ASK, B.DENY

# case: (tool, input, rules, {mode: (behavior, step)}) — one row per step that can decide
DENIED = {"deny": ["Judge(rm*)"], "allow": ["Judge(rm*)"]}
CASES = {
    "1 deny rule beats an allow rule and the tool": (
        Judge, {"text": "rm x", "verdict": "allow"}, DENIED,
        dict.fromkeys(MODES, (D, "deny_rules"))),
    "2 ask rule": (
        Judge, {"text": "push", "verdict": "allow"}, {"ask": ["Judge(push)"]},
        {"default": (K, "ask_rules"), "accept_edits": (K, "ask_rules"),
         "explore": (K, "ask_rules"), "bypass": (K, "ask_rules"),
         "dont_ask": (D, "ask_rules")}),
    "3 read-only fast path": (
        Judge, {"text": "look", "read_only": True, "verdict": "deny"}, {},
        dict.fromkeys(MODES, (A, "read_only"))),
    "4 tool check allows": (
        Judge, {"text": "x", "verdict": "allow"}, {},
        {**dict.fromkeys(MODES, (A, "tool_check")), "explore": (D, "fallback")}),
    "4 tool check denies (an allow rule can't help)": (
        Judge, {"text": "x", "verdict": "deny"}, {"allow": ["Judge"]},
        {**dict.fromkeys(MODES, (D, "tool_check")), "explore": (D, "fallback")}),
    "4 plain ASK from the tool, no rule": (
        Judge, {"text": "x", "verdict": "ask"}, {},
        {"default": (K, "tool_check"), "accept_edits": (K, "tool_check"),
         "explore": (D, "fallback"), "bypass": (A, "fallback"),
         "dont_ask": (D, "tool_check")}),
    "4 safety ASK, an allow rule can't silence it": (
        Judge, {"text": "x", "verdict": "safety"}, {"allow": ["Judge(x)"]},
        {"default": (K, "tool_check"), "accept_edits": (K, "tool_check"),
         "explore": (D, "fallback"), "bypass": (A, "allow_rules"),
         "dont_ask": (D, "tool_check")}),
    "4 safety ASK, no rule": (
        Judge, {"text": "x", "verdict": "safety"}, {},
        {"default": (K, "tool_check"), "accept_edits": (K, "tool_check"),
         "explore": (D, "fallback"), "bypass": (A, "fallback"),
         "dont_ask": (D, "tool_check")}),
    "5 allow rule after a plain ASK": (
        Judge, {"text": "x", "verdict": "ask"}, {"allow": ["Judge(x)"]},
        {**dict.fromkeys(MODES, (A, "allow_rules")), "explore": (D, "fallback")}),
    "5 allow rule after a passthrough": (
        Judge, {"text": "hello", "verdict": "passthrough"}, {"allow": ["Judge(hel*)"]},
        {**dict.fromkeys(MODES, (A, "allow_rules")), "explore": (D, "fallback")}),
    "6 fallback": (
        Judge, {"text": "x"}, {"allow": ["Judge(y)"], "deny": ["Judge(z)"]},
        {"default": (K, "fallback"), "accept_edits": (K, "fallback"),
         "explore": (D, "fallback"), "bypass": (A, "fallback"), "dont_ask": (D, "fallback")}),
    "6 fallback for a function tool": (
        Func, {}, {},
        {"default": (K, "tool_check"), "accept_edits": (K, "tool_check"),
         "explore": (D, "fallback"), "bypass": (A, "fallback"), "dont_ask": (D, "tool_check")}),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", list(CASES))
def test_six_steps_by_mode(case, mode):
    tool_cls, tool_input, rules, expected = CASES[case]
    d = PermissionEngine(mode=mode, rules=rules).decide(tool_cls(), tool_input)
    assert (d.behavior, d.step) == expected[mode]
    assert [t.step for t in d.trace] == list(STEPS)  # all six steps, always
    decided = STEPS.index(d.step)
    assert d.trace[decided].outcome not in ("skipped", "no match")
    later = [(t.step, t.outcome) for t in d.trace[decided + 1:]]
    if d.step == "tool_check" and d.trace[3].outcome == "ask" and not d.bypass_immune:
        # a plain ASK is remembered while the allow rules are still consulted
        assert later == [("allow_rules", "no match"), ("fallback", "skipped")]
    else:
        assert all(outcome == "skipped" for _, outcome in later)


@pytest.mark.parametrize("mode, behavior, step, immune", [
    ("default", K, "tool_check", True),
    ("accept_edits", K, "tool_check", True),
    ("explore", D, "fallback", False),
    ("bypass", A, "fallback", False),
    ("dont_ask", D, "tool_check", True),
])
def test_safety_ask_per_mode(mode, behavior, step, immune):
    d = PermissionEngine(mode=mode).decide(Judge(), {"text": "k", "verdict": "safety"})
    assert (d.behavior, d.step, d.bypass_immune) == (behavior, step, immune)
    assert d.suggestions == []  # a safety ASK gets no "Always allow" offer
    if mode == "bypass":
        assert d.trace[3].outcome == "ignored"


def test_plain_ask_keeps_the_tools_message_and_gets_narrow_suggestions():
    d = PermissionEngine().decide(Judge(), {"text": "make", "verdict": "ask"})
    assert d.behavior is K and not d.bypass_immune
    assert d.message == "the judge wants to ask"
    assert [r.text for r in d.suggestions] == ["Judge(make*)"]  # Judge, **, /**, * dropped
    assert all(r.behavior is A and r.source == "suggested" for r in d.suggestions)


def test_function_tool_suggestion_is_the_whole_tool():
    d = PermissionEngine().decide(Func(), {})
    assert [r.text for r in d.suggestions] == ["my_function"]


@pytest.mark.parametrize("mode", MODES)
def test_no_suggestions_on_allow_or_rule_deny(mode):
    e = PermissionEngine(mode=mode, rules={"deny": ["Judge(no)"]})
    assert e.decide(Judge(), {"text": "no"}).suggestions == []
    assert e.decide(Judge(), {"text": "r", "read_only": True}).suggestions == []


VERDICTS = ["allow", "deny", "ask", "safety", "passthrough", "boom"]


@settings(max_examples=300, deadline=None)
@given(verdict=st.sampled_from(VERDICTS), read_only=st.booleans(),
       text=st.sampled_from(["a", "b", "c"]),
       allow=st.lists(st.sampled_from(["Judge(a)", "Judge(b*)", "Judge"]), max_size=2),
       ask=st.lists(st.sampled_from(["Judge(a)", "Judge(c)", "Judge"]), max_size=2),
       deny=st.lists(st.sampled_from(["Judge(b)", "Judge(zz)"]), max_size=1))
def test_dont_ask_never_asks(verdict, read_only, text, allow, ask, deny):
    engine = PermissionEngine(mode="dont_ask",
                              rules={"allow": allow, "ask": ask, "deny": deny})
    tool = Exploding() if verdict == "boom" else Judge()
    if verdict == "boom":
        allow = [r.replace("Judge", "Exploding") for r in allow]
    d = engine.decide(tool, {"text": text, "verdict": verdict, "read_only": read_only})
    assert d.behavior in (A, D)
    # and the same call in default mode differs only by ASK -> DENY
    default = PermissionEngine(mode="default", rules={"allow": allow, "ask": ask, "deny": deny}
                               ).decide(tool, {"text": text, "verdict": verdict,
                                               "read_only": read_only})
    assert d.behavior == (D if default.behavior is K else default.behavior)


def test_explore_never_calls_the_tool_check():
    judge = Judge()
    engine = PermissionEngine(mode="explore", rules={"allow": ["Judge", "Exploding"]})
    for verdict in VERDICTS:
        d = engine.decide(judge, {"text": "x", "verdict": verdict})
        assert d.behavior is D and d.step == "fallback"
        assert d.trace[3].outcome == "skipped" and d.trace[4].outcome == "not consulted"
    assert judge.checked == []
    assert engine.decide(Exploding(), {"text": "x"}).behavior is D  # raising check never ran
    assert engine.decide(Explorer(), {"path": "/etc"}).behavior is A
    # the same engine in default mode does call it
    engine.decide(judge, {"text": "x"}, mode="default")
    assert judge.checked == [({"text": "x"}, PermissionMode.DEFAULT)]


@pytest.mark.parametrize("mode, behavior", [
    ("default", K), ("accept_edits", K), ("bypass", K), ("dont_ask", D)])
def test_a_raising_check_is_never_an_allow(mode, behavior):
    engine = PermissionEngine(mode=mode, rules={"allow": ["Exploding"]})
    d = engine.decide(Exploding(), {"text": "x"})
    assert d.behavior is behavior and d.step == "tool_check"
    assert "RuntimeError: kaboom in the check" in d.reason
    assert d.bypass_immune and d.suggestions == []
    assert [t.step for t in d.trace] == list(STEPS)


def test_developer_errors_propagate():
    with pytest.raises(DeveloperOrientedException, match="misconfigured"):
        PermissionEngine().decide(DevBroken(), {})


def test_a_check_returning_garbage_is_an_error_decision():
    class Garbage(Judge):
        name = "Garbage"

        def check_permissions(self, tool_input, context):
            return "allow"

    d = PermissionEngine(mode="bypass").decide(Garbage(), {"text": "x"})
    assert d.behavior is K and "expected a PermissionDecision" in d.reason


def test_tools_see_the_mode_in_their_context():
    judge = Judge()
    engine = PermissionEngine(mode="accept_edits")
    engine.decide(judge, {"text": "a"})
    engine.decide(judge, {"text": "b"}, mode="dont_ask")
    engine.decide(judge, {"text": "c"}, context=PermissionContext(cwd="/tmp"))
    assert [m for _, m in judge.checked] == [
        PermissionMode.ACCEPT_EDITS, PermissionMode.DONT_ASK, PermissionMode.ACCEPT_EDITS]


def test_mode_table_has_one_row_per_mode():
    assert set(MODE_TABLE) == set(PermissionMode)
    assert [MODE_TABLE[PermissionMode(m)].fallback for m in MODES] == [K, K, D, A, D]


# --- rule matching -----------------------------------------------------------------------

@pytest.mark.parametrize("rule, tool_name, expected", [
    ("mcp__files", "mcp__files__read", True),
    ("mcp__files", "mcp__files__write", True),
    ("mcp__files", "mcp__filesystem__read", False),
    ("mcp__files", "mcp__other__read", False),
    ("mcp__files__read", "mcp__files__read", True),
    ("mcp__files__read", "mcp__files__write", False),
    ("Judge", "Judge", True),
    ("Judge", "Judge2", False),
])
def test_rule_tool_names(rule, tool_name, expected):
    r = PermissionRule.parse(rule)
    assert rule_matches(r, mcp_tool(tool_name), {}, PermissionContext()) is expected


def test_mcp_server_rule_in_the_engine():
    engine = PermissionEngine(rules={"deny": ["mcp__evil"], "allow": ["mcp__files"]})
    assert engine.decide(mcp_tool("mcp__evil__run"), {}).behavior is D
    d = engine.decide(mcp_tool("mcp__files__read"), {})
    assert (d.behavior, d.rule.text) == (A, "mcp__files")
    assert engine.decide(mcp_tool("mcp__other__x"), {}).behavior is K


def test_specifier_matching_is_the_tools():
    calls = []

    class Picky(Judge):
        name = "Picky"

        def match_rule(self, rule, tool_input, context):
            calls.append((rule.text, rule.behavior))
            return tool_input["text"].upper() == rule.specifier

    engine = PermissionEngine(rules={"allow": ["Picky(GO)"]})
    assert engine.decide(Picky(), {"text": "go"}).behavior is A
    assert calls == [("Picky(GO)", A)]


@pytest.mark.parametrize("entry, error", [
    ({"rule": "Judge(a)", "example": ["a"]}, "unknown key"),
    ({"examples": ["a"]}, "missing the 'rule'"),
    ({"rule": "Judge(a)", "examples": "a"}, "must be a list"),
    (42, "expected a rule string"),
    ("Judge(", "closing"),
    ("", "empty"),
])
def test_load_rule_errors(entry, error):
    with pytest.raises(ValueError, match=error):
        load_rule(entry, "allow")


def test_rule_examples_are_checked_at_load():
    judge = Judge()
    good = load_rule({"rule": "Judge(git *)", "examples": ["git status", {"text": "git x"}],
                      "counter_examples": ["gitk"]}, "allow", "s.json")
    validate_examples(good, judge)
    bad = load_rule({"rule": "Judge(git *)", "examples": ["git status", "git"]}, "allow",
                    "s.json")
    with pytest.raises(RuleExampleError) as exc:
        validate_examples(bad, judge)
    assert "'Judge(git *)'" in str(exc.value) and "'git'" in str(exc.value)
    assert "should match" in str(exc.value) and "s.json" in str(exc.value)
    counter = load_rule({"rule": "Judge(git*)", "counter_examples": ["gitk"]}, "deny")
    with pytest.raises(RuleExampleError, match="'gitk' should not match"):
        validate_examples(counter, judge)
    with pytest.raises(RuleExampleError, match="has no main argument"):
        validate_examples(load_rule({"rule": "my_function", "examples": ["x"]}, "allow"),
                          Func())


def test_engine_rejects_a_failing_rule_when_its_tool_is_known():
    bad = {"allow": [{"rule": "Judge(git *)", "examples": ["ls"]}]}
    with pytest.raises(RuleExampleError, match="'ls' should match"):
        PermissionEngine(rules=bad, tools=[Judge()])
    engine = PermissionEngine(tools=[Judge()])
    with pytest.raises(RuleExampleError):
        engine.add_rule(PermissionRule.parse("Judge(a)", counter_examples=["a"]))
    assert engine.rules == []


def test_engine_checks_rule_examples_when_the_tool_becomes_known():
    engine = PermissionEngine(rules={"allow": [{"rule": "Judge(git *)",
                                                "examples": ["ls"]}]})
    assert engine.decide(Func(), {}).behavior is K  # other tools are unaffected
    for _ in range(2):  # and the bad rule keeps being reported, never silently used
        with pytest.raises(RuleExampleError, match="'ls' should match"):
            engine.decide(Judge(), {"text": "git x"})


def test_session_rules_add_and_remove():
    engine = PermissionEngine()
    assert engine.decide(Judge(), {"text": "a"}).behavior is K
    engine.add_rule(PermissionRule.parse("Judge(a)"))
    engine.add_rule(PermissionRule.parse("Judge(a)"))  # no duplicate
    assert [r.text for r in engine.rules] == ["Judge(a)"]
    d = engine.decide(Judge(), {"text": "a"})
    assert (d.behavior, d.rule_source) == (A, "session")
    suggested = engine.decide(Judge(), {"text": "mk"}).suggestions[0]
    assert suggested.source == "suggested"
    assert engine.add_rule(suggested).source == "session"  # "Always allow", session only
    assert engine.decide(Judge(), {"text": "mk"}).rule_source == "session"
    assert engine.remove_rule("Judge(a)") is True
    assert engine.remove_rule("Judge(a)") is False
    assert engine.decide(Judge(), {"text": "a"}).behavior is K


# --- middlewares -------------------------------------------------------------------------

def test_middlewares_are_an_onion():
    order = []

    def outer(tool, tool_input, context, nxt):
        order.append("outer in")
        d = nxt(tool, tool_input, context)
        order.append("outer out")
        return d

    def inner(tool, tool_input, context, nxt):
        order.append("inner in")
        d = nxt(tool, tool_input, context)
        order.append("inner out")
        if tool_input.get("text") == "veto":
            return PermissionDecision.deny("vetoed by policy", step="middleware")
        return d

    engine = PermissionEngine(mode="bypass", middlewares=[outer, inner])
    assert engine.decide(Judge(), {"text": "ok"}).behavior is A
    assert order == ["outer in", "inner in", "inner out", "outer out"]
    d = engine.decide(Judge(), {"text": "veto"})
    assert (d.behavior, d.reason) == (D, "vetoed by policy")


def test_a_middleware_may_skip_the_engine():
    judge = Judge()

    def short_circuit(tool, tool_input, context, nxt):
        return PermissionDecision.allow("trusted caller", step="middleware")

    engine = PermissionEngine(middlewares=[short_circuit])
    assert engine.decide(judge, {"text": "x", "verdict": "deny"}).behavior is A
    assert judge.checked == []


def test_a_broken_middleware_is_never_an_allow():
    def broken(tool, tool_input, context, nxt):
        raise KeyError("oops")

    engine = PermissionEngine(mode="bypass", middlewares=[broken])
    d = engine.decide(Judge(), {"text": "x"})
    assert d.behavior is K and "KeyError" in d.reason

    engine = PermissionEngine(middlewares=[lambda t, i, c, n: None])
    with pytest.raises(DeveloperOrientedException, match="returned NoneType"):
        engine.decide(Judge(), {"text": "x"})


def test_read_only_hook_gets_the_context_when_it_takes_one():
    seen = []

    class Reader(Judge):
        name = "Reader"

        def is_read_only(self, tool_input=None, context=None):
            seen.append(context)
            return context is not None and tool_input["text"].startswith(context.cwd)

    engine = PermissionEngine(mode="explore", context=PermissionContext(cwd="/proj"))
    assert engine.decide(Reader(), {"text": "/proj/a"}).behavior is B.ALLOW
    assert engine.decide(Reader(), {"text": "/etc/a"}).behavior is B.DENY
    assert [c.cwd for c in seen] == ["/proj", "/proj"]
    assert seen[0].mode is PermissionMode.EXPLORE
    # the plain protocol (input only) keeps working
    assert engine.decide(Judge(), {"text": "x", "read_only": True}).behavior is B.ALLOW


def test_suggestions_leave_out_rules_already_in_force():
    class Chain(Judge):
        name = "Chain"

        def suggest_rules(self, tool_input, context):
            return [PermissionRule("Chain", p) for p in tool_input["text"].split(" && ")]

    engine = PermissionEngine(rules={"allow": ["Chain(make)"]})
    d = engine.decide(Chain(), {"text": "make && deploy"})
    assert d.behavior is K and [r.text for r in d.suggestions] == ["Chain(deploy)"]
