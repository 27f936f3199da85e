"""File-system facts for permission decisions, and the paths they resolve to.

The engine is synchronous and pure; what it needs to know about files (the cwd, the home, where
symlinks point, what exists, what a directory holds) comes from a *facts* object on the
PermissionContext (``context.facts``):

- :class:`LocalFacts` answers from ``os.*`` on this machine, lazily, each answer cached for the
  life of the object (one decision: the engine makes a fresh one per decision when the context
  carries none);
- :class:`PrefetchedFacts` answers from what a remote backend sent back in one round trip
  (``backend.path_facts(...)``, which runs :func:`resolver.gather_facts` over there); a question
  it has no answer for raises PathFactsMissing, which the engine turns into an ASK — a decision
  never falls back to the file system of the wrong machine.

Both feed the one resolver (:mod:`.resolver`): the same walk, on different answers.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from ..errors import PathFactsMissing
from . import resolver
from .memo import current_memo

__all__ = [
    "ResolvedPath",
    "PathFacts",
    "LocalFacts",
    "PrefetchedFacts",
    "facts_for",
    "facts_request",
    "working_dirs",
]


@dataclass(frozen=True)
class ResolvedPath:
    """What a path word names. ``physical``: symlinks resolved the way the kernel does (the file
    that would be used); ``lexical``: the absolute spelling tidied without resolving (``..``
    removes a component): rules are tried on both so neither a symlink nor a ``..`` dodges a
    deny. ``status``: "ok"; "loop" (too many symlinks: the kernel would refuse, we can't tell
    what was meant); "unknown" (a relative word after a ``cd`` whose target is not known at
    analysis time: ``physical`` and ``lexical`` are then the bare word)."""

    word: str
    physical: str
    lexical: str
    exists: bool = False
    is_dir: bool = False
    status: str = "ok"

    def __init__(self, word: str, physical: str, lexical: str, exists: bool = False,
                 is_dir: bool = False, status: str = "ok"):
        # what the generated __init__ does, written straight to the instance (a frozen
        # dataclass sets each field through object.__setattr__: ~2 us per resolved path)
        state = self.__dict__
        state["word"] = word
        state["physical"] = physical
        state["lexical"] = lexical
        state["exists"] = exists
        state["is_dir"] = is_dir
        state["status"] = status

    @property
    def known(self) -> bool:
        return self.status == "ok"

    @property
    def name(self) -> str:
        return self.physical.rstrip("/").rsplit("/", 1)[-1]


#: how many folders up :meth:`PathFacts._directory` looks for one walked already
_DIRECTORY_LEVELS = 4


class PathFacts:
    """The questions the resolver and the checks ask; subclasses answer them."""

    cwd: str
    home: str
    users: Mapping[str, str]

    def readlink(self, path: str) -> str | None:
        raise NotImplementedError

    def kind(self, path: str) -> str | None:
        """"dir", "file" (anything else that exists) or None (nothing there)."""
        raise NotImplementedError

    def listdir(self, path: str) -> list[str] | None:
        raise NotImplementedError

    # --- derived: the same for every kind of facts ------------------------------------------

    def locate(self, word: str, base: Sequence[str] | None = ()) -> str | None:
        return resolver.locate(word, None if base is None else tuple(base), self.cwd,
                               self.home, self.users, self.readlink)

    def _directory(self, absolute: str) -> tuple[str, int, str]:
        """The walk's state after the absolute directory ``absolute`` (:func:`resolver.walk`),
        kept for the life of these facts: the paths of one decision mostly sit in the same few
        directories (the cwd), which are then walked once."""
        cache: dict[str, tuple[str, int, str]] = self.__dict__.setdefault("_directories", {})
        found = cache.get(absolute)
        if found is None:
            # the walk is a fold over the components: from the state of the nearest folder
            # above that was walked already (the cwd, mostly), only the rest is walked
            start: tuple[str, int, str] | None = None
            cut = len(absolute)
            for _ in range(_DIRECTORY_LEVELS):
                cut = absolute.rfind("/", 0, cut)
                if cut <= 0:
                    break
                start = cache.get(absolute[:cut])
                if start is not None:
                    break
            if start is not None and start[2] == "ok":
                pending = resolver.split_components(absolute[cut:])
                pending.reverse()
                found = resolver.walk(start[0], start[1], pending, self.readlink)
            else:
                pending = resolver.split_components(absolute)
                pending.reverse()
                found = resolver.walk("", 0, pending, self.readlink)
            cache[absolute] = found
        return found

    def _resolve(self, absolute: str, follow_last: bool = True) -> tuple[str, str]:
        """:func:`resolver.resolve` of ``absolute``, its directory walked once per facts."""
        head, _, name = absolute.rpartition("/")
        if head and name and name != "." and name != "..":
            current, links, status = self._directory(head)
            if status == "ok":
                current, links, status = resolver.walk(current, links, [name], self.readlink,
                                                       follow_last)
                return current or "/", status
        return resolver.resolve(absolute, self.readlink, follow_last)

    def resolve_absolute(self, absolute: str, follow_last: bool = True,
                         word: str | None = None) -> ResolvedPath:
        physical, status = self._resolve(absolute, follow_last)
        kind = self.kind(physical)
        return ResolvedPath(word if word is not None else absolute, physical,
                            resolver.lexical_join("/", absolute), kind is not None,
                            kind == "dir", "ok" if status == "ok" else status)

    def resolve_word(self, word: str, base: Sequence[str] | None = (),
                     follow_last: bool = True) -> ResolvedPath:
        key = (word, None if base is None else tuple(base), follow_last)
        cache = self.__dict__.setdefault("_resolved", {})
        found = cache.get(key)
        if found is None:
            absolute = self.locate(word, base)
            if absolute is None:
                found = ResolvedPath(word, word, word, status="unknown")
            else:
                found = self.resolve_absolute(absolute, follow_last, word)
            cache[key] = found
        return found

    def expand(self, word: str, base: Sequence[str] | None = (),
               follow_last: bool = True) -> tuple[list[ResolvedPath], bool]:
        """A glob word's matches (bash's expansion, on these facts) and whether the list is
        complete; no match gives ``[]``."""
        absolute = self.locate(word, base)
        if absolute is None:
            return [], False
        matches, complete = resolver.expand_glob(absolute, self.readlink, self.listdir)
        return self._resolve_names(matches, follow_last, word), complete

    def _resolve_names(self, paths: list[str], follow_last: bool, word: str
                       ) -> list[ResolvedPath]:
        """:meth:`resolve_absolute` of each path (a glob's matches: names in a few folders,
        listed folder by folder), each folder's walk state and tidy spelling taken once for
        its names; the same questions in the same order."""
        readlink = self.readlink
        out = []
        folder: str | None = None
        state: tuple[str, int, str] = ("", 0, "")
        lexical_folder = ""
        for path in paths:
            head, _, name = path.rpartition("/")
            if not head or not name or name == "." or name == "..":
                out.append(self.resolve_absolute(path, follow_last, word))
                continue
            if head != folder:
                folder = head
                state = self._directory(head)
                lexical_folder = resolver.lexical_join("/", head).rstrip("/")
            current, links, status = state
            if status != "ok":
                out.append(self.resolve_absolute(path, follow_last, word))
                continue
            physical = current + "/" + name
            if follow_last and readlink(physical) is not None:  # a symlink: walk it
                physical, links, status = resolver.walk(current, links, [name], readlink)
                physical = physical or "/"
            kind = self.kind(physical)
            out.append(ResolvedPath(word, physical, lexical_folder + "/" + name,
                                    kind is not None, kind == "dir",
                                    "ok" if status == "ok" else status))
        return out

    def physical_dir(self, path: str) -> str:
        """A configured directory (absolute, ``~``, or relative to the cwd) resolved: its
        physical path only (no question about what is there)."""
        cache = self.__dict__.setdefault("_physical", {})
        found = cache.get(path)
        if found is None:
            absolute = self.locate(path, ())
            # (every component followed: the walk state of the directory itself)
            found = path if absolute is None else self._directory(absolute)[0] or "/"
            cache[path] = found
        return found


# os.path.abspath of absolute cwd spellings (no file-system fact: normpath of the text)
_ABSOLUTE: dict[str, str] = {}


class LocalFacts(PathFacts):
    """Facts of this machine's file system, asked lazily and cached by this object."""

    def __init__(self, cwd: str | None = None, home: str | None = None):
        if cwd and cwd.startswith("/"):
            # an absolute spelling tidied: a pure function of the text, kept per process
            absolute = _ABSOLUTE.get(cwd)
            if absolute is None:
                if len(_ABSOLUTE) > 256:
                    _ABSOLUTE.clear()
                absolute = _ABSOLUTE[cwd] = os.path.abspath(cwd)
            self.cwd = absolute
        else:
            self.cwd = os.path.abspath(cwd) if cwd else os.getcwd()
        self.home = home if home and home.startswith("/") else os.path.expanduser("~")
        self._links: dict[str, str | None] = {}
        self._kinds: dict[str, str | None] = {}
        # paths found missing (ENOENT, ENOTDIR): nothing below them exists either, so the
        # walk asks no more about them (the resolver goes component by component)
        self._absent: set[str] = set()
        self.users = _LocalUsers()

    def _below_absent(self, path: str) -> bool:
        if path.rsplit("/", 1)[0] in self._absent:
            self._absent.add(path)
            return True
        return False

    def readlink(self, path: str) -> str | None:
        links = self._links
        if path in links:  # (a miss is common: no KeyError raised and caught for it)
            return links[path]
        target: str | None = None
        if not (self._absent and self._below_absent(path)):
            # lstat, not readlink: the same one system call, no exception for the common
            # answer (not a link), and for a path that is no link it also says what
            # ``kind`` would (stat of a non-link is its lstat): one stat less per target
            try:
                mode = os.lstat(path).st_mode
            except (FileNotFoundError, NotADirectoryError):
                self._absent.add(path)
            except (OSError, ValueError):
                pass
            else:
                if stat.S_ISLNK(mode):
                    try:
                        target = os.readlink(path)
                    except (FileNotFoundError, NotADirectoryError):
                        self._absent.add(path)  # (removed in between: now missing)
                    except (OSError, ValueError):
                        pass
                else:
                    self._kinds.setdefault(path, "dir" if stat.S_ISDIR(mode) else "file")
        links[path] = target
        return target

    def kind(self, path: str) -> str | None:
        kinds = self._kinds
        if path in kinds:
            return kinds[path]
        absent = self._absent
        if absent and (path in absent or self._below_absent(path)):
            self._kinds[path] = None
            return None
        if path not in self._links:
            # lstat first when ``readlink`` has not asked yet: for a path that is no symlink
            # (nearly all) it answers both questions in the one system call a stat costs (the
            # source of ``mv a b`` is resolved without following, then read: one call, not
            # two); a symlink is then stat-ed as before
            try:
                mode = os.lstat(path).st_mode
            except (FileNotFoundError, NotADirectoryError):
                absent.add(path)
                self._links[path] = None
                kinds[path] = None
                return None
            except (OSError, ValueError):
                pass
            else:
                if not stat.S_ISLNK(mode):
                    self._links[path] = None
                    kinds[path] = "dir" if stat.S_ISDIR(mode) else "file"
                    return kinds[path]
        found: str | None
        try:
            found = "dir" if stat.S_ISDIR(os.stat(path).st_mode) else "file"
        except (OSError, ValueError):
            found = None
        kinds[path] = found
        return found

    def listdir(self, path: str) -> list[str] | None:
        # scandir, not listdir: the same one listing, and it says which entries are symlinks
        # and which are folders (the directory entry's type), so the glob matches a decision
        # resolves next need no lstat/stat each (``rm -rf *``: 14 system calls fewer); what
        # a symlink points to, or an entry whose type the listing does not give, is still
        # asked as before. Kept by this object only (one decision), like every other answer.
        try:
            with os.scandir(path) as listing:
                entries = []
                for entry in listing:
                    try:
                        kind = None if entry.is_symlink() else \
                            "dir" if entry.is_dir(follow_symlinks=False) else "file"
                    except OSError:
                        kind = None
                    entries.append((entry.name, kind))
        except (OSError, ValueError):
            return None
        entries.sort()
        del entries[resolver.MAX_LISTING:]
        folder = path.rstrip("/") + "/"
        links, kinds = self._links, self._kinds
        for name, kind in entries:
            if kind is not None:
                full = folder + name
                if full not in links:
                    links[full] = None  # (not a symlink)
                kinds.setdefault(full, kind)
        return [name for name, _ in entries]


