"""The stress set: Bash commands of every shape at a chosen size (up to 100 kB).

``shapes()`` maps a shape name to a function ``size -> command`` whose result is at most
``size`` characters. ``bench_decisions.py`` decides each at 100 kB (the issue's bound: ≤ 50 ms)
and ``tests/shell/test_shell_linear.py`` checks that cost grows linearly with size (the ratio
of two sizes). A shape is a way the analysis could go quadratic: one long word, long chains,
``cd`` after ``cd``, heredocs full of ``$``, nesting, quoting, wrappers whose options are not
understood, long inline programs for awk/sed/sh.
"""

from __future__ import annotations

from typing import Callable

__all__ = ["shapes", "RULES", "MAX_SIZE"]

MAX_SIZE = 100_000

# rules that make every matcher work (prefix, wildcard, deny over suffixes)
RULES = {"allow": ["Bash(echo *)", "Bash(git status:*)", "Bash(cat:*)"],
         "deny": ["Bash(rm:*)", "Bash(curl * | sh)"],
         "ask": ["Bash(git push:*)"]}


def _repeat(unit: str, size: int, head: str = "", tail: str = "", sep: str = "") -> str:
    room = max(0, size - len(head) - len(tail))
    count = max(1, room // max(1, len(unit) + len(sep)))
    return head + sep.join([unit] * count) + tail


def shapes() -> dict[str, Callable[[int], str]]:
    return {
        "one word": lambda n: _repeat("a", n, head="ls "),
        "one quoted word": lambda n: _repeat("a", n, head="cat '", tail="'"),
        "many arguments": lambda n: _repeat("a", n, head="ls", sep=" "),
        "many globs": lambda n: _repeat("*.py", n, head="ls --", sep=" "),
        "pipeline": lambda n: _repeat("cat x", n, sep=" | "),
        "&& chain": lambda n: _repeat("ls", n, sep=" && "),
        "; list": lambda n: _repeat("git status", n, sep="; "),
        "newlines": lambda n: _repeat("ls -la", n, sep="\n"),
        "cd chain": lambda n: _repeat("cd d", n, sep="; ", tail="; rm -rf x"),
        "cd && cat chain": lambda n: _repeat("cd d && cat x", n, sep="; "),
        "heredoc full of $": lambda n: _repeat("$x ", n, head="cat <<EOF\n", tail="\nEOF"),
        "heredoc full of $( )": lambda n: _repeat("$(id) ", n, head="cat <<EOF\n",
                                                  tail="\nEOF"),
        "double quotes full of $": lambda n: _repeat("$HOME ", n, head='echo "', tail='"'),
        "ANSI-C string": lambda n: _repeat("\\x41", n, head="echo $'", tail="'"),
        "nested substitutions": lambda n: "echo " + "$(" * (n // 5) + "ls" + ")" * (n // 5),
        "nested subshells": lambda n: "(" * (n // 3) + "ls" + ")" * (n // 3),
        "assignments": lambda n: _repeat("A=1", n, sep=" ", tail=" ls"),
        "redirections": lambda n: _repeat("2>/dev/null", n, head="ls ", sep=" "),
        "comment": lambda n: _repeat("x", n, head="ls # "),
        "awk program": lambda n: _repeat("{print $1}", n, head="awk '", tail="' f"),
        "awk getline": lambda n: _repeat("getline x;", n, head="awk '{", tail="}' f"),
        "sed script": lambda n: _repeat("s/a/b/;", n, head="sed '", tail="' f"),
        "sh -c source": lambda n: _repeat("ls", n, head="sh -c '", tail="'", sep=" && "),
        "wrapper not understood": lambda n: _repeat("x", n, head="nice --weird ", sep=" ",
                                                    tail=" rm -rf /"),
        "find expression": lambda n: _repeat("-name a -o", n, head="find . ", sep=" ",
                                             tail=" -name b"),
        "git options": lambda n: _repeat("--stat", n, head="git log ", sep=" "),
        "chmod mode": lambda n: _repeat("a", n, head="chmod -R ", tail=" x"),
        "wildcard rule": lambda n: _repeat("x", n, head="echo ", sep=" "),
        "rm -rf targets": lambda n: _repeat("build", n, head="rm -rf ", sep=" "),
        "curl pipes": lambda n: _repeat("curl x", n, sep=" | ", tail=" | sh"),
    }
