"""grep and ripgrep: content searches, recursive or not.

A search reads the files it is given (``read`` accesses) and, recursively (``-r``, ``-d
recurse``, ripgrep always), the trees below its roots (``search`` accesses, with ``hidden``:
dotfiles included — ripgrep skips them unless ``--hidden``/``-u`` — and ``follow``: symlinks
followed, ``grep -R``, ``rg -L``). A file filter (``--include=.env*``, ``rg -g .env``) is
reported as a glob read below each root, so the permission layer judges what it selects.
"""

from __future__ import annotations

from ..effects import READ, SEARCH, Effects
from ..words import DYNAMIC, GLOB, Word, literal
from .base import options, reads, report_scan, runs, tag, veto
from .scanner import REQUIRED, Option, scan

__all__ = ["grep", "ripgrep"]

_GREP = options(
    "EFGPiyvwxclLoqsbHhnTZUzaI", "mABC",
    "extended-regexp fixed-strings basic-regexp perl-regexp ignore-case no-ignore-case "
    "word-regexp line-regexp null-data no-messages invert-match byte-offset line-number "
    "line-buffered with-filename no-filename only-matching quiet silent text binary "
    "files-without-match files-with-matches count initial-tab null no-group-separator "
    "help version",
    "max-count label binary-files context after-context before-context group-separator "
    "exclude exclude-dir",
    "color colour",
    same="--color=--colour",
    special={
        "-e|--regexp": Option(REQUIRED, "", "", "pattern"),
        "-f|--file": Option(REQUIRED, "reads", "reads the patterns from a file", "pattern"),
        "--exclude-from": reads("reads exclusion patterns from a file"),
        "--include": Option(REQUIRED, "", "", "include"),
        "-r|--recursive": tag("recursive"),
        "-R|--dereference-recursive": tag("follow"),
        "-d|--directories": Option(REQUIRED, "", "", "directories"),
        "-D|--devices": Option(REQUIRED),
    },
    numbers=True)


def grep(argv: list[Word]) -> Effects:
    name = argv[0].value or "grep"
    parsed = scan(argv, _GREP, 1)
    effects = Effects(True, "grep searches file contents")
    report_scan(parsed, _GREP, effects, name)
    operands = parsed.operands if parsed.tagged("pattern") else parsed.operands[1:]
    follow = bool(parsed.tagged("follow"))
    recursive = follow or bool(parsed.tagged("recursive"))
    for found in parsed.tagged("directories"):
        value = found.value or ""
        if value and "recurse".startswith(value):
            recursive = True
    _roots(effects, name, operands, recursive, follow, hidden=True,
           filters=[found.word for found in parsed.tagged("include") if found.word is not None],
           default_root=recursive)
    return effects


_RG = options(
    "0EFHIMNPSTUVabcehijlnopqsvwxz.", "ABCEMTgjmrtd",
    "auto-hybrid-regex binary block-buffered byte-offset case-sensitive column count "
    "count-matches crlf debug files-with-matches files-without-match fixed-strings "
    "glob-case-insensitive heading help hidden ignore ignore-case ignore-dot ignore-exclude "
    "ignore-file-case-insensitive ignore-global ignore-messages ignore-parent ignore-vcs "
    "include-zero invert-match json line-buffered line-number line-regexp "
    "max-columns-preview messages mmap multiline multiline-dotall no-auto-hybrid-regex "
    "no-binary no-block-buffered no-column no-config no-context-separator no-crlf "
    "no-encoding no-filename no-fixed-strings no-follow no-glob-case-insensitive "
    "no-heading no-hidden no-ignore no-ignore-dot no-ignore-exclude "
    "no-ignore-file-case-insensitive no-ignore-files no-ignore-global no-ignore-messages "
    "no-ignore-parent no-ignore-vcs no-json no-line-buffered no-line-number "
    "no-max-columns-preview no-messages no-mmap no-multiline no-multiline-dotall "
    "no-one-file-system no-pcre2 no-pcre2-unicode no-pre no-require-git no-search-zip "
    "no-stats no-text no-trim no-unicode null null-data one-file-system only-matching "
    "passthru pcre2 pcre2-unicode pcre2-version pretty print0 quiet require-git smart-case "
    "stats text trace trim unrestricted version vimgrep with-filename word-regexp "
    "no-ignore-files type-list files",
    "after-context before-context color colors context context-separator dfa-size-limit "
    "encoding engine field-context-separator field-match-separator max-columns max-count "
    "max-depth max-filesize path-separator regex-size-limit replace sort sortr threads "
    "type type-add type-clear type-not",
    special={
        "-e|--regexp": Option(REQUIRED, "", "", "pattern"),
        "-f|--file": Option(REQUIRED, "reads", "reads the patterns from a file", "pattern"),
        "--ignore-file": reads("reads ignore patterns from a file"),
        "-g|--glob": Option(REQUIRED, "", "", "include"),
        "--iglob": Option(REQUIRED, "", "", "include"),
        "-L|--follow": tag("follow"),
        "--pre": runs("runs a program on every file it searches"),
        "--pre-glob": veto("runs the preprocessor on the files it selects", REQUIRED),
        "-z|--search-zip": veto("runs decompression programs"),
        "--hostname-bin": runs("runs a program to find the host name"),
        "-u": Option(0, "", "", "hidden"),
        "--hidden": Option(0, "", "", "hidden"),
        "-.": Option(0, "", "", "hidden"),
        "--no-ignore": Option(0, "", "", "hidden"),
    },
    complete=False)


def ripgrep(argv: list[Word]) -> Effects:
    parsed = scan(argv, _RG, 1)
    effects = Effects(True, "ripgrep searches files")
    report_scan(parsed, _RG, effects, "rg")
    listing = parsed.has("--files", "--type-list")
    operands = parsed.operands if (parsed.tagged("pattern") or listing) else parsed.operands[1:]
    hidden = bool(parsed.tagged("hidden"))
    _roots(effects, "rg", operands, True, bool(parsed.tagged("follow")), hidden=hidden,
           filters=[found.word for found in parsed.tagged("include") if found.word is not None],
           default_root=True)
    return effects


def _roots(effects: Effects, name: str, operands: list[Word], recursive: bool, follow: bool,
           hidden: bool, filters: list[Word], default_root: bool) -> None:
    roots = [word for word in operands if word.value != "-"]
    if not roots and default_root:
        roots = [literal(".")]
    for word in roots:
        if word.kind == DYNAMIC:
            effects.no(f"{name} searches a path decided at run time ({word.text[:40]!r})")
        effects.add(READ, word)
        if recursive:
            effects.add(SEARCH, word, recursive=True, hidden=hidden, follow=follow)
    if recursive:
        for found in filters:
            pattern = (found.value or "").lstrip("!")
            if not pattern:
                continue
            for word in roots:
                base = (word.value or ".").rstrip("/") or "/"
                joined = pattern if pattern.startswith("/") else f"{base}/{pattern}"
                effects.add(READ, Word(joined, joined, GLOB, tilde=word.tilde), detail="filter")
