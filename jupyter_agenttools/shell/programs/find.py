"""find: starting points, tests and actions.

The starting points are listed recursively (names and metadata: ``list`` accesses). Actions
decide the rest: ``-delete`` deletes below each starting point, ``-fprint``/``-fprintf``/
``-fls`` write a file, ``-exec``/``-execdir``/``-ok``/``-okdir`` run a command (a
:class:`~..effects.Run` the analysis follows), ``-files0-from`` reads the starting points from
a file. ``-exec`` of a program that is harmless with any extra arguments (``wc``, ``ls``,
``stat`` …) keeps find read-only. A test's value is never an action (``-name -delete``).

A glob that could expand to an action (``find *`` with a file named ``-delete``) or a word
decided at run time makes it not read-only.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

from ..effects import ARGV, DELETE, LIST, READ, WRITE, Effects, Run
from ..words import DYNAMIC, GLOB, Word

__all__ = ["find", "SAFE_WITH_ANY_ARGUMENTS"]

_ACTIONS = {
    "-delete": "deletes files",
    "-exec": "runs a command", "-execdir": "runs a command", "-ok": "runs a command",
    "-okdir": "runs a command",
    "-fprint": "writes a file", "-fprint0": "writes a file", "-fprintf": "writes a file",
    "-fls": "writes a file",
    "-files0-from": "reads the starting points from a file",
}
# tests and options whose next word is their value, never an action
_ONE_VALUE = frozenset({
    "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
    "-lname", "-ilname", "-type", "-xtype", "-user", "-group", "-uid", "-gid", "-perm",
    "-size", "-newer", "-anewer", "-cnewer", "-mtime", "-atime", "-ctime", "-mmin", "-amin",
    "-cmin", "-maxdepth", "-mindepth", "-links", "-inum", "-samefile", "-used", "-fstype",
    "-printf", "-regextype", "-context", "-newerXY"})
_NEWER = ("-newer", "-anewer", "-cnewer", "-samefile")
_BY_PATH = ("-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex")
# names of the agent's own files a name filter of `find -delete` could select
_PROTECTED_NAMES = (".agenttools", "audit.jsonl", "settings.json", "settings.local.json")
# programs harmless with *any* extra arguments (no option writes or runs, output is names,
# counts or metadata): safe after xargs and find -exec
SAFE_WITH_ANY_ARGUMENTS = frozenset({
    "echo", "ls", "wc", "stat", "du", "basename", "dirname", "printf", "test", "true",
    "realpath", "readlink"})


def find(argv: list[Word]) -> Effects:
    e = Effects(True, "find lists file names")
    roots: list[Word] = []
    in_roots = True
    follow = False
    value_next = False
    words = argv[1:]
    i = 0
    n = len(words)
    deleting = False
    filtered = False
    names: list[str] = []
    paths: list[tuple[str, str | None]] = []
    while i < n:
        w = words[i]
        i += 1
        v = w.value
        if value_next:
            value_next = False
            if w.kind == "literal":
                continue  # a literal value: `-name -delete` matches a file name
        if w.kind == DYNAMIC:
            e.no(f"find: an argument decided at run time ({w.text[:40]!r}) may be an action")
            continue
        if w.kind == GLOB:
            for action, why in _ACTIONS.items():
                if fnmatchcase(action, v or ""):
                    e.no(f"the glob {v!r} may expand to find {action} ({why})")
                    break
            if (v or "").startswith("-"):
                e.no("a glob starting with '-' may expand to a find action")
        if in_roots and v in ("-H", "-L", "-P") and not roots:
            follow = follow or v == "-L"
            continue
        if in_roots and v and not v.startswith("-") and v not in ("(", "!", ")", ","):
            roots.append(w)
            continue
        in_roots = False
        if v == "-follow":
            follow = True
        if v in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i
            while j < n and words[j].value not in (";", "+"):
                j += 1
            inner = words[i:j]
            if j >= n:
                e.no(f"find {v} without a terminating ';' or '+'")
            if not inner:
                continue
            e.runs.append(Run(ARGV, "find", argv=inner))
            if v.startswith("-ok"):
                e.no(f"find {v} asks on the terminal and runs a command")
            elif not _harmless_inner(inner):
                e.no(f"find {v} runs {inner[0].text[:40]}")
            i = j + 1
            continue
        if v == "-delete":
            deleting = True
            e.no("find -delete deletes files")
            continue
        if v in ("-fprint", "-fprint0", "-fls", "-fprintf"):
            if i < n:
                e.add(WRITE, words[i])
            i += 2 if v == "-fprintf" else 1
            e.no(f"find {v} writes a file")
            continue
        if v == "-files0-from":
            if i < n:
                e.add(READ, words[i])
                i += 1
            e.no("find -files0-from reads the starting points from a file")
            continue
        if v in _NEWER and i < n:
            e.add(LIST, words[i])
        if v in _ONE_VALUE or v in ("-empty", "-executable", "-readable", "-writable"):
            filtered = True
            if v in ("-name", "-iname") and i < n and (name := words[i].value) is not None:
                names.append(name)
            elif v in _BY_PATH and i < n:
                paths.append((v, words[i].value))
        value_next = v in _ONE_VALUE
    if not roots:
        roots = [Word(".", ".")]
    for w in roots:
        e.add(LIST, w, recursive=True, follow=follow)
        if not deleting:
            continue
        if not filtered or w.kind != "literal":
            e.add(DELETE, w, recursive=True, detail="find -delete")
            continue
        # a filtered -delete removes entries below the root, not the root: reported as its
        # entries (`ROOT/*`), plus the agent's own folder when a name filter could select it
        base = (w.value or ".").rstrip("/") or "/"
        below = Word(base + "/*", base + "/*", GLOB, tilde=w.tilde)
        e.add(DELETE, below, recursive=True, detail="find -delete")
        if any(fnmatchcase(name, pattern) for pattern in names for name in _PROTECTED_NAMES) \
                or any(_path_filter_may_select(test, pattern, base) for test, pattern in paths):
            own = Word(base + "/.agenttools", base + "/.agenttools", tilde=w.tilde)
            e.add(DELETE, own, recursive=True, detail="find -delete")
    return e


def _path_filter_may_select(test: str, pattern: str | None, base: str) -> bool:
    """Could a -path/-regex filter select the agent's own files below ``base``? A glob is
    tried on their paths; a regular expression is not run (it could take exponential time):
    one naming them, or one that is mostly wildcards, may."""
    if pattern is None:
        return True
    if test.endswith("regex"):
        core = pattern.replace(".*", "").replace("\\", "").strip("^$()|")
        return not core or any(w in pattern for w in ("agenttools", "audit", "settings"))
    return any(fnmatchcase(f"{base}/{p}", pattern) or fnmatchcase(f"./{p}", pattern)
               for p in (".agenttools", ".agenttools/audit.jsonl",
                         ".agenttools/settings.json", ".agenttools/settings.local.json"))


def _harmless_inner(inner: list[Word]) -> bool:
    """``-exec CMD … {} +`` stays read-only for a program harmless with any arguments whose
    own words are literal."""
    name = inner[0].value
    if name not in SAFE_WITH_ANY_ARGUMENTS:
        return False
    return all(w.kind == "literal" for w in inner)
