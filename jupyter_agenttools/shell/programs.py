"""The read-only program table: which argv provably only reads, and why.

``classify(argv)`` decides on the argv of one simple command (wrappers already stripped, the
program name already reduced to a bare name). Every entry carries the reason it is considered
read-only and every vetoed flag the reason it is not. Anything not in the table is not
read-only. Secrets are not judged here: the verdict lists the words naming files whose
*content* reaches the output (``reads``) and the roots of recursive reads (``recursive``), and
the policy checks them against permission/sensitive.py.

Conventions of the option scanner (GNU getopt-like, conservative):
- ``--`` ends options; a long option may be abbreviated, so ``--out`` counts as ``--output``;
- a short bundle ``-abc`` is scanned letter by letter until a letter that takes a value;
- a word whose value is unknown (``$X``, ``$(…)``) might be any flag: a program with vetoed
  flags, or one that reads file contents, is then not provably read-only;
- an unquoted glob might expand to a file named like a vetoed flag (``find *`` with a file
  called ``-delete``): it is vetoed when the pattern could match one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Callable

from .parse import Word

__all__ = ["Spec", "Verdict", "TABLE", "classify", "PRINT_SAFE_VARS", "secret_printer",
           "INTERPRETERS", "SHELLS", "DOWNLOADERS", "NETWORK"]


@dataclass(slots=True)
class Verdict:
    read_only: bool
    reason: str
    reads: list[Word] = field(default_factory=list)      # files whose content is output
    recursive: list[Word] = field(default_factory=list)  # directories read recursively
    writes: list[Word] = field(default_factory=list)     # files a vetoed form would write
    touches: list[Word] = field(default_factory=list)    # files whose names/metadata are shown
    hidden: bool = True  # a recursive read includes dotfiles (rg skips them by default)
    follow: bool = False  # the recursive read follows symlinks (grep -R, rg -L)


def _no(reason: str, **kw) -> Verdict:
    return Verdict(False, reason, **kw)


@dataclass(frozen=True)
class Spec:
    """One program. ``reads``: "content" (file contents reach the output), "meta" (names,
    sizes, hashes only) or "none" (operands are not files). ``operands``: "paths",
    "strings", or "pattern" (the first operand is a pattern unless -e/-f gave one)."""

    reason: str
    reads: str = "content"
    veto: dict[str, str] = field(default_factory=dict)
    takes: frozenset[str] = frozenset()
    files: frozenset[str] = frozenset()       # value flags whose value is a file read
    recursive: frozenset[str] = frozenset()   # flags making the read recursive
    operands: str = "paths"
    max_operands: int | None = None
    extra: Callable[[list[Word], "Scan"], str | None] | None = None


@dataclass(slots=True)
class Scan:
    flags: list[str] = field(default_factory=list)
    operands: list[Word] = field(default_factory=list)
    files: list[Word] = field(default_factory=list)
    values: dict[str, str] = field(default_factory=dict)
    veto: str | None = None


def _fs(*items: str) -> frozenset[str]:
    return frozenset(items)


def _long_vetoed(name: str, veto: dict[str, str]) -> str | None:
    if name in veto:
        return veto[name]
    if len(name) >= 3:
        for v, why in veto.items():
            if v.startswith("--") and v.startswith(name):
                return why
    return None


def _glob_could_be_flag(pattern: str, spec: Spec) -> str | None:
    if pattern.startswith("-"):
        return "an unquoted glob starting with '-' may expand to options"
    for flag, why in spec.veto.items():
        for cand in (flag, flag + "x", flag + "=x"):
            if fnmatchcase(cand, pattern):
                return f"the glob {pattern!r} may expand to {flag} ({why})"
    return None


def scan(words: list[Word], spec: Spec) -> Scan:
    """Split ``words`` (argv without the program) into flags, operands and file values."""
    s = Scan()
    i = 0
    n = len(words)
    options = True
    while i < n:
        w = words[i]
        v = w.value
        i += 1
        if w.glob and options and v is not None and v.startswith("-") and not spec.veto:
            w = Word(w.text, v)  # `--include=*.py`: an option whose value is a pattern
        if v is None or (w.glob and options):
            if w.glob and v is not None:
                why = _glob_could_be_flag(v, spec) if spec.veto else None
                if why:
                    s.veto = why
                    return s
                s.operands.append(w)
                continue
            if options and (spec.veto or spec.takes) and not v:
                s.veto = f"the argument {w.text[:40]!r} is decided at run time and may be an option"
                return s
            s.operands.append(w)
            continue
        if not options or v == "-" or not v.startswith("-"):
            s.operands.append(w)
            continue
        if v == "--":
            options = False
            continue
        if v.startswith("--"):
            name, eq, val = v.partition("=")
            why = _long_vetoed(name, spec.veto)
            if why:
                s.veto = f"{name}: {why}"
                return s
            if name not in spec.takes and len(name) >= 4:
                # GNU getopt accepts any unambiguous prefix: `--dir=recurse`, `--files0=F`
                longer = [t for t in spec.takes if t.startswith(name)]
                if len(longer) == 1:
                    name = longer[0]
            s.flags.append(name)
            if name in spec.takes:
                if not eq:
                    if i < n:
                        val_w = words[i]
                        i += 1
                        if val_w.value is None:
                            s.veto = f"the value of {name} is decided at run time"
                            return s
                        val = val_w.value
                        if name in spec.files:
                            s.files.append(val_w)
                    else:
                        val = ""
                elif name in spec.files:
                    s.files.append(Word(val, val))
                s.values[name] = val
            elif eq and name in spec.files:
                s.files.append(Word(val, val))
            continue
        # short bundle
        j = 1
        while j < len(v):
            flag = "-" + v[j]
            why = spec.veto.get(flag)
            if why:
                s.veto = f"{flag}: {why}"
                return s
            s.flags.append(flag)
            if flag in spec.takes:
                rest = v[j + 1:]
                if rest:
                    s.values[flag] = rest
                    if flag in spec.files:
                        s.files.append(Word(rest, rest))
                elif i < n:
                    val_w = words[i]
                    i += 1
                    if val_w.value is None:
                        s.veto = f"the value of {flag} is decided at run time"
                        return s
                    s.values[flag] = val_w.value
                    if flag in spec.files:
                        s.files.append(val_w)
                break
            j += 1
    return s


def _run_spec(spec: Spec, argv: list[Word]) -> Verdict:
    s = scan(argv[1:], spec)
    if s.veto:
        return _no(s.veto)
    if spec.max_operands is not None and len(s.operands) > spec.max_operands:
        return _no(f"{argv[0].value} takes at most {spec.max_operands} operand(s) here; "
                   "another one is an output file or a different action")
    if spec.extra:
        why = spec.extra(argv, s)
        if why:
            return _no(why)
    ops = s.operands
    if spec.operands == "pattern" and not any(
            f in s.flags for f in ("-e", "--regexp", "-f", "--file")):
        ops = ops[1:]
    if spec.reads == "content":
        for w in ops:
            if w.value is None:
                return _no(f"reads a file named at run time ({w.text[:40]!r}); "
                           "it may be a secret")
    reads = list(s.files)
    recursive: list[Word] = []
    touches: list[Word] = []
    if spec.reads == "content" and spec.operands != "strings":
        reads.extend(ops)
        if spec.recursive and (spec.recursive.intersection(s.flags)
                               or "*" in spec.recursive):
            recursive = list(ops) or [Word(".", ".")]
    elif spec.reads == "meta" and spec.operands == "paths":
        if any(w.value is None for w in ops):
            return _no("shows a path decided at run time (`~-` is $OLDPWD); it may be a secret")
        touches = list(ops)
    return Verdict(True, spec.reason, reads=reads, recursive=recursive, touches=touches)


# --- custom checks -------------------------------------------------------------------------

# Variables whose value is fine to print (no credentials by convention).
PRINT_SAFE_VARS = frozenset({
    "HOME", "USER", "LOGNAME", "SHELL", "PWD", "OLDPWD", "PATH", "LANG", "LANGUAGE", "TERM",
    "TZ", "HOSTNAME", "HOSTTYPE", "OSTYPE", "MACHTYPE", "SHLVL", "COLUMNS", "LINES", "EDITOR",
    "VISUAL", "PAGER", "TMPDIR", "VIRTUAL_ENV", "CONDA_DEFAULT_ENV", "CONDA_PREFIX",
    "PYTHONPATH", "LD_LIBRARY_PATH", "JAVA_HOME", "GOPATH", "GOROOT", "CARGO_HOME", "NVM_DIR",
    "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR", "DISPLAY",
    "BASH_VERSION", "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "JUPYTER_PATH", "UID", "EUID",
    "PPID", "RANDOM", "SECONDS", "LINENO", "HISTSIZE", "?", "$", "!", "#", "0", "_",
    "NODE_ENV", "CI", "PS1", "PS2", "IFS", "LC_ALL", "LC_CTYPE", "MANPATH",
})


def _echo(argv: list[Word]) -> Verdict:
    for w in argv[1:]:
        if w.value is not None:
            continue
        if "${!" in w.text:
            return _no("indirect expansion ${!…} prints any variable")
        unsafe = [v for v in w.vars if v not in PRINT_SAFE_VARS]
        if unsafe:
            return _no(f"prints ${unsafe[0]}, which may hold a secret")
    return Verdict(True, "prints its arguments")


def _printf(argv: list[Word]) -> Verdict:
    # bash's builtin printf takes -v NAME: it assigns any variable (PATH, then the next
    # command runs an attacker's binary) and an array subscript `a[$(cmd)]` runs cmd
    first = argv[1] if len(argv) > 1 else None
    if first is not None and (first.value is None or first.value.startswith("-v")):
        name = (first.value or "")[2:] or (argv[2].value if len(argv) > 2 else None)
        # a lower-case plain name is not one bash acts on (PATH, IFS, BASH_ENV, PS4 …)
        if not (name and re.fullmatch(r"[a-z_][a-z0-9_]*", name) and
                name not in ("auto_resume", "histchars")) or argv[1].value is None:
            return _no("printf -v assigns a shell variable (PATH, or a subscript that runs "
                       "code)")
    v = _echo(argv)
    return Verdict(True, "formats its arguments") if v.read_only else v


def _printenv(argv: list[Word]) -> Verdict:
    names = [w for w in argv[1:] if not (w.value or "").startswith("-")]
    if not names:
        return _no("prints the whole environment, where API keys live")
    for w in names:
        if w.value not in PRINT_SAFE_VARS:
            return _no(f"prints the variable {w.text!r}, which may hold a secret")
    return Verdict(True, "prints harmless environment variables")


def _date(argv: list[Word], s: Scan) -> str | None:
    for w in s.operands:
        if not (w.value or "").startswith("+"):
            return "an operand other than +FORMAT sets the system date"
    return None


def _uniq_extra(argv: list[Word], s: Scan) -> str | None:
    return None


def _cd(argv: list[Word]) -> Verdict:
    rest = [w for w in argv[1:] if w.value not in ("-L", "-P", "--")]
    if len(rest) > 1:
        return _no("cd takes one directory")
    if rest and rest[0].value is None:
        return _no("cd to a directory decided at run time")
    if rest and rest[0].value == "-":
        return _no("cd - goes to a directory decided at run time")
    if rest and rest[0].glob:
        return _no("cd to a glob: where later relative names resolve is decided at run time")
    return Verdict(True, "changes the working directory of this shell only")


def _command_query(argv: list[Word]) -> Verdict:
    flags = [w.value for w in argv[1:] if (w.value or "").startswith("-")]
    if any(f not in ("-v", "-V", "-p") for f in flags) or not ({"-v", "-V"} & set(flags)):
        return _no("command without -v/-V runs its argument")
    return Verdict(True, "command -v/-V only looks a name up")


def _version_only(*forms: str) -> Callable[[list[Word]], Verdict]:
    allowed = frozenset(forms)

    def check(argv: list[Word]) -> Verdict:
        vals = [w.value for w in argv[1:]]
        if len(vals) == 1 and vals[0] in allowed:
            return Verdict(True, "prints its version")
        return _no(f"{argv[0].value} runs code unless only asked for its version")
    return check


def _subcommands(forms: set[tuple[str, ...]], reason: str,
                 any_tail: bool = True) -> Callable[[list[Word]], Verdict]:
    """Read-only when the words after the program start with one of ``forms`` (followed only
    by options or names when ``any_tail``; nothing else otherwise)."""
    def check(argv: list[Word]) -> Verdict:
        vals = [w.value for w in argv[1:]]
        if any(v is None for v in vals) or any(w.glob for w in argv[1:]):
            return _no("an argument decided at run time")
        for form in sorted(forms, key=len, reverse=True):
            n = len(form)
            if tuple(vals[:n]) == form and (any_tail or len(vals) == n):
                return Verdict(True, reason)
        return _no(f"{argv[0].value} {' '.join(v or '' for v in vals[:2])} is not a "
                   "known read-only form")
    return check


def _ps(argv: list[Word]) -> Verdict:
    for w in argv[1:]:
        v = w.value
        if v is None:
            return _no("an argument decided at run time")
        # BSD-style `ps e` / `ps auxe` print every process's environment (API keys)
        if not v.startswith("-") and "e" in v and v.isalpha():
            return _no("ps e shows the environment of every process, where API keys live")
        if v.startswith(("-o", "--format", "-O", "o")) and "environ" in v:
            return _no("ps shows process environments")
    return Verdict(True, "lists processes")


def _python(argv: list[Word]) -> Verdict:
    vals = [w.value for w in argv[1:]]
    if len(vals) == 1 and vals[0] in ("--version", "-V", "-VV"):
        return Verdict(True, "prints its version")
    if len(vals) >= 3 and vals[0] == "-m" and vals[1] in ("pip", "pip3"):
        return _pip([Word("pip", "pip")] + argv[3:])
    return _no("the interpreter runs code")


_PIP_SUBS = frozenset({"list", "show", "freeze", "check"})
_PIP_SPEC = Spec("", reads="none", operands="strings",
                 veto={"--log": "writes a log file", "--log-file": "writes a log file",
                       "--report": "writes a report file", "--path": "reads another tree",
                       "-r": "", "--requirement": "",
                       # `--outdated` then queries an index the command chose (network)
                       **dict.fromkeys(("-i", "--index-url", "--extra-index-url", "-f",
                                        "--find-links", "--proxy", "--trusted-host",
                                        "--client-cert"),
                                       "contacts a server the command names")},
                 takes=_fs("--format", "--exclude", "--python", "-i", "--index-url",
                           "--extra-index-url", "--cache-dir", "--proxy", "--timeout"))


def _pip(argv: list[Word]) -> Verdict:
    vals = [w.value for w in argv[1:]]
    if vals in (["--version"], ["-V"]):
        return Verdict(True, "prints its version")
    if not vals or vals[0] not in _PIP_SUBS:
        return _no("only pip list/show/freeze/check are read-only")
    s = scan(argv[2:], _PIP_SPEC)
    if s.veto:
        return _no(s.veto)
    return Verdict(True, f"pip {vals[0]} only lists installed packages")


_NVIDIA_OK = frozenset({"-L", "--list-gpus", "-q", "--query", "-x", "--xml-format", "-d",
                        "--display", "-i", "--id", "-u", "--unit", "--query-gpu",
                        "--query-compute-apps", "--query-accounted-apps",
                        "--query-supported-clocks", "--format", "-h", "--help", "--version",
                        "topo", "-m", "--matrix", "-a"})
_NVIDIA_VALUE = frozenset({"-d", "--display", "-i", "--id"})


def _nvidia_smi(argv: list[Word]) -> Verdict:
    i = 1
    while i < len(argv):
        v = argv[i].value
        i += 1
        if v is None:
            return _no("an argument decided at run time")
        name = v.split("=", 1)[0]
        if name not in _NVIDIA_OK:
            return _no(f"nvidia-smi {name} is not a listing option (it may change GPU "
                       "settings, loop, or write a file)")
        if name in _NVIDIA_VALUE and "=" not in v:
            i += 1
    return Verdict(True, "nvidia-smi listing/query only")


def _tar(argv: list[Word]) -> Verdict:
    ok_letters = set("tvfzjJaOw") - {"w"}
    listing = False
    archive: list[Word] = []
    words = argv[1:]
    i = 0
    first = True
    while i < len(words):
        w = words[i]
        v = w.value
        i += 1
        if v is None:
            return _no("an argument decided at run time")
        if v.startswith("--"):
            name, eq, val = v.partition("=")
            if name in ("--list",):
                listing = True
            elif name == "--file":
                if not eq:
                    if i >= len(words):
                        break
                    val = words[i].value or ""
                    i += 1
                if ":" in val:
                    return _no("a host:file archive runs a remote shell")
                archive.append(Word(val, val))
            elif name not in ("--verbose", "--gzip", "--bzip2", "--xz", "--zstd", "--lzma",
                              "--auto-compress", "--wildcards", "--no-wildcards",
                              "--numeric-owner", "--force-local", "--exclude", "--anchored",
                              "--null", "--utc", "--full-time", "--quoting-style"):
                return _no(f"tar {name} is not a listing option")
            continue
        if v.startswith("-") or first:
            letters = v[1:] if v.startswith("-") else v
            for k, c in enumerate(letters):
                if c == "t":
                    listing = True
                elif c == "f":
                    rest = letters[k + 1:]
                    if rest:
                        name = rest
                    elif i < len(words):
                        name = words[i].value
                        i += 1
                        if name is None:
                            return _no("the archive name is decided at run time")
                    else:
                        name = "-"
                    if ":" in name:
                        return _no("a host:file archive runs a remote shell")
                    archive.append(Word(name, name))
                    break
                elif c not in ok_letters:
                    return _no(f"tar -{c} is not a listing option (extract/create/…)")
            first = False
            continue
        first = False
    if not listing:
        return _no("tar only lists with -t/--list; other modes write files")
    return Verdict(True, "tar -t lists an archive", reads=archive)


def _unzip(argv: list[Word]) -> Verdict:
    flags = set()
    ops: list[Word] = []
    for w in argv[1:]:
        v = w.value
        if v is None:
            return _no("an argument decided at run time")
        if v.startswith("-"):
            for c in v[1:]:
                if c not in "lvtZqz1hmsTM":
                    return _no(f"unzip -{c} is not a listing option")
                flags.add(c)
        else:
            ops.append(w)
    if not flags & set("lvtZ"):
        return _no("unzip without -l/-v/-t extracts files")
    return Verdict(True, "unzip -l/-v/-t lists or tests an archive", reads=ops[:1])


def _xargs(argv: list[Word]) -> Verdict:
    takes = {"-n", "-L", "-P", "-d", "-I", "-s", "-E", "--max-args", "--max-lines",
             "--max-procs", "--delimiter", "--replace", "--max-chars", "--eof"}
    ok = {"-0", "--null", "-r", "--no-run-if-empty", "-t", "--verbose", "-x", "--exit"} | takes
    i = 1
    while i < len(argv):
        v = argv[i].value
        if v is None:
            return _no("an argument decided at run time")
        if not v.startswith("-"):
            break
        i += 1
        if v == "--":
            break
        name = v.split("=", 1)[0]
        if name in ok:
            if name in takes and "=" not in v and len(v) == 2:
                i += 1
            continue
        if len(v) > 2 and v[:2] in takes:
            continue
        return _no(f"xargs {name} is not known to be harmless")
    inner = argv[i:]
    if not inner:
        inner = [Word("echo", "echo")]
    name = inner[0].value
    if name not in _XARGS_SAFE:
        return _no("xargs runs a command whose arguments come from the input; only "
                   f"{', '.join(sorted(_XARGS_SAFE))} are safe with any arguments")
    v = classify(inner)
    if not v.read_only:
        return v
    return Verdict(True, f"xargs {name}: safe with any extra arguments")


# Programs harmless with *any* extra arguments (no vetoed flags, no file contents output).
_XARGS_SAFE = frozenset({"echo", "ls", "wc", "stat", "du", "basename", "dirname", "printf",
                         "test", "true", "realpath", "readlink"})

_FIND_VETO = {
    "-files0-from": "reads start points from a file and quotes its content in errors",
    "-exec": "runs a command", "-execdir": "runs a command", "-ok": "runs a command",
    "-okdir": "runs a command", "-delete": "deletes files", "-fprint": "writes a file",
    "-fprint0": "writes a file", "-fprintf": "writes a file", "-fls": "writes a file",
}


def _find_exec_inner(argv: list[Word], at: Word) -> Word | None:
    """For `-exec CMD … {} ;|+` with a command harmless with any arguments (`wc`, `ls`,
    `stat` …): the terminating word, so the scan can skip the command; else None."""
    k = next(i for i, x in enumerate(argv) if x is at)
    j = k + 1
    while j < len(argv) and argv[j].value not in (";", "+"):
        j += 1
    inner = argv[k + 1:j]
    if j >= len(argv) or not inner or inner[0].value not in _XARGS_SAFE:
        return None
    if any(x.value is None or x.glob for x in inner):
        return None
    rest = [x for x in inner if x.value != "{}"]
    if not classify(rest).read_only:
        return None
    return argv[j]


# find tests whose next word is their value, never an action (`-name '-delete'`)
_FIND_ONE_ARG = frozenset({
    "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
    "-lname", "-ilname", "-type", "-xtype", "-user", "-group", "-uid", "-gid", "-perm", "-size",
    "-newer", "-anewer", "-cnewer", "-mtime", "-atime", "-ctime", "-mmin", "-amin", "-cmin",
    "-maxdepth", "-mindepth", "-links", "-inum", "-samefile", "-used", "-fstype", "-printf",
    "-regextype"})


def _find(argv: list[Word]) -> Verdict:
    roots: list[Word] = []
    in_roots = True
    skip_until: Word | None = None
    value_next = False
    for w in argv[1:]:
        v = w.value
        if value_next and v is not None and not w.glob:
            value_next = False  # a literal value: `-name -delete` matches a file name
            continue
        value_next = False
        if v is None and not w.glob:
            return _no(f"an argument decided at run time ({w.text[:40]!r}) may be an action")
        if w.glob:
            for flag, why in _FIND_VETO.items():
                if fnmatchcase(flag, v or ""):
                    return _no(f"the glob {v!r} may expand to {flag} ({why})")
            if (v or "").startswith("-"):
                return _no("a glob starting with '-' may expand to an action")
        if v in ("-exec", "-execdir") and v in _FIND_VETO:
            inner = _find_exec_inner(argv, w)
            if inner is not None:
                skip_until = inner
                continue
        if skip_until is not None:
            if w is skip_until:
                skip_until = None
            continue
        if v in _FIND_VETO:
            return _no(f"find {v} {_FIND_VETO[v]}")
        if in_roots and v and not v.startswith("-") and v not in ("(", "!", ")"):
            roots.append(w)
        else:
            in_roots = False
            value_next = v in _FIND_ONE_ARG
    return Verdict(True, "find lists file names", touches=roots)


_GIT_GLOBAL_VETO = {
    "-c": "sets configuration (can run any command through core.pager, aliases…)",
    "--config-env": "sets configuration from the environment",
    "--exec-path": "changes where git finds its programs",
    "-p": "runs a pager", "--paginate": "runs a pager",
    "--git-dir": "points git at another repository's config and hooks",
    "--work-tree": "points git at another work tree",
    "--namespace": "", "--super-prefix": "", "--list-cmds": "",
}
_GIT_COMMON_VETO = {
    "--output": "writes a file", "--ext-diff": "runs an external diff program",
    "--textconv": "runs textconv filters", "--exec": "runs a program",
    "-O": "opens files in a pager (runs a program)",
    "--open-files-in-pager": "opens files in a pager (runs a program)",
    "--upload-pack": "runs a program", "--receive-pack": "runs a program",
    "--exec-path": "changes where git finds its programs",
}
_GIT_TAKES = _fs("-n", "--max-count", "--skip", "--since", "--until", "--after", "--before",
                 "--author", "--committer", "--grep", "--format", "--pretty", "-S", "-G",
                 "--diff-filter", "-U", "--unified", "--date", "--abbrev", "-L", "-e",
                 "--contains", "--no-contains", "--merged", "--no-merged", "--points-at",
                 "--sort", "--encoding", "-C", "-M", "--stat", "--relative", "--color",
                 "--word-diff", "--exclude", "--decorate", "-m", "--max-depth",
                 "--contents", "-t")
_GIT_READ_SUBS = frozenset({
    "status", "log", "diff", "show", "ls-files", "rev-parse", "blame", "grep", "shortlog",
    "describe", "ls-tree", "cat-file", "rev-list", "whatchanged", "merge-base", "name-rev",
    "count-objects", "show-ref", "for-each-ref", "check-ignore", "ls-remote-never",
    "diff-tree", "diff-files", "diff-index", "version", "annotate", "var", "cherry",
    "range-diff", "verify-pack-never",
})
_BRANCH_LIST_FLAGS = frozenset({
    "-a", "--all", "-r", "--remotes", "-l", "--list", "-v", "-vv", "--verbose", "--show-current",
    "--contains", "--no-contains", "--merged", "--no-merged", "--sort", "--format",
    "--points-at", "--color", "--no-color", "--column", "--no-column", "-i", "--ignore-case",
    "--abbrev", "--no-abbrev", "-q", "--quiet", "--omit-empty",
})
_TAG_LIST_FLAGS = frozenset({
    "-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--sort",
    "--format", "--points-at", "--color", "--column", "--no-column", "-i", "--ignore-case",
    "--omit-empty",
})
_GIT_SPEC = Spec("", reads="content", veto=_GIT_COMMON_VETO,
                 takes=_GIT_TAKES | {"--contents", "--file"},
                 files=_fs("--contents", "--file"), operands="strings")


def _git(argv: list[Word]) -> Verdict:
    words = argv[1:]
    i = 0
    while i < len(words):
        v = words[i].value
        if v is None:
            return _no("a git argument decided at run time")
        if not v.startswith("-"):
            break
        name = v.split("=", 1)[0]
        if name == "--version" and len(words) == 1:
            return Verdict(True, "prints its version")
        why = _GIT_GLOBAL_VETO.get(name)
        if why is not None or (name.startswith("-c") and len(name) > 2):
            return _no(f"git {name}: {why or 'not a safe global option'}")
        if name == "-C":
            # another repository's config runs code (core.fsmonitor on `git status`): only a
            # plain sub-directory of the working directory is accepted
            d = words[i + 1].value if i + 1 < len(words) else None
            if d is None or words[i + 1].glob or d.startswith(("/", "~")) or \
                    ".." in d.split("/"):
                return _no("git -C DIR runs with another repository's config (core.fsmonitor "
                           "and other settings run programs)")
            i += 2
            continue
        if name in ("--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs",
                    "--no-replace-objects", "--glob-pathspecs", "--noglob-pathspecs",
                    "--icase-pathspecs", "--bare"):
            i += 1
            continue
        return _no(f"git {name} is not a known-harmless global option")
    if i >= len(words):
        return _no("git without a sub-command")
    sub = words[i].value
    rest = words[i + 1:]
    s = scan(rest, _GIT_SPEC)
    if s.veto:
        return _no(f"git {sub} {s.veto}")
    ops = [w.value or "" for w in s.operands]
    if sub == "branch":
        bad = [f for f in s.flags if f not in _BRANCH_LIST_FLAGS]
        if bad:
            return _no(f"git branch {bad[0]} changes branches")
        if ops and not ({"-l", "--list"} & set(s.flags)):
            return _no("git branch NAME creates a branch")
        return Verdict(True, "git branch listing")
    if sub == "tag":
        bad = [f for f in s.flags if f not in _TAG_LIST_FLAGS and not re.fullmatch(r"-n\d*", f)]
        if bad:
            return _no(f"git tag {bad[0]} changes tags")
        if ops and not ({"-l", "--list"} & set(s.flags)):
            return _no("git tag NAME creates a tag")
        return Verdict(True, "git tag listing")
    if sub == "remote":
        if not s.flags and not ops:
            return Verdict(True, "git remote listing")
        if set(s.flags) <= {"-v", "--verbose"} and not ops:
            return Verdict(True, "git remote listing")
        if ops and ops[0] == "get-url":
            return Verdict(True, "git remote get-url")
        return _no("git remote with a sub-command changes remotes or contacts them")
    if sub == "stash":
        if ops and ops[0] in ("list", "show"):
            return Verdict(True, f"git stash {ops[0]}")
        return _no("git stash changes the work tree")
    if sub == "reflog":
        if not ops or ops[0] == "show":
            return Verdict(True, "git reflog listing")
        return _no("git reflog expire/delete changes history")
    if sub == "worktree":
        if ops[:1] == ["list"]:
            return Verdict(True, "git worktree list")
        return _no("git worktree changes work trees")
    if sub == "config":
        if {"--get-regexp", "--list", "-l", "--get-urlmatch"} & set(s.flags) or \
                ops[:1] == ["list"] or any(_GIT_SECRET_KEY.search(o) for o in ops):
            return _no("git config prints stored credentials (an http extraheader token, a "
                       "URL with a password)")
        allowed = {"--get", "--get-all", "--get-regexp", "--list", "-l", "--show-origin",
                   "--show-scope", "--global", "--system", "--local", "--name-only", "-z",
                   "--null", "--includes", "--type", "--bool", "--int", "--default"}
        if len(ops) == 1 and "." in ops[0] and not ops[0].startswith("-") and \
                not set(s.flags) - allowed and ops[0] not in ("get", "list"):
            return Verdict(True, "git config KEY prints one setting")
        if not ({"--get", "--get-all", "--get-regexp", "--list", "-l"} & set(s.flags)) or \
                any(f not in allowed for f in s.flags):
            if ops[:1] in (["get"], ["list"]) and not set(s.flags) - allowed:
                return Verdict(True, "git config query")
            return _no("git config without --get/--list writes configuration")
        return Verdict(True, "git config query")
    if sub == "credential" or (sub or "").startswith("credential-"):
        return _no("git credential prints stored passwords")
    if sub not in _GIT_READ_SUBS:
        return _no(f"git {sub} is not a read-only sub-command")
    if sub == "var" and ({"-l"} & set(s.flags) or not ops):
        return _no("git var -l prints the whole configuration, credentials included")
    if sub == "cat-file" and any(f.startswith("--batch") for f in s.flags):
        return _no("git cat-file --batch reads object names (REV:.env) from stdin")
    # the pattern of `git grep` is the first operand unless -e/-f gave it
    pattern_first = sub == "grep" and not ({"-e", "-f", "--regexp", "--file"} & set(s.flags))
    paths = s.operands[1:] if pattern_first else list(s.operands)
    if sub == "grep" and "--no-index" in s.flags:
        return Verdict(True, "git grep --no-index reads files", reads=list(paths),
                       recursive=list(paths) or [Word(".", ".")])
    reads: list[Word] = list(s.files)
    if sub in ("diff", "blame", "annotate", "grep", "log", "show", "whatchanged",
               "diff-tree", "diff-files", "diff-index", "shortlog"):
        reads += [w for w in paths if not (w.value or "").startswith(("HEAD", "@"))]
    # REV:PATH blobs (`git diff HEAD~1:.env HEAD:.env`) and `-L RANGE:PATH` name files
    named = [v.split(":", 1)[1] for v in ops if ":" in v]
    if ":" in s.values.get("-L", ""):
        named.append(s.values["-L"].rsplit(":", 1)[1])
    reads += [Word(v, v) for v in named if v]
    for w in paths:
        why = _pathspec_glob_secret(w.value or "")
        if why:
            return _no(why)
    return Verdict(True, f"git {sub} only reads the repository", reads=reads)


# `git config` keys whose values are credentials.
_GIT_SECRET_KEY = re.compile(r"extraheader|password|passwd|token|secret|credential|"
                             r"insteadof|^url\.|^remote\..*\.url$|pushurl", re.I)
# Names a git pathspec glob must not match (git globs also cross `/`).
_PATHSPEC_SECRETS = (".env", ".env.local", ".env.production", "id_rsa", "id_ed25519",
                     "credentials", ".netrc", ".npmrc", ".pypirc", "secrets.json",
                     "config.json", "key.pem", "server.key", ".dockercfg", ".vault-token")


def _pathspec_glob_secret(v: str) -> str | None:
    pat = v.split(")", 1)[1] if v.startswith(":(") and ")" in v else v.lstrip(":/!^")
    if not any(c in pat for c in "*?["):
        return None
    last = pat.rsplit("/", 1)[-1]
    for name in _PATHSPEC_SECRETS:
        if fnmatchcase(name, last) or fnmatchcase(name, pat) or \
                fnmatchcase("a/" + name, pat):
            return f"the git pathspec {v!r} matches {name}, which may hold a secret"
    return None


_GH_READ = {("pr", "list"), ("pr", "view"), ("pr", "status"), ("pr", "diff"), ("pr", "checks"),
            ("issue", "list"), ("issue", "view"), ("issue", "status"), ("repo", "view"),
            ("run", "list"), ("run", "view"), ("release", "list"), ("release", "view"),
            ("auth", "status")}


def _gh(argv: list[Word]) -> Verdict:
    vals = [w.value for w in argv[1:]]
    if None in vals:
        return _no("an argument decided at run time")
    if vals in (["--version"], ["version"]):
        return Verdict(True, "prints its version")
    if len(vals) >= 2 and (vals[0], vals[1]) in _GH_READ:
        for v in vals:
            name = v.split("=", 1)[0]
            # pflag: `-th` bundles -t, `--web=true` spells --web
            if name in ("--web", "--show-token") or (
                    v.startswith("-") and not v.startswith("--") and
                    ("t" in name[1:] or "w" in name[1:])):
                return _no("opens a browser or prints the token")
        return Verdict(True, f"gh {vals[0]} {vals[1]} only reads")
    return _no("not a read-only gh command")


def _docker(argv: list[Word]) -> Verdict:
    vals = [w.value for w in argv[1:]]
    if vals and vals[0] in ("ps", "images", "version", "--version") and None not in vals:
        return Verdict(True, "docker listing")
    return _no("not a read-only docker command")


def _jq_extra(argv: list[Word], s: Scan) -> str | None:
    if {"-f", "--from-file"} & set(s.flags):
        return "jq -f reads its program from a file that can't be reviewed here"
    prog = s.operands[0].value if s.operands else None
    if prog is None:
        return "the jq program is decided at run time"
    if re.search(r"\$\s*ENV|\benv\b|\$\s*__prog_args|input_filename", prog):
        return "the jq program reads the environment, where API keys live"
    if re.search(r"\b(include|import|modulemeta|get_search_list)\b", prog):
        return "the jq program loads a module that can't be reviewed here"
    return None


def _jq(argv: list[Word]) -> Verdict:
    v = _run_spec(_JQ_SPEC, argv)
    if not v.read_only:
        return v
    s = scan(argv[1:], _JQ_SPEC)
    if {"--args", "--jsonargs"} & set(s.flags):
        files: list[Word] = []
    else:
        files = s.operands[1:]
    for w in files:
        if w.value is None:
            return _no("reads a file named at run time")
    return Verdict(True, "jq filters JSON; it cannot write files or run commands",
                   reads=files + s.files)


_JQ_SPEC = Spec("jq filters JSON", reads="none", operands="strings",
                takes=_fs("--arg", "--argjson", "--indent", "-L", "--tab", "--slurpfile",
                          "--rawfile", "-f", "--from-file"),
                files=_fs("--slurpfile", "--rawfile"), extra=_jq_extra)


def _jq_two_values(argv: list[Word]) -> Verdict:
    # --arg NAME VALUE / --slurpfile NAME FILE take two values: rewrite so scan sees one.
    out: list[Word] = [argv[0]]
    i = 1
    while i < len(argv):
        v = argv[i].value
        if v in ("--arg", "--argjson", "--slurpfile", "--rawfile") and i + 2 < len(argv) + 1:
            out.append(argv[i])
            if i + 2 < len(argv):
                out.append(argv[i + 2])  # the value / file; the name is irrelevant
            i += 3
            continue
        out.append(argv[i])
        i += 1
    return _jq(out)


# --- sed -----------------------------------------------------------------------------------

def sed_script_problem(script: str) -> tuple[str | None, list[str], list[str]]:
    """Parse a sed script. Returns (problem, files read by r/R, files written by w/W/s///w).
    ``problem`` is "exec: …" for e / s///e (runs commands), or another reason text when the
    script can't be understood."""
    reads: list[str] = []
    writes: list[str] = []
    i = 0
    n = len(script)

    def till_eol(k: int) -> tuple[str, int]:
        e = script.find("\n", k)
        if e < 0:
            e = n
        return script[k:e], e

    def delimited(k: int, delim: str) -> int:
        # returns index just after the closing delimiter, or -1
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
        # addresses
        for _ in range(2):
            if i < n and (script[i].isdigit() or script[i] == "$"):
                while i < n and (script[i].isdigit() or script[i] in "$~"):
                    i += 1
            elif i < n and script[i] in "/\\":
                if script[i] == "\\":
                    if i + 1 >= n:
                        return "unterminated address", reads, writes
                    d = script[i + 1]
                    i += 2
                else:
                    d = "/"
                    i += 1
                j = delimited(i, d)
                if j < 0:
                    return "unterminated address", reads, writes
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
            return "missing command", reads, writes
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
            while i > 0 and script[i - 1] == "\\" and i < n:  # continued text lines
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
            return "exec: the sed e command runs a shell command", reads, writes
        if c in "sy":
            if i >= n:
                return "unterminated s command", reads, writes
            d = script[i]
            if d in "\\\n":
                return "unusual delimiter", reads, writes
            j = delimited(i + 1, d)
            if j < 0:
                return f"unterminated {c} command", reads, writes
            j = delimited(j, d)
            if j < 0:
                return f"unterminated {c} command", reads, writes
            i = j
            if c == "y":
                continue
            while i < n and script[i] not in ";\n}":
                f = script[i]
                if f == "e":
                    return "exec: the s///e flag runs the result as a command", reads, writes
                if f in "wW":
                    name, i = till_eol(i + 1)
                    writes.append(name.strip())
                    break
                if f not in "gpiImM0123456789 \t":
                    return f"unknown s flag {f!r}", reads, writes
                i += 1
            continue
        return f"unknown sed command {c!r}", reads, writes
    return None, reads, writes


_SED_TAKES = _fs("-e", "--expression", "-f", "--file", "-l", "--line-length")
_SED_OK = frozenset({"-n", "--quiet", "--silent", "-E", "-r", "--regexp-extended", "-s",
                     "--separate", "-u", "--unbuffered", "-z", "--null-data", "--posix",
                     "--debug", "--sandbox", "-b", "--binary", "--follow-symlinks"}) | _SED_TAKES


def sed_analysis(argv: list[Word]) -> tuple[str | None, bool, list[Word], list[Word], list[Word]]:
    """(problem, in_place, files read, files written, operand files) for a sed argv.
    ``problem`` starting with "exec:" means the script runs commands."""
    spec = Spec("", takes=_SED_TAKES, files=_fs("-f", "--file"),
                veto={})
    words = argv[1:]
    in_place = False
    clean: list[Word] = []
    for w in words:
        v = w.value
        if v is not None and ((v.startswith("--i") and "--in-place".startswith(
                v.split("=", 1)[0])) or v.startswith("--in-place") or (
                v.startswith("-") and not v.startswith("--") and "i" in v[1:].split("e")[0]
                .split("f")[0].split("l")[0])):
            in_place = True
            if v.startswith("--"):
                continue
            # drop the i (and its suffix) from the bundle
            head = v[1:v.index("i") + 1]
            rest = head.replace("i", "")
            if rest:
                clean.append(Word("-" + rest, "-" + rest))
            continue
        clean.append(w)
    s = scan(clean, spec)
    if s.veto:
        return s.veto, in_place, [], [], []
    bad = [f for f in s.flags if f not in _SED_OK]
    if bad:
        return f"sed {bad[0]} is not a known option", in_place, [], [], []
    scripts: list[str] = []
    if s.files:
        return "sed -f reads its script from a file that can't be reviewed here", in_place, \
            [], [], []
    operands = list(s.operands)
    if "-e" in s.values or "--expression" in s.values:
        # every -e value: rescan to collect them all
        i = 0
        while i < len(clean):
            v = clean[i].value or ""
            if v in ("-e", "--expression") and i + 1 < len(clean):
                if clean[i + 1].value is None:
                    return "the sed script is decided at run time", in_place, [], [], []
                scripts.append(clean[i + 1].value)
                i += 2
                continue
            if v.startswith("--expression="):
                scripts.append(v.split("=", 1)[1])
            elif v.startswith("-") and not v.startswith("--") and "e" in v[1:]:
                k = v.index("e", 1)
                if v[k + 1:]:
                    scripts.append(v[k + 1:])
                elif i + 1 < len(clean):
                    if clean[i + 1].value is None:
                        return "the sed script is decided at run time", in_place, [], [], []
                    scripts.append(clean[i + 1].value)
                    i += 1
            i += 1
    else:
        if not operands:
            return "sed without a script", in_place, [], [], []
        first = operands.pop(0)
        if first.value is None or first.glob:
            return "the sed script is decided at run time", in_place, [], [], []
        scripts.append(first.value)
    reads: list[Word] = []
    writes: list[Word] = []
    for sc in scripts:
        problem, r, w = sed_script_problem(sc)
        if problem:
            return problem, in_place, [], [], operands
        reads += [Word(x, x) for x in r]
        writes += [Word(x, x) for x in w]
    return None, in_place, reads, writes, operands


def _sed(argv: list[Word]) -> Verdict:
    problem, in_place, reads, writes, operands = sed_analysis(argv)
    if problem:
        return _no(problem.removeprefix("exec: "))
    if in_place:
        return _no("sed -i edits files in place", writes=operands)
    special = [w for w in writes if w.value not in ("/dev/stdout", "/dev/stderr")]
    if special:
        return _no("the sed script writes a file (w/W)", writes=special)
    for w in operands:
        if w.value is None:
            return _no("reads a file named at run time")
    return Verdict(True, "sed without -i, w or e only prints", reads=reads + operands)


# --- awk -------------------------------------------------------------------------------------

_AWK_BAD = re.compile(r"\bsystem\s*\(|\bENVIRON\b|\bPROCINFO\b|@|\|&|\bARG[VC]\b|"
                      r"\bgetline\b[^;|}\n]*<")


def awk_program_problem(prog: str) -> str | None:
    """Why an awk program may run commands, write files or print the environment."""
    text = _strip_awk_literals(prog)
    if text is None:
        return "the awk program could not be understood"
    m = _AWK_BAD.search(text)
    if m:
        return f"the awk program uses {m.group(0).strip()} (runs commands, loads code or " \
               "reads the environment)"
    for _m in re.finditer(r"(?<!\|)\|(?!\|)", text):
        return "the awk program pipes to or from a command"
    # `>` is a redirection inside print/printf statements (outside parentheses).
    for m in re.finditer(r"\bprintf?\b", text):
        depth = 0
        for ch in text[m.end():]:
            if ch in "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            elif depth <= 0 and ch in ";}\n":
                break
            elif depth <= 0 and ch == ">":
                return "the awk program redirects print to a file"
    return None


