"""Rule path patterns: the specifier of ``Read(…)``, ``Edit(…)``, ``Write(…)``, ``Glob(…)``…

Claude Code's semantics, one glob dialect (gitignore, compiled by ``pathspec``):

============================  ===================================================================
pattern                       matches
============================  ===================================================================
``//etc/hosts``               the absolute path ``/etc/hosts``
``~/notes/**``                everything below ``notes`` in the home directory
``/data/**``                  ``data/`` at the top of the project (the cwd when there is none)
``src/*.py`` / ``./src/*.py`` relative to the project too (a pattern with a ``/`` inside)
``*.env`` / ``**/*.env``      a file of that name **anywhere**, inside the project or not
``build/``                    a folder named ``build`` anywhere, and everything below it
``**``                        everything in the project
============================  ===================================================================

``*`` and ``?`` stay inside one path segment, ``**`` spans segments, ``[…]`` is a class. The
literal leading directories of a pattern are resolved like a path (on the backend's facts), so a
rule naming a symlinked folder meets the resolved paths; ``..`` after a wildcard is refused.

Each direction is read on its safe side:

- deny and ask rules (``broad``): a pattern that matches a folder matches what is below it,
  case is ignored (``/SECRET/k`` on a case-insensitive file system is the same file), both the
  resolved and the written spelling of the path are tried (neither a symlink nor a ``..``
  dodges), and ``/x`` is *also* read as the absolute ``/x`` (a rule copied from an older
  configuration is never void);
- allow rules: the resolved path itself must match, case-sensitively; ``*`` stays one level
  (``Edit(src/*)`` does not allow ``src/a/b.py``; write ``src/**`` for that).
"""

from __future__ import annotations

import re
import unicodedata
import warnings
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..errors import PathFactsMissing
from . import resolver
from .facts import ResolvedPath, facts_for

if TYPE_CHECKING:
    from .types import PermissionContext

__all__ = [
    "pattern_globs",
    "compile_glob",
    "target_matches",
    "search_reaches",
    "prefix_words",
    "is_name_pattern",
    "spellings",
]

_GLOB = re.compile(r"(?<!\\)(?:\\\\)*[*?\[]")  # a glob character not escaped by a backslash
_ESCAPED = re.compile(r"\\(.)", re.DOTALL)


def _unescape(segment: str) -> str:
    return _ESCAPED.sub(r"\1", segment)


@lru_cache(maxsize=1)
def _gitwildmatch() -> Any:
    """pathspec's gitignore pattern class, loaded on the first glob compiled (pathspec is a
    large import; ``agenttools hook`` decides many calls without any glob)."""
    try:  # pathspec >= 1.0 names the gitignore dialect this way
        from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

        return GitIgnoreSpecPattern
    except ImportError:  # pathspec 0.12
        from pathspec.patterns.gitwildmatch import GitWildMatchPattern

        return GitWildMatchPattern



def _check(pattern: object) -> str:
    if not isinstance(pattern, str) or pattern == "":
        raise ValueError(f"expected a pattern string, got {pattern!r}")
    if "\x00" in pattern:
        raise ValueError(f"the pattern contains a NUL character: {pattern!r}")
    return pattern


#: the most alternatives one pattern's braces may stand for (``{a,b}{c,d}`` is 4)
MAX_ALTERNATIVES = 64
_HOME_VARIABLE = re.compile(r"\$(?:HOME|\{HOME\})(?=/|\Z)")


def _braces(pattern: str) -> list[str]:
    """``{a,b}`` written in a pattern (as the Glob tool and shells read it), expanded: gitignore
    has no braces, so pathspec would read them as literal characters and a rule such as
    ``Read(**/*.{pem,key})`` would match nothing at all. A brace after a backslash stays
    literal; a brace
    without a top-level comma is literal, as in bash."""
    depth, start, i = 0, -1, 0
    commas: list[int] = []
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            if depth == 0:
                start, commas = i, []
            depth += 1
        elif c == "}" and depth:
            depth -= 1
            if depth == 0 and commas:
                head, tail = pattern[:start], pattern[i + 1:]
                cuts = [start, *commas, i]
                out: list[str] = []
                for a, b in zip(cuts, cuts[1:]):
                    for rest in _braces(pattern[a + 1:b] + tail):
                        out.append(head + rest)
                        if len(out) > MAX_ALTERNATIVES:
                            raise ValueError(f"the pattern {pattern!r} stands for more than "
                                             f"{MAX_ALTERNATIVES} alternatives")
                return out
        elif c == "," and depth == 1:
            commas.append(i)
        i += 1
    return [pattern]


