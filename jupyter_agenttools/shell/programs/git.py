"""git: the read-only sub-commands, each with the options known to be safe.

A git command reads the configuration of the repository it runs in, and that configuration
can run programs (``core.fsmonitor`` on ``git status``, diff drivers, pagers): every git
command reports a ``config`` access on its repository directory (``.`` or ``-C DIR``) and the
permission layer requires it inside the working directories. Global options are matched
exactly (git does not abbreviate them); ``-c``/``--config-env``/``--exec-path=``/
``--git-dir``/``--work-tree``/``-p`` are vetoed.

Options that execute configured helpers are not read-only: ``--ext-diff``, ``--textconv``,
``--show-signature`` and ``%G`` format placeholders (gpg), ``cat-file --filters``, ``grep -O``
(pager), ``branch --edit-description`` (editor). ``--output`` writes a file. Pathspecs are git
globs (``'*env'`` matches ``.env`` even when quoted): they are reported as glob reads.
Sub-command option tables list only known options (``complete=False``: abbreviations are not
resolved, an unknown option is not read-only).
"""

from __future__ import annotations

from ..effects import LIST, READ, SEARCH, WRITE, Effects
from ..words import DYNAMIC, GLOB, LITERAL, Word, literal
from .base import options, reads, report_scan, veto, writes
from .git_config import config_write
from .scanner import OPTIONAL, REQUIRED, Option, Scan, Table, scan

__all__ = ["git", "CONFIG", "NETWORK_SUBCOMMANDS"]

# an access kind: the command obeys configuration found in this directory (it can run code)
CONFIG = "config"

_GLOBAL_OK = frozenset({"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs",
                        "--no-replace-objects", "--glob-pathspecs", "--noglob-pathspecs",
                        "--icase-pathspecs", "--no-lazy-fetch", "--no-advice"})
_GLOBAL_VETO = {
    # the directory becomes the repository: its `config` is an ordinary file of the project
    # (core.fsmonitor, diff.external run programs)
    "--bare": "reads the directory it runs in as a repository (its config file can run "
              "programs)",
    "-c": "sets configuration (can run any command through core.pager, aliases…)",
    "--config-env": "sets configuration from the environment",
    "-p": "runs a pager", "--paginate": "runs a pager",
    "--git-dir": "points git at another repository's config and hooks",
    "--work-tree": "points git at another work tree",
    "--namespace": "changes the refs namespace", "--super-prefix": "internal option",
    "--list-cmds": "lists commands (may read aliases)",
}
NETWORK_SUBCOMMANDS = frozenset({"fetch", "pull", "push", "clone", "ls-remote", "submodule",
                                 "remote", "send-email", "request-pull", "archive"})

_RUNS_HELPER = "runs a helper program from the configuration"
_LOG_DIFF = options(
    "pusqrtzRacmlhvWB" "Ow" "123",
    "nSGULMCIXD",
    # revision listing
    "all branches tags remotes graph oneline decorate-refs-exclude abbrev-commit "
    "no-abbrev-commit full-history simplify-merges first-parent merges no-merges "
    "reverse topo-order date-order author-date-order boundary left-right cherry-pick "
    "cherry-mark cherry left-only right-only no-walk do-walk parents children "
    "relative-date no-decorate follow source log-size use-mailmap mailmap no-mailmap "
    "show-pulls not dense sparse ancestry-path walk-reflogs regexp-ignore-case "
    "basic-regexp extended-regexp fixed-strings perl-regexp invert-grep all-match "
    "remove-empty count bisect stdin alternate-refs exclude-hidden reflog single-worktree "
    "indexed-objects objects objects-edge unpacked no-min-parents no-max-parents "
    "show-linear-break clear-decorations expand-tabs no-expand-tabs notes no-notes "
    "show-notes standard-notes no-standard-notes timestamp show-root "
    # diff output
    "patch no-patch raw patch-with-raw patch-with-stat numstat shortstat summary "
    "name-only name-status full-index binary no-color no-renames rename-empty "
    "no-rename-empty check ita-invisible-in-index ita-visible-in-index text "
    "ignore-cr-at-eol ignore-space-at-eol ignore-space-change ignore-all-space "
    "ignore-blank-lines no-indent-heuristic indent-heuristic minimal patience histogram "
    "function-context exit-code quiet ext-diff-never no-ext-diff no-textconv "
    "ignore-submodules src-prefix-never no-prefix default-prefix inter-hunk-context-never "
    "cached staged merge-base no-index-never combined-all-paths compact-summary "
    "irreversible-delete pickaxe-all pickaxe-regex find-copies-harder cc dd "
    "remerge-diff no-diff-merges ignore-missing no-relative color-moved-never "
    "name-only-never",
    "max-count skip since after until before author committer grep grep-reflog "
    "min-parents max-parents format encoding date diff-filter unified "
    "inter-hunk-context stat-width stat-name-width stat-graph-width stat-count "
    "output-indicator-new output-indicator-old output-indicator-context src-prefix "
    "dst-prefix line-prefix anchored diff-algorithm word-diff-regex orderfile "
    "skip-to rotate-to diff-merges decorate-refs since-as-filter exclude glob "
    "ignore-matching-lines",
    "decorate pretty abbrev stat dirstat dirstat-by-file color word-diff color-words "
    "color-moved color-moved-ws relative find-renames find-copies break-rewrites "
    "submodule ws-error-highlight no-walk show-linear-break",
    special={
        "--output": writes("writes the output to a file"),
        "--ext-diff": veto(_RUNS_HELPER + " (an external diff)"),
        "--textconv": veto(_RUNS_HELPER + " (textconv filters)"),
        "--show-signature": veto("runs gpg to verify signatures"),
        "--exec": veto("runs a program"),
        "--no-index": Option(0, "", "", "no-index"),
        "--follow": Option(0),
        "-L": Option(REQUIRED, "", "", "line-range"),
    },
    complete=False, numbers=True)