def _strip_awk_literals(prog: str) -> str | None:
    """Blank out "strings" and /regex/ literals so their contents are not mistaken for code."""
    out: list[str] = []
    i = 0
    n = len(prog)
    prev = ""  # last significant character, to tell a regex from a division
    while i < n:
        c = prog[i]
        if c == '"':
            j = i + 1
            while j < n and prog[j] != '"':
                j += 2 if prog[j] == "\\" else 1
            if j >= n:
                return None
            out.append('""')
            i = j + 1
            prev = '"'
            continue
        if c == "/" and (prev == "" or prev in "(,~!{};&|\n" or prev.isspace()):
            j = i + 1
            while j < n and prog[j] != "/":
                if prog[j] == "\n":
                    return None
                j += 2 if prog[j] == "\\" else 1
            if j >= n:
                return None
            out.append("//")
            i = j + 1
            prev = "/"
            continue
        if c == "#":
            e = prog.find("\n", i)
            i = n if e < 0 else e
            continue
        out.append(c)
        if not c.isspace() or c == "\n":
            prev = c
        i += 1
    return "".join(out)


_AWK_OK = frozenset({"-F", "--field-separator", "-v", "--assign", "-e", "--source", "-b",
                     "--characters-as-bytes", "-c", "--traditional", "-P", "--posix", "-M",
                     "--bignum", "-N", "--use-lc-numeric", "-n", "--non-decimal-data",
                     "-O", "--optimize", "-s", "--no-optimize", "-S", "--sandbox", "-r",
                     "--re-interval", "-t", "--lint-old"})