@lru_cache(maxsize=1024)
def spellings(pattern: str) -> tuple[str, ...]:
    """What a rule pattern means, as written by people, in the dialect below: ``{a,b}``
    alternatives expanded and a leading ``$HOME`` (``${HOME}``) read as ``~`` (a pattern is
    never run through a shell: without this, ``Read($HOME/.aws/**)`` named a folder called
    ``$HOME`` in the project and a deny rule so written was void). Raises ValueError for a
    pattern that cannot mean a path: a leading ``!`` (gitignore's negation, which has no
    meaning in a single rule: write an allow or deny rule instead)."""
    if pattern.startswith("!"):
        raise ValueError(f"the pattern {pattern!r} starts with '!': a negation has no meaning "
                         f"in one rule (write '\\!' for a name that starts with '!')")
    if "$" in pattern:
        pattern = _HOME_VARIABLE.sub("~", pattern, count=1) if pattern.startswith("$") \
            else pattern
    if "{" not in pattern:
        return (pattern,)
    return tuple(dict.fromkeys(_braces(pattern)))


def is_name_pattern(pattern: str) -> bool:
    """A pattern without ``/`` (a trailing one aside; not ``~`` or ``**``), or one starting with
    ``**/``: a file or folder name that matches anywhere (every ``{a,b}`` alternative)."""
    if "{" in pattern or pattern.startswith("$"):
        try:
            alternatives = spellings(pattern)
        except ValueError:
            return False
        if alternatives != (pattern,):
            return all(_is_name(a) for a in alternatives)
    return _is_name(pattern)


def _is_name(pattern: str) -> bool:
    text = pattern.rstrip("/")
    if text.startswith("**/"):
        return "/" not in text[3:]
    return bool(text) and "/" not in text and not text.startswith("~") and text != "**"


def _escape(literal: str) -> str:
    return re.sub(r"([*?\[\]\\])", r"\\\1", literal)


def _literal_dir(path: str, context: "PermissionContext") -> str:
    """A pattern's literal leading directories resolved on the context's facts; when a remote
    backend's facts lack them, the spelling (deny/ask rules also try the unresolved path)."""
    try:
        return facts_for(context).resolve_word(path).physical
    except PathFactsMissing:
        return resolver.lexical_join("/", path)


def _root(context: "PermissionContext") -> str:
    return (context.project_root or context.cwd).rstrip("/") or "/"


def _anchored(pattern: str, context: "PermissionContext") -> list[str]:
    """The absolute spellings a pattern stands for (``/x``: the project's, then — for deny/ask
    — the absolute one), ``~`` expanded, not yet resolved."""
    home = facts_for(context).home.rstrip("/")
    if pattern.startswith("//"):
        return ["/" + pattern.lstrip("/")]
    if pattern == "~" or pattern.startswith("~/"):
        return [home + pattern[1:]]
    if pattern.startswith("~"):
        name, _, rest = pattern[1:].partition("/")
        found = facts_for(context).users.get(name)
        if found is None:
            raise ValueError(f"unknown user in the pattern {pattern!r}")
        return [found.rstrip("/") + ("/" + rest if rest else "")]
    if pattern.startswith("/"):
        return [_root(context) + pattern, pattern]
    if pattern == "**":  # the whole project, not the whole disk
        return [_root(context) + "/**"]
    if is_name_pattern(pattern) or pattern.startswith("**/"):  # a name anywhere
        return ["/**/" + pattern.removeprefix("**/")]
    return [_root(context) + "/" + (pattern[2:] if pattern.startswith("./") else pattern)]


def pattern_globs(pattern: str, context: "PermissionContext", broad: bool) -> list[str]:
    """The pattern as absolute globs whose literal leading directories are resolved; allow rules
    get one reading, deny/ask rules every reading (``/x`` both project-relative and absolute).
    Kept on the decision's facts (the resolution depends on them)."""
    cache = facts_for(context).__dict__.setdefault("_pattern_globs", {})
    key = (pattern, broad, context.project_root, context.cwd)
    found = cache.get(key)
    if found is None:
        found = cache[key] = _pattern_globs(pattern, context, broad)
    return found


