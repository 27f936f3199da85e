"""sed: options scanned like GNU sed 4.9, scripts parsed command by command.

Read-only when not editing in place (``-i``/``--in-place``, also abbreviated: ``--in``), the
script writes no file (``w``, ``W``, ``s///w``; ``/dev/stdout`` is fine), runs nothing
(``e``, ``s///e``) and comes from the command line (``-f FILE`` can't be reviewed here).
``r``/``R`` read a file: a read effect. ``--sandbox`` refuses e/r/w at run time, but the
script is judged as written.
"""

from __future__ import annotations

from ..effects import CODE, READ, SOURCE, WRITE, Effects, Run
from ..words import DYNAMIC, Word, literal
from .base import options, report_scan, veto
from .scanner import OPTIONAL, REQUIRED, Option, scan

__all__ = ["sed", "script_problem"]

_SED = options(
    "nrsEuzb", "l",
    "quiet silent regexp-extended separate unbuffered null-data zero-terminated posix debug "
    "sandbox binary follow-symlinks help version",
    "line-length",
    same="-n=--quiet=--silent -E=-r=--regexp-extended",
    special={
        "-e|--expression": Option(REQUIRED, "", "", "script"),
        "-f|--file": veto("reads its script from a file that can't be reviewed here", REQUIRED),
        "-i|--in-place": Option(OPTIONAL, "", "", "in-place"),
    })

_STD_STREAMS = frozenset({"/dev/stdout", "/dev/stderr"})


def script_problem(script: str) -> tuple[str | None, list[str], list[str], list[str]]:
    """Parse a sed script: (problem, files read by r/R, files written by w/W/s///w, shell
    commands run by ``e command``). ``problem`` is "exec" when the script runs the pattern
    space (``e`` without a command, ``s///e``), or a reason when it can't be understood."""
    reads: list[str] = []
    writes: list[str] = []
    commands: list[str] = []
    i = 0
    count = len(script)

    def till_eol(k: int) -> tuple[str, int]:
        effects = script.find("\n", k)
        if effects < 0:
            effects = count
        return script[k:effects], effects

    def delimited(k: int, delim: str) -> int:
        # index just after the closing delimiter, or -1
        while k < count:
            character = script[k]
            if character == "\\":
                k += 2
                continue
            if character == "\n" and delim != "\n":
                return -1
            if character == delim:
                return k + 1
            k += 1
        return -1

    while i < count:
        char = script[i]
        if char in " \t\n;":
            i += 1
            continue
        if char == "#":
            _, i = till_eol(i)
            continue
        for _ in range(2):  # addresses
            if i < count and (script[i].isdigit() or script[i] == "$"):
                while i < count and (script[i].isdigit() or script[i] in "$~"):
                    i += 1
            elif i < count and script[i] in "/\\":
                if script[i] == "\\":
                    if i + 1 >= count:
                        return "unterminated address", reads, writes, commands
                    delimiter = script[i + 1]
                    i += 2
                else:
                    delimiter = "/"
                    i += 1
                j = delimited(i, delimiter)
                if j < 0:
                    return "unterminated address", reads, writes, commands
                i = j
                while i < count and script[i] in "IM":
                    i += 1
            if i < count and script[i] == ",":
                i += 1
                if i < count and script[i] in "+~":
                    i += 1
                continue
            break
        while i < count and script[i] in " \t":
            i += 1
        if i < count and script[i] == "!":
            i += 1
            while i < count and script[i] in " \t":
                i += 1
        if i >= count:
            return "missing command", reads, writes, commands
        char = script[i]
        i += 1
        if char in "{}=dDgGhHnNpPxzF":
            continue
        if char in "lqQLv":
            while i < count and (script[i].isdigit() or script[i] in " \t"):
                i += 1
            continue
        if char in "aic":
            _, i = till_eol(i)
            while 0 < i < count and script[i - 1] == "\\":  # continued text lines
                _, i = till_eol(i + 1)
            continue
        if char in ":btT":
            while i < count and script[i] not in ";\n":
                i += 1
            continue
        if char in "rRwW":
            name, i = till_eol(i)
            name = name.strip()
            (reads if char in "rR" else writes).append(name)
            continue
        if char == "e":
            command, i = till_eol(i)
            if command.strip():
                commands.append(command.strip())
                continue
            return "exec", reads, writes, commands
        if char in "sy":
            if i >= count:
                return "unterminated s command", reads, writes, commands
            delimiter = script[i]
            if delimiter in "\\\n":
                return "unusual delimiter", reads, writes, commands
            j = delimited(i + 1, delimiter)
            if j < 0:
                return f"unterminated {char} command", reads, writes, commands
            j = delimited(j, delimiter)
            if j < 0:
                return f"unterminated {char} command", reads, writes, commands
            i = j
            if char == "y":
                continue
            while i < count and script[i] not in ";\n}":
                flag = script[i]
                if flag == "e":
                    return "exec", reads, writes, commands
                if flag in "wW":
                    name, i = till_eol(i + 1)
                    writes.append(name.strip())
                    break
                if flag not in "gpiImM0123456789 \t":
                    return f"unknown s flag {flag!r}", reads, writes, commands
                i += 1
            continue
        return f"unknown sed command {char!r}", reads, writes, commands
    return None, reads, writes, commands


def sed(argv: list[Word]) -> Effects:
    name = argv[0].value or "sed"
    parsed = scan(argv, _SED, 1)
    effects = Effects(True, "sed without -i, w or e only prints")
    report_scan(parsed, _SED, effects, name)
    operands = list(parsed.operands)
    scripts = [flag.word for flag in parsed.tagged("script")]
    if not scripts:
        if not operands:
            effects.no("sed without a script")
            return effects
        scripts = [operands.pop(0)]
    in_place = bool(parsed.tagged("in-place"))
    for each_word in operands:
        if each_word.value == "-" and not in_place:
            continue
        effects.add(READ, each_word)
        if in_place:
            effects.add(WRITE, each_word)
        elif each_word.kind == DYNAMIC:
            effects.no(f"sed reads a file named at run time ({each_word.text[:40]!r})")
    if in_place:
        effects.no("sed -i edits files in place")
    for word in scripts:
        if word is None or word.value is None or word.kind != "literal":
            effects.no("the sed script is decided at run time")
            continue
        problem, read_files, written, commands = script_problem(word.value)
        for path in read_files:
            effects.add(READ, literal(path))
        for path in written:
            if path not in _STD_STREAMS:
                effects.add(WRITE, literal(path))
                effects.no("the sed script writes a file (w/W)")
        for command in commands:
            effects.runs.append(Run(SOURCE, "sed", source=command))
            effects.no(f"the sed script runs a shell command ({command[:40]!r})")
        if problem == "exec":
            effects.runs.append(Run(CODE, "sed", language="sh"))
            effects.no("the sed script runs the pattern space as a shell command (e, s///e)")
        elif problem:
            effects.no(f"the sed script could not be understood ({problem})")
    return effects
