"""shell/parse.py: argv extraction, unquoting, reasons, and the never-raise contract."""

from __future__ import annotations

import pytest

from jupyter_agenttools.shell.parse import (
    IN_SUBSTITUTION,
    MAX_COMMAND_CHARS,
    analyze,
)


def argvs(command: str) -> list[list[str | None]]:
    return [[w.value for w in c.argv] for c in analyze(command).commands]


# --- unquoting: one word, the value bash would pass ------------------------------------------
@pytest.mark.parametrize("word, value", [
    ("plain", "plain"),
    ("'single quoted'", "single quoted"),
    ('"double quoted"', "double quoted"),
    ("a\\ b", "a b"),
    ("\\l\\s", "ls"),
    ("'a'\"b\"c", "abc"),
    ('"a\\"b"', 'a"b'),
    ('"\\$x"', "$x"),
    ('"a\\nb"', "a\\nb"),           # \n is not an escape inside double quotes
    ("'\\n'", "\\n"),
    ("$'\\x72m'", "rm"),
    ("$'a\\tb'", "a\tb"),
    ("$'\\162\\155'", "rm"),
    ("$'\\u0072'", "r"),
    ("--opt=\"a b\"", "--opt=a b"),
    ("-de\\lete", "-delete"),
    ("'-delete'", "-delete"),
    ('"$HOME/x"', "~/x"),
    ("${HOME}/.ssh", "~/.ssh"),
    ("42", "42"),
])
def test_unquoting(word: str, value: str) -> None:
    a = analyze(f"echo {word}")
    assert not a.unanalyzable, a.reasons
    assert [w.value for w in a.commands[0].argv] == ["echo", value]


@pytest.mark.parametrize("word", ['"$X"', "$X", "${X:-y}", "$(id)", "`id`", "a$X", "{a,b}",
                                  "{1..3}", '"${X}y"', "$((1+2))"])
def test_words_decided_at_run_time_are_not_static(word: str) -> None:
    w = analyze(f"echo {word}").commands[0].argv[1]
    assert w.value is None and not w.static


@pytest.mark.parametrize("word, glob", [("*.py", True), ("'*.py'", False), ("\\*", False),
                                        ("a?c", True), ("[ab]", True), ('"[ab]"', False)])
def test_globs(word: str, glob: bool) -> None:
    w = analyze(f"ls {word}").commands[0].argv[1]
    assert w.glob is glob


# --- separators and nesting: every sub-command is found ---------------------------------------
@pytest.mark.parametrize("command, expected", [
    ("ls && rm x", [["ls"], ["rm", "x"]]),
    ("ls || rm x", [["ls"], ["rm", "x"]]),
    ("ls; rm x", [["ls"], ["rm", "x"]]),
    ("ls | rm x", [["ls"], ["rm", "x"]]),
    ("ls |& rm x", [["ls"], ["rm", "x"]]),
    ("ls & rm x", [["ls"], ["rm", "x"]]),
    ("ls\nrm x", [["ls"], ["rm", "x"]]),
    ("! ls", [["ls"]]),
    ("ls # rm x", [["ls"]]),
])
def test_separators(command: str, expected: list[list[str]]) -> None:
    assert argvs(command) == expected


@pytest.mark.parametrize("command, inner", [
    ("echo $(rm x)", ["rm", "x"]),
    ("echo `rm x`", ["rm", "x"]),
    ("cat <(rm x)", ["rm", "x"]),
    ("echo \"a $(rm x) b\"", ["rm", "x"]),
    ("echo ${y:-$(rm x)}", ["rm", "x"]),
    ("(rm x)", ["rm", "x"]),
    ("{ rm x; }", ["rm", "x"]),
    ("for f in a; do rm x; done", ["rm", "x"]),
    ("while true; do rm x; done", ["rm", "x"]),
    ("if true; then rm x; fi", ["rm", "x"]),
    ("case a in *) rm x;; esac", ["rm", "x"]),
    ("f() { rm x; }", ["rm", "x"]),
    ("[[ -n $(rm x) ]]", ["rm", "x"]),
    ("cat <<EOF\n$(rm x)\nEOF", ["rm", "x"]),
    # tree-sitter-bash leaves a tab-indented `<<-` body childless: the tabs are stripped and
    # the text parsed again
    ("cat <<-EOF\n\t$(rm x)\n\tEOF", ["rm", "x"]),
    ("cat <<-EOF > /dev/null\n\t$(rm x)\n\tEOF", ["rm", "x"]),
    ("cat <<EOF && rm x\nbody\nEOF", ["rm", "x"]),
    ("cat <<EOF | rm x\nbody\nEOF", ["rm", "x"]),
    ("X=$(rm x) ls", ["rm", "x"]),
    ("export A=$(rm x)", ["rm", "x"]),
    ("ls > $(rm x)", ["rm", "x"]),
    ("echo $(echo $(echo $(rm x)))", ["rm", "x"]),
])
def test_sub_commands_inside_constructs_are_extracted(command: str, inner: list[str]) -> None:
    assert inner in argvs(command)


def test_substitution_is_marked_and_linked_to_its_parent() -> None:
    a = analyze("echo $(rm x)")
    echo, rm = a.commands
    assert rm.nesting & IN_SUBSTITUTION and rm.parent == 0 and echo.parent is None


