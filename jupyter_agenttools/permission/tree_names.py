"""Does a folder hold, somewhere below it, a file a name rule names?

A ``Read(...)`` deny or ask rule whose pattern is a file name anywhere (``.env``, ``*.csv``,
``token.txt``) cannot be judged on the root of a recursive read: ``grep -r x .`` names no
file, yet prints every line of ``./secrets/token.txt``. The Grep and Glob tools skip such names
while they search (``effects.CheckedCall.excluded_names``); a program run by Bash (``grep -r``,
``rg``, ``git grep``, ``tar c``, ``cp -r``) does not, so for its recursive reads the engine
walks the tree on the decision's facts and the rule applies when a matching name is below:

- ``True``: a name below the root matches (or a symbolic link below it points to such a
  name): the rule applies (a deny rule DENYs, an ask rule ASKs);
- ``False``: the whole tree was seen and nothing matches: the rule does not apply;
- ``None``: the tree could not be seen in full (more than :data:`WALK_BUDGET` entries, a
  listing cut short, facts a remote backend did not send): the rule is read on its safe side
  and applies, as a deny rule applies to a glob it cannot expand in full — the reason says
  "may hold", and the Grep tool, which skips such files, is the way to search there.

Symbolic links to folders are followed (``grep -R``, ``rg -L``, ``find -L`` do), each real
folder once. Nothing is kept beyond the facts of one decision.
"""

from __future__ import annotations

import re
from typing import Sequence

from . import resolver
from .facts import PathFacts
from .patterns import compile_glob, spellings

__all__ = ["WALK_BUDGET", "name_regexes", "tree_holds_name"]

#: entries looked at per recursive read before the answer is "cannot tell" (a project's
#: sources are a few thousand; a tree with node_modules can be far more)
WALK_BUDGET = 20000


def name_regexes(pattern: str) -> list[re.Pattern[str]]:
    """Regexes matching a full path whose name (or a folder above it) ``pattern`` names, read
    as deny rules read it (case ignored); empty for a pattern that cannot be read."""
    found = []
    try:
        names = spellings(pattern)
    except ValueError:
        return []
    for name in names:
        try:
            found.append(compile_glob("/**/" + name.removeprefix("**/").rstrip("/"), True))
        except ValueError:
            continue
    return found


def tree_holds_name(facts: PathFacts, root: str, regexes: Sequence[re.Pattern[str]],
                    budget: int | None = None) -> bool | None:
    """Is a path strictly below the folder ``root`` (physical) matched by one of ``regexes``?
    See the module docstring for the three answers (``budget``: :data:`WALK_BUDGET`)."""
    if budget is None:
        budget = WALK_BUDGET
    cache: dict[tuple[str, tuple[str, ...]], bool | None] = \
        facts.__dict__.setdefault("_tree_names", {})
    key = (root, tuple(r.pattern for r in regexes))
    if key in cache:
        return cache[key]
    answer = cache[key] = _walk(facts, root, regexes, budget)
    return answer


def _matches(path: str, regexes: Sequence[re.Pattern[str]]) -> bool:
    return any(regex.match(path) for regex in regexes)


def _walk(facts: PathFacts, root: str, regexes: Sequence[re.Pattern[str]],
          budget: int) -> bool | None:
    seen: set[str] = set()
    folders = [root.rstrip("/") or "/"]
    count = 0
    try:
        while folders:
            folder = folders.pop()
            if folder in seen:
                continue
            seen.add(folder)
            names = facts.listdir(folder)
            if names is None:
                if folder == root:
                    return False  # not a folder (the root itself is judged as a path)
                continue  # unreadable: the program cannot read below it either
            if len(names) >= resolver.MAX_LISTING:  # (cut short)
                return None
            prefix = folder.rstrip("/") + "/"
            for name in names:
                count += 1
                if count > budget:
                    return None
                path = prefix + name
                if _matches(path, regexes):
                    return True
                target = facts.readlink(path)
                if target is not None:  # a link: what it reaches is read through it
                    resolved = facts.resolve_absolute(path)
                    if resolved.status != "ok":
                        continue
                    if _matches(resolved.physical, regexes):
                        return True
                    if facts.kind(resolved.physical) == "dir":
                        folders.append(resolved.physical)
                elif facts.kind(path) == "dir":
                    folders.append(path)
    except Exception:  # facts a remote backend did not send, an odd name: cannot tell
        return None
    return False
