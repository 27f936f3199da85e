"""How one program entry of the table is written and applied.

An entry is a :class:`Program`: why the program is in the table, its option
:class:`~.scanner.Table` (every option known to be safe, and what the others do), and how it
uses its operands (``read``: file contents, ``list``: names or metadata, ``strings``: not
paths, ``pattern``: a pattern then files, as grep). :meth:`Program.effects` scans an argv and
returns the :class:`~..effects.Effects`: any option not in the table, an ambiguous
abbreviation, a vetoed option, or a glob / run-time word in option position for a program
that has a risky option makes the command not read-only.

Programs whose syntax is their own (git, sed, awk, find, tar …) are functions
``argv -> Effects`` in their modules; :func:`options` builds a Table from a compact spelling.
"""

from __future__ import annotations

from typing import Callable

from ..effects import CODE, LIST, READ, WRITE, Effects, Run
from ..words import DYNAMIC, GLOB, Word
from .scanner import (
    LISTS,
    NO_ARG,
    OPTIONAL,
    READS,
    REQUIRED,
    RUNS,
    VETO,
    WRITES,
    Option,
    Scan,
    Table,
    scan,
)

__all__ = ["maybe_reads", "Program", "options", "veto", "reads", "writes", "runs", "lists", "tag",
           "Classifier", "no", "STRINGS", "PATTERN", "NONE", "apply_found", "loose_problem",
           "report_scan"]

STRINGS = "strings"
PATTERN = "pattern"
NONE = "none"

Classifier = Callable[[list[Word]], Effects]


def veto(reason: str, arg: int = NO_ARG) -> Option:
    """An option that makes the command not read-only."""
    return Option(arg, VETO, reason)


def reads(reason: str = "reads the file named by its value", arg: int = REQUIRED) -> Option:
    return Option(arg, READS, reason)


def lists(reason: str = "shows the name or metadata of the path it names") -> Option:
    return Option(REQUIRED, LISTS, reason)


def writes(reason: str = "writes the file named by its value", arg: int = REQUIRED) -> Option:
    return Option(arg, WRITES, reason)


def runs(reason: str = "runs the program named by its value", arg: int = REQUIRED) -> Option:
    return Option(arg, RUNS, reason)


def tag(name: str, arg: int = NO_ARG, reason: str = "") -> Option:
    """A harmless option the program's own code gives a meaning (``recursive`` …)."""
    return Option(arg, "", reason, name)


def options(letters: str = "", letter_values: str = "", flags: str = "", values: str = "",
            optional: str = "", same: str = "", special: dict[str, Option] | None = None, *,
            permute: bool = True, complete: bool = True, numbers: bool = False) -> Table:
    """A Table from a compact spelling: ``letters`` short flags without value,
    ``letter_values`` short options with a required value, ``flags`` / ``values`` /
    ``optional`` long option names (space separated, without dashes) without, with a
    required, with an optional value; ``special`` spelling → Option for options with an
    effect (a key may list aliases as ``"-o|--output"``); ``same``: alias groups of plain
    options, ``"-n=--lines -q=--quiet=--silent"``."""
    table: dict[str, Option] = {}
    for letter in letters:
        table["-" + letter] = Option(NO_ARG)
    for letter in letter_values:
        table["-" + letter] = Option(REQUIRED)
    for name in flags.split():
        table["--" + name] = Option(NO_ARG)
    for name in values.split():
        table["--" + name] = Option(REQUIRED)
    for name in optional.split():
        table["--" + name] = Option(OPTIONAL)
    for group in same.split():
        spellings = group.split("=")
        first = table.get(spellings[0])
        if first is None:
            raise ValueError(f"alias group {group!r}: {spellings[0]} is not defined")
        first.name = spellings[0]
        for spelling in spellings[1:]:
            other = table.get(spelling)
            if other is not None and other.arg != first.arg:
                raise ValueError(f"alias group {group!r} mixes value kinds")
            table[spelling] = first
    for key, option in (special or {}).items():
        spellings = key.split("|")
        option.name = spellings[0]
        for spelling in spellings:
            table[spelling] = option
    return Table(table, permute=permute, complete=complete, numbers=numbers)


def no(reason: str) -> Effects:
    return Effects(False, reason)


def loose_problem(parsed: Scan, table: Table, program: str) -> str | None:
    """Why a glob or run-time word in option position makes ``program`` not read-only."""
    if not parsed.loose or not table.risky:
        return None
    word = parsed.loose[0]
    what = "the glob" if word.kind == GLOB else "the word decided at run time"
    return (f"{what} {word.text[:40]!r} may become an option of {program} (one that writes, runs "
            "a program or reads another file); put -- before it")