_SHORTLOG = options(
    "nsec", "", "numbered summary email committer " + "all branches tags remotes no-merges "
    "merges reverse first-parent", "format group since after until before author grep",
    "width", special={"-w": Option(OPTIONAL)}, complete=False, numbers=True)
_STATUS = options(
    "sbvz", "", "short branch porcelain long verbose show-stash ahead-behind "
    "no-ahead-behind renames no-renames null column no-column find-renames",
    "", "untracked-files ignore-submodules ignored", complete=False)
_LS_FILES = options(
    "cdomsktvfzu" "iM", "x",
    "cached deleted modified others ignored stage killed directory no-empty-directory "
    "unmerged resolve-undo full-name recurse-submodules error-unmatch eol debug "
    "deduplicate sparse exclude-standard",
    "exclude exclude-per-directory with-tree format", "abbrev",
    special={"-X|--exclude-from": reads("reads exclusion patterns from a file")},
    complete=False)
_LS_TREE = options("dlrtz", "", "long name-only name-status object-only full-name "
                   "full-tree", "format", "abbrev", complete=False)
_REV_PARSE = options(
    "q", "", "verify quiet sq short symbolic symbolic-full-name all branches tags remotes "
    "show-toplevel show-prefix show-cdup git-dir git-common-dir absolute-git-dir "
    "is-inside-git-dir is-inside-work-tree is-bare-repository is-shallow-repository "
    "shared-index-path local-env-vars show-ref-format show-object-format not revs-only "
    "no-revs flags no-flags default prefix sq-quote parseopt keep-dashdash "
    "stop-at-non-option",
    "since after until before resolve-git-dir git-path exclude glob",
    "abbrev-ref short disambiguate show-object-format", complete=False)
_BLAME = options(
    "bcelnfpsMCwt", "L",
    "root show-stats score-debug show-name show-number porcelain line-porcelain "
    "incremental minimal progress no-progress", "date abbrev ignore-rev", "color-lines "
    "color-by-age",
    special={"--contents": reads("reads the file to annotate from a path"),
             "-S": reads("reads the revisions to use from a file"),
             "--ignore-revs-file": reads("reads the revisions to ignore from a file")},
    complete=False, numbers=True)
_GREP = options(
    "aiIwvhHEGFPnlLzcqopW" "r",
    "mABC",
    "cached untracked no-index-never no-exclude-standard exclude-standard recurse-submodules "
    "text textconv-never no-textconv ignore-case word-regexp invert-match full-name "
    "extended-regexp basic-regexp perl-regexp fixed-strings line-number column "
    "files-with-matches name-only files-without-match null count break heading "
    "show-function function-context all-match quiet only-matching and or not",
    "max-depth threads context after-context before-context max-count", "color",
    special={
        "-e": Option(REQUIRED, "", "", "pattern"),
        "-f|--file": Option(REQUIRED, "reads", "reads the patterns from a file", "pattern"),
        "--no-index": Option(0, "", "", "no-index"),
        "-O|--open-files-in-pager": veto("opens the files in a pager (runs a program)", 2),
        "--textconv": veto(_RUNS_HELPER + " (textconv filters)"),
    },
    complete=False, numbers=True)
