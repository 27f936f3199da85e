"""Hypothesis: random and mutated commands never raise, and a command whose parse has errors
is never ALLOWed (nor read-only, nor approved by an allow rule)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from jupyter_agenttools.builtin.bash.policy import (
    bash_check_permissions,
    bash_is_read_only,
    bash_match_rule,
    bash_suggest_rules,
)
from jupyter_agenttools.permission.types import (
    PermissionBehavior,
    PermissionContext,
    PermissionRule,
)
from jupyter_agenttools.shell.fastpath import plain_commands
from jupyter_agenttools.shell.parse import PARSER as _PARSER
from jupyter_agenttools.shell.parse import analyze
from jupyter_agenttools.shell.syntax import parse_commands

CTX = PermissionContext(cwd=str(Path(__file__).parent), home="/home/fuzz")
SEEDS = [json.loads(line)["input"]["command"] for line in
         Path(__file__).with_name("corpus.jsonl").read_text(encoding="utf-8").splitlines()
         if line.strip()]
ALLOW_ALL = PermissionRule.parse("Bash(ls:*)", "allow")
DENY_RM = PermissionRule.parse("Bash(rm:*)", "deny")

# Deterministic: the same examples on every run and machine (seeded from each test function,
# no example database), so a red CI run is reproducible; failures found earlier are pinned
# below with @example.
FUZZ = settings(deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))

SHELL_CHARS = st.sampled_from(list(" \t\n;&|<>()[]{}$`'\"\\*?!#=~-/.,:@%^+0123456789") +
                              ["\r", "\x00", "\u202e", "\u200b", "$(", "<(", "${", "<<",
                               "EOF", "&&", "||", "|&", ">>", "2>&1"])
WORDS = st.sampled_from(["ls", "cat", "rm", "-rf", "/", "~", "echo", "sed", "-i", "git",
                         "status", "find", ".", "-exec", "-delete", "curl", "sh", "x", "f.txt",
                         ".env", "~/.ssh/id_rsa", "sudo", "awk", "'{print}'", "xargs", "env"])
RANDOM = st.lists(st.one_of(SHELL_CHARS, WORDS, st.text(max_size=3)), max_size=30).map("".join)


@st.composite
def mutated(draw) -> str:
    s = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["insert", "delete", "replace", "cut", "append"]))
        pos = draw(st.integers(0, len(s)))
        piece = draw(st.one_of(SHELL_CHARS, WORDS))
        if op == "insert":
            s = s[:pos] + piece + s[pos:]
        elif op == "delete":
            s = s[:pos] + s[pos + 1:]
        elif op == "replace":
            s = s[:pos] + piece + s[pos + 1:]
        elif op == "cut":
            s = s[:pos]
        else:
            s = s + draw(st.sampled_from([" ", ";", "&&", "|", "&", "\n"])) + piece
    return s


def _has_parse_error(command: str) -> bool:
    """Only called for text analyze() accepted (raw parsing of rejected text can crash
    tree-sitter-bash: see parse._BAD_CHARS)."""
    return _PARSER.parse(command.encode("utf-8")).root_node.has_error


def _check(command: str) -> None:
    a = analyze(command)
    d = bash_check_permissions(command, CTX)
    ro = bash_is_read_only(command, CTX)
    allowed_by_rule = bash_match_rule(ALLOW_ALL, command, CTX)
    bash_match_rule(DENY_RM, command, CTX)
    suggestions = bash_suggest_rules(command, CTX)
    assert isinstance(ro, bool)
    if a.unanalyzable or _has_parse_error(command):
        assert a.unanalyzable
        assert d.behavior is not PermissionBehavior.ALLOW, command
        assert d.bypass_immune
        assert not ro and not allowed_by_rule and suggestions == []
    if ro:
        assert d.behavior is PermissionBehavior.ALLOW, (command, d.reason)


@settings(FUZZ, max_examples=300)
@given(RANDOM)
def test_random_commands(command: str) -> None:
    _check(command)


@settings(FUZZ, max_examples=400)
@given(mutated())
@example("co+:nda list")  # tree-sitter error node at offset 0: once slipped through as analysable
@example("a+:b")
def test_mutated_corpus_commands(command: str) -> None:
    _check(command)


@settings(FUZZ, max_examples=300)
@given(st.text(max_size=200))
def test_arbitrary_unicode(command: str) -> None:
    _check(command)


@settings(FUZZ, max_examples=300)
@given(st.lists(st.one_of(SHELL_CHARS, st.characters(min_codepoint=0x80)), max_size=12)
       .map("".join))
def test_shell_syntax_next_to_any_code_point(command: str) -> None:
    """tree-sitter-bash 0.25 segfaults on `{` + a plane-14..16 character: such input must be
    refused before it reaches the parser (a crash here kills the whole test run)."""
    _check(command)


def test_characters_that_crash_the_parser_are_refused() -> None:
    for cp in (0x2D524, 0x2D808, 0x6F050, 0x79320, 0x9D7E4, 0xE0000, 0xE0100, 0x100000,
               0x105D2C, 0x10FFFF):
        for prefix in ("{", "${", "x{"):
            a = analyze(prefix + chr(cp))
            assert a.unanalyzable


# --- the fast path (plain words, quotes, redirections, `| && || ;`) gives what the tree walk gives
FAST_WORDS = st.sampled_from(["ls", "-la", "git", "status", "A=1", "B=x=y", "rm", "-rf", "x/y.z",
                              "if", "then", "do", "done", "!", "{", "}", "time", "=a", "a=",
                              "--opt=1", "@x", "%1", "a,b", "1", "-", "--", "x:y", "+x", "^a",
                              "l@s", "A+=1", "a==b", "==", "=", "x=", ":", "'a b'", '"a b"',
                              "'$x'", "a'b'c", '"x"y', "''", '""', "*.py", "a?", "~", "~/x",
                              "~-", "~+/x", "x~", ">", ">>", "2>", "2>&1", ">&2", "<", "&>",
                              "> /dev/null", "2>/dev/null", "<f", ">|x", "2", "a2>x", "'#'",
                              "'{}'", "'a|b'", '"a;b"', "é", "'é'", "x=1", "'x'=1", "A=b c",
                              "FOO='a b'", 'B="x y"', "C=*.py", "D=~/x", "E=a'b'", "<>x",
                              "3<>x", "<&3", ">&-", "2>&-", "10>x", "&>>x",
                              # words that are one variable (and near misses the parser reads)
                              "$X", '"$X"', "$a_b1", '"$_x"', "$_", "$HOME", '"$HOME"', "$1",
                              "$@", "$X$Y", "a$X", "$X.txt", '"$X"y', '"$X y"', '$X"a"',
                              "${X}", ">$X", '> "$X"', "$X=1", "A=$X", "export", "local",
                              "unset", "$é", '"$X', "$X'a'", "x>$X",
                              # find -exec / xargs -I words (and near misses: brace
                              # expansions, a lone brace or backslash, odd places)
                              "{}", "-I{}", "x{}", "x{}y", "{}x", "{}{}", "{},", ",{}", "{}=",
                              "A={}", "--o={}", "{a,b}", "{}.{a,b}", "{", "}", "}{", "~{}",
                              "'x'{}", "{}'x'", "\\;", "a\\;", "\\;a", "{}\\;", "\\",
                              "\\x", "A=\\;", ">{}", "> \\;", "-exec", "+", "find", "xargs",
                              # declaration builtins: always the walk's to read
                              "declare", "typeset", "readonly", "-p", "-x"])
DECLARATIONS = ("export", "local", "declare", "typeset", "readonly", "unset")
FAST_SEPS = st.sampled_from([" ", "  ", "\t", " | ", "|", " && ", "&&", " || ", ";", "; ", " & ",
                             "&", ""])


@settings(FUZZ, max_examples=600)
@given(st.lists(st.tuples(FAST_WORDS, FAST_SEPS), min_size=1, max_size=8),
       st.sampled_from(["", ";", " |", "&"]))
def test_fast_path_matches_the_tree_walk(pieces: list[tuple[str, str]], tail: str) -> None:
    command = "".join(w + s for w, s in pieces).strip() + tail
    if not command.strip():
        return
    fast = plain_commands(command)
    if fast is None:
        return
    # a declaration is the walk's alone: read as a plain command its NAME=value words were
    # no assignments, and an allow rule for `export` approved `export LD_PRELOAD=…; ls`
    assert not any(c.argv and c.argv[0].text in DECLARATIONS for c in fast.commands), command
    slow = parse_commands(command)
    if any("outside the syntax tree" in r for r in slow.reasons):
        return  # a tree-sitter quirk (`- a=` parses as `a=`); bash, and the fast path, differ

    def sig(a):
        return (a.unanalyzable, a.reasons, a.opaque,
                [(c.kind, [(w.value, w.kind, w.tilde, w.text, w.vars, w.quoted, w.ansi_c)
                           for w in c.argv],
                  [(n, w.value) for n, w in c.assignments],
                  [(r.op, r.fd, r.target.value if r.target else None) for r in c.redirects],
                  c.pipeline is None)
                 for c in a.commands])
    assert sig(fast) == sig(slow), command
