"""Programs that change files: what each one writes, deletes or changes the mode of.

None is read-only; the analysis reports their targets so the permission layer can apply
``Edit(...)`` rules, the protected tier and the accept_edits auto-allow. Options follow GNU
coreutils 9 (``rm -r`` deletes recursively, ``cp -t DIR`` names the destination first,
``mv`` deletes its sources from where they were, ``chmod MODE`` may look like an option:
``chmod -w f``).
"""

from __future__ import annotations

from typing import Callable

from ..effects import DELETE, MODE, READ, WRITE, Effects
from ..words import Word, literal
from .base import options, runs
from .scanner import OPTIONAL, REQUIRED, Option, Scan, Table, scan

__all__ = ["FILES", "DISK_TOOLS"]

_HELP = "help version"

_RM = options("fiIrRdv", "", "force one-file-system no-preserve-root recursive dir verbose "
              + _HELP, "", "interactive preserve-root", same="-r=-R=--recursive")
_RMDIR = options("pv", "", "parents verbose ignore-fail-on-non-empty " + _HELP,
                 same="-p=--parents")
_MKDIR = options("pvZ", "m", "parents verbose " + _HELP, "mode", "context")
_TOUCH = options("acfhm", "dt", "no-create no-dereference " + _HELP, "date time",
                 special={"-r|--reference": Option(REQUIRED, "lists")})
_MOVE = ("bfinuvTZ", "S", "force interactive no-clobber no-target-directory "
         "strip-trailing-slashes verbose exchange no-copy debug " + _HELP, "suffix",
         "backup update context")
_MV = options(*_MOVE, special={"-t|--target-directory": Option(REQUIRED, "", "", "target")})
_CP = options(
    "abdfiHlLnPprRsuvxTZ", "S",
    "archive attributes-only copy-contents debug force interactive link dereference "
    "no-clobber no-dereference parents recursive remove-destination strip-trailing-slashes "
    "symbolic-link no-target-directory verbose one-file-system keep-directory-symlink "
    + _HELP, "no-preserve sparse suffix", "backup preserve reflink update context",
    same="-r=-R=--recursive=-a=--archive",
    special={"-t|--target-directory": Option(REQUIRED, "", "", "target")})
_LN = options("bdfFinLPrsTv", "S", "directory force interactive logical no-dereference "
              "physical relative symbolic no-target-directory verbose " + _HELP, "suffix",
              "backup", special={"-t|--target-directory": Option(REQUIRED, "", "", "target")})
_INSTALL = options("bcCdDpsTvZ", "gmoS", "compare directory preserve-timestamps strip "
                   "no-target-directory verbose debug preserve-context " + _HELP,
                   "group mode owner suffix", "backup context",
                   special={"-t|--target-directory": Option(REQUIRED, "", "", "target"),
                            "--strip-program": runs("runs a program on every file")})
_CHOWN = options("cfvhRHLP", "", "changes silent quiet verbose dereference no-dereference "
                 "no-preserve-root preserve-root recursive " + _HELP, "from",
                 same="-R=--recursive",
                 special={"--reference": Option(REQUIRED, "lists", "", "reference")})
_TEE = options("aip", "", "append ignore-interrupts " + _HELP, "", "output-error")
_TRUNCATE = options("co", "s", "no-create io-blocks " + _HELP, "size",
                    special={"-r|--reference": Option(REQUIRED, "lists")})
_SHRED = options("fvxz", "ns", "force exact verbose zero " + _HELP, "iterations size "
                 "random-source", special={"-u|--remove": Option(OPTIONAL)})
_PLAIN = options("", "", _HELP, complete=False)


def _scan(argv: list[Word], table: Table) -> Scan:
    return scan(argv, table, 1)


def _problems(parsed: Scan, effects: Effects, loose_ok: bool = False) -> Effects:
    """Options not understood: the targets below may be incomplete. A glob that may expand
    to an option is harmless for programs whose options cannot move a target (``rm *.pyc``:
    a file named ``-r.pyc`` is refused by rm) but not for cp/mv/ln (``-t..`` moves the
    destination)."""
    if parsed.problems:
        effects.problems = list(parsed.problems)
    elif parsed.loose and (not loose_ok or any(word.kind != "glob" for word in parsed.loose)):
        effects.problems = ["a word that may become an option"]
    return effects