_DESCRIBE = options("", "", "all tags contains exact-match always first-parent long debug",
                    "candidates match exclude", "abbrev dirty broken", complete=False)
_CAT_FILE = options(
    "tsepP", "", "allow-unknown-type use-mailmap mailmap no-mailmap",
    special={
        "--filters": veto(_RUNS_HELPER + " (filters)"),
        "--textconv": veto(_RUNS_HELPER + " (textconv filters)"),
        "--batch": veto("reads object names (REV:.env) from stdin", 2),
        "--batch-check": veto("reads object names from stdin", 2),
        "--batch-command": veto("reads commands from stdin", 2),
        "--batch-all-objects": veto("prints every object of the repository"),
    }, complete=False)
_MISC = options("vqsnz", "", "verbose quiet all is-ancestor independent fork-point octopus "
                "tags name-only no-undefined always heads dereference hash verify exists "
                "stdin non-matching human-readable", "format sort count points-at contains "
                "no-contains merged no-merged exclude refs", "abbrev", complete=False,
                numbers=True)
_BRANCH = options(
    "arlvi", "", "all remotes list verbose show-current ignore-case omit-empty no-color "
    "no-column quiet", "sort format contains no-contains merged no-merged points-at",
    "color column abbrev no-abbrev-never",
    special={"-q": Option(0)},
    same="-v=--verbose", complete=False)
_TAG = options(
    "li", "n", "list ignore-case omit-empty no-column", "sort format contains no-contains "
    "merged no-merged points-at", "color column", complete=False)
_CONFIG = options(
    "lz", "", "get get-all get-regexp get-urlmatch list show-origin show-scope global "
    "system local worktree name-only null includes no-includes bool int bool-or-int path "
    "expiry-date", "type default file blob", complete=False)

_READ_SUBS: dict[str, Table] = {
    "log": _LOG_DIFF, "show": _LOG_DIFF, "diff": _LOG_DIFF, "whatchanged": _LOG_DIFF,
    "diff-tree": _LOG_DIFF, "diff-files": _LOG_DIFF, "diff-index": _LOG_DIFF,
    "shortlog": _SHORTLOG, "rev-list": _LOG_DIFF, "range-diff": _LOG_DIFF,
    "cherry": _MISC,
    "status": _STATUS, "ls-files": _LS_FILES, "ls-tree": _LS_TREE, "rev-parse": _REV_PARSE,
    "blame": _BLAME, "annotate": _BLAME, "grep": _GREP, "describe": _DESCRIBE,
    "cat-file": _CAT_FILE, "merge-base": _MISC, "name-rev": _MISC, "count-objects": _MISC,
    "show-ref": _MISC, "for-each-ref": _MISC, "check-ignore": _MISC, "version": _MISC,
    "var": _MISC, "branch": _BRANCH, "tag": _TAG, "remote": _MISC, "stash": _MISC,
    "reflog": _LOG_DIFF, "worktree": _MISC, "config": _CONFIG,
}
# sub-commands whose path operands are read for their content
_CONTENT = frozenset({"diff", "blame", "annotate", "grep", "log", "show", "whatchanged",
                      "diff-tree", "diff-files", "diff-index", "shortlog"})
_FORMAT_OPTIONS = ("--format", "--pretty")
_SECRET_CONFIG_KEY = ("extraheader", "password", "passwd", "token", "secret", "credential",
                      "insteadof", "pushurl")


def _no(reason: str) -> Effects:
    return Effects(False, reason)


