"""The program table: what one argv does (:func:`classify`), program by program.

Modules: ``scanner`` (options scanned like getopt_long), ``base`` (how a table entry is
written), ``table`` (read-only programs with simple syntax), ``search`` (grep, ripgrep),
``sed``, ``awk``, ``find``, ``git``, ``archives`` (tar, unzip), ``system`` (builtins, listings,
secret printers), ``files`` (programs that change files), ``network`` and ``wrappers`` (the
one table of shells, wrappers and interpreters). A program in none of them is not read-only;
the words of an unknown program that look like paths are reported as possible reads (``maybe``)
so a key handed to it (``python x.py --key ~/.ssh/id_rsa``) is seen.
"""

from __future__ import annotations

from typing import Callable

from ..effects import Effects
from ..words import LITERAL, Word, literal
from .archives import _TAR, tar, unzip
from .awk import _AWK, awk
from .base import Program
from .base import maybe_reads as _maybe_reads
from .files import FILES, disk_tool
from .find import _ACTIONS as _FIND_ACTIONS
from .find import SAFE_WITH_ANY_ARGUMENTS, find
from .git import _GLOBAL_VETO as _GIT_GLOBAL_VETO
from .git import _READ_SUBS as _GIT_SUBS
from .git import CONFIG, git
from .hooks import HOOKS
from .network import DOWNLOADERS, NETWORK, NETWORK_PROGRAMS, network_program
from .scanner import RUNS, VETO, WRITES, Table
from .search import _GREP, _RG, grep, ripgrep
from .sed import _SED, sed
from .system import _JQ, _PIP, SYSTEM, command_query, secret_printer, system_change
from .system import PRINTER_NAMES as _PRINTER_NAMES
from .system import SYSTEM_NAMES as _SYSTEM_NAMES
from .table import TABLE
from .wrappers import (
    INTERPRETERS,
    POSIX_SHELLS,
    RUNNERS,
    SHELLS,
    TRANSPARENT,
    WRAPPERS,
    runner_effects,
)

__all__ = ["classify", "program_name", "known_programs", "read_only_programs", "vetoed_options",
           "SHELLS", "POSIX_SHELLS", "INTERPRETERS", "WRAPPERS", "TRANSPARENT", "NETWORK",
           "DOWNLOADERS", "CONFIG", "SAFE_WITH_ANY_ARGUMENTS", "SYSTEM_BIN_DIRS",
           "secret_printer"]

# A program given by absolute path in these directories is the system program of that name.
SYSTEM_BIN_DIRS = ("/bin/", "/usr/bin/", "/sbin/", "/usr/sbin/", "/usr/local/bin/")

_SPECIAL: dict[str, Callable[[list[Word]], Effects]] = {
    "grep": grep, "egrep": grep, "fgrep": grep, "rg": ripgrep,
    "sed": sed, "gsed": sed,
    "awk": awk, "gawk": awk, "mawk": awk, "nawk": awk,
    "find": find, "git": git, "tar": tar, "unzip": unzip,
}


def program_name(word: Word | None) -> str | None:
    """The bare program name for a system-path program (``/usr/bin/ls`` → ``ls``); other paths
    (``./ls``, ``/tmp/x/ls``) are returned as they are; None when decided at run time."""
    if word is None or word.kind != LITERAL:
        return None
    value = word.value or ""  # a LITERAL word has a value
    if "/" in value:
        for directory in SYSTEM_BIN_DIRS:
            rest = value[len(directory):]
            if value.startswith(directory) and "/" not in rest and rest:
                return rest
    return value


_KNOWN = frozenset(TABLE) | frozenset(SYSTEM) | frozenset(_SPECIAL) | frozenset(FILES) | \
    SHELLS | frozenset(WRAPPERS) | INTERPRETERS | NETWORK | {"env", "eval", ".", "source"} | \
    frozenset(HOOKS)