def _awk(argv: list[Word]) -> Verdict:
    spec = Spec("", takes=_fs("-F", "--field-separator", "-v", "--assign", "-e", "--source",
                              "-f", "--file", "-E", "--exec", "-i", "--include", "-l", "--load"))
    s = scan(argv[1:], spec)
    if s.veto:
        return _no(s.veto)
    bad = [f for f in s.flags if f not in _AWK_OK]
    if bad:
        return _no(f"awk {bad[0]} loads code, writes a file or is unknown")
    progs: list[str] = []
    ops = list(s.operands)
    if "-e" in s.values or "--source" in s.values:
        progs.append(s.values.get("-e", s.values.get("--source", "")))
    else:
        if not ops:
            return _no("awk without a program")
        p = ops.pop(0)
        if p.value is None:
            return _no("the awk program is decided at run time")
        progs.append(p.value)
    for p in progs:
        why = awk_program_problem(p)
        if why:
            return _no(why)
    files = []
    for w in ops:
        if w.value is None:
            return _no("reads a file named at run time")
        if re.match(r"[A-Za-z_][A-Za-z0-9_]*=", w.value):
            continue  # a command-line assignment, not a file
        files.append(w)
    return Verdict(True, "awk without system(), pipes, redirection or getline from commands",
                   reads=files)