class _LocalUsers(dict):
    """``~user`` expansion on this machine, on demand."""

    def get(self, name: str, default: Any = None) -> Any:
        if name not in self:
            expanded = os.path.expanduser("~" + name)
            self[name] = None if expanded.startswith("~") else expanded
        value = dict.get(self, name)
        return default if value is None else value


class PrefetchedFacts(PathFacts):
    """Facts a backend sent in one answer (:func:`resolver.gather_facts`)."""

    def __init__(self, answer: Mapping[str, Any], *, source: str = "the backend"):
        self.cwd = str(answer["cwd"])
        self.home = str(answer["home"])
        self.users = dict(answer.get("users") or {})
        self._links: dict[str, str | None] = dict(answer.get("links") or {})
        self._kinds: dict[str, str | None] = dict(answer.get("kinds") or {})
        self._listings: dict[str, list[str] | None] = dict(answer.get("listings") or {})
        self.source = source

    def _missing(self, what: str, path: str) -> PathFactsMissing:
        return PathFactsMissing(f"the permission check needs {what} {path!r} from {self.source}, "
                                f"which was not fetched before the decision")

    def readlink(self, path: str) -> str | None:
        try:
            return self._links[path]
        except KeyError:
            raise self._missing("the link status of", path) from None

    def kind(self, path: str) -> str | None:
        try:
            return self._kinds[path]
        except KeyError:
            raise self._missing("the kind of", path) from None

    def listdir(self, path: str) -> list[str] | None:
        try:
            return self._listings[path]
        except KeyError:
            raise self._missing("the listing of", path) from None