def _pattern_globs(pattern: str, context: "PermissionContext", broad: bool) -> list[str]:
    out: list[str] = []
    for spelled in spellings(_check(pattern)):
        out.extend(g for g in _spelled_globs(spelled, context, broad) if g not in out)
    return out


def _spelled_globs(pattern: str, context: "PermissionContext", broad: bool) -> list[str]:
    dir_only = len(pattern) > 1 and pattern.endswith("/")
    text = pattern.rstrip("/") or "/"
    if text == "/":
        spellings = [_root(context), "/"] if broad else [_root(context)]
        dir_only = True
    else:
        spellings = _anchored(text, context)
        if not broad:
            spellings = spellings[:1]
    out = []
    for full in spellings:
        segs = [s for s in full.split("/") if s not in ("", ".")]
        k = 0
        while k < len(segs) and not _GLOB.search(segs[k]):
            k += 1
        if any(s == ".." for s in segs[k:]):
            raise ValueError(f"'..' after a wildcard is not supported in the pattern "
                             f"{pattern!r}")
        literal = _literal_dir("/" + "/".join(_unescape(x) for x in segs[:k]), context)
        rest = segs[k:] + (["**"] if dir_only else [])
        glob = _escape(literal).rstrip("/")
        out.append(glob + "/" + "/".join(rest) if rest else glob or "/")
    return out


def _plain_classes(body: str) -> str:
    """pathspec writes a literal ``[`` inside a class as is (``[[]``): Python warns that such a
    set may mean nesting in a later version. Escape it (and ``&``, ``~``, ``|``, the other set
    operators) so that the class keeps today's meaning."""
    out: list[str] = []
    i, n, in_class = 0, len(body), False
    while i < n:
        c = body[i]
        if c == "\\":
            out.append(body[i:i + 2])
            i += 2
            continue
        if not in_class:
            out.append(c)
            i += 1
            if c == "[":
                in_class = True
                if i < n and body[i] == "^":
                    out.append("^")
                    i += 1
                if i < n and body[i] == "]":  # a "]" first in a class is a member
                    out.append("\\]")
                    i += 1
            continue
        if c == "]":
            in_class = False
            out.append(c)
        else:
            out.append("\\" + c if c in "[&~|" else c)
        i += 1
    return "".join(out)


@lru_cache(maxsize=2048)
def compile_glob(glob: str, broad: bool) -> re.Pattern[str]:
    """An absolute gitignore glob as a regex over absolute paths. ``broad``: a matched folder
    covers what is below it, case ignored; else the path itself must match, case-sensitively
    (a pattern ending in ``/**`` still means everything below)."""
    segs = [s for s in glob.split("/") if s]
    if all(s == "**" for s in segs):  # "/", "**", "/**": everything
        return re.compile(r"/.*\Z", re.DOTALL)
    if segs and segs[0] == "**":
        segs = ["**", *[s for s in segs[1:]]]
        while len(segs) > 1 and segs[1] == "**":  # "**/**/x" is "**/x"
            segs.pop(1)
        glob = "/" + "/".join(segs)
    stripped = glob.rstrip()
    if stripped != glob:  # gitignore drops trailing spaces; a file name may end with one
        glob = stripped + "".join(f"[{c}]" for c in glob[len(stripped):])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        body, _ = _gitwildmatch().pattern_to_regex(glob)
    if body is None:  # pragma: no cover - an absolute glob is never empty or a comment
        raise ValueError(f"the pattern {glob!r} matches nothing")
    body = body[1:] if body.startswith("^") else body
    tail = "(?:(?P<ps_d>/)|$)"
    if body.endswith(tail):
        body = body[: -len(tail)] + ("(?:/.*)?" if broad else "")
    elif body.endswith("(?P<ps_d>/)"):
        body = body[: -len("(?P<ps_d>/)")] + "/.*"
    elif body.endswith("/"):  # "a/**": the folder a and everything below it
        body = body[:-1] + "(?:/.*)?"
    if "[" in body:
        body = _plain_classes(body)
    try:
        return re.compile("/" + body + r"\Z", re.DOTALL | (re.IGNORECASE if broad else 0))
    except re.error as exc:
        raise ValueError(f"the pattern {glob!r} cannot be compiled: {exc}") from None


def _regexes(pattern: str, context: "PermissionContext", broad: bool) -> list[re.Pattern[str]]:
    return [compile_glob(g, broad) for g in pattern_globs(pattern, context, broad)]


@lru_cache(maxsize=4096)
def _glob_segments(glob: str) -> tuple[str, ...]:
    return tuple(s for s in glob.lower().split("/") if s)