def _rg_extra(argv: list[Word], s: Scan) -> str | None:
    return None


def _rg(argv: list[Word]) -> Verdict:
    v = _run_spec(_RG_SPEC, argv)
    if not v.read_only:
        return v
    s = scan(argv[1:], _RG_SPEC)
    ops = s.operands
    if not ({"-e", "--regexp", "-f", "--file"} & set(s.flags)) and "--files" not in s.flags \
            and "--type-list" not in s.flags:
        ops = ops[1:]
    hidden = bool({"--hidden", "-.", "-u", "-uu", "-uuu", "--no-ignore"} & set(s.flags))
    for f in ("-g", "--glob", "--iglob"):
        if f in s.values:
            why = _filter_selects_secret(s.values[f])
            if why:
                return _no(why)
    return Verdict(True, _RG_SPEC.reason, reads=ops + s.files,
                   recursive=ops or [Word(".", ".")], hidden=hidden,
                   follow=bool({"-L", "--follow"} & set(s.flags)))


_RG_SPEC = Spec(
    "ripgrep searches files", operands="strings",
    veto={"--pre": "runs a program on every file", "--pre-glob": "runs a preprocessor",
          "-z": "runs decompression programs", "--search-zip": "runs decompression programs",
          "--hostname-bin": "runs a program"},
    takes=_fs("-e", "--regexp", "-f", "--file", "-g", "--glob", "--iglob", "-t", "--type",
              "-T", "--type-not", "-m", "--max-count", "-A", "-B", "-C", "--context",
              "--after-context", "--before-context", "-M", "--max-columns", "-d", "--max-depth",
              "--type-add", "-E", "--encoding", "-j", "--threads", "--sort", "--sortr",
              "--color", "--colors", "-r", "--replace", "--max-filesize", "--path-separator",
              "--field-match-separator", "--field-context-separator", "--engine",
              "--ignore-file", "--dfa-size-limit", "--regex-size-limit"),
    files=_fs("-f", "--file", "--ignore-file"))


