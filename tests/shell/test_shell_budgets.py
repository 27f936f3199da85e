"""Budgets and commands that cannot be analysed, across the mode ladder.

A command that exhausts a budget is "too complex to analyse": never ALLOWed in any mode, not
even by an allow rule naming its program, and DENYed in bypass and dont_ask. A command that
cannot be analysed at all (too long, hidden characters, a syntax error) has unknown effects, so
the protected tier cannot be checked on it: never ALLOWed either, DENYed in bypass — padding
``rm -rf ~`` past the length limit must not turn bypass's protected DENY into an ALLOW.
"""

from __future__ import annotations

import pytest

from jupyter_agenttools.permission.check import prepare
from jupyter_agenttools.permission.types import PermissionBehavior
from jupyter_agenttools.shell import analysis as budgets

ALLOW, ASK, DENY = PermissionBehavior.ALLOW, PermissionBehavior.ASK, PermissionBehavior.DENY
# allow rules for every program the cases name: none of them may lift the verdict
RULES = {"allow": ["Bash(ls:*)", "Bash(echo:*)", "Bash(cat:*)", "Bash(eval:*)", "Bash(sudo:*)",
                   "Bash(nice:*)", "Bash(rm:*)", "Bash(sh:*)"]}

TOO_COMPLEX = {
    "commands": "ls; " * (budgets.MAX_COMMANDS + 1) + "ls",
    "words": "echo " + "a " * (budgets.MAX_WORDS + 1),
    "expansions": "echo " + "$x " * (budgets.MAX_EXPANSIONS + 1),
    "separators": "ls" + " | ls" * (budgets.MAX_SEPARATORS + 1),
    "parentheses": "echo " + "$(" * (budgets.MAX_GROUPS + 1) + "ls"
                   + ")" * (budgets.MAX_GROUPS + 1),
    "heredoc line": "cat <<EOF\n" + "$x" * (budgets.MAX_HEREDOC_LINE_EXPANSIONS + 1) + "\nEOF",
    "shell depth": "eval " * (budgets.MAX_DEPTH + 2) + "ls",
    "runner depth": "sudo " * (budgets.MAX_DEPTH + 2) + "ls",
    "wrapper suffixes": "nice --weird " + "x " * (budgets.MAX_SUFFIX_WORDS + 1),
}

UNANALYZABLE = {
    "too long (comment)": "rm -rf ~ #" + "x" * budgets.MAX_COMMAND_CHARS,
    "too long (spaces)": "rm -rf ~" + " " * budgets.MAX_COMMAND_CHARS,
    "inner source too long": "sh -c '" + "echo aaaaaaaaa; " * 13_000 + "'",
    "hidden character": "rm -rf ~\u202e",
    "syntax error": "echo 'unterminated",
}

# mode -> (too complex, cannot be analysed); explore never calls the tool check (its fallback
# DENYs every call that is not read-only), elsewhere the verdict is a safety one
LADDER = {
    "default": (ASK, ASK),
    "accept_edits": (ASK, ASK),
    "explore": (DENY, DENY),
    "bypass": (DENY, DENY),
    "dont_ask": (DENY, DENY),
}


@pytest.fixture(scope="module")
def engines(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("budgets"))
    return {mode: prepare("Bash", mode=mode, rules=RULES, cwd=folder) for mode in LADDER}


def test_every_case_is_what_it_claims() -> None:
    for name, command in TOO_COMPLEX.items():
        a = budgets.analyze(command)
        assert a.too_complex and not a.unanalyzable, name
    for name, command in UNANALYZABLE.items():
        assert budgets.analyze(command).unanalyzable, name


@pytest.mark.parametrize("mode", list(LADDER))
@pytest.mark.parametrize("case", list(TOO_COMPLEX))
def test_too_complex_is_never_allowed(engines, mode: str, case: str) -> None:
    engine, bash = engines[mode]
    d = engine.decide(bash, {"command": TOO_COMPLEX[case]})
    assert d.behavior is LADDER[mode][0], (case, mode, d.reason)
    assert d.bypass_immune or mode == "explore", d.reason


@pytest.mark.parametrize("mode", list(LADDER))
@pytest.mark.parametrize("case", list(UNANALYZABLE))
def test_unanalysable_is_never_allowed(engines, mode: str, case: str) -> None:
    engine, bash = engines[mode]
    d = engine.decide(bash, {"command": UNANALYZABLE[case]})
    assert d.behavior is LADDER[mode][1], (case, mode, d.reason)
    assert d.bypass_immune or mode == "explore", d.reason


def test_the_unpadded_command_is_the_protected_deny(engines) -> None:
    """The twin: without the padding bypass refuses it through the protected tier."""
    engine, bash = engines["bypass"]
    d = engine.decide(bash, {"command": "rm -rf ~"})
    assert d.behavior is DENY and "protected" in d.reason
