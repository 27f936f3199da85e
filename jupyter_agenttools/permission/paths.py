"""The path policy of the file tools (Read, Write, Edit, Glob, Grep).

The tools' permission hooks only delegate here, passing their raw ``tool_input`` fields
(``file_path`` or ``path``); for Glob/Grep a missing ``path`` (None or "") means the cwd.

Canonical form: ``~`` and ``~/…`` expanded against ``context.home``, ``~user`` through
``os.path.expanduser``, relative paths joined to ``context.cwd``, then ``os.path.realpath``,
which resolves symlinks (also the existing prefix of a path not created yet) and applies ``..``
*after* resolving what precedes it, as the kernel does (``link/..`` is the parent of the link's
target, not the cwd). ``/dev/stdout`` and friends keep their name: resolving them would describe
the checking process's own descriptors. A path that cannot be a path (not a string, empty, NUL,
a lone surrogate the file system cannot encode) raises ``ValueError`` from :func:`canonicalize`;
every check below turns that into an ASK with the reason — never an exception, never an ALLOW.

Rule patterns (the specifier of ``Read(…)``, ``Edit(…)``, …) are gitignore-style globs:

- anchors: ``~/x`` home; ``/x`` and ``//x`` absolute (``//`` as in Claude Code settings);
  ``./x`` or a pattern with a ``/`` inside is relative to the project root (the cwd when there
  is none); a pattern without ``/`` (``*.py``, ``.env``) matches at any depth below that root;
  a trailing ``/`` means the directory and everything below;
- ``*`` and ``?`` stay inside one segment, ``**`` spans segments, ``[…]`` is a class;
- the literal leading directories of a pattern go through ``realpath`` like a path, so a rule
  on a symlinked directory meets the resolved paths; ``..`` after a wildcard is refused.

Each direction is read on its safe side:

- deny and ask rules (``broad``): a pattern that matches a directory also matches everything
  below it (gitignore), case is ignored (``/SECRET/k`` on a case-insensitive file system is
  the same file), both the resolved and the unresolved spelling are tried (so
  ``/tmp/../secret/k``, ``//secret/k`` and symlinks into or out of ``/secret`` don't dodge), and
  ``/x`` is *also* read as Claude Code means it, relative to the project root, so a copied deny
  rule is never void;
- allow rules (``broad=False``): the resolved path itself must match, case-sensitively; ``*``
  stays one level (``Edit(src/*)`` does not allow ``src/a/b.py``; write ``src/**`` for that).
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .facts import LocalFacts, PathFacts, ResolvedPath, facts_for, working_dirs
from .memo import current_memo
from .patterns import pattern_globs, target_matches
from .protected import DecisionPlaces, places_for, usable_home
from .sensitive import (
    CREDENTIAL,
    read_verdict,
    sensitive_write_reason,
)
from .types import PermissionBehavior, PermissionDecision, PermissionMode, PermissionRule

if TYPE_CHECKING:
    from .types import PermissionContext

__all__ = [
    "canonicalize",
    "lexical_path",
    "path_matches",
    "inside_working_dirs",
    "read_is_fast_path_safe",
    "check_read",
    "check_write",
    "match_path_rule",
    "suggest_path_rules",
    "safe_cli_path",
    "glob_reach",
]

_GLOB = re.compile(r"[*?\[]")
_READ_TOOLS = frozenset({"Read", "Glob", "Grep"})


# --- canonical paths --------------------------------------------------------------------------


def _check_text(value: object, what: str = "path") -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a {what} string, got {type(value).__name__}")
    if value == "":
        raise ValueError(f"expected a {what}, got an empty string")
    if "\x00" in value:
        raise ValueError(f"the {what} contains a NUL character: {value!r}")
    try:
        os.fsencode(value)
    except UnicodeError:
        raise ValueError(f"the {what} contains characters the file system cannot encode "
                         f"(a lone surrogate?): {value!r}") from None
    return value


_home = usable_home


def _absolute(path: str, cwd: str, home: str) -> str:
    """``~`` expanded and joined to ``cwd``, *not* normalised: ``link/..`` must stay for
    realpath, which (like the kernel) resolves ``link`` before applying ``..``."""
    if path == "~" or path.startswith("~/"):
        path = home.rstrip("/") + path[1:]
    elif path.startswith("~"):
        path = os.path.expanduser(path)  # ~user; stays a relative name if there is no such user
    if not path.startswith("/"):
        path = os.path.join(os.path.abspath(cwd), path)
    return path


def _lexical(absolute: str) -> str:
    path = os.path.normpath(absolute)
    if path.startswith("//"):  # POSIX normpath keeps exactly two leading slashes
        path = "/" + path.lstrip("/")
    return path


def lexical_path(path: object, cwd: str, home: str | None = None) -> str:
    """``path`` absolute and normalised (``~``, relative, ``..``, ``//``) without resolving
    symlinks — the spelling, not necessarily the file (``link/..`` is not the cwd when ``link``
    is a symlink). Raises ValueError like :func:`canonicalize`."""
    return _lexical(_absolute(_check_text(path), _check_text(cwd, "working directory"),
                              _home(home)))


def canonicalize(path: object, cwd: str, home: str | None = None) -> str:
    """The canonical absolute form of ``path``: ``~`` expanded, relative to ``cwd``, symlinks
    resolved and ``..`` applied the way the kernel does (after resolving what precedes it), also
    for a path that does not exist yet; ``//`` normalised.

    Raises ValueError with a clear message for a non-string, an empty string, a NUL character or
    a lone surrogate; callers turn that into an ASK/DENY decision.
    """
    return _both_forms(path, cwd, home)[0]


# The standard streams resolve to the *checking* process's own descriptors (a pipe, a log
# file…): their canonical form is their name.
_STREAMS = re.compile(r"/dev/(?:std(?:in|out|err)|fd/[0-9]+)|/proc/self/fd/[0-9]+")


def resolve_path(path: object, context: "PermissionContext", follow_last: bool = True,
                 base: "tuple[str, ...] | None" = ()) -> ResolvedPath:
    """``path`` (a tool's word) resolved by the one resolver on the context's facts (the
    backend's file system). Raises ValueError for a word that cannot be a path."""
    word = _check_text(path)
    facts = facts_for(context)
    absolute = facts.locate(word, base)
    if absolute is not None and _STREAMS.fullmatch(absolute):
        return ResolvedPath(word, absolute, absolute, True, False)
    if absolute is None:
        return ResolvedPath(word, word, word, status="unknown")
    return facts.resolve_absolute(absolute, follow_last, word)


def _both_forms(path: object, cwd: str, home: object) -> tuple[str, str]:
    _check_text(cwd, "working directory")
    rp = resolve_path(path, _LocalContext(os.path.abspath(cwd), _home(home)))  # type: ignore[arg-type]
    return rp.physical, rp.lexical


class _LocalContext:
    """The two fields the resolver needs, for the context-free helpers (canonicalize)."""

    facts = None

    def __init__(self, cwd: str, home: str):
        self.cwd, self.home = cwd, home


def _both(path: object, context: "PermissionContext") -> tuple[str, str]:
    """(canonical, lexical) forms of a tool's path; None/"" means the cwd."""
    if path is None or path == "":
        path = context.cwd
    rp = resolve_path(path, context)
    return rp.physical, rp.lexical


def context_home(context: "PermissionContext") -> str:
    """The home directory of the machine the tools run on (the facts'), for the secret table."""
    return _home(facts_for(context).home)


# --- patterns (permission/patterns.py) ---------------------------------------------------------


def _escape_glob(literal: str) -> str:
    return re.sub(r"([*?\[\]\\])", r"\\\1", literal)


def path_matches(pattern: str, path: object, context: "PermissionContext", *,
                 broad: bool = False) -> bool:
    """Does the rule ``pattern`` match ``path`` (resolved on the context's facts)?

    By default the pattern must match the resolved path itself (``*`` stays in its segment),
    the reading allow rules get. ``broad=True`` is the deny/ask reading (see
    ``permission/patterns.py``). Raises ValueError for a path or pattern that cannot be used.
    """
    pattern_globs(pattern, context, broad)  # a broken pattern raises here
    target = resolve_path(context.cwd if path is None or path == "" else path, context)
    return target_matches(pattern, target, context, broad=broad)


# --- working directories ----------------------------------------------------------------------


def _below(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def inside_working_dirs(path: object, context: "PermissionContext") -> bool:
    """True when the resolved ``path`` is one of ``context.all_working_directories`` or below one
    (``/work/proj-evil`` is not below ``/work/proj``). A bad path is never inside."""
    try:
        canonical, _ = _both(path, context)
    except ValueError:
        return False
    return any(_below(canonical, d) for d in working_dirs(context))


def resolved_matches(pattern: str, target: ResolvedPath, context: "PermissionContext", *,
                     broad: bool, below: bool = False) -> bool:
    """:func:`patterns.target_matches` (kept here for callers of the file-tool policy)."""
    return target_matches(pattern, target, context, broad=broad, below=below)


# --- the file tools' checks -------------------------------------------------------------------


@lru_cache(maxsize=8192)
def _secret(canonical: str, lexical: str, home: str) -> tuple[str, str] | None:
    """The stricter read verdict of the resolved and the unresolved path (``home`` an
    absolute path, as ``_home`` gives: then a pure function of the strings, the table being
    constant, kept per process — the names of a glob are asked about every decision)."""
    if canonical == lexical:  # (one spelling: one question)
        return read_verdict(canonical, home)
    found = [v for v in (read_verdict(canonical, home), read_verdict(lexical, home)) if v]
    if not found:
        return None
    found.sort(key=lambda v: v[0] != CREDENTIAL)
    return found[0]


def _write_reason(canonical: str, lexical: str, home: str) -> str | None:
    return sensitive_write_reason(canonical, home) or sensitive_write_reason(lexical, home)


@lru_cache(maxsize=8192)
def _text_write_verdict(canonical: str, lexical: str, home: str
                        ) -> tuple[bool, str | None, bool]:
    """(writing it changes no file, why it is sensitive, a ``.json`` name): a pure function of
    the strings (the sensitive table is constant), kept per process — but for a JSON name the
    reason may come from the environment (the settings files its variables move): the caller
    asks :func:`_write_reason` again for those."""
    if _HARMLESS_WRITE.fullmatch(canonical):
        return True, None, False
    reason = _write_reason(canonical, lexical, home)
    if reason is None and read_verdict(canonical, home) is not None:
        reason = "it holds a secret"  # belt and braces: every secret file is a sensitive write
    return False, reason, canonical[-5:].lower() == ".json" or lexical[-5:].lower() == ".json"


def read_is_fast_path_safe(path: object, context: "PermissionContext") -> bool:
    """What Read/Glob/Grep's ``is_read_only`` returns (engine step 3, before the tool check):
    True only for a non-secret path inside the working directories, so secrets and reads
    outside fall through to :func:`check_read`."""
    try:
        target = resolve_path(context.cwd if path is None or path == "" else path, context)
    except ValueError:
        return False
    return check_read_resolved(target, context).behavior is PermissionBehavior.ALLOW


def _printable(path: str) -> str:
    """``path`` as a question may show it: a control or format character (a newline, an ANSI
    escape, a right-to-left override) written as an escape, so that the name a person approves
    is the name that is used — not ``src/a.py`` for ``src/a.py\\r\\x1b[K../../.bashrc``."""
    if path.isprintable():
        return path
    return "".join(c if c.isprintable() else
                   (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")
                   for c in path)


def _shown(target: ResolvedPath) -> str:
    if target.physical == target.lexical:
        return _printable(target.physical)
    return f"{_printable(target.lexical)} (→ {_printable(target.physical)})"


def check_read_resolved(target: ResolvedPath, context: "PermissionContext",
                        tool_name: str = "Read", kind: str = "read") -> PermissionDecision:
    """One read (or search) of a resolved path: a key or credential → safety ASK, another
    secret → ASK, a place we cannot know → safety ASK, inside the working directories →
    ALLOW, outside → ASK with a suggested rule."""
    return _check_read(target, places_for(context), tool_name, kind)


def _check_read(target: ResolvedPath, places: DecisionPlaces, tool_name: str, kind: str
                ) -> PermissionDecision:
    """:func:`check_read_resolved` on the decision's places (one lookup for every target)."""
    if target.status != "ok":
        return _unknown(target, tool_name)
    physical = target.physical
    secret = _secret(physical, target.lexical, places.usable_home)
    if secret is not None:  # a key, a credential or another secret: no allow rule silences it
        return PermissionDecision.ask(
            f"{tool_name} of {_shown(target)} may reveal a secret: {secret[1]}", safety=True)
    for d in places.working():
        if physical == d or physical.startswith(d.rstrip("/") + "/"):
            why = f"{_printable(physical)} is inside a working directory"
            return PermissionDecision(PermissionBehavior.ALLOW, why, why)
    return _suggesting(PermissionDecision.ask(
        f"{tool_name} of {_printable(physical)}: outside the working directories"),
        tool_name, target, places.context, kind == "search", places.facts)


def _unknown(target: ResolvedPath, tool_name: str) -> PermissionDecision:
    why = ("it follows too many symbolic links" if target.status == "loop"
           else "it is relative to a directory only known when the command runs")
    return PermissionDecision.ask(f"{tool_name}: cannot tell which file {target.word!r} "
                                  f"is: {why}", safety=True)


def check_read(path: object, context: "PermissionContext",
               tool_name: str = "Read") -> PermissionDecision:
    """Read, and Glob/Grep on their ``path`` (None or "": the cwd): see
    :func:`check_read_resolved`."""
    try:
        target = resolve_path(context.cwd if path is None or path == "" else path, context)
    except ValueError as exc:
        return PermissionDecision.ask(f"{tool_name}: cannot check this path: {exc}")
    kind = "search" if tool_name in ("Glob", "Grep") else "read"
    return check_read_resolved(target, context, tool_name, kind)


# Writing these changes no file (the null device, the standard streams, a pipe).
_HARMLESS_WRITE = re.compile(r"/dev/(?:null|zero|stdout|stderr|tty|fd/[0-9]+|pts/[0-9]+)"
                             r"|/proc/(?:self|[0-9]+)/fd/(?:pipe|socket):.*")


def check_write_resolved(target: ResolvedPath, context: "PermissionContext",
                         tool_name: str = "Edit", effect: Any = None) -> PermissionDecision:
    """One write/delete/chmod of a resolved path: the protected tier → DENY; a sensitive
    target, one outside the working directories or one we cannot place → safety ASK (allow
    rules cannot silence it: add the folder to ``additional_directories`` instead);
    accept_edits inside the working directories → ALLOW; otherwise PASSTHROUGH (allow rules and
    the fallback decide)."""
    kind = getattr(effect, "kind", "write")
    recursive = bool(getattr(effect, "recursive", False))
    return _check_write(target, places_for(context), tool_name, kind, recursive)


def _check_write(target: ResolvedPath, places: DecisionPlaces, tool_name: str, kind: str,
                 recursive: bool) -> PermissionDecision:
    """:func:`check_write_resolved` on the decision's places (one lookup for every target)."""
    why = places.protected(kind, recursive, target)
    if why is not None:
        return PermissionDecision.deny(f"{tool_name} of {_shown(target)} is protected: {why}")
    if target.status != "ok":
        return _unknown(target, tool_name)
    physical, lexical = target.physical, target.lexical
    home = places.usable_home
    harmless, reason, settings_like = _text_write_verdict(physical, lexical, home)
    if harmless:
        return PermissionDecision.allow(f"{_printable(physical)} changes no file")
    if settings_like:  # (maybe a settings file an environment variable moved: asked again)
        reason = _write_reason(physical, lexical, home)
        if reason is None and read_verdict(physical, home) is not None:
            reason = "it holds a secret"
    if reason is not None:
        return PermissionDecision.ask(f"{tool_name} of {_shown(target)} is sensitive: {reason}",
                                      safety=True)
    for d in places.working():
        if physical == d or physical.startswith(d.rstrip("/") + "/"):
            break
    else:
        return PermissionDecision.ask(
            f"{tool_name} of {_printable(physical)}: outside the working directories (allow rules "
            f"cannot allow this; add the folder to additional_directories to work there)",
            safety=True)
    context = places.context
    if context.mode is PermissionMode.ACCEPT_EDITS:
        return PermissionDecision.allow(f"accept_edits: {_printable(physical)} is inside a working "
                                        "directory")
    why = f"{tool_name} of {_printable(physical)} (inside the working directories)"
    return _suggesting(PermissionDecision(PermissionBehavior.PASSTHROUGH, why, why),
                       tool_name, target, context, False, places.facts)


def check_write(path: object, context: "PermissionContext",
                tool_name: str = "Edit") -> PermissionDecision:
    """Write and Edit: see :func:`check_write_resolved`."""
    if path is None or path == "":
        return PermissionDecision.ask(f"{tool_name}: no file path given")
    try:
        target = resolve_path(path, context)
    except ValueError as exc:
        return PermissionDecision.ask(f"{tool_name}: cannot check this path: {exc}")
    return check_write_resolved(target, context, tool_name)


def match_path_rule(rule: PermissionRule, path: object, context: "PermissionContext") -> bool:
    """Does ``rule`` (its specifier a glob) match this call's path? Allow rules read the glob
    narrowly, deny/ask rules broadly (module docstring). A path that cannot be checked matches
    deny/ask rules and no allow rule; a broken pattern matches nothing."""
    if rule.specifier is None:
        return True
    broad = rule.behavior is not PermissionBehavior.ALLOW
    try:
        pattern_globs(rule.specifier, context, broad)
    except ValueError:
        return False
    try:
        target = resolve_path(context.cwd if path is None or path == "" else path, context)
    except ValueError:
        return broad
    return target_matches(rule.specifier, target, context, broad=broad)


def _too_broad(directory: str, home: str) -> bool:
    """``/``, a top-level directory, the home directory or one of its ancestors (``home``
    already resolved)."""
    return directory.count("/") < 2 or _below(home, directory)


def _spec(text: str) -> str | None:
    # a specifier the rule parser accepts and reads back literally
    if any(ord(c) < 32 or c == "\x7f" for c in text):
        return None
    return _escape_glob(text)


def suggest_path_rules(tool_name: str, path: object,
                       context: "PermissionContext") -> list[PermissionRule]:
    """One allow rule for the containing directory (``Read(//abs/dir/**)``, or ``Edit(src/**)``
    relative to the project root), the exact file when that directory would be too broad.
    Never ``**``, ``/**``, ``~/**``, ``/``, the home directory; nothing for sensitive paths."""
    if path in (None, "") and tool_name not in _READ_TOOLS:
        return []
    try:
        target = resolve_path(context.cwd if path is None or path == "" else path, context)
    except ValueError:
        return []
    return _suggest_resolved(tool_name, target, context,
                             tool_name in ("Glob", "Grep") and target.is_dir)


def _suggesting(decision: PermissionDecision, tool_name: str, target: ResolvedPath,
                context: "PermissionContext", is_dir: bool,
                facts: PathFacts | None = None) -> PermissionDecision:
    """``decision`` with the rule :func:`_suggest_resolved` offers, built when first read (most
    decisions are never shown to anyone), on this decision's facts. Only for this machine's
    facts, which never raise: a backend's prefetched facts may lack an answer, and that must
    show in the decision, as it did when the rule was made at once. (The facts are kept, not
    the decision's memo: the memo holds this decision, and a cycle would outlive it.)
    ``facts``: ``facts_for(context)`` when the caller has it."""
    if facts is None:
        facts = facts_for(context)
    if current_memo() is None or type(facts) is not LocalFacts:
        decision.suggestions = _suggest_resolved(tool_name, target, context, is_dir, facts)
        return decision
    decision.suggest_later(
        lambda: _suggest_resolved(tool_name, target, context, is_dir, facts))
    return decision


def _suggest_resolved(tool_name: str, target: ResolvedPath, context: "PermissionContext",
                      is_dir: bool, facts: PathFacts | None = None) -> list[PermissionRule]:
    if not target.known:
        return []
    if facts is None:
        facts = facts_for(context)
    canonical, lexical = target.physical, target.lexical
    home = _home(facts.home)  # (context_home)
    if _secret(canonical, lexical, home) or _write_reason(canonical, lexical, home):
        return []
    real_home = facts.physical_dir(home)
    if _below(real_home, canonical):  # "/", the home or one of its ancestors
        return []
    is_dir = is_dir and target.is_dir
    directory = canonical if is_dir else os.path.dirname(canonical)
    # relative suggestions only against a project root: a cwd-relative rule would change
    # meaning when the session starts elsewhere
    root = facts.physical_dir(context.project_root) if context.project_root else "\x00"
    # the whole project or cwd is as good as "**": offer the file itself instead
    if directory in (root, facts.physical_dir(context.cwd)) or _too_broad(directory, real_home):
        if is_dir:
            return []
        # the exact file: "./name" when it sits below the root, else "//absolute"
        if canonical != root and _below(canonical, root):
            spec = _spec("./" + os.path.relpath(canonical, root))
        else:
            spec = _spec(canonical)
            spec = spec and "/" + spec
    elif _below(directory, root):
        rel = os.path.relpath(directory, root)  # "src/**" has a "/": anchored at root
        spec = _spec("./" + rel if rel.startswith("~") else rel)  # "~x/" is not the home
        spec = spec and spec + "/**"
    else:
        spec = _spec(directory)  # "//abs/**": "/abs" would be the project's abs/
        spec = spec and "/" + spec + "/**"
    if spec is None:
        return []
    try:
        return [PermissionRule.parse(f"{tool_name}({spec})")]
    except ValueError:
        return []


# --- helpers for the tools' implementations ---------------------------------------------------


def safe_cli_path(path: object) -> str:
    """``path`` in a form no program can read as an option: a relative path starting with ``-``
    gets ``./`` in front (``-rf`` → ``./-rf``). Absolute paths are returned as they are. Use it
    for every path handed to ripgrep/find, *and* put ``--`` before the positional arguments."""
    text = _check_text(path)
    return "./" + text if text.startswith("-") else text


def glob_reach_word(pattern: object, path: object) -> str:
    """The folder a Glob ``pattern`` searched from ``path`` (None or "": the cwd, ".") can
    reach, as a path word (``../../*`` or an absolute pattern leave ``path``): resolved later,
    on the backend's facts. Raises ValueError for an unusable pattern or path."""
    pattern = _check_text(pattern, "pattern")
    base = "." if path is None or path == "" else _check_text(path)
    segs = pattern.split("/")
    first_glob = next((i for i, s in enumerate(segs) if _GLOB.search(s)), len(segs) - 1)
    last_up = max((i for i, s in enumerate(segs) if s == ".."), default=-1)
    cut = max(first_glob, last_up + 1)
    head = "/".join(segs[:cut])
    if pattern.startswith("/"):
        return head or "/"
    return base.rstrip("/") + "/" + head if head else base


def glob_reach(pattern: object, path: object, context: "PermissionContext") -> str:
    """:func:`glob_reach_word` resolved on the context's facts (the Glob tool checks it)."""
    return resolve_path(glob_reach_word(pattern, path), context).physical