# --- the table -------------------------------------------------------------------------------

_GREP = Spec(
    "grep searches file contents", operands="pattern",
    takes=_fs("-e", "--regexp", "-f", "--file", "-m", "--max-count", "-A", "-B", "-C",
              "--context", "--after-context", "--before-context", "--include", "--exclude",
              "--exclude-dir", "--exclude-from", "--label", "--color", "--colour", "-d",
              "--directories", "-D", "--devices", "--binary-files", "--group-separator"),
    files=_fs("-f", "--file", "--exclude-from"),
    recursive=_fs("-r", "-R", "--recursive", "--dereference-recursive"))



# Names a search filter (`--include=.env*`, `rg -g .env`, a git pathspec) must not select.
_SECRET_SAMPLES = (".env", ".env.local", ".env.production", "id_rsa", "id_ed25519",
                   "credentials", ".netrc", ".npmrc", ".pypirc", "secrets.json",
                   "key.pem", "server.key", ".dockercfg", ".vault-token", ".git-credentials")


def _filter_selects_secret(pat: str) -> str | None:
    pat = pat.lstrip("!")
    last = pat.rstrip("/").rsplit("/", 1)[-1]
    for name in _SECRET_SAMPLES:
        if fnmatchcase(name, last) or fnmatchcase(name.lower(), last.lower()):
            return f"the filter {pat!r} selects {name}, which may hold a secret"
    return None