def rm(argv: list[Word]) -> Effects:
    parsed = _scan(argv, _RM)
    effects = Effects(False, f"{argv[0].value} deletes files")
    recursive = parsed.has("-r")
    for word in parsed.operands:
        effects.add(DELETE, word, recursive=recursive,
                    detail="no-preserve-root" if parsed.has("--no-preserve-root") else "")
    return _problems(parsed, effects, loose_ok=True)


def rmdir(argv: list[Word]) -> Effects:
    parsed = _scan(argv, _RMDIR)
    effects = Effects(False, "rmdir deletes directories")
    parents = parsed.has("-p")
    for word in parsed.operands:
        effects.add(DELETE, word)
        if parents:
            _rmdir_parents(word, effects)
    return _problems(parsed, effects, loose_ok=True)


def _rmdir_parents(word: Word, effects: Effects) -> None:
    """``rmdir -p a/b/c`` is ``rmdir a/b/c a/b a``: every ancestor spelled in the operand is
    deleted too (``rmdir -p /home/u/proj/x`` reaches above the project). A word that bash
    spells out at run time (``~+/x`` is the absolute $PWD) has ancestors not seen here."""
    value = word.value
    if value is None:
        return
    if word.text[:1] in ("~", "$", '"') and not value.startswith(("~", "/")):
        effects.add(DELETE, Word(word.text, None))  # `~+/x`, `$PWD/x`: unknown ancestors
        return
    path = value.rstrip("/")
    while "/" in path:
        path = path.rpartition("/")[0].rstrip("/")
        if not path or path == "~":
            break
        effects.add(DELETE, Word(path, path, tilde=word.tilde))


def unlink(argv: list[Word]) -> Effects:
    effects = Effects(False, "unlink deletes a file")
    for word in argv[1:]:
        if word.value not in ("--", "--help", "--version"):
            effects.add(DELETE, word)
    return effects


def _writes_operands(table: Table, reason: str,
                     loose_ok: bool = False) -> Callable[[list[Word]], Effects]:
    def classify(argv: list[Word]) -> Effects:
        parsed = _scan(argv, table)
        effects = Effects(False, reason)
        for found in parsed.found:
            if found.option.effect == "lists" and found.word is not None:
                effects.add(READ, found.word)
        for word in parsed.operands:
            effects.add(WRITE, word)
        return _problems(parsed, effects, loose_ok)
    return classify


def _copy_like(table: Table, reason: str, moves: bool) -> Callable[[list[Word]], Effects]:
    def classify(argv: list[Word]) -> Effects:
        parsed = _scan(argv, table)
        effects = Effects(False, reason)
        for found in parsed.found:
            if found.option.effect == "runs":
                effects.no(f"{argv[0].value} {found.name}: {found.option.reason}")
        targets = [found.word for found in parsed.tagged("target") if found.word is not None]
        operands = list(parsed.operands)
        if targets:
            destination = targets[-1]
            sources = operands
        elif operands:
            destination = operands[-1]
            sources = operands[:-1]
        else:
            return _problems(parsed, effects)
        _problems(parsed, effects)
        recursive = parsed.has("-r") or moves
        effects.add(WRITE, destination, recursive=recursive and bool(sources))
        value = destination.value
        if value is not None and destination.kind == "literal" and sources and \
                not parsed.has("-T"):
            # into a directory: each source lands at DEST/NAME (the analysis cannot tell a
            # directory from a file, so both are reported)
            for word in sources:
                name = (word.value or "").rstrip("/").rsplit("/", 1)[-1]
                if word.kind == "literal" and name and name not in (".", ".."):
                    joined = value.rstrip("/") + "/" + name
                    effects.add(WRITE, Word(joined, joined, tilde=destination.tilde),
                                recursive=recursive)
        for word in sources:
            if moves:
                effects.add(DELETE, word, recursive=True)
                effects.add(READ, word, recursive=True)
            elif argv[0].value != "ln":
                effects.add(READ, word, recursive=recursive)
            elif not parsed.has("-s", "--symbolic"):
                # a hard link is the source's content under a new name: whoever may read the
                # new name reads the source (a symbolic link is resolved when it is read)
                effects.add(READ, word)
        return effects
    return classify