def apply_found(parsed: Scan, effects: Effects, program: str) -> None:
    """Apply the effects of the options found (reads, writes, runs, vetoes)."""
    for found in parsed.found:
        option = found.option
        effect = option.effect
        if not effect:
            continue
        if effect == VETO:
            effects.no(f"{program} {option.name}: {option.reason}")
            continue
        word = found.word
        if word is None:
            if effect in (WRITES, RUNS):
                effects.no(f"{program} {option.name}: {option.reason}")
            continue
        if effect == READS:
            effects.add(READ, word)
            if word.kind == DYNAMIC:
                effects.no(f"{program} {option.name} reads a file named at run time")
        elif effect == LISTS:
            effects.add(LIST, word)
        elif effect == WRITES:
            effects.add(WRITE, word)
            effects.no(f"{program} {option.name}: {option.reason}")
        elif effect == RUNS:
            effects.runs.append(Run(CODE, program, language="program", source=word.value))
            effects.no(f"{program} {option.name}: {option.reason}")


def report_scan(parsed: Scan, table: Table, effects: Effects, program: str,
                problem_prefix: str | None = None) -> None:
    """What an option scan means for ``effects``, in reading order: a malformed option (after
    ``problem_prefix``, else ``program``), a glob or run-time word in option position, then the
    options found."""
    if parsed.problems:
        effects.no(f"{problem_prefix or program} {parsed.problems[0]}")
    if parsed.loose:
        why = loose_problem(parsed, table, program)
        if why:
            effects.no(why)
    if parsed.found:
        apply_found(parsed, effects, program)


class Program:
    """A table entry (module docstring). ``check(argv, scan, effects)`` may add effects or
    veto after the generic part."""

    __slots__ = ("name", "reason", "table", "operands", "max_operands", "check")

    def __init__(self, reason: str, table: Table | None = None, operands: str = READ, *,
                 max_operands: int | None = None,
                 check: Callable[[list[Word], Scan, Effects], None] | None = None) -> None:
        self.name = ""
        self.reason = reason
        self.table = table if table is not None else options()
        self.operands = operands
        self.max_operands = max_operands
        self.check = check

    def __call__(self, argv: list[Word]) -> Effects:
        return self.effects(argv)

    def effects(self, argv: list[Word]) -> Effects:
        name = argv[0].value or self.name
        table = self.table
        parsed = scan(argv, table, 1)
        effects = Effects(True, self.reason)
        report_scan(parsed, table, effects, name)
        ops = parsed.operands
        if not ops and self.check is None:
            return effects
        if self.max_operands is not None:
            if len(ops) > self.max_operands:
                effects.no(f"{name} takes at most {self.max_operands} operand(s) here; another one "
                           "is an output file or a different action")
            elif any(word.kind != "literal" for word in ops):
                effects.no(f"{name} takes at most {self.max_operands} operand(s) here and a glob "
                           "or a run-time word may be several (one an output file)")
        mode = self.operands
        if mode == PATTERN:
            if not parsed.has("-e", "-f"):
                ops = ops[1:]
            mode = READ
        if mode == READ:
            for word in ops:
                if word.value == "-":
                    continue
                effects.add(READ, word)
                if word.kind == DYNAMIC:
                    effects.no(f"{name} reads a file named at run time ({word.text[:40]!r})")
        elif mode == LIST:
            for word in ops:
                effects.add(LIST, word)
                if word.kind == DYNAMIC:
                    effects.no(f"{name} shows a path decided at run time ({word.text[:40]!r})")
        if self.check is not None:
            self.check(argv, parsed, effects)
        return effects


def writes_program(reason: str, table: Table, targets: Callable[[list[Word], Scan], list[Word]]
                   ) -> Classifier:
    """A program that writes: not read-only, its targets are write effects."""
    def classify(argv: list[Word]) -> Effects:
        parsed = scan(argv, table, 1)
        effects = Effects(False, reason)
        apply_found(parsed, effects, argv[0].value or "")
        for word in targets(argv, parsed):
            effects.add(WRITE, word)
        return effects
    return classify


def maybe_reads(argv: list[Word], effects: Effects, start: int = 1, detail: str = "maybe") -> None:
    """Words that look like paths: possible reads of a program the table does not know (the
    permission layer checks them for keys: ``python x.py --key ~/.ssh/id_rsa``). ``detail``
    "guess" marks words of a known program checked only for keys (not reported as reads)."""
    for word in argv[start:]:
        value = word.value
        if word.kind != "literal" or not value:
            continue
        if value.startswith("-"):
            if "=" not in value:
                continue
            value = value.split("=", 1)[1]
        if value and ("/" in value or value.startswith((".", "~")) or "." in value):
            effects.add(READ, word if value == word.value else Word(value, value), detail=detail)