def target_matches(pattern: str, target: ResolvedPath, context: "PermissionContext", *,
                   broad: bool, below: bool = False) -> bool:
    """Does ``pattern`` match the resolved ``target``? See the module docstring for ``broad``.
    A target whose place is unknown matches only a name pattern, by its name, and never
    narrowly. ``below``: the target is a search root, so a narrow (allow) match must cover
    everything below it, not only the folder. A broken pattern matches nothing."""
    try:
        regexes = _regexes(pattern, context, broad)
    except ValueError:
        return False
    if target.status == "unknown":
        if not broad or not is_name_pattern(pattern):
            return False
        name = "/" + target.word.rstrip("/").rsplit("/", 1)[-1]
        return any(r.match(name) for r in regexes)
    if not broad and not target.known:
        return False
    if below and not broad:
        # every path below the folder must be covered: try a child and a grandchild whose
        # names no file can have (``src/*`` covers the first, not the second)
        child = target.physical.rstrip("/") + "/\x00"
        return any(r.match(child) and r.match(child + "/\x00") for r in regexes)
    for regex in regexes:
        if regex.match(target.physical) or (broad and regex.match(target.lexical)):
            return True
    if broad and not (pattern.isascii() and target.physical.isascii()
                      and target.lexical.isascii()):
        return _composed_match(pattern, target, context)
    return False


def _composed_match(pattern: str, target: ResolvedPath, context: "PermissionContext") -> bool:
    """Deny and ask rules, one more safe side: ``café`` typed composed (NFC) and a file name
    written decomposed (NFD, as macOS writes it) are the same name to a person and, on macOS,
    the same file — compare both in the composed form."""
    composed = unicodedata.normalize("NFC", pattern)
    try:
        regexes = _regexes(composed, context, True)
    except ValueError:
        return False
    paths = {unicodedata.normalize("NFC", target.physical),
             unicodedata.normalize("NFC", target.lexical)}
    return any(regex.match(path) for regex in regexes for path in paths)


def search_reaches(pattern: str, target: ResolvedPath, context: "PermissionContext") -> bool:
    """Would a recursive search of ``target`` traverse something ``pattern`` names below it?
    Only for patterns anchored at a place: a pattern that is a file name anywhere (``*.env``) is
    judged on the search root itself — a project search is not refused because such files
    exist (the search tools skip secret files on their own)."""
    if is_name_pattern(pattern):
        return False
    try:
        globs = pattern_globs(pattern, context, broad=True)
    except ValueError:
        return False
    from fnmatch import fnmatchcase

    for root in {target.physical, target.lexical}:
        root_segs = [s for s in root.lower().split("/") if s]
        for glob in globs:
            if _below(_glob_segments(glob), root_segs, fnmatchcase):
                return True
    return False


def _below(segs: tuple[str, ...], root_segs: list[str], fnmatchcase: object) -> bool:
    """Could the glob ``segs`` match a path strictly below the folder ``root_segs``?"""
    for i, seg in enumerate(root_segs):
        if i >= len(segs):
            return False  # the glob ends above the root: the root itself matches (or not)
        if segs[i] == "**":
            return True
        if not fnmatchcase(seg, segs[i]):  # type: ignore[operator]
            return False
    return len(segs) > len(root_segs)


def prefix_words(pattern: str, context: "PermissionContext") -> list[str]:
    """The literal leading directories of a rule pattern as path words (``~`` kept), for the
    facts a remote backend must send before a decision."""
    try:
        alternatives = spellings(pattern)
    except ValueError:
        return []
    out: list[str] = []
    for spelled in alternatives:
        out.extend(w for w in _prefix_words(spelled, context) if w not in out)
    return out


def _prefix_words(pattern: str, context: "PermissionContext") -> list[str]:
    text = pattern.rstrip("/") or "/"
    root = _root(context)
    if text.startswith("//"):
        words = ["/" + text.lstrip("/")]
    elif text.startswith("~"):
        words = [text]
    elif text.startswith("/"):
        words = [root + text, text]
    elif is_name_pattern(text):
        return []
    else:
        words = [root + "/" + (text[2:] if text.startswith("./") else text)]
    out = []
    for word in words:
        segs = word.split("/")
        k = next((i for i, seg in enumerate(segs) if _GLOB.search(seg)), len(segs))
        out.append("/".join(_unescape(x) for x in segs[:k]) or "/")
    return out
