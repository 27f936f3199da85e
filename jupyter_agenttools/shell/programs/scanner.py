"""Command-line options scanned the way the programs themselves scan them.

``scan(words, table)`` follows GNU ``getopt_long``:

- ``--`` ends the options; a lone ``-`` is an operand;
- a short bundle ``-abc`` is read letter by letter; a letter that takes a value takes the rest
  of the word (``-n5``, ``-sKILL``) or, when nothing is left, the next word whatever it looks
  like (``sort -o -x`` writes ``-x``); an optional value is only ever attached;
- ``--name=value`` or ``--name value`` (required values only); a long option may be
  abbreviated to any unique prefix (``sed --expr`` is ``--expression``); an exact name wins;
  a prefix shared by different options is ambiguous (the program refuses to run; we call it
  not read-only); aliases of one option (``--quiet``/``--silent``) are not ambiguous;
- GNU programs *permute*: options may follow operands. A table marked ``permute=False``
  (POSIX style, or a GNU ``+`` option string: wrappers, shells) stops at the first operand.

Abbreviations are resolved only against a table that lists *every* long option of the
program (``complete=True``): otherwise an abbreviation of an option the table does not know
could be taken for a known one, so it is reported as a problem.

Words the analysis cannot read in option position — a glob whose expansion may start with
``-`` (``sort -u *.csv`` with a file named ``-o.csv``) or a word decided at run time — are
``loose``: the program decides whether any option it has could do harm.
"""

from __future__ import annotations

from bisect import bisect_left

from ..words import DYNAMIC, GLOB, Word

__all__ = ["NO_ARG", "REQUIRED", "OPTIONAL", "Option", "Table", "Found", "Scan", "scan",
           "READS", "WRITES", "RUNS", "LISTS", "VETO"]

NO_ARG = 0
REQUIRED = 1
OPTIONAL = 2

# What an option does with its value (or by being there).
READS = "reads"      # the value is a file whose content is read
LISTS = "lists"      # the value is a path whose name or metadata is shown
WRITES = "writes"    # the value is a path the program writes
RUNS = "runs"        # the value is a program or command the program runs
VETO = "veto"        # not read-only for another reason (the option's ``reason``)


class Option:
    """One option. ``effect``: "" (harmless) or READS/LISTS/WRITES/RUNS/VETO; ``tag``: a
    meaning the program's own code acts on (``recursive`` …); ``name`` is set by the table to
    the option's first spelling."""

    __slots__ = ("arg", "effect", "reason", "tag", "name")

    def __init__(self, arg: int = NO_ARG, effect: str = "", reason: str = "",
                 tag: str = "") -> None:
        self.arg = arg
        self.effect = effect
        self.reason = reason
        self.tag = tag
        self.name = ""

    @property
    def harmless(self) -> bool:
        return not self.effect and not self.tag


class Table:
    """The options of one program, keyed by spelling (``"-n"``, ``"--lines"``; several
    spellings may share one :class:`Option`)."""

    __slots__ = ("short", "long", "names", "permute", "complete", "numbers", "risky", "all")

    def __init__(self, options: dict[str, Option], *, permute: bool = True,
                 complete: bool = True, numbers: bool = False) -> None:
        self.short: dict[str, Option] = {}
        self.long: dict[str, Option] = {}
        for spelling, option in options.items():
            if not option.name:
                option.name = spelling
            if spelling.startswith("--"):
                self.long[spelling[2:]] = option
            elif spelling.startswith("-") and len(spelling) == 2:
                self.short[spelling[1]] = option
            else:
                raise ValueError(f"bad option spelling {spelling!r}")
        self.names = sorted(self.long)
        self.permute = permute
        self.complete = complete
        self.numbers = numbers  # `head -5`, `nice -10`: a -NUMBER word is a count
        self.all = options
        # can a word that is not what it looks like (a glob, a $VAR) do harm as an option?
        self.risky = not complete or any(not option.harmless for option in options.values())

    def long_option(self, name: str) -> tuple[Option | None, str]:
        """(option, "") or (None, problem) for ``--name`` (without dashes)."""
        option = self.long.get(name)
        if option is not None:
            return option, ""
        names = self.names
        i = bisect_left(names, name)
        found: list[Option] = []
        while i < len(names) and names[i].startswith(name):
            option = self.long[names[i]]
            if option not in found:
                found.append(option)
            i += 1
        if not found:
            return None, f"--{name} is not a known option"
        if not self.complete:
            return None, f"--{name} abbreviates an option this table does not fully know"
        if len(found) > 1:
            return None, f"--{name} is ambiguous ({', '.join(option.name for option in found[:4])})"
        return found[0], ""


