"""One Bash decision's view of a command: the analysis and where its paths lead.

``plan_for(command, context)`` analyses the command once per engine decision (the memo of
``permission.memo`` keeps it while the engine asks read-only, its own check, each rule and the
suggestions). The plan turns the analysis' path *words* into absolute paths: every directory
the command may be in when it runs (each ``cd`` before it may have happened or not; more than
``MAX_CDS`` of them, or one decided at run time, make the place unknown), ``~`` and ``~user``
expanded only where bash expands them.
"""

from __future__ import annotations

import os
import stat
from functools import lru_cache
from itertools import combinations
from typing import Any, Sequence

from ...permission import resolver
from ...permission.facts import LocalFacts, facts_for
from ...permission.memo import current_memo
from ...permission.types import PermissionContext
from ...shell.analysis import ShellAnalysis, analyze
from ...shell.effects import DELETE, MODE, READ, WRITE, Access
from ...shell.programs import CONFIG
from ...shell.syntax import Command
from ...shell.words import LITERAL, Word

__all__ = ["Plan", "plan_for", "context_of", "lexical", "MAX_CDS", "below", "PATHS", "WRITES",
           "RUNS", "NETWORK", "SYSTEM", "SECRET"]

# What the commands' effects hold (Plan.traits): each check skips a pass over the commands
# for what none of them has.
PATHS = 1  # some command reads, lists, searches or changes a path
WRITES = 2  # some command writes, deletes or changes the mode of a path
RUNS = 4  # some command runs something (another argv, code, its stdin …)
NETWORK = 8
SYSTEM = 16  # a system change (power, cron, disk tools …)
SECRET = 32  # a program that prints a secret (env, gh auth token …)
_CHANGES = (WRITE, DELETE, MODE)
_HANDED = ("maybe", "guess")  # a possible read (Plan.handed)

# more `cd`s than this before a command: where it runs is unknown (2**MAX_CDS places)
MAX_CDS = 3
_HOME_SECRET_DIRS = (".ssh", ".aws", ".gnupg", ".config/gh", ".kube", ".azure",
                     ".config/gcloud", ".password-store", ".docker")

_DEFAULT_CONTEXTS: dict[tuple[str, str], PermissionContext] = {}


def context_of(context: PermissionContext | None) -> PermissionContext:
    """The caller's context, or one for the process cwd and home (built once per pair)."""
    if isinstance(context, PermissionContext):
        return context
    key = (os.getcwd(), os.environ.get("HOME") or os.path.expanduser("~"))
    ctx = _DEFAULT_CONTEXTS.get(key)
    if ctx is None:
        if len(_DEFAULT_CONTEXTS) > 64:
            _DEFAULT_CONTEXTS.clear()
        ctx = _DEFAULT_CONTEXTS[key] = PermissionContext(cwd=key[0], home=key[1])
    return ctx