def known_programs() -> frozenset[str]:
    """Every program name the table has an entry for (the table-drift test reads it)."""
    return _KNOWN


# one dictionary from program name to what decides its effects
_HANDLERS: dict[str, Callable[[list[Word]], Effects | None]] = {
    **{name: network_program for name in NETWORK},
    **NETWORK_PROGRAMS,
    **FILES,
    **SYSTEM,
    **TABLE,
    **_SPECIAL,
    **HOOKS,
}
for _name, _runner in RUNNERS.items():
    _other = _HANDLERS.get(_name)
    if _other is not None and _name not in ("command",):
        # `npm run x` runs a script, `npm ls` is a listing: the runner first, then the table
        def _both(argv, _runner=_runner, _other=_other):
            return _runner(argv) or _other(argv)
        _HANDLERS[_name] = _both
    else:
        _HANDLERS[_name] = _runner


def classify(argv: list[Word]) -> Effects:
    """The effects of one argv (the program name may be a system path)."""
    if not argv:
        return Effects(True, "no command")
    first = argv[0]
    if first.kind != LITERAL:
        return Effects(False, "the program is decided at run time")
    name = first.value or ""  # a LITERAL word has a value
    if "/" in name:
        name = program_name(first) or name
        if "/" in name:
            foreign = Effects(False, f"{name} is not a system program")
            _maybe_reads(argv, foreign)
            return foreign
        argv = [literal(name)] + argv[1:]
    handler = _HANDLERS.get(name)
    effects: Effects | None = None
    if handler is not None:
        if name == "command" and len(argv) > 1 and argv[1].value in ("-v", "-V", "-pv", "-pV"):
            effects = command_query(argv)
        else:
            effects = handler(argv)
    elif name.startswith("mkfs"):
        effects = disk_tool(argv)
    else:
        effects = runner_effects(argv)
    if effects is None:
        effects = Effects(False, f"{name} is not in the read-only table")
        _maybe_reads(argv, effects)
    if name in _PRINTER_NAMES or name.startswith("docker-credential-"):
        if not effects.secret:
            effects.secret = secret_printer(argv)
            if effects.secret:
                effects.no(effects.secret)
    if name in _SYSTEM_NAMES and not effects.system:
        effects.system = system_change(argv)
    return effects


def read_only_programs() -> frozenset[str]:
    """The programs some argv of which is read-only (the table proper)."""
    return frozenset(TABLE) | frozenset(SYSTEM) | frozenset(_SPECIAL) | {"env"} | \
        frozenset(name for name, word in WRAPPERS.items() if word.transparent) | {"xargs"}


def vetoed_options() -> dict[str, frozenset[str]]:
    """Per read-only program, the options that make it not read-only (vetoed, writing,
    running a program), and the find actions / git global options of the same kind: the
    table-drift test checks each appears in a corpus."""

    def of(*tables: Table) -> set[str]:
        return {spelling for table in tables for spelling, option in table.all.items()
                if option.effect in (VETO, WRITES, RUNS)}

    out: dict[str, set[str]] = {}
    for name, entry in TABLE.items():
        if isinstance(entry, Program):
            out.setdefault(name, set()).update(of(entry.table))
    for name in ("grep", "egrep", "fgrep"):
        out[name] = of(_GREP)
    out["rg"] = of(_RG)
    out["sed"] = of(_SED) | {"-i", "--in-place"}
    out["awk"] = of(_AWK)
    out["tar"] = of(_TAR)
    out["jq"] = of(_JQ)
    out["pip"] = of(_PIP)
    out["find"] = set(_FIND_ACTIONS)
    out["git"] = set(_GIT_GLOBAL_VETO) | of(*set(_GIT_SUBS.values()))
    out["env"] = {"-S", "-C", "-P", "-a"}
    for name, spec in WRAPPERS.items():
        if spec.transparent:
            found = of(spec.table)
            if found:
                out[name] = found
    return {name: frozenset(flags) for name, flags in out.items() if flags}