def _grep(argv: list[Word]) -> Verdict:
    v = _run_spec(_GREP, argv)
    if not v.read_only:
        return v
    s = scan(argv[1:], _GREP)
    for f in ("--include",):
        why = _filter_selects_secret(s.values.get(f, "") or "") if f in s.values else None
        if why:
            return _no(why)
    d = next((val for k, val in s.values.items() if k == "-d" or
              (len(k) >= 5 and "--directories".startswith(k))), "")
    if d and "recurse".startswith(d) and not v.recursive:
        ops = s.operands if ({"-e", "--regexp", "-f", "--file"} & set(s.flags)) \
            else s.operands[1:]
        v.recursive = list(ops) or [Word(".", ".")]
    v.follow = bool({"-R", "--dereference-recursive"} & set(s.flags))
    return v


_HEAD_TAIL_TAKES = _fs("-n", "--lines", "-c", "--bytes", "-s", "--sleep-interval", "--pid")

TABLE: dict[str, Spec | Callable[[list[Word]], Verdict]] = {
    # file contents
    "cat": Spec("prints files"),
    "tac": Spec("prints files in reverse"),
    "head": Spec("prints the start of files", takes=_HEAD_TAIL_TAKES),
    "tail": Spec("prints the end of files", takes=_HEAD_TAIL_TAKES,
                 veto={"-f": "follows the file forever", "-F": "follows the file forever",
                       "--follow": "follows the file forever", "--retry": "waits forever"}),
    "nl": Spec("numbers lines", takes=_fs("-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s",
                                          "-v", "-w", "--body-numbering", "--number-width")),
    "grep": _grep, "egrep": _grep, "fgrep": _grep,
    "rg": _rg,
    "sort": Spec("sorts lines", veto={"-o": "writes the output file",
                                      "--files0-from": "reads the names of the files to "
                                                       "read from a file",
                                      "--output": "writes the output file",
                                      "--compress-program": "runs a program"},
                 takes=_fs("-k", "--key", "-t", "--field-separator", "-S", "--buffer-size",
                           "-T", "--temporary-directory", "--parallel",
                           "--batch-size", "--random-source")),
    "uniq": Spec("filters repeated lines", max_operands=1,
                 takes=_fs("-f", "--skip-fields", "-s", "--skip-chars", "-w",
                           "--check-chars")),
    "cut": Spec("cuts columns", takes=_fs("-b", "--bytes", "-c", "--characters", "-d",
                                          "--delimiter", "-f", "--fields",
                                          "--output-delimiter")),
    "tr": Spec("translates characters from stdin", reads="none", operands="strings"),
    "paste": Spec("joins lines", takes=_fs("-d", "--delimiters")),
    "join": Spec("joins files on a field", takes=_fs("-t", "-1", "-2", "-j", "-o", "-a",
                                                      "-v", "-e"), max_operands=2),
    "comm": Spec("compares sorted files", max_operands=2,
                 takes=_fs("--output-delimiter")),
    "fold": Spec("wraps lines", takes=_fs("-w", "--width")),
    "fmt": Spec("formats paragraphs", takes=_fs("-w", "--width", "-p", "--prefix", "-g",
                                                "--goal")),
    "expand": Spec("converts tabs", takes=_fs("-t", "--tabs")),
    "unexpand": Spec("converts spaces", takes=_fs("-t", "--tabs")),
    "rev": Spec("reverses lines"),
    "column": Spec("formats columns", takes=_fs("-s", "-t", "-c", "-o", "-N", "-R", "-H",
                                                "-W", "-E", "-J", "-n", "-d",
                                                "--separator", "--output-separator",
                                                "--table-columns", "--output-width")),
    "od": Spec("dumps bytes", takes=_fs("-A", "-j", "-N", "-t", "-w", "-S")),
    "hexdump": Spec("dumps bytes", takes=_fs("-e", "-f", "-n", "-s"), files=_fs("-f")),
    "xxd": Spec("dumps bytes", max_operands=1,
                veto={"-r": "reverts a dump into a file", "-revert": "reverts a dump"},
                takes=_fs("-c", "-g", "-l", "-o", "-s", "-cols", "-len", "-seek")),
    "strings": Spec("prints printable strings", takes=_fs("-n", "-t", "-e", "--bytes")),
    "base64": Spec("encodes", veto={"-o": "writes a file (BSD)", "--output": "writes a file"},
                   takes=_fs("-w", "--wrap", "-b", "-i", "--input"), max_operands=1,
                   files=_fs("-i", "--input")),
    "diff": Spec("compares files", takes=_fs("-U", "--unified", "-C", "--context", "-I",
                                             "--ignore-matching-lines", "-x", "--exclude",
                                             "-X", "--exclude-from", "-F", "--label",
                                             "-W", "--width", "--from-file", "--to-file",
                                             "--color", "--palette", "--line-format",
                                             "--new-line-format", "--old-line-format",
                                             "--unchanged-line-format", "-D", "--ifdef",
                                             "--changed-group-format", "--horizon-lines"),
                 files=_fs("--from-file", "--to-file", "-X", "--exclude-from"),
                 recursive=_fs("-r", "--recursive")),
    "cmp": Spec("compares files byte by byte", max_operands=4,
                takes=_fs("-i", "--ignore-initial", "-n", "--bytes")),
    "jq": _jq_two_values,
    "sed": _sed,
    "awk": _awk, "gawk": _awk, "mawk": _awk, "nawk": _awk,
    # names, sizes, hashes
    "ls": Spec("lists directory entries", reads="meta"),
    "dir": Spec("lists directory entries", reads="meta"),
    "tree": Spec("lists a directory tree", reads="meta",
                 veto={"-o": "writes the listing to a file",
                       "-R": "writes 00Tree.html files in every directory",
                       "--fromfile": "reads a listing from a file"},
                 takes=_fs("-L", "-P", "-I", "--charset", "--filelimit", "--timefmt",
                           "-H", "-T", "--sort", "--gitfile", "--infofile")),
    "file": Spec("identifies file types", reads="meta",
                 veto={"-C": "writes a compiled magic file", "--compile": "writes magic.mgc"},
                 takes=_fs("-m", "--magic-file", "-f", "--files-from", "-F", "--separator",
                           "-P", "--parameter", "-e", "--exclude"),
                 # -f echoes every line of its file, -m quotes magic lines in warnings
                 files=_fs("-m", "--magic-file", "-f", "--files-from")),
    "stat": Spec("prints file metadata", reads="meta",
                 takes=_fs("-c", "--format", "--printf", "-f", "-t")),
    # --files0-from: unknown "names" (the file's content) are quoted in error messages
    "wc": Spec("counts lines, words and bytes", reads="meta", takes=_fs("--files0-from"),
               files=_fs("--files0-from")),
    "du": Spec("reports disk usage", reads="meta",
                takes=_fs("-d", "--max-depth", "-B", "--block-size", "-t", "--threshold",
                          "--exclude", "-X", "--exclude-from", "--time-style",
                          "--files0-from"),
                files=_fs("--files0-from", "-X", "--exclude-from")),
    "df": Spec("reports free disk space", reads="meta",
                takes=_fs("-B", "--block-size", "-t", "--type", "-x", "--exclude-type",
                          "--output")),
    "find": _find,
    "realpath": Spec("resolves paths", reads="meta", takes=_fs("--relative-to",
                                                               "--relative-base")),
    "readlink": Spec("prints a link target", reads="meta"),
    "basename": Spec("strips a directory", reads="none", operands="strings",
                     takes=_fs("-s", "--suffix")),
    "dirname": Spec("strips a file name", reads="none", operands="strings"),
    "md5sum": Spec("hashes files", reads="meta"),
    "sha1sum": Spec("hashes files", reads="meta"),
    "sha224sum": Spec("hashes files", reads="meta"),
    "sha256sum": Spec("hashes files", reads="meta"),
    "sha384sum": Spec("hashes files", reads="meta"),
    "sha512sum": Spec("hashes files", reads="meta"),
    "shasum": Spec("hashes files", reads="meta", takes=_fs("-a", "--algorithm")),
    "b2sum": Spec("hashes files", reads="meta", takes=_fs("-l", "--length")),
    "cksum": Spec("checksums files", reads="meta"),
    "sum": Spec("checksums files", reads="meta"),
    "test": Spec("evaluates a condition", reads="meta", operands="strings",
                 veto={"-v": "evaluates an array subscript, which can run commands"}),
    "[": Spec("evaluates a condition", reads="meta", operands="strings",
              veto={"-v": "evaluates an array subscript, which can run commands"}),
    "true": Spec("does nothing", reads="none", operands="strings"),
    "false": Spec("does nothing", reads="none", operands="strings"),
    ":": Spec("does nothing", reads="none", operands="strings"),
    # the system and the shell
    "pwd": Spec("prints the working directory", reads="none", operands="strings"),
    "cd": _cd,
    "echo": _echo,
    "printf": _printf,
    "printenv": _printenv,
    "which": Spec("locates programs", reads="none", operands="strings"),
    "whereis": Spec("locates programs", reads="none", operands="strings"),
    "type": Spec("describes names", reads="none", operands="strings"),
    "command": _command_query,
    "date": Spec("prints the date", reads="none", operands="strings",
                 veto={"-s": "sets the system date", "--set": "sets the system date"},
                 takes=_fs("-d", "--date", "-f", "--file", "-r", "--reference", "-I",
                           "--iso-8601", "--rfc-3339", "--resolution"),
                 files=_fs("-f", "--file"), extra=_date),
    "id": Spec("prints user ids", reads="none", operands="strings"),
    "whoami": Spec("prints the user name", reads="none", operands="strings"),
    "groups": Spec("prints group names", reads="none", operands="strings"),
    "uname": Spec("prints system information", reads="none", operands="strings"),
    "hostname": Spec("prints the host name", reads="none", max_operands=0,
                     veto={"-F": "sets the host name from a file",
                           "--file": "sets the host name", "-b": "sets the host name",
                           "--boot": "sets the host name"}),
    "arch": Spec("prints the architecture", reads="none"),
    "nproc": Spec("prints the number of CPUs", reads="none"),
    "uptime": Spec("prints the uptime", reads="none"),
    "free": Spec("prints memory usage", reads="none",
                 veto={"-s": "repeats forever", "--seconds": "repeats forever"}),
    "tty": Spec("prints the terminal", reads="none"),
    "locale": Spec("prints locale settings", reads="none", operands="strings"),
    "lscpu": Spec("prints CPU information", reads="none"),
    "lsblk": Spec("lists block devices", reads="none", operands="strings"),
    "ps": _ps,
    "pgrep": Spec("finds processes", reads="none", operands="strings"),
    "who": Spec("lists logged-in users", reads="none", operands="strings"),
    "w": Spec("lists logged-in users", reads="none", operands="strings"),
    "sleep": Spec("waits", reads="none", operands="strings"),
    "seq": Spec("prints a sequence", reads="none", operands="strings"),
    "expr": Spec("evaluates an expression", reads="none", operands="strings"),
    "getconf": Spec("prints system configuration", reads="none", operands="strings"),
    "lsb_release": Spec("prints distribution information", reads="none"),
    "nvidia-smi": _nvidia_smi,
    "conda": _subcommands({("list",), ("info",), ("env", "list"), ("--version",), ("-V",)},
                          "conda listing"),
    "mamba": _subcommands({("list",), ("info",), ("env", "list"), ("--version",)},
                          "mamba listing"),
    "npm": _subcommands({("ls",), ("list",), ("--version",), ("-v",), ("view",),
                         ("outdated",)}, "npm listing"),
    # not `jupyter server list`: it prints the servers' access tokens
    "jupyter": _subcommands({("--version",), ("--paths",), ("kernelspec", "list"),
                             ("lab", "--version")}, "jupyter listing"),
    "ss": Spec("lists sockets", reads="none", operands="strings",
               veto={"-K": "kills sockets", "--kill": "kills sockets"}),
    "netstat": Spec("lists sockets", reads="none", operands="strings"),
    "lsof": Spec("lists open files", reads="none", operands="strings",
                 veto={"+r": "repeats forever", "-r": "repeats forever"}),
    "ip": _subcommands({("addr",), ("address",), ("a",), ("link",), ("l",), ("route",),
                        ("r",), ("neigh",), ("-br", "addr"), ("-br", "a"), ("-br", "link"),
                        ("addr", "show"), ("address", "show"), ("link", "show"),
                        ("route", "show"), ("a", "s"), ("-4", "addr"), ("-6", "addr")},
                       "ip listing", any_tail=False),
    "ifconfig": _subcommands({(), ("-a",)}, "lists network interfaces", any_tail=False),
    "cal": Spec("prints a calendar", reads="none", operands="strings"),
    "zcat": Spec("prints compressed files"),
    "bzcat": Spec("prints compressed files"),
    "xzcat": Spec("prints compressed files"),
    "zstdcat": Spec("prints compressed files"),
    "nvcc": _version_only("--version", "-V"),
    "dmesg": Spec("prints kernel messages", reads="none", operands="strings",
                  veto={"-c": "clears the ring buffer", "-C": "clears the ring buffer",
                        "--clear": "clears", "--read-clear": "clears", "-D": "changes logging",
                        "-E": "changes logging", "-n": "sets the console level",
                        "--console-level": "sets the level", "-w": "waits forever",
                        "--follow": "waits forever", "-W": "waits forever"}),
    "systemctl": _subcommands({("status",), ("list-units",), ("list-unit-files",),
                               ("is-active",), ("is-enabled",), ("is-failed",),
                               ("list-timers",), ("--version",)}, "systemctl query"),
    "timedatectl": _subcommands({(), ("status",)}, "prints time settings", any_tail=False),
    "hostnamectl": _subcommands({(), ("status",)}, "prints host settings", any_tail=False),
    "git": _git,
    "gh": _gh,
    "docker": _docker,
    "tar": _tar,
    "unzip": _unzip,
    "zipinfo": Spec("lists a zip archive", reads="meta"),
    "xargs": _xargs,
    "pip": _pip, "pip3": _pip,
    "python": _python, "python3": _python,
    "node": _version_only("--version", "-v"),
    "ruby": _version_only("--version"),  # `ruby -v` then reads a program from stdin
    "perl": _version_only("--version", "-v"),
    "java": _version_only("--version", "-version"),
    "go": _version_only("version"),
    "cargo": _version_only("--version", "-V"),
    "rustc": _version_only("--version", "-V"),
    "gcc": _version_only("--version"),
    "make": _version_only("--version", "-v"),
    "cmake": _version_only("--version"),
    "uv": _version_only("--version", "-V"),
    "bash": _version_only("--version"),
}

