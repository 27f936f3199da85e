"""awk (gawk, mawk, nawk, busybox): read-only when the program can't run, write or peek.

The program text is scanned once (strings, regular expressions and comments blanked) for what
makes it not read-only: ``system()``, a pipe to or from a command (``|``, ``|&``), output
redirection inside ``print``/``printf`` (``>``, ``>>`` outside parentheses), ``getline <
file``, ``ENVIRON``/``PROCINFO`` (the environment, API keys), ``ARGV``/``ARGC`` (which files
are read), ``@`` (gawk's indirect calls, ``@include``, ``@load``). Options that load code or
read the program from a file are vetoed. Every ``-e``/``--source`` program is checked (gawk
concatenates them), not only the first. One pass, linear in the program's length.
"""

from __future__ import annotations

from ..effects import READ, Effects
from ..words import DYNAMIC, Word
from .base import options, report_scan, veto
from .scanner import REQUIRED, Option, scan

__all__ = ["awk", "program_problem"]

_AWK = options(
    "bcPMNnOsStrhVgCY", "F",
    "characters-as-bytes traditional posix bignum use-lc-numeric non-decimal-data optimize "
    "no-optimize sandbox re-interval lint-old gen-pot copyright csv help version",
    "field-separator",
    special={
        "-v|--assign": Option(REQUIRED),
        "-e|--source": Option(REQUIRED, "", "", "program"),
        "-f|--file": veto("reads its program from a file that can't be reviewed here",
                          REQUIRED),
        "-E|--exec": veto("reads its program from a file that can't be reviewed here",
                          REQUIRED),
        "-i|--include": veto("loads awk code from a file", REQUIRED),
        "-l|--load": veto("loads a compiled extension (native code)", REQUIRED),
        "-d|--dump-variables": veto("writes a variable dump to a file", 2),
        "-o|--pretty-print": veto("writes the program to a file", 2),
        "-p|--profile": veto("writes a profile to a file", 2),
        "-L|--lint": Option(2),
        # gawk -D[FILE]: the debugger reads commands from stdin (or FILE, `-Dc` is the file
        # c): `eval "system(…)"`, `dump FILE`, `save FILE` run programs and write files
        "-D|--debug": veto("starts gawk's debugger, whose commands (from stdin or a file) "
                           "can run programs and write files", 2),
        "-W": veto("mawk/gawk -W options can load code or write files", REQUIRED),
    },
    complete=False)

_NAMES_RUNNING = {
    "system": "system() runs a shell command",
    "ENVIRON": "ENVIRON reads the environment, where API keys live",
    "PROCINFO": "PROCINFO reads process information (and changes I/O behaviour)",
    "ARGV": "ARGV changes which files are read",
    "ARGC": "ARGC changes which files are read",
}
_REGEX_BEFORE = frozenset("(,~!{};&|\n")
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_NAME_CHARS = _NAME_START | frozenset("0123456789")


def program_problem(program: str) -> str | None:
    """Why an awk program may run commands, write files or print the environment (or can't
    be understood); None when it only reads its input and prints."""
    count = len(program)
    i = 0
    previous = ""      # last significant character (regex or division?)
    depth = 0          # parentheses
    statement = None   # ("print", depth) or ("getline", depth) while inside one
    while i < count:
        char = program[i]
        if char == '"':
            j = i + 1
            while j < count and program[j] != '"':
                if program[j] == "\n":
                    return "the awk program has an unterminated string"
                j += 2 if program[j] == "\\" else 1
            if j >= count:
                return "the awk program has an unterminated string"
            i = j + 1
            previous = '"'
            continue
        if char == "/" and (previous == "" or previous in _REGEX_BEFORE):
            j = i + 1
            in_class = False
            while j < count and (program[j] != "/" or in_class):
                if program[j] == "\n":
                    return "the awk program has an unterminated regular expression"
                if program[j] == "[":
                    in_class = True
                elif program[j] == "]":
                    in_class = False
                j += 2 if program[j] == "\\" else 1
            if j >= count:
                return "the awk program has an unterminated regular expression"
            i = j + 1
            previous = "/"
            continue
        if char == "#":
            effects = program.find("\n", i)
            i = count if effects < 0 else effects
            continue
        if char in _NAME_START:
            j = i + 1
            while j < count and program[j] in _NAME_CHARS:
                j += 1
            name = program[i:j]
            why = _NAMES_RUNNING.get(name)
            if why:
                return f"the awk program uses {why}"
            if name in ("print", "printf"):
                statement = ("print", depth)
            elif name == "getline":
                statement = ("getline", depth)
            i = j
            previous = "a"
            continue
        if char == "@":
            return "the awk program uses @ (indirect calls, @include, @load)"
        if char == "|":
            if i + 1 < count and program[i + 1] == "|":
                i += 2
                previous = "|"
                continue
            return "the awk program pipes to or from a command"
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char in ";}\n{":
            if statement is not None and depth <= statement[1]:
                statement = None
        elif char == ">" and statement is not None and statement[0] == "print" and \
                depth <= statement[1]:
            return "the awk program redirects print to a file"
        elif char == "<" and statement is not None and statement[0] == "getline" and \
                depth <= statement[1]:
            return "the awk program reads a file with getline <"
        if not char.isspace() or char == "\n":
            previous = char
        i += 1
    return None


def awk(argv: list[Word]) -> Effects:
    name = argv[0].value or "awk"
    parsed = scan(argv, _AWK, 1)
    effects = Effects(True, "awk without system(), pipes, redirection or getline from files")
    report_scan(parsed, _AWK, effects, name)
    operands = list(parsed.operands)
    programs = [found.word for found in parsed.tagged("program")]
    if not programs and not parsed.has("-f", "-E"):
        if not operands:
            effects.no("awk without a program")
            return effects
        programs = [operands.pop(0)]
    for word in programs:
        if word is None or word.value is None or word.kind != "literal":
            effects.no("the awk program is decided at run time")
            continue
        why = program_problem(word.value)
        if why:
            effects.no(why)
    for each_word in operands:
        value = each_word.value
        if each_word.kind == DYNAMIC:
            effects.no(f"awk reads a file named at run time ({each_word.text[:40]!r})")
            continue
        if value == "-" or _is_assignment(value):
            continue  # a command-line assignment, not a file
        effects.add(READ, each_word)
    return effects


def _is_assignment(value: str | None) -> bool:
    if not value or value[0] not in _NAME_START:
        return False
    for k, ch in enumerate(value):
        if ch == "=":
            return k > 0
        if ch not in _NAME_CHARS:
            return False
    return False