def git(argv: list[Word]) -> Effects:
    words = argv[1:]
    effects = Effects(True, "git only reads the repository")
    repository: Word = literal(".")
    i = 0
    count = len(words)
    while i < count:
        word = words[i]
        value = word.value or ""
        if word.kind == DYNAMIC:
            effects.no("a git argument decided at run time")
            return effects
        if not value.startswith("-"):
            break
        name = value.split("=", 1)[0]
        if value in ("--version", "--help", "-h") and count == 1:
            return Effects(True, "git prints its version or help")
        if name == "-C":
            if i + 1 >= count:
                return _no("git -C without a directory")
            repository = words[i + 1]
            if repository.kind != LITERAL:
                effects.no("git -C DIR with a directory decided at run time")
            i += 2
            continue
        if name in _GLOBAL_VETO or (name.startswith("-c") and len(name) > 2):
            effects.no(f"git {name}: {_GLOBAL_VETO.get(name, 'sets configuration')}")
            return effects
        if name == "--exec-path":
            if "=" in value:
                return _no("git --exec-path=DIR changes where git finds its programs")
            return Effects(True, "git --exec-path prints a directory")
        if value in _GLOBAL_OK:
            i += 1
            continue
        effects.no(f"git {name} is not a known-harmless global option")
        return effects
    effects.add(CONFIG, repository)
    if i >= count:
        effects.no("git without a sub-command")
        return effects
    sub_word = words[i]
    sub = sub_word.value or ""
    if sub in NETWORK_SUBCOMMANDS:
        effects.network = f"git {sub} talks to a remote repository"
    table = _READ_SUBS.get(sub)
    if table is None:
        effects.no(f"git {sub} is not a read-only sub-command")
        _write_targets(sub, words[i + 1:], effects)
        return effects
    parsed = scan(words, table, i + 1)
    label = f"git {sub}"
    report_scan(parsed, table, effects, label, problem_prefix=label + ":")
    if parsed.found:
        for found in parsed.get(*_FORMAT_OPTIONS):
            if found.value and "%G" in found.value:
                effects.no(f"{label} {found.name}: the %G placeholders run gpg to verify "
                           "signatures")
            elif found.value and "%(signature" in found.value:
                # ref-filter's `signature` atom (for-each-ref, branch, tag; git 2.49)
                effects.no(f"{label} {found.name}: %(signature…) runs gpg to verify "
                           "signatures")
    check = _SUB_CHECKS.get(sub)
    if check is not None:
        check(parsed, effects, label)
    if sub == "config":  # (`git config k --global` sets k: the read check above misses it)
        config_write(words[i + 1:], repository, effects)
    _pathspecs(sub, parsed, effects)
    return effects


def _pathspecs(sub: str, parsed: Scan, effects: Effects) -> None:
    operands = parsed.operands
    if sub == "grep" and not parsed.tagged("pattern"):
        operands = operands[1:]
    if sub in ("branch", "tag", "remote", "stash", "worktree", "config", "reflog", "var",
               "rev-parse", "describe", "merge-base", "name-rev", "show-ref", "for-each-ref",
               "cherry", "count-objects", "version", "cat-file", "rev-list", "range-diff"):
        for word in operands:
            path = _blob_path(word.value or "")
            if path:
                effects.add(READ, literal(path))  # REV:PATH names a blob (`git show HEAD:.env`)
        return
    no_index = bool(parsed.found) and bool(parsed.tagged("no-index"))
    kind = READ if sub in _CONTENT else LIST
    # git grep reads every file below each pathspec, or below the cwd when none is given
    searches = sub == "grep"
    before = len(effects.paths)
    for word in operands:
        value = word.value or ""
        if word.kind == DYNAMIC:
            effects.no(f"git {sub}: a path or revision decided at run time")
            continue
        if not parsed.dashdash and not no_index and _looks_like_revision(value):
            if ":" in value:
                path = value.split(":", 1)[1]
                if path:
                    effects.add(READ, literal(path))
            continue
        if no_index:
            if searches:
                effects.add(SEARCH, word, recursive=True)
            else:
                effects.add(READ, word)
            continue
        # a pathspec is a git glob whether quoted or not; magic `:(…)` is stripped
        spec = value
        if spec.startswith(":(") and ")" in spec:
            spec = spec.split(")", 1)[1]
        elif spec.startswith(":") and len(spec) > 1 and spec[1] in "/!^":
            spec = spec[2:]
        is_glob = any(char in spec for char in "*?[")
        pathspec = Word(spec, spec, GLOB if is_glob else LITERAL, tilde=False)
        if searches:
            effects.add(SEARCH, pathspec, recursive=True, detail="pathspec" if is_glob else "")
        else:
            effects.add(kind, pathspec, detail="pathspec" if is_glob else "")
    if searches and len(effects.paths) == before:
        effects.add(SEARCH, literal("."), recursive=True)
    for found in parsed.tagged("line-range") if parsed.found else ():
        if found.value and ":" in found.value:
            effects.add(READ, literal(found.value.rsplit(":", 1)[1]))


def _blob_path(value: str) -> str | None:
    """The path a blob name reads: ``REV:PATH``, and the index's ``:PATH`` / ``:N:PATH``
    (`git cat-file -p :.env` prints the staged .env); ``:/TEXT`` searches commit messages."""
    if value.startswith(":"):
        if value.startswith(":/"):
            return None
        rest = value[1:]
        if len(rest) > 1 and rest[0] in "0123" and rest[1] == ":":
            rest = rest[2:]
        return rest or None
    if ":" in value:
        return value.split(":", 1)[1] or None
    return None