# Shells, interpreters and network programs the policy needs by name.
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "ash",
                    "busybox"})
INTERPRETERS = SHELLS | frozenset({
    "python", "python2", "python3", "pypy", "pypy3", "perl", "ruby", "node", "nodejs", "deno",
    "bun", "php", "lua", "Rscript", "R", "julia", "tclsh", "osascript", "pwsh", "powershell",
    "source", ".", "eval", "exec", "ipython", "irb", "awk", "gawk",
})
DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c", "http", "https", "xh", "httpie",
                         "lwp-request", "GET", "lynx", "links", "w3m"})
NETWORK = DOWNLOADERS | frozenset({"nc", "ncat", "netcat", "socat", "telnet", "ssh", "scp",
                                   "sftp", "rsync", "ftp", "tftp", "sendmail", "mail", "mutt",
                                   "openssl", "gsutil", "rclone", "s3cmd", "aws", "gcloud",
                                   "az", "ngrok", "sshpass"})


def _words(argv: list[Word]) -> list[str | None]:
    return [w.value for w in argv]


_PRINTER_NAMES = frozenset({"env", "printenv", "export", "declare", "typeset", "set", "compgen",
                            "gh", "git", "aws", "gcloud", "az", "kubectl", "security", "op",
                            "pass", "vault", "secret-tool", "keyring", "heroku", "npm",
                            "doppler"})