def test_assignments_and_redirects() -> None:
    c = analyze("LANG=C FOO='a b' sort -u in.txt > out.txt 2>&1").commands[0]
    assert [(n, w.value) for n, w in c.assignments] == [("LANG", "C"), ("FOO", "a b")]
    assert [w.value for w in c.argv] == ["sort", "-u", "in.txt"]
    assert [(r.op, r.fd, r.target.value) for r in c.redirects] == [(">", None, "out.txt"),
                                                                    (">&", "2", "1")]


def test_redirect_of_a_group_applies_to_every_member() -> None:
    a = analyze("{ ls; pwd; } > out.txt")
    assert all(any(r.target and r.target.value == "out.txt" for r in c.redirects)
               for c in a.commands)


def test_heredoc_with_nested_file_redirect() -> None:
    c = analyze("cat <<EOF > ~/.bashrc\nx\nEOF").commands[0]
    assert any(r.op == ">" and r.target.value == "~/.bashrc" for r in c.redirects)


@pytest.mark.parametrize("command, quoted, expands", [
    ("cat <<'EOF'\n$x\nEOF", True, False),
    ('cat <<"EOF"\n$x\nEOF', True, False),
    ("cat <<EOF\nplain\nEOF", False, False),
    ("cat <<EOF\n$x\nEOF", False, True),
    ("cat <<-EOF\n\t`id`\n\tEOF", False, True),
])
def test_heredocs(command: str, quoted: bool, expands: bool) -> None:
    a = analyze(command)
    (h,) = a.heredocs
    assert (h.quoted, h.expands) == (quoted, expands)
    assert bool(a.reasons) is expands


# --- reasons: what keeps a command from being provably simple ---------------------------------
@pytest.mark.parametrize("command, fragment", [
    ("echo $(id)", "command substitution"),
    ("diff <(ls) <(ls)", "process substitution"),
    ("(ls)", "subshell"),
    ("{ ls; }", "group"),
    ("for f in a; do ls; done", "for loop"),
    ("while true; do ls; done", "while"),
    ("if true; then ls; fi", "if"),
    ("case a in *) ls;; esac", "case"),
    ("f() { ls; }", "function"),
    ("[[ -f x ]]", "[["),
    ("echo $((1+2))", "arithmetic"),
    ("echo $X", "unquoted expansion"),
    ('echo "$HOME"', "parameter expansion"),
    ("ls {a,b}", "brace expansion"),
    ("echo {1..3}", "brace expansion"),
    ("$CMD x", "not static"),
    ("$'ls'", "ANSI-C"),
    ('echo $"hi"', "translated"),
    ("cat <<EOF\n$x\nEOF", "here-document"),
])
def test_reasons(command: str, fragment: str) -> None:
    a = analyze(command)
    assert not a.unanalyzable
    assert any(fragment in r for r in a.reasons), a.reasons


@pytest.mark.parametrize("command", ["ls -la", "git status | head", "ls 2>/dev/null",
                                     "cat <<'EOF'\n$x\nEOF", "[ -f x ]", "echo $'a\\tb'",
                                     "LANG=C sort f", "ls & pwd"])
def test_simple_commands_have_no_reasons(command: str) -> None:
    assert analyze(command).reasons == []


@pytest.mark.parametrize("command", ["$X", "${X} a", "$(echo rm) x", "x='a[$(id)]'; echo $((x))",
                                     'echo "${x@P}"', "a[$(id)]=1"])
def test_opaque(command: str) -> None:
    assert analyze(command).opaque


# --- unanalyzable input and the never-raise contract -----------------------------------------
@pytest.mark.parametrize("command", [
    "ls ((", "echo 'unterminated", "ls |", "&& ls", "ls ;;", "if then fi", "$(",
    "ls\x00", "ls\r", "ls\x1b[2K", "ls\u202e", "ls\u200b", "ls\ufeff", "ls\u2066", "ls\u2028x",
    "", "   ", "ls\udcff",
])
def test_unanalyzable(command: str) -> None:
    a = analyze(command)
    assert a.unanalyzable and a.reasons


@pytest.mark.parametrize("value", [None, 42, b"ls", ["ls"], {"command": "ls"}, 3.5])
def test_non_text_input(value: object) -> None:
    a = analyze(value)
    assert a.unanalyzable and "not text" in a.reasons[0]


def test_huge_input_is_refused_without_parsing() -> None:
    a = analyze("a" * (1024 * 1024))
    assert a.unanalyzable and "too long" in a.reasons[0]
    assert not analyze("echo " + "a" * (MAX_COMMAND_CHARS - 10)).unanalyzable


@pytest.mark.parametrize("command", [
    "echo " + "$(" * 10_000 + "x" + ")" * 10_000,
    "(" * 10_000 + "ls" + ")" * 10_000,
    "echo " + "${a:-" * 5_000 + "x" + "}" * 5_000,
    "{ " * 3_000 + "ls; " + "}; " * 3_000,
    "ls | " * 5_000 + "ls",
], ids=["substitutions", "subshells", "expansions", "groups", "pipeline"])
def test_deep_nesting_never_raises(command: str) -> None:
    a = analyze(command)
    assert isinstance(a.reasons, list)
