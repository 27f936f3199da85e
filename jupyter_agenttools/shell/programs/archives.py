"""tar and unzip: read-only only when listing.

tar's first word may be an old-style bundle without a dash (``tar tfI PROG``): its letters
are options and those taking a value take the *following words in order* (``f`` the archive,
``I`` the compression program, ``C`` a directory …) — the way GNU tar reads them. Only
listing (``t``/``--list``) with harmless options is read-only; ``-I``/
``--use-compress-program``/``--to-command``/``--checkpoint-action``/``--info-script``/
``--rsh-command``/``--new-volume-script`` run programs; an archive ``host:file`` runs a remote
shell. Extracting writes below the directory (``-C``) or ``.``; creating writes the archive.
"""

from __future__ import annotations

from ..effects import CODE, READ, WRITE, Effects, Run
from ..words import DYNAMIC, Word, literal
from .base import options, runs, veto
from .scanner import OPTIONAL, REQUIRED, Option, scan

__all__ = ["tar", "unzip"]

_RUN = "runs a program"
_TAR = options(
    "tvzjJaOkmpPsSUWhHBGgiMnoqrwRZ",
    "bKLNVX",
    "verbose gzip gunzip ungzip bzip2 xz lzma lzip lzop zstd compress uncompress "
    "auto-compress no-auto-compress wildcards no-wildcards wildcards-match-slash "
    "no-wildcards-match-slash anchored no-anchored ignore-case no-ignore-case numeric-owner "
    "force-local utc full-time null no-null recursion no-recursion show-transformed-names "
    "show-stored-names check-links totals dereference hard-dereference ignore-zeros "
    "ignore-failed-read one-file-system absolute-names seek no-seek sparse "
    "delay-directory-restore no-delay-directory-restore no-same-owner no-same-permissions "
    "same-owner same-permissions preserve-permissions preserve-order same-order "
    "keep-old-files keep-newer-files skip-old-files overwrite overwrite-dir "
    "no-overwrite-dir unlink-first recursive-unlink remove-files verify warning-never "
    "quiet-never interactive confirmation touch restrict read-full-records "
    "block-number index-file-never multi-volume no-xattrs xattrs no-acls acls "
    "no-selinux selinux " + "help version usage",
    "exclude quoting-style blocking-factor record-size tape-length label occurrence "
    "format owner group mode mtime newer newer-mtime after-date transform xform "
    "strip-components exclude-tag exclude-tag-under exclude-tag-all checkpoint "
    "sort warning suffix",
    "exclude-vcs exclude-vcs-ignores exclude-caches exclude-caches-under "
    "exclude-caches-all exclude-backups backup",
    special={
        "-t|--list": Option(0, "", "", "list"),
        "-x|--extract|--get": Option(0, "", "", "extract"),
        "-c|--create": Option(0, "", "", "create"),
        "-r|--append": Option(0, "", "", "create"),
        "-u|--update": Option(0, "", "", "create"),
        "-A|--catenate|--concatenate": Option(0, "", "", "create"),
        "--delete": Option(0, "", "", "create"),
        "-d|--diff|--compare": Option(0, "", "", "list"),
        "--test-label": Option(0, "", "", "list"),
        "-f|--file": Option(REQUIRED, "", "", "archive"),
        "-C|--directory": Option(REQUIRED, "", "", "directory"),
        "-T|--files-from": Option(REQUIRED, "reads", "reads the names to archive from a file"),
        "-X|--exclude-from": Option(REQUIRED, "reads", "reads exclusion patterns from a file"),
        "-I|--use-compress-program": runs(_RUN + " to (de)compress"),
        "-F|--info-script|--new-volume-script": runs(_RUN + " at the end of each volume"),
        "--to-command": runs(_RUN + " for every file"),
        "--checkpoint-action": veto("runs a command at checkpoints", REQUIRED),
        "--rsh-command": runs(_RUN + " to reach a remote archive"),
        "--rmt-command": runs(_RUN + " on the remote side"),
        "--to-stdout": Option(0),
        "-g|--listed-incremental": Option(REQUIRED, "writes", "writes a snapshot file"),
        "--index-file": Option(REQUIRED, "writes", "writes the verbose output to a file"),
        "--volno-file": Option(REQUIRED, "writes", "writes the volume number to a file"),
    },
    complete=False)