class Found:
    """One option found on the command line, with its value (``word`` is the value's Word,
    derived when the value was attached)."""

    __slots__ = ("option", "value", "word")

    def __init__(self, option: Option, value: str | None, word: Word | None) -> None:
        self.option = option
        self.value = value
        self.word = word

    @property
    def name(self) -> str:
        return self.option.name


class Scan:
    __slots__ = ("found", "operands", "problems", "loose", "dashdash", "refused")

    def __init__(self) -> None:
        self.refused = False  # an option no program has: the program exits with usage
        self.found: list[Found] = []
        self.operands: list[Word] = []
        self.problems: list[str] = []
        self.loose: list[Word] = []
        self.dashdash = False

    def has(self, *names: str) -> bool:
        return any(found.option.name in names for found in self.found)

    def get(self, *names: str) -> list[Found]:
        return [found for found in self.found if found.option.name in names]

    def value(self, *names: str) -> str | None:
        """The value of the last of these options given (None if absent or valueless)."""
        value = None
        for found in self.found:
            if found.option.name in names:
                value = found.value
        return value

    def tagged(self, tag: str) -> list[Found]:
        return [found for found in self.found if found.option.tag == tag]

    def effects(self) -> list[Found]:
        return [found for found in self.found if found.option.effect]


def _attached(word: Word, value: str) -> Word:
    """The value attached to an option word (``-ofile``, ``--output=file``)."""
    return Word(value, value, word.kind, word.vars, word.quoted, word.ansi_c,
                tilde=False if word.quoted else None)


def scan(words: list[Word], table: Table, start: int = 0) -> Scan:
    """Scan ``words[start:]`` (the arguments, without the program name)."""
    parsed = Scan()
    count = len(words)
    i = start
    if i >= count:
        return parsed
    found = parsed.found
    operands = parsed.operands
    options = True
    permute = table.permute
    short = table.short
    while i < count:
        word = words[i]
        i += 1
        if not options:
            operands.append(word)
            continue
        kind = word.kind
        if kind == DYNAMIC or (kind == GLOB and word.may_start_with_dash):
            parsed.loose.append(word)
            operands.append(word)
            if not permute:
                options = False
            continue
        word_value = word.value or ""
        if word_value == "--":
            options = False
            parsed.dashdash = True
            continue
        if len(word_value) < 2 or word_value[0] != "-":
            operands.append(word)
            if not permute:
                options = False
            continue
        if word_value[1] == "-":
            name, eq, value = word_value[2:].partition("=")
            option, problem = table.long_option(name)
            if option is None:
                parsed.problems.append(problem)
                continue
            if option.arg == REQUIRED:
                if eq:
                    found.append(Found(option, value, _attached(word, value)))
                elif i < count:
                    nxt = words[i]
                    i += 1
                    found.append(Found(option, nxt.value, nxt))
                else:
                    parsed.problems.append(f"--{name} needs a value")
            elif option.arg == OPTIONAL:
                found.append(Found(option, value if eq else None,
                                   _attached(word, value) if eq else None))
            else:
                if eq:
                    parsed.problems.append(f"--{name} takes no value")
                found.append(Found(option, None, None))
            continue
        if table.numbers and word_value[1:].isdigit():
            continue  # `-5`: a count (head, tail, nice …)
        j = 1
        length = len(word_value)
        while j < length:
            letter = word_value[j]
            option = short.get(letter)
            if option is None:
                if not letter.isalnum() and table.complete:
                    # no getopt program has such an option: it refuses to run
                    parsed.refused = True
                else:
                    parsed.problems.append(f"-{letter} is not a known option")
                j += 1
                continue
            if option.arg == NO_ARG:
                found.append(Found(option, None, None))
                j += 1
                continue
            rest = word_value[j + 1:]
            if rest:
                found.append(Found(option, rest, _attached(word, rest)))
            elif option.arg == OPTIONAL:
                found.append(Found(option, None, None))
            elif i < count:
                nxt = words[i]
                i += 1
                found.append(Found(option, nxt.value, nxt))
            else:
                parsed.problems.append(f"-{letter} needs a value")
            break
    return parsed