_MEMO_KEY = "agenttools.local_facts"


def facts_for(context: Any) -> PathFacts:
    """The facts of ``context``: its own (``context.facts``), else local facts for its cwd and
    home, shared by everything asked during one decision."""
    facts = getattr(context, "facts", None)
    if facts is not None:
        return facts
    memo = current_memo()
    cwd, home = context.cwd, context.home
    if memo is None:
        return LocalFacts(cwd, home)
    last = memo.get(_MEMO_KEY)  # (cwd, home, facts) last asked for: nearly always the one
    if last is not None and last[0] == cwd and last[1] == home:
        return last[2]
    key = (_MEMO_KEY, cwd, home)
    found = memo.get(key)
    if found is None:
        found = memo[key] = LocalFacts(cwd, home)
    memo[_MEMO_KEY] = (cwd, home, found)
    return found


def working_dirs(context: Any, facts: PathFacts | None = None) -> tuple[str, ...]:
    """The context's working directories resolved on its facts (the backend's file system;
    ``facts``: ``facts_for(context)`` when the caller has it already)."""
    if facts is None:
        facts = facts_for(context)
    raw = (context.cwd, context.project_root, *context.working_directories)
    cache = facts.__dict__.setdefault("_working_dirs", {})
    found = cache.get(raw)
    if found is None:
        seen: dict[str, None] = {}
        for d in raw:
            if d:
                seen.setdefault(facts.physical_dir(d), None)
        found = cache[raw] = tuple(seen)
    return found


def facts_request(effects: Iterable[Any], directories: Iterable[str] = ()) -> dict[str, Any]:
    """What to ask a backend for (``backend.path_facts(**request)``) so that every question the
    decision will ask about ``effects`` (PathEffect objects) and ``directories`` has its answer.
    """
    requests = []
    for e in effects:
        requests.append([e.path, None if e.base is None else list(e.base),
                         e.kind != "delete", bool(e.glob)])
    return {"requests": requests, "directories": sorted(set(directories))}