def tar(argv: list[Word]) -> Effects:
    words = list(argv[1:])
    if words and words[0].kind == "literal" and words[0].value and \
            not words[0].value.startswith("-"):
        # old-style bundle `tar tfI PROG`: each letter is an option; the values follow in
        # the order of the letters that take one
        first = words[0]
        letters = first.value or ""
        rebuilt: list[Word] = []
        k = 1
        for letter in letters:
            option = _TAR.short.get(letter)
            rebuilt.append(literal("-" + letter))
            if option is not None and option.arg == REQUIRED and k < len(words):
                rebuilt.append(words[k])
                k += 1
        words = rebuilt + words[k:]
    parsed = scan([argv[0]] + words, _TAR, 1)
    effects = Effects(True, "tar -t lists an archive")
    if parsed.problems:
        effects.no(f"tar {parsed.problems[0]}")
    if parsed.loose:
        effects.no(f"tar: the word {parsed.loose[0].text[:40]!r} may become an option")
    mode = {found.option.tag for found in parsed.found} & {"list", "extract", "create"}
    archives = [found.word for found in parsed.tagged("archive")]
    directory = next((found.word for found in reversed(parsed.tagged("directory"))), None)
    for found in parsed.found:
        option = found.option
        if option.effect == "runs":
            effects.runs.append(Run(CODE, "tar", language="program", source=found.value))
            effects.no(f"tar {option.name}: {option.reason}")
        elif option.effect == "veto":
            effects.no(f"tar {option.name}: {option.reason}")
        elif option.effect == "reads" and found.word is not None:
            effects.add(READ, found.word)
        elif option.effect == "writes" and found.word is not None:
            effects.add(WRITE, found.word)
            effects.no(f"tar {option.name}: {option.reason}")
    for word in archives:
        if word is None:
            continue
        if word.kind == DYNAMIC:
            effects.no("the archive name is decided at run time")
        elif ":" in (word.value or "") and not parsed.has("--force-local"):
            effects.no("a host:file archive runs a remote shell")
            effects.network = "tar reaches a remote archive through rsh/ssh"
    if "create" in mode:
        effects.no("tar -c/-r/-u writes an archive")
        for word in archives:
            if word is not None and word.value != "-":
                effects.add(WRITE, word)
        # a folder operand is archived with everything below it (unless --no-recursion)
        recursive = not parsed.has("--no-recursion")
        for word in parsed.operands:
            effects.add(READ, word, recursive=recursive)
    elif "extract" in mode:
        effects.no("tar -x writes the archive's files")
        for word in archives:
            if word is not None and word.value != "-":
                effects.add(READ, word)
        target = directory if directory is not None else literal(".")
        effects.add(WRITE, target, recursive=True)
    elif "list" in mode:
        for word in archives:
            if word is not None and word.value != "-":
                effects.add(READ, word)
    else:
        effects.no("tar only lists with -t/--list; other modes write files")
    return effects


_UNZIP_LIST = frozenset("lvtZz")
_UNZIP_OK = frozenset("lvtZzqhmsTM1")


def unzip(argv: list[Word]) -> Effects:
    """unzip's own parser: letters after one dash; ``-l``/``-v``/``-t``/``-Z`` list or test;
    ``-d DIR`` and ``-x`` lists take words; anything else extracts."""
    effects = Effects(True, "unzip -l/-v/-t lists or tests an archive")
    letters: set[str] = set()
    operands: list[Word] = []
    directory: Word | None = None
    words = argv[1:]
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        value = word.value or ""
        if word.kind == DYNAMIC:
            effects.no("an argument decided at run time")
            continue
        if value.startswith("-") and len(value) > 1:
            for letter in value[1:]:
                if letter == "d":
                    if i < len(words):
                        directory = words[i]
                        i += 1
                    continue
                if letter not in _UNZIP_OK:
                    effects.no(f"unzip -{letter} is not a listing option")
                letters.add(letter)
            continue
        operands.append(word)
    listing = bool(letters & _UNZIP_LIST)
    if operands:
        effects.add(READ, operands[0])
    if not listing:
        effects.no("unzip without -l/-v/-t extracts files")
        effects.add(WRITE, directory if directory is not None else literal("."), recursive=True)
    return effects


_ = (OPTIONAL,)