def chmod(argv: list[Word]) -> Effects:
    """chmod [OPTION]... MODE FILE... / --reference=RFILE FILE...: a MODE such as ``-w`` or
    ``-R``-looking ``-rwx`` is the mode when it comes first among the non-options."""
    effects = Effects(False, "chmod changes permissions")
    recursive = False
    reference = False
    mode: str | None = None
    targets: list[Word] = []
    options_done = False
    for word in argv[1:]:
        value = word.value or ""
        if not options_done and value == "--":
            options_done = True
            continue
        if not options_done and value.startswith("--"):
            name = value.split("=", 1)[0]
            if name in ("--recursive",):
                recursive = True
            elif name.startswith("--ref"):
                reference = True
            continue
        if not options_done and value.startswith("-") and len(value) > 1 and mode is None and \
                not reference and all(letter in "cfvR" for letter in value[1:]):
            recursive = recursive or "R" in value
            continue
        if mode is None and not reference:
            mode = word.value if word.value is not None else "?"
            continue
        targets.append(word)
    for word in targets:
        effects.add(MODE, word, recursive=recursive, detail=mode or "")
    return effects


def chown(argv: list[Word]) -> Effects:
    parsed = _scan(argv, _CHOWN)
    effects = Effects(False, f"{argv[0].value} changes owners")
    operands = parsed.operands if parsed.tagged("reference") else parsed.operands[1:]
    owner = "" if parsed.tagged("reference") else (
        parsed.operands[0].value or "?" if parsed.operands else "")
    for word in operands:
        effects.add(MODE, word, recursive=parsed.has("-R"), detail=f"owner {owner}")
    return effects


def dd(argv: list[Word]) -> Effects:
    effects = Effects(False, "dd copies raw data")
    for word in argv[1:]:
        value = word.value
        if value is None:
            if word.text.startswith("of="):
                effects.add(WRITE, Word(word.text[3:], None))
            continue
        if value.startswith("if="):
            effects.add(READ, literal(value[3:]))
        elif value.startswith("of="):
            effects.add(WRITE, literal(value[3:]))
    return effects


def shred(argv: list[Word]) -> Effects:
    parsed = _scan(argv, _SHRED)
    effects = Effects(False, "shred destroys file contents irrecoverably")
    effects.system = "shred destroys data on a disk or file irrecoverably"
    for word in parsed.operands:
        effects.add(WRITE, word)
        if parsed.has("-u"):
            effects.add(DELETE, word)
    return effects


# programs that destroy a disk's or a file's content (their operands are devices or files)
DISK_TOOLS = frozenset({"mkfs", "mke2fs", "mkswap", "fdisk", "sfdisk", "cfdisk", "gdisk",
                        "sgdisk", "parted", "wipefs", "blkdiscard", "badblocks", "mkdosfs",
                        "mkntfs", "newfs", "diskutil", "format"})


def disk_tool(argv: list[Word]) -> Effects:
    name = argv[0].value or "?"
    effects = Effects(False, f"{name} writes a disk or partition table")
    effects.system = f"{name} destroys data on a disk or file irrecoverably"
    for word in argv[1:]:
        if word.value is None or not word.value.startswith("-"):
            effects.add(WRITE, word)
    return effects


FILES: dict[str, Callable[[list[Word]], Effects]] = {
    "rm": rm, "rmdir": rmdir, "unlink": unlink,
    "mkdir": _writes_operands(_MKDIR, "mkdir creates directories", loose_ok=True),
    "touch": _writes_operands(_TOUCH, "touch creates or updates files", loose_ok=True),
    "tee": _writes_operands(_TEE, "tee writes files"),
    "truncate": _writes_operands(_TRUNCATE, "truncate changes file sizes"),
    "mkfifo": _writes_operands(options("Z", "m", "", "mode", "context", complete=False),
                               "mkfifo creates files"),
    "mknod": _writes_operands(_PLAIN, "mknod creates device files"),
    "mv": _copy_like(_MV, "mv moves files", moves=True),
    "cp": _copy_like(_CP, "cp copies files", moves=False),
    "ln": _copy_like(_LN, "ln creates links", moves=False),
    "install": _copy_like(_INSTALL, "install copies files", moves=False),
    "chmod": chmod, "chown": chown, "chgrp": chown,
    "dd": dd, "shred": shred,
    **{name: disk_tool for name in DISK_TOOLS},
}

_ = OPTIONAL