def secret_printer(argv: list[Word]) -> str | None:
    """Why this command prints credentials or the environment, or None."""
    vals = _words(argv)
    if not vals or vals[0] is None:
        return None
    name = vals[0]
    if name not in _PRINTER_NAMES and not name.startswith("docker-credential-"):
        return None
    rest = vals[1:]
    if name in ("env", "printenv") and not [v for v in rest if v is None or not
                                            v.startswith("-")]:
        return "prints the whole environment, where API keys live"
    if name == "printenv":
        bad = [v for v in rest if v is None or (not v.startswith("-") and
                                                v not in PRINT_SAFE_VARS)]
        if bad:
            return f"prints the variable {bad[0] or '(decided at run time)'}, " \
                   "which may hold a secret"
    if name in ("export", "declare", "typeset") and all(
            v in ("-p", "-x", "-px", "-xp") for v in rest):
        return "prints the exported environment, where API keys live"
    if name in ("set", "compgen") and (not rest or rest in (["-e"], ["-v"], ["-o", "posix"])):
        return "prints every shell variable, API keys included"
    joined = " ".join(v or "" for v in vals)
    for pat, why in _SECRET_CMDS:
        if pat.search(joined):
            return why
    return None


_SECRET_CMDS = [
    (re.compile(r"^gh auth token\b"), "gh auth token prints your GitHub token"),
    (re.compile(r"^gh auth status\b.*\s(-t|--show-token)\b"), "prints your GitHub token"),
    (re.compile(r"^git (.* )?credential(-\S+)? (fill|get)\b"),
     "git credential prints stored passwords"),
    (re.compile(r"^aws configure (get|export-credentials)\b"), "prints AWS credentials"),
    (re.compile(r"^aws (sts get-session-token|ecr get-login-password)\b"),
     "prints AWS credentials"),
    (re.compile(r"^gcloud (auth (application-default )?print-(access|identity)-token|"
                r"config config-helper)\b"), "prints a Google Cloud token"),
    (re.compile(r"^az account get-access-token\b"), "prints an Azure token"),
    (re.compile(r"^kubectl config view\b.*--raw\b"), "prints cluster credentials"),
    (re.compile(r"^kubectl get secrets?\b"), "prints Kubernetes secrets"),
    (re.compile(r"^security find-(generic|internet)-password\b"), "prints a keychain password"),
    (re.compile(r"^(op (read|item get)|pass (show )?\S|vault (read|kv get)|secret-tool lookup|"
                r"keyring get|heroku auth:token|npm token list|doppler secrets)\b"),
     "prints a stored secret"),
    (re.compile(r"^docker-credential-\S+ get\b"), "prints registry credentials"),
]


def classify(argv: list[Word]) -> Verdict:
    """The read-only verdict for one argv (program name already a bare name)."""
    if not argv:
        return Verdict(True, "no command")
    name = argv[0].value
    if name is None or argv[0].glob:
        return _no("the program is decided at run time")
    entry = TABLE.get(name)
    if entry is None:
        return _no(f"{name} is not in the read-only table")
    if isinstance(entry, Spec):
        return _run_spec(entry, argv)
    return entry(argv)