def _looks_like_revision(value: str) -> bool:
    if value.startswith(("HEAD", "@", "refs/", "origin/", "FETCH_HEAD", "ORIG_HEAD")):
        return True
    if ".." in value or value.endswith(("^", "~")) or "^{" in value or "@{" in value:
        return True
    if ":" in value and not value.startswith(":"):
        return True
    core = value.split("~", 1)[0].split("^", 1)[0]
    return 7 <= len(core) <= 40 and all(char in "0123456789abcdef" for char in core)


def _branch(parsed: Scan, effects: Effects, label: str) -> None:
    if parsed.operands and not parsed.has("-l", "--list"):
        effects.no("git branch NAME creates a branch")


def _tag(parsed: Scan, effects: Effects, label: str) -> None:
    if parsed.operands and not parsed.has("-l", "--list"):
        effects.no("git tag NAME creates a tag")


def _remote(parsed: Scan, effects: Effects, label: str) -> None:
    values = [word.value for word in parsed.operands]
    if parsed.found and any(found.name not in ("-v", "--verbose") for found in parsed.found):
        effects.no("git remote with these options changes remotes")
    if values and values[0] not in ("get-url", "show") or (values[:1] == ["show"] and
                                                          len(values) > 1 and "-n" not in
                                                          [found.name for found in parsed.found]):
        effects.no("git remote with a sub-command changes remotes or contacts them")
        # the URL lands in remote.<name>.url: data (git_config.DATA_KEYS) unless it names a
        # `<transport>::` helper (ext:: runs any command) or is decided at run time
        if values[:1] in (["add"], ["set-url"]) and any(
                word.kind != LITERAL or "::" in (word.value or "") for word in parsed.operands):
            effects.add(WRITE, literal(".git/config"))
    else:
        effects.network = ""


def _stash(parsed: Scan, effects: Effects, label: str) -> None:
    values = [word.value for word in parsed.operands]
    if values[:1] not in (["list"], ["show"]):
        effects.no("git stash changes the work tree")


def _reflog(parsed: Scan, effects: Effects, label: str) -> None:
    values = [word.value for word in parsed.operands]
    if values and values[0] != "show" and values[0] in ("expire", "delete", "drop",
                                                           "exists", "write"):
        effects.no("git reflog expire/delete changes history")


def _worktree(parsed: Scan, effects: Effects, label: str) -> None:
    if [word.value for word in parsed.operands][:1] != ["list"]:
        effects.no("git worktree changes work trees")


def _var(parsed: Scan, effects: Effects, label: str) -> None:
    if parsed.has("-l") or not parsed.operands:
        effects.no("git var -l prints the whole configuration, credentials included")


def _config(parsed: Scan, effects: Effects, label: str) -> None:
    values = [word.value or "" for word in parsed.operands]
    query = parsed.has("--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch")
    if parsed.has("--get-regexp", "--list", "-l", "--get-urlmatch") or values[:1] == ["list"] \
            or any(any(k in value.lower() for k in _SECRET_CONFIG_KEY) or value.lower().startswith(
                "url.") or (value.lower().startswith("remote.") and value.lower().endswith("url"))
                for value in values):
        effects.no("git config prints stored credentials (an http extraheader token, a URL with a "
                   "password)")
        return
    if values[:1] == ["get"]:
        values = values[1:]
        query = True
    if len(values) == 1 and "." in values[0] and not values[0].startswith("-"):
        effects.reason = "git config KEY prints one setting"
        return
    if not query or len(values) > 1:
        effects.no("git config without --get/--list writes configuration")


def _cat_file(parsed: Scan, effects: Effects, label: str) -> None:
    for word in parsed.operands:
        value = word.value or ""
        if ":" in value and not value.startswith(":"):
            effects.add(READ, literal(value.split(":", 1)[1]))


_SUB_CHECKS = {"branch": _branch, "tag": _tag, "remote": _remote, "stash": _stash,
               "reflog": _reflog, "worktree": _worktree, "var": _var, "config": _config,
               "cat-file": _cat_file}


def _write_targets(sub: str, rest: list[Word], effects: Effects) -> None:
    """Files a writing sub-command names (for path rules); the work tree is touched too."""
    if sub in ("archive", "format-patch", "bundle"):
        parsed = scan(rest, _ARCHIVE, 0)
        for found in parsed.found:
            if found.option.effect == "writes" and found.word is not None:
                effects.add(WRITE, found.word)
    elif sub in ("rm", "mv", "checkout", "restore", "clean"):
        for word in rest:
            if word.value is not None and not word.value.startswith("-"):
                effects.add(WRITE, word)


_ARCHIVE = options("", "", special={"-o|--output": writes("writes the archive"),
                                    "--remote": Option(REQUIRED)}, complete=False)
_ = OPTIONAL
