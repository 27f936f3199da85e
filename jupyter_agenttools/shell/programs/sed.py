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
from .base import apply_found, loose_problem, options, veto
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
    n = len(script)

    def till_eol(k: int) -> tuple[str, int]:
        e = script.find("\n", k)
        if e < 0:
            e = n
        return script[k:e], e

    def delimited(k: int, delim: str) -> int:
        # index just after the closing delimiter, or -1
        while k < n:
            c = script[k]
            if c == "\\":
                k += 2
                continue
            if c == "\n" and delim != "\n":
                return -1
            if c == delim:
                return k + 1
            k += 1
        return -1

    while i < n:
        c = script[i]
        if c in " \t\n;":
            i += 1
            continue
        if c == "#":
            _, i = till_eol(i)
            continue
        for _ in range(2):  # addresses
            if i < n and (script[i].isdigit() or script[i] == "$"):
                while i < n and (script[i].isdigit() or script[i] in "$~"):
                    i += 1
            elif i < n and script[i] in "/\\":
                if script[i] == "\\":
                    if i + 1 >= n:
                        return "unterminated address", reads, writes, commands
                    d = script[i + 1]
                    i += 2
                else:
                    d = "/"
                    i += 1
                j = delimited(i, d)
                if j < 0:
                    return "unterminated address", reads, writes, commands
                i = j
                while i < n and script[i] in "IM":
                    i += 1
            if i < n and script[i] == ",":
                i += 1
                if i < n and script[i] in "+~":
                    i += 1
                continue
            break
        while i < n and script[i] in " \t":
            i += 1
        if i < n and script[i] == "!":
            i += 1
            while i < n and script[i] in " \t":
                i += 1
        if i >= n:
            return "missing command", reads, writes, commands
        c = script[i]
        i += 1
        if c in "{}=dDgGhHnNpPxzF":
            continue
        if c in "lqQLv":
            while i < n and (script[i].isdigit() or script[i] in " \t"):
                i += 1
            continue
        if c in "aic":
            _, i = till_eol(i)
            while 0 < i < n and script[i - 1] == "\\":  # continued text lines
                _, i = till_eol(i + 1)
            continue
        if c in ":btT":
            while i < n and script[i] not in ";\n":
                i += 1
            continue
        if c in "rRwW":
            name, i = till_eol(i)
            name = name.strip()
            (reads if c in "rR" else writes).append(name)
            continue
        if c == "e":
            command, i = till_eol(i)
            if command.strip():
                commands.append(command.strip())
                continue
            return "exec", reads, writes, commands
        if c in "sy":
            if i >= n:
                return "unterminated s command", reads, writes, commands
            d = script[i]
            if d in "\\\n":
                return "unusual delimiter", reads, writes, commands
            j = delimited(i + 1, d)
            if j < 0:
                return f"unterminated {c} command", reads, writes, commands
            j = delimited(j, d)
            if j < 0:
                return f"unterminated {c} command", reads, writes, commands
            i = j
            if c == "y":
                continue
            while i < n and script[i] not in ";\n}":
                f = script[i]
                if f == "e":
                    return "exec", reads, writes, commands
                if f in "wW":
                    name, i = till_eol(i + 1)
                    writes.append(name.strip())
                    break
                if f not in "gpiImM0123456789 \t":
                    return f"unknown s flag {f!r}", reads, writes, commands
                i += 1
            continue
        return f"unknown sed command {c!r}", reads, writes, commands
    return None, reads, writes, commands


def sed(argv: list[Word]) -> Effects:
    name = argv[0].value or "sed"
    s = scan(argv, _SED, 1)
    e = Effects(True, "sed without -i, w or e only prints")
    if s.problems:
        e.no(f"{name} {s.problems[0]}")
    why = loose_problem(s, _SED, name)
    if why:
        e.no(why)
    apply_found(s, e, name)
    operands = list(s.operands)
    scripts = [f.word for f in s.tagged("script")]
    if not scripts:
        if not operands:
            e.no("sed without a script")
            return e
        scripts = [operands.pop(0)]
    in_place = bool(s.tagged("in-place"))
    for w in operands:
        if w.value == "-" and not in_place:
            continue
        e.add(READ, w)
        if in_place:
            e.add(WRITE, w)
        elif w.kind == DYNAMIC:
            e.no(f"sed reads a file named at run time ({w.text[:40]!r})")
    if in_place:
        e.no("sed -i edits files in place")
    for word in scripts:
        if word is None or word.value is None or word.kind != "literal":
            e.no("the sed script is decided at run time")
            continue
        problem, read_files, written, commands = script_problem(word.value)
        for path in read_files:
            e.add(READ, literal(path))
        for path in written:
            if path not in _STD_STREAMS:
                e.add(WRITE, literal(path))
                e.no("the sed script writes a file (w/W)")
        for command in commands:
            e.runs.append(Run(SOURCE, "sed", source=command))
            e.no(f"the sed script runs a shell command ({command[:40]!r})")
        if problem == "exec":
            e.runs.append(Run(CODE, "sed", language="sh"))
            e.no("the sed script runs the pattern space as a shell command (e, s///e)")
        elif problem:
            e.no(f"the sed script could not be understood ({problem})")
    return e
