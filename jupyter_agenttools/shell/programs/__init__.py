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
from .base import maybe_reads as _maybe_reads
from .archives import tar, unzip
from .awk import awk
from .files import FILES, disk_tool
from .find import SAFE_WITH_ANY_ARGUMENTS, find
from .git import CONFIG, git
from .network import DOWNLOADERS, NETWORK, NETWORK_PROGRAMS, network_program
from .search import grep, ripgrep
from .sed import sed
from .system import SYSTEM, command_query, secret_printer, system_change
from .table import TABLE
from .wrappers import (INTERPRETERS, POSIX_SHELLS, SHELLS, TRANSPARENT, WRAPPERS,
                       runner_effects)

__all__ = ["classify", "program_name", "known_programs", "SHELLS", "POSIX_SHELLS",
           "INTERPRETERS", "WRAPPERS", "TRANSPARENT", "NETWORK", "DOWNLOADERS", "CONFIG",
           "SAFE_WITH_ANY_ARGUMENTS", "SYSTEM_BIN_DIRS", "secret_printer"]

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
    v = word.value
    if "/" in v:
        for d in SYSTEM_BIN_DIRS:
            if v.startswith(d) and "/" not in v[len(d):] and v[len(d):]:
                return v[len(d):]
    return v


def known_programs() -> frozenset[str]:
    """Every program name the table has an entry for (the table-drift test reads it)."""
    return frozenset(TABLE) | frozenset(SYSTEM) | frozenset(_SPECIAL) | frozenset(FILES) | \
        SHELLS | frozenset(WRAPPERS) | INTERPRETERS | NETWORK | {"env", "eval", ".", "source"}


def classify(argv: list[Word]) -> Effects:
    """The effects of one argv (the program name may be a system path)."""
    if not argv:
        return Effects(True, "no command")
    name = program_name(argv[0])
    if name is None:
        e = Effects(False, "the program is decided at run time")
        return e
    if name != argv[0].value:
        argv = [literal(name)] + argv[1:]
    if "/" in name:
        e = Effects(False, f"{name} is not a system program")
        _maybe_reads(argv, e)
        return e
    e = _classify(name, argv)
    if not e.secret:
        e.secret = secret_printer(argv)
        if e.secret:
            e.no(e.secret)
    if not e.system:
        e.system = system_change(argv)
    return e


def _classify(name: str, argv: list[Word]) -> Effects:
    if name == "command" and len(argv) > 1 and argv[1].value in ("-v", "-V", "-pv", "-pV"):
        return command_query(argv)
    runner = runner_effects(argv)
    if runner is not None:
        return runner
    program = TABLE.get(name)
    if program is not None:
        return program(argv)
    special = _SPECIAL.get(name) or SYSTEM.get(name) or FILES.get(name)
    if special is not None:
        return special(argv)
    if name.startswith("mkfs"):
        return disk_tool(argv)
    network = NETWORK_PROGRAMS.get(name)
    if network is not None:
        return network(argv)
    if name in NETWORK:
        return network_program(argv)
    e = Effects(False, f"{name} is not in the read-only table")
    _maybe_reads(argv, e)
    return e
