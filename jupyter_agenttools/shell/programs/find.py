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
    effects = Effects(True, "find lists file names")
    roots: list[Word] = []
    in_roots = True
    follow = False
    value_next = False
    words = argv[1:]
    i = 0
    count = len(words)
    deleting = False
    filtered = False
    names: list[str] = []
    paths: list[tuple[str, str | None]] = []
    while i < count:
        word = words[i]
        i += 1
        value = word.value
        if value_next:
            value_next = False
            if word.kind == "literal":
                continue  # a literal value: `-name -delete` matches a file name
        if word.kind == DYNAMIC:
            effects.no(f"find: an argument decided at run time ({word.text[:40]!r}) may be an "
                       "action")
            continue
        if word.kind == GLOB:
            for action, why in _ACTIONS.items():
                if fnmatchcase(action, value or ""):
                    effects.no(f"the glob {value!r} may expand to find {action} ({why})")
                    break
            if (value or "").startswith("-"):
                effects.no("a glob starting with '-' may expand to a find action")
        if in_roots and value in ("-H", "-L", "-P") and not roots:
            follow = follow or value == "-L"
            continue
        if in_roots and value and not value.startswith("-") and value not in ("(", "!", ")", ","):
            roots.append(word)
            continue
        in_roots = False
        if value == "-follow":
            follow = True
        if value in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i
            while j < count and words[j].value not in (";", "+"):
                j += 1
            inner = words[i:j]
            if j >= count:
                effects.no(f"find {value} without a terminating ';' or '+'")
            if not inner:
                continue
            effects.runs.append(Run(ARGV, "find", argv=inner))
            if value.startswith("-ok"):
                effects.no(f"find {value} asks on the terminal and runs a command")
            elif not _harmless_inner(inner):
                effects.no(f"find {value} runs {inner[0].text[:40]}")
            i = j + 1
            continue
        if value == "-delete":
            deleting = True
            effects.no("find -delete deletes files")
            continue
        if value in ("-fprint", "-fprint0", "-fls", "-fprintf"):
            if i < count:
                effects.add(WRITE, words[i])
            i += 2 if value == "-fprintf" else 1
            effects.no(f"find {value} writes a file")
            continue
        if value == "-files0-from":
            if i < count:
                effects.add(READ, words[i])
                i += 1
            effects.no("find -files0-from reads the starting points from a file")
            continue
        if value in _NEWER and i < count:
            effects.add(LIST, words[i])
        if value in _ONE_VALUE or value in ("-empty", "-executable", "-readable", "-writable"):
            filtered = True
            if value in ("-name", "-iname") and i < count and (name := words[i].value) is not None:
                names.append(name)
            elif value in _BY_PATH and i < count:
                paths.append((value, words[i].value))
        value_next = value in _ONE_VALUE
    if not roots:
        roots = [Word(".", ".")]
    for word in roots:
        effects.add(LIST, word, recursive=True, follow=follow)
        if not deleting:
            continue
        if not filtered or word.kind != "literal":
            effects.add(DELETE, word, recursive=True, detail="find -delete")
            continue
        # a filtered -delete removes entries below the root, not the root: reported as its
        # entries (`ROOT/*`), plus the agent's own folder when a name filter could select it
        base = (word.value or ".").rstrip("/") or "/"
        below = Word(base + "/*", base + "/*", GLOB, tilde=word.tilde)
        effects.add(DELETE, below, recursive=True, detail="find -delete")
        if any(fnmatchcase(name, pattern) for pattern in names for name in _PROTECTED_NAMES) \
                or any(_path_filter_may_select(test, pattern, base) for test, pattern in paths):
            own = Word(base + "/.agenttools", base + "/.agenttools", tilde=word.tilde)
            effects.add(DELETE, own, recursive=True, detail="find -delete")
    return effects


def _path_filter_may_select(test: str, pattern: str | None, base: str) -> bool:
    """Could a -path/-regex filter select the agent's own files below ``base``? A glob is
    tried on their paths; a regular expression is not run (it could take exponential time):
    one naming them, or one that is mostly wildcards, may."""
    if pattern is None:
        return True
    if test.endswith("regex"):
        core = pattern.replace(".*", "").replace("\\", "").strip("^$()|")
        return not core or any(word in pattern for word in ("agenttools", "audit", "settings"))
    return any(fnmatchcase(f"{base}/{path}", pattern) or fnmatchcase(f"./{path}", pattern)
               for path in (".agenttools", ".agenttools/audit.jsonl",
                            ".agenttools/settings.json", ".agenttools/settings.local.json"))


def _harmless_inner(inner: list[Word]) -> bool:
    """``-exec CMD … {} +`` stays read-only for a program harmless with any arguments whose
    own words are literal."""
    name = inner[0].value
    if name not in SAFE_WITH_ANY_ARGUMENTS:
        return False
    return all(word.kind == "literal" for word in inner)
