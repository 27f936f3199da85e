"""The protected tier: writes no mode lifts — DENY in every mode, bypass included.

What an agent must never change, whatever the rules and the mode say (each entry keeps its
reason; the engine applies this to the effects of every tool, before the deny rules):

- the agent's own settings and audit: any ``.agenttools/`` folder (project and local settings,
  the audit log), the user settings folder and the managed settings file — writing, moving or
  deleting them, or deleting a folder that holds them (an agent must not approve itself);
- disk devices (``dd of=/dev/sda`` destroys a disk below the file system);
- wholesale destruction or permission changes of ``/``, the home folder, system folders or a
  working directory's parents: deleting or moving them, a recursive write or a permission /
  owner change of them (``rm -rf ~``, ``chmod -R 000 /``, ``mv ~ /tmp/x``).

Files that *run code later* (shell start-up files, ``.git/hooks``, IDE tasks, Jupyter and
IPython start-up…) are the tier below: a safety ASK in every mode, bypass included (there the
engine asks before the tool check: ``modes.py``, ``code_later``); they are the ``later`` entries
of ``sensitive.py``'s write column (the one table of sensitive paths).

Used by the file tools now and by the Bash tool through its effects.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Iterable

from .facts import PathFacts, ResolvedPath, facts_for, working_dirs
from .locations import default_managed_file, default_user_dir, environment_key
from .patterns import compile_glob

if TYPE_CHECKING:
    from .types import PermissionContext

__all__ = ["ProtectedEntry", "PROTECTED", "SYSTEM_FOLDERS", "SYSTEM_TREES", "protected_reason",
           "location_words", "DecisionPlaces", "places_for"]


@dataclass(frozen=True)
class ProtectedEntry:
    pattern: str  # gitignore glob: "~/" the home, "/**/" anywhere, "/" absolute
    reason: str


PROTECTED: tuple[ProtectedEntry, ...] = (
    ProtectedEntry("/**/.agenttools", "the agent's own settings and audit log (.agenttools): an "
                   "agent must not change its own permissions or erase its record"),
    ProtectedEntry("~/.jupyter/agenttools", "the agent's user settings: an agent must not change "
                   "its own permissions"),
    ProtectedEntry("/etc/agenttools", "the agent's managed settings"),
    ProtectedEntry("/**/agenttools/settings*.json", "agenttools permission settings"),
    ProtectedEntry("/**/agenttools/managed-settings.json", "agenttools managed settings"),
    *(ProtectedEntry(f"/dev/{name}", "a disk device: writing it destroys the file systems on it")
      for name in ("sd*", "hd*", "vd*", "xvd*", "nvme*", "mmcblk*", "dm-*", "md*", "loop*",
                   "sr*", "disk/**", "mapper/**", "block/**", "nbd*", "zram*")),
    ProtectedEntry("/dev/mem", "physical memory"),
    ProtectedEntry("/dev/kmem", "kernel memory"),
    ProtectedEntry("/dev/port", "I/O ports"),
    ProtectedEntry("/proc/sys/**", "kernel parameters"),
    ProtectedEntry("/proc/sysrq-trigger", "reboots or halts the machine"),
    ProtectedEntry("/sys/firmware/**", "firmware variables (EFI)"),
    ProtectedEntry("/boot/**", "the boot loader and kernels"),
)

#: folders whose wholesale destruction or permission change is refused (the folder itself)
SYSTEM_FOLDERS: dict[str, str] = {
    "/": "the root of the file system",
    "/home": "every user's home",
    "/root": "the administrator's home",
    "/tmp": "the shared temporary folder",
    "/var": "system state, logs and databases",
    "/opt": "installed software",
    "/srv": "served data",
    "/mnt": "mount points",
    "/media": "mounted media",
    "/run": "runtime state of the running system",
    "/var/tmp": "the shared temporary folder",
    "/var/lib": "system databases",
    "/var/log": "system logs",
}

#: folders whose whole tree is refused too (``rm -rf /usr/lib``)
SYSTEM_TREES: dict[str, str] = {
    "/usr": "system programs and libraries",
    "/etc": "system configuration",
    "/bin": "system programs",
    "/sbin": "system programs",
    "/lib": "system libraries",
    "/lib32": "system libraries",
    "/lib64": "system libraries",
    "/libx32": "system libraries",
    "/boot": "boot files",
    "/dev": "device files",
    "/sys": "kernel interfaces",
    "/proc": "kernel interfaces",
    "/snap": "installed software",
}


@lru_cache(maxsize=64)
def _compiled(home: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    out = []
    for entry in PROTECTED:
        glob = home.rstrip("/") + entry.pattern[1:] if entry.pattern.startswith("~/") \
            else entry.pattern
        out.append((compile_glob(glob, True), entry.reason))
    return tuple(out)


@lru_cache(maxsize=64)
def _any_entry(home: str) -> re.Pattern[str] | None:
    """One regex matching what any entry of :data:`PROTECTED` matches (each is anchored at both
    ends, all with the same flags): most paths are in none, and one match is then enough."""
    entries = _compiled(home)
    flags = {regex.flags for regex, _ in entries}
    if len(flags) != 1:  # pragma: no cover - compile_glob gives every broad glob the same
        return None
    bodies = "|".join("(?:" + _GROUP.sub("(?:", regex.pattern) + ")" for regex, _ in entries)
    try:
        return re.compile(bodies, flags.pop())
    except re.error:  # pragma: no cover - each body compiled on its own
        return None


# every SYSTEM_TREES entry is a folder right below "/" (then no entry is below another, and
# a path is below one exactly when its first component is it)
_TREES_TOP_LEVEL = all(f.startswith("/") and f.count("/") == 1 and len(f) > 1
                       for f in SYSTEM_TREES)

# the named groups of pathspec's regexes (the same name in several entries)
_GROUP = re.compile(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>")


def _below(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


_LOCATIONS: dict[tuple[object, ...], list[tuple[str, str]]] = {}


def _location_words(context: "PermissionContext") -> list[tuple[str, str]]:
    """The settings locations (not resolved): from environment variables and the project root
    alone, so kept per process keyed by both (a changed variable is a new key)."""
    environment = environment_key()
    key = (environment, context.project_root)
    found = _LOCATIONS.get(key)
    if found is not None:
        return found
    try:
        user_dir: str | None = str(default_user_dir(environment))
    except Exception:  # no jupyter_core config dir: the ~/.jupyter entry still applies
        user_dir = None
    out = [(user_dir, "the agent's user settings: an agent must not change its own permissions"),
           (default_managed_file(environment), "the agent's managed settings")]
    if context.project_root:
        out.append((context.project_root.rstrip("/") + "/.agenttools",
                    "the project's agent settings and audit log (.agenttools)"))
    found = [(path, what) for path, what in out if path]
    if user_dir is not None:  # (a failure is retried next time, as before)
        if len(_LOCATIONS) > 64:  # a process that keeps changing its environment
            _LOCATIONS.clear()
        _LOCATIONS[key] = found
    return found


def location_words(context: "PermissionContext") -> list[str]:
    """The settings locations the protected tier resolves (for a remote backend's facts)."""
    return [path for path, _ in _location_words(context)]


def _settings_locations(context: "PermissionContext", facts: PathFacts
                        ) -> list[tuple[str, str]]:
    """The agent's settings and audit as this decision sees them, resolved on its facts
    (``facts_for(context)``, which the caller has)."""
    cache = facts.__dict__.setdefault("_settings_locations", {})
    key = context.project_root
    if key in cache:
        return cache[key]
    found = [(facts.physical_dir(path), what) for path, what in _location_words(context)]
    cache[key] = found
    return found


def _entry_reason(path: str, home: str) -> str | None:
    """The reason of the first :data:`PROTECTED` entry matching ``path``."""
    anywhere = _any_entry(home)
    if anywhere is not None and anywhere.match(path) is None:
        return None
    for regex, reason in _compiled(home):
        if regex.match(path):
            return reason
    return None


@lru_cache(maxsize=8192)
def _entries_reason(physical: str, lexical: str, home: str) -> str | None:
    """:func:`_entry_reason` of the resolved, then the unresolved spelling: a pure function of
    the strings (the table is constant), kept per process like the sensitive table's
    answers."""
    reason = _entry_reason(physical, home)
    if reason is None and lexical != physical:
        reason = _entry_reason(lexical, home)
    return reason


def usable_home(home: object) -> str:
    """``home`` when it is an absolute path, else this process's home (``~``)."""
    if isinstance(home, str) and home.startswith("/") and "\x00" not in home:
        return home
    return os.path.expanduser("~")


_VERBS = {"delete": "deleting or moving", "chmod": "changing the permissions of"}
_WRITE_KINDS = frozenset({"write", "delete", "chmod"})


class DecisionPlaces:
    """What the protected tier and the write policy know of one decision's surroundings: the
    facts (``facts_for(context)``), the home, and — each resolved on those facts when first
    needed, in the order the checks ask — the settings locations, the real home and the
    working directories; plus the tier's answer per target. One per facts object and context
    (:func:`places_for`): the targets of one decision (14 names of one glob, the source and
    destination of ``mv``) share it instead of each looking everything up again. Nothing here
    outlives the facts, which live for one decision (no file-system fact is kept longer)."""

    __slots__ = ("context", "facts", "home", "usable_home", "_locations", "_real_home", "_working",
                 "_answers", "_folders", "_location_names", "_home_names", "_working_names")

    def __init__(self, context: "PermissionContext", facts: PathFacts):
        self.context = context
        self.facts = facts
        self.home = facts.home
        self.usable_home = usable_home(self.home)  # (the secret table's home: paths.py)
        self._locations: list[tuple[str, str]] | None = None
        self._real_home: str | None = None
        self._working: tuple[str, ...] | None = None
        self._answers: dict[tuple[str, bool, str, str], str | None] = {}
        self._folders: dict[str, _Folder] = {}
        self._location_names: dict[str, frozenset[str]] | None = None
        self._home_names: dict[str, frozenset[str]] | None = None
        self._working_names: dict[str, frozenset[str]] | None = None

    def locations(self) -> list[tuple[str, str]]:
        found = self._locations
        if found is None:
            found = self._locations = _settings_locations(self.context, self.facts)
        return found

    def real_home(self) -> str:
        found = self._real_home
        if found is None:
            found = self._real_home = self.facts.physical_dir(self.home)
        return found

    def working(self) -> tuple[str, ...]:
        """``facts.working_dirs(context, facts)``."""
        found = self._working
        if found is None:
            found = self._working = working_dirs(self.context, self.facts)
        return found

    def location_names(self) -> dict[str, frozenset[str]]:
        found = self._location_names
        if found is None:
            found = self._location_names = _names_by_folder(
                [location for location, _ in self.locations()])
        return found

    def protected(self, kind: str, recursive: bool, target: ResolvedPath) -> str | None:
        """:func:`protected_reason` of ``target`` (asked twice per write of a decision: the
        tier itself, then the effect's own policy: the second time is a lookup)."""
        if kind not in _WRITE_KINDS or target.status != "ok":
            return None
        key = (kind, recursive, target.physical, target.lexical)
        answers = self._answers
        if key in answers:
            return answers[key]
        found = answers[key] = self._protected(kind, recursive, target.physical,
                                               target.lexical)
        return found

    def _protected(self, kind: str, recursive: bool, physical: str, lexical: str
                   ) -> str | None:
        reason = _entries_reason(physical, lexical, self.home)
        if reason is not None:
            return reason
        head, _, name = physical.rpartition("/")
        if _TREES_TOP_LEVEL and name and head and head[-1] != "/":
            folder = self._folders.get(head)
            if folder is None:  # a folder's first name: the full check (often the only one)
                self._folders[head] = _ONCE
            elif folder is _ONCE:
                folder = self._folders[head] = _Folder(head, self)
            if folder is not None and folder is not _ONCE and \
                    name not in folder.location_names:
                # below a settings location exactly when the folder is (the name is none)
                if folder.location is not None:
                    return folder.location
                if not (recursive or kind == "delete" or kind == "chmod"):
                    return None
                if name not in folder.system_names:
                    if folder.tree is not None:
                        verb = _VERBS.get(kind, "rewriting everything in")
                        return f"{verb} {physical}: {folder.tree}"
                    # (asked in the order the full check asks them: the real home first)
                    homes = self._home_names
                    if homes is None:
                        homes = self._home_names = _names_by_folder([self.real_home()])
                    if name not in homes.get(head, _NONE):
                        working = self._working_names
                        if working is None:
                            working = self._working_names = _names_by_folder(self.working())
                        if name not in working.get(head, _NONE):
                            return None
        return self._protected_in_full(kind, recursive, physical)

    def _protected_in_full(self, kind: str, recursive: bool, physical: str) -> str | None:
        for location, what in self.locations():
            if physical == location or physical.startswith(location.rstrip("/") + "/"):
                return what
        if not (recursive or kind == "delete" or kind == "chmod"):
            return None
        physical = physical.rstrip("/") or "/"
        verb = _VERBS.get(kind, "rewriting everything in")
        if physical in SYSTEM_FOLDERS:
            return f"{verb} {physical}: {SYSTEM_FOLDERS[physical]}"
        if _TREES_TOP_LEVEL:  # the tree a path is below is its first component: one lookup
            cut = physical.find("/", 1)
            tree = SYSTEM_TREES.get(physical if cut < 0 else physical[:cut])
            if tree is not None:
                return f"{verb} {physical}: {tree}"
        else:
            for folder, reason in SYSTEM_TREES.items():
                if _below(physical, folder):
                    return f"{verb} {physical}: {reason}"
        real_home = self.real_home()
        inside = physical.rstrip("/") + "/"  # (what is below the target starts with this)
        if physical == real_home or real_home.startswith(inside):
            return f"{verb} {physical}: the home folder"
        for d in self.working():
            if d != physical and d.startswith(inside):
                return f"{verb} {physical}: a parent of the working directory {d}"
        if kind == "delete" or recursive:
            for location, what in self.locations():
                if location == physical or location.startswith(inside):
                    return f"{verb} {physical} would remove {what}"
        return None


def _names_by_folder(paths: "Iterable[str]") -> dict[str, frozenset[str]]:
    """For every folder above one of ``paths`` (the root aside), the names in it that are one
    of them or hold one: ``{"/root": {".jupyter"}, "/root/.jupyter": {"agenttools"}}``."""
    found: dict[str, set[str]] = {}
    for path in paths:
        cut = path.find("/", 1)
        while cut != -1:
            found.setdefault(path[:cut], set()).add(path[cut + 1:].partition("/")[0])
            cut = path.find("/", cut + 1)
    return {folder: frozenset(names) for folder, names in found.items()}


_NONE: frozenset[str] = frozenset()

#: the names of each folder that are or hold a system folder (a pure table)
_SYSTEM_NAMES = _names_by_folder(SYSTEM_FOLDERS)


class _Folder:
    """What the protected tier says about every name in one folder (the physical parent of a
    target) but a few: ``location_names``, ``system_names`` and the names that are or hold the
    real home or a working directory (:meth:`DecisionPlaces._home_names`, ``_working_names``)
    must take the full check; for any other name the answer depends on the folder alone —
    below a settings location exactly when the folder is (``location``), in a system tree
    exactly when the folder is (``tree``), else nothing. The 14 names of ``rm -rf *`` then cost
    one folder and a few set lookups each."""

    __slots__ = ("location", "location_names", "system_names", "tree")

    def __init__(self, folder: str, places: "DecisionPlaces"):
        # the first location the folder is in ("/a" + "/" also starts with "/a/" + ...)
        inside = folder + "/"
        self.location = next((what for location, what in places.locations()
                              if inside.startswith(location.rstrip("/") + "/")), None)
        self.location_names = places.location_names().get(folder, _NONE)
        self.system_names = _SYSTEM_NAMES.get(folder, _NONE)
        cut = folder.find("/", 1)
        self.tree = SYSTEM_TREES.get(folder if cut < 0 else folder[:cut])


#: a folder seen once: its summary is made for its second name
_ONCE = _Folder.__new__(_Folder)


def places_for(context: "PermissionContext", facts: PathFacts | None = None
               ) -> DecisionPlaces:
    """The :class:`DecisionPlaces` of ``context`` on its facts (``facts_for(context)`` when the
    caller has not got them), made once per facts object and what the places read of the
    context (its mode, for the write policy, and its folders): another context on the same
    facts gets its own."""
    if facts is None:
        facts = facts_for(context)
    key = (context.mode, context.cwd, context.project_root, context.working_directories)
    kept = facts.__dict__.get("_places")
    if kept is not None and kept[0] == key:
        return kept[1]
    places = DecisionPlaces(context, facts)
    facts.__dict__["_places"] = (key, places)
    return places


def protected_reason(kind: str, recursive: bool, target: ResolvedPath,
                     context: "PermissionContext") -> str | None:
    """Why this write/delete/chmod of ``target`` is refused in every mode, or None."""
    if kind not in _WRITE_KINDS or not target.known:
        return None
    return places_for(context).protected(kind, recursive, target)