def _os_realpath(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


def below(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


@lru_cache(maxsize=4096)
def _expand_user(value: str) -> str:
    return os.path.expanduser(value)


def lexical(word: Word | str, cwd: str, home: str) -> str | None:
    """The absolute, ``..``-normalised path a word names from ``cwd`` (no symlink resolved),
    or None when it names none (decided at run time, empty, NUL)."""
    if isinstance(word, Word):
        if word.value is None:
            return None
        value = word.value
        tilde = word.tilde
    else:
        value = word
        tilde = value.startswith("~")
    if not value or "\x00" in value:
        return None
    if tilde and (value == "~" or value.startswith("~/")):
        value = home.rstrip("/") + value[1:]
    elif tilde and value.startswith("~"):
        value = _expand_user(value)
    if not value.startswith("/"):
        # os.path.join for a non-empty cwd
        value = (cwd + value if cwd.endswith("/") else cwd + "/" + value) if cwd else value
    if "/." in value or "//" in value or value.endswith("/") or not value.startswith("/"):
        value = os.path.normpath(value)  # else it is its own normal form
        if value.startswith("//"):
            value = "/" + value.lstrip("/")
    return value


class Plan:
    """What one decision knows about a command (module docstring)."""

    __slots__ = ("analysis", "context", "home", "cwd", "explicit", "_bases", "memo",
                 "_real_dirs", "_working", "_readlink", "_spelled", "_paths", "_inside_dirs",
                 "bits", "with_paths", "changes", "handed", "config_reads")

    bits: int
    with_paths: list[Command]
    changes: list[tuple[Command, Access]]
    handed: list[tuple[Command, Access]]
    config_reads: list[tuple[Command, Access]]

    def __init__(self, analysis: ShellAnalysis, context: PermissionContext,
                 explicit: bool) -> None:
        self.analysis = analysis
        self.context = context
        self.home = context.home
        self.cwd = context.cwd
        self.explicit = explicit  # the caller gave a context (else the cwd is a guess)
        self._bases: dict[int, tuple[str, ...] | None] = {}
        self.memo: dict[object, Any] = {}  # keyed by a name or (name, command index)
        self._real_dirs: dict[str, str] = {}
        self._working: tuple[str, ...] | None = None
        self._readlink: Any = None  # the decision's local facts' readlink, on first need
        self._spelled: tuple[str, ...] | None = None
        # paths() by (word value, ~ expanded, number of cds before): all it depends on
        self._paths: dict[tuple[str, bool, int], list[str] | None] = {}
        # the working directories' real spellings and their "dir/" prefixes (inside())
        self._inside_dirs: tuple[frozenset[str], tuple[str, ...]] | None = None
        self._scan()

    def _scan(self) -> None:
        """One pass over every command's effects, made with the plan, for every check of the
        decision: the traits, and the accesses each check walks, in the order the checks
        walked the commands themselves (commands in record order, each one's accesses in
        order).

        ``bits``: PATHS, WRITES, RUNS, NETWORK, SYSTEM and SECRET of the commands' effects;
        ``with_paths``: the commands that read, list, search or change a path; ``changes``:
        every write, delete and mode change with its command; ``handed``: every possible read
        (``maybe``/``guess``: a path-looking argument of a program the table does not know);
        ``config_reads``: every directory whose configuration git obeys."""
        found = 0
        self.with_paths = with_paths = []
        self.changes = changes = []
        self.handed = handed = []
        self.config_reads = config = []
        for command in self.analysis.records:
            e = command.effects
            if e is None:
                continue
            if e.paths:
                with_paths.append(command)
                for access in e.paths:
                    kind = access.kind
                    if kind in _CHANGES:
                        changes.append((command, access))
                    elif kind == READ:
                        if access.detail in _HANDED:
                            handed.append((command, access))
                    elif kind == CONFIG:
                        config.append((command, access))
            if e.runs:
                found |= RUNS
            if e.network:
                found |= NETWORK
            if e.system:
                found |= SYSTEM
            if e.secret:
                found |= SECRET
        if with_paths:
            found |= PATHS
        if changes:
            found |= WRITES
        self.bits = found

    def traits(self) -> int:
        """The PATHS, WRITES, RUNS, NETWORK, SYSTEM and SECRET bits of the commands' effects
        (``bits``, found by :meth:`_scan`)."""
        return self.bits

    # --- the file system, asked once per decision ----------------------------------------------

    def _local_readlink(self) -> Any:
        """``readlink`` of the decision's local facts (``permission.facts``: the engine resolves
        the same paths there, so each symlink is asked about once per decision), or False when
        the context's facts are not this machine's (then this plan asks ``os`` itself, as
        before: the Bash check has always judged paths on this machine)."""
        found = self._readlink
        if found is None:
            facts = facts_for(self.context)
            found = self._readlink = facts.readlink if isinstance(facts, LocalFacts) \
                else False
        return found

    def is_dir(self, path: str) -> bool:
        """``os.path.isdir``: on this machine's facts, the decision's shared answer (the engine
        asked about most resolved paths already)."""
        if self._local_readlink():
            facts = facts_for(self.context)
            return facts.kind(path) == "dir"
        return os.path.isdir(path)

    def kind(self, path: str) -> str | None:
        """"dir", "file" or None (nothing there), following symlinks: on this machine's facts,
        the decision's shared answer."""
        if self._local_readlink():
            return facts_for(self.context).kind(path)
        try:
            return "dir" if stat.S_ISDIR(os.stat(path).st_mode) else "file"
        except (OSError, ValueError):
            return None

    def foreign_repository(self, directory: str) -> str | None:
        """Why git run in ``directory`` (absolute, normalised, inside a working directory) may
        obey a configuration written as an ordinary file, or None. Going up to the working
        directory that holds it, git takes the first directory with a ``.git`` (whose files are
        protected paths) — or the first that is itself a repository: a bare repository
        (``HEAD`` beside ``objects``, ``refs`` or ``commondir``) whose ``config`` any file
        edit can write (``core.fsmonitor``, ``diff.external`` run programs)."""
        real = self.realpath(directory)
        root = next((d for d in self.working_directories()
                     if real == d or real.startswith(d.rstrip("/") + "/")), None)
        if root is None:
            return None
        current = real
        while True:
            base = current.rstrip("/")
            if self.kind(base + "/.git") is not None:
                return None
            if self.kind(base + "/HEAD") == "file" and (
                    self.kind(base + "/objects") is not None
                    or self.kind(base + "/refs") is not None
                    or self.kind(base + "/commondir") is not None):
                return f"git would read {current} as a bare repository, whose config file " \
                       "is an ordinary file that can run programs"
            if current == root or current == "/":
                return None
            current = os.path.dirname(current)

    def realpath(self, path: str) -> str:
        """``os.path.realpath`` of an absolute, normalised path, component by component; the
        resolved prefixes are kept for this decision (the paths of a command share most of
        them). On this machine's facts a component is asked about with the decision's shared
        ``readlink`` (the engine asked about most of them already) and a symlink is followed
        by the engine's resolver on the same answers (the same walk as ``os.path.realpath``:
        ``..`` after a link goes to the target's parent, a missing component ends it); a
        symlink loop, or other facts, take ``lstat`` and ``os.path.realpath`` as before."""
        cache = self._real_dirs
        hit = cache.get(path)
        if hit is not None:
            return hit
        readlink = self._readlink
        if readlink is None:
            readlink = self._local_readlink()
        # the longest prefix already resolved
        cut = len(path)
        prefix = ""
        while True:
            cut = path.rfind("/", 0, cut)
            if cut <= 0:
                prefix = "/"
                real = "/"
                rest = path[1:]
                break
            prefix = path[:cut]
            real = cache.get(prefix)  # type: ignore[assignment]
            if real is not None:
                rest = path[cut + 1:]
                break
        current = prefix.rstrip("/")
        head = real.rstrip("/")
        for name in rest.split("/"):
            if not name:
                continue
            current = current + "/" + name
            joined = head + "/" + name
            if readlink:
                if readlink(joined) is not None:
                    physical, status = resolver.resolve(joined, readlink)
                    joined = physical if status == "ok" else _os_realpath(joined)
            else:
                try:
                    if stat.S_ISLNK(os.lstat(joined).st_mode):
                        joined = os.path.realpath(joined)
                except (OSError, ValueError):
                    pass
            real = joined
            head = joined.rstrip("/")
            cache[current] = real
        cache[path] = real
        return real

    def working_directories(self) -> tuple[str, ...]:
        if self._working is None:
            found: dict[str, None] = {}
            for absolute in self._spelled_working():
                found.setdefault(self.realpath(absolute), None)
            self._working = tuple(found)
        return self._working

    def _spelled_working(self) -> tuple[str, ...]:
        found = self._spelled
        if found is None:
            found = self._spelled = _spelled_working(self.context)
        return found

    def inside(self, path: str) -> bool:
        """Is ``path`` (absolute, normalised), symlinks resolved, inside a working directory?"""
        if path in (self._spelled or self._spelled_working()):
            return True  # spelled as a working directory: it resolves to one (no question)
        real = self._real_dirs.get(path) or self.realpath(path)
        dirs = self._inside_dirs
        if dirs is None:  # below(real, d) for each d: real is d or starts with "d/"
            working = self.working_directories()
            dirs = self._inside_dirs = (frozenset(working),
                                        tuple(d.rstrip("/") + "/" for d in working))
        return real in dirs[0] or real.startswith(dirs[1])

    def bases(self, command: Command) -> tuple[str, ...] | None:
        """Every directory ``command`` may run in, or None when that is unknown."""
        count = command.cds
        hit = self._bases.get(count, False)
        if hit is not False:
            return hit  # type: ignore[return-value]
        result = self._compute_bases(count)
        self._bases[count] = result
        return result

    def _compute_bases(self, count: int) -> tuple[str, ...] | None:
        if count == 0:
            return (self.cwd,)
        if count > MAX_CDS:
            return None
        words = self.analysis.cds[:count]
        if any(w.kind != LITERAL for w in words):
            return None
        places: dict[str, None] = {self.cwd: None}
        for size in range(1, count + 1):
            for chosen in combinations(words, size):
                where = self.cwd
                for w in chosen:
                    nxt = lexical(w, where, self.home)
                    if nxt is None:
                        return None
                    where = nxt
                places.setdefault(where, None)
        return tuple(places)

    def paths(self, word: Word, command: Command) -> list[str] | None:
        """The absolute paths ``word`` may name for ``command`` (None: unknown); the same
        list for every caller of this decision (not to be changed)."""
        value = word.value
        if value is None:
            return None
        key = (value, word.tilde, command.cds)
        found = self._paths.get(key, False)
        if found is False:
            found = self._paths[key] = self._compute_paths(word, command)
        return found  # type: ignore[return-value]

    def _compute_paths(self, word: Word, command: Command) -> list[str] | None:
        value = word.value or ""
        if value.startswith("/") or (word.tilde and value.startswith("~")):
            p = lexical(word, self.cwd, self.home)
            return [p] if p is not None else None
        bases = self.bases(command)
        if bases is None:
            return None
        out: list[str] = []
        for base in bases:
            p = lexical(word, base, self.home)
            if p is None:
                return None
            if p not in out:
                out.append(p)
        return out

    def read_places(self, command: Command, bases: tuple[str, ...] | None = None
                    ) -> Sequence[str] | None:
        """Where relative *reads* may resolve: the bases (``bases``: already looked up), plus
        the key directories when the caller gave no context (the engine's read-only fast
        path), since the cwd is then a guess."""
        if bases is None:
            bases = self.bases(command)
            if bases is None:
                return None
        if self.explicit:
            return bases
        return list(bases) + existing_key_dirs(self.home)


_SPELLED: dict[tuple[Any, ...], tuple[str, ...]] = {}


def _spelled_working(context: PermissionContext) -> tuple[str, ...]:
    """The context's working directories as absolute, normalised spellings (``~`` expanded;
    relative ones dropped), before any symlink is resolved. Pure string work: kept per
    process unless a ``~`` makes it depend on the environment."""
    raw = (context.cwd, context.project_root, *context.working_directories)
    found = _SPELLED.get(raw)
    if found is None:
        spelled: dict[str, None] = {}
        for d in raw:
            if not d:
                continue
            absolute = os.path.normpath(os.path.expanduser(d))
            if absolute.startswith("/"):
                spelled.setdefault(absolute, None)
        found = tuple(spelled)
        if not any(d and d.startswith("~") for d in raw):
            if len(_SPELLED) > 256:
                _SPELLED.clear()
            _SPELLED[raw] = found
    return found


_KEY_DIRS: dict[str, tuple[float, list[str]]] = {}


def existing_key_dirs(home: str) -> list[str]:
    """The key directories (~/.ssh …) that exist, re-checked at most every 2 seconds."""
    import time
    now = time.monotonic()
    hit = _KEY_DIRS.get(home)
    if hit is None or now - hit[0] > 2.0:
        dirs = [os.path.join(home, d) for d in _HOME_SECRET_DIRS]
        hit = _KEY_DIRS[home] = (now, [d for d in dirs if os.path.isdir(d)])
    return hit[1]


def home_secret_dirs(home: str) -> tuple[tuple[str, str], ...]:
    return _home_dirs(home)


@lru_cache(maxsize=64)
def _home_dirs(home: str) -> tuple[tuple[str, str], ...]:
    return tuple((d, os.path.join(home, d)) for d in _HOME_SECRET_DIRS)


def plan_for(command: object, context: PermissionContext | None) -> Plan:
    """The plan of ``command`` for this decision (made once per engine decision)."""
    memo = current_memo()
    if memo is None or not isinstance(command, str):
        return _new_plan(command, context)
    key = ("bash-plan", command, id(context))
    plan = memo.get(key)
    if plan is None:  # (_new_plan written out: made once per decision)
        plan = memo[key] = Plan(analyze(command), context_of(context),
                                isinstance(context, PermissionContext))
    return plan


def _new_plan(command: object, context: PermissionContext | None) -> Plan:
    return Plan(analyze(command), context_of(context), isinstance(context, PermissionContext))


def base_words(plan: Plan, command: Command) -> list[tuple[str, ...]] | None:
    """Every sequence of ``cd`` words that may have run before ``command`` (each ``cd`` may
    have failed, or been in a subshell), as the path resolver takes them; None when unknown
    (a ``cd`` decided at run time, or more than ``MAX_CDS`` of them)."""
    count = command.cds
    if count == 0:
        return [()]
    if count > MAX_CDS:
        return None
    words = plan.analysis.cds[:count]
    values: list[str] = []
    for w in words:
        if w.kind != LITERAL or w.value is None:
            return None
        values.append(_path_word(w))
    out: list[tuple[str, ...]] = [()]
    for size in range(1, count + 1):
        out.extend(combinations(values, size))
    return out


def _path_word(word: Word) -> str:
    """The word as the path resolver reads it: a ``~`` that bash does not expand (quoted)
    names a directory called ``~``."""
    value = word.value or ""
    if value.startswith("~") and not word.tilde:
        return "./" + value
    return value
