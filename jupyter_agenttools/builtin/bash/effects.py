"""The Bash tool's file effects for the engine (contract 2): every read, search, write, delete
and permission change of every command the analysis found — also those run by ``sudo``,
``find -exec``, ``sh -c`` … — with the ``cd`` words before it (one effect per directory the
command may be in; ``base=None`` when that is unknown).

The engine applies ``Read(...)`` rules to reads and searches and ``Edit(...)``/``Write(...)``
rules to writes, deletes and permission changes, and the protected tier to every write. A path
decided at run time (``cat $F``) has no effect here: the command is not read-only and asks.
Names and metadata (``ls``, ``stat``) count as reads, as for the file tools (Read rules
apply to listings, and the engine treats listing a secret directory like reading it); a
recursive listing (``find``) is a search. Possible reads (a path-looking argument of a program
the table does not know) count too: a deny rule then catches ``python x.py data/secret/a.csv``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...permission.effects import PathEffect
from ...permission.types import PermissionContext
from ...shell.effects import DELETE, LIST, MODE, READ, SEARCH, WRITE
from ...shell.words import DYNAMIC, GLOB
from .plan import Plan, base_words, plan_for

__all__ = ["path_effects", "effects_of_plan"]

_KINDS = {READ: "read", SEARCH: "search", WRITE: "write", DELETE: "delete", MODE: "chmod"}


# an effect's fields: kind, path, base, glob, recursive
_Key = tuple[str, str, "tuple[str, ...] | None", bool, bool]


def effects_of_plan(plan: Plan) -> tuple[PathEffect, ...]:
    seen: set[_Key] = set()
    out: list[PathEffect] = []  # each effect once, in the order first found
    for command in plan.with_paths:
        e = command.effects
        if e is None:
            continue
        bases: list[tuple[str, ...]] | None = None
        bases_known = False  # computed on first need
        for access in e.paths:
            if access.detail == "guess":
                continue  # any path-looking word, checked for keys only
            kind = _KINDS.get(access.kind)
            if kind is None:
                if access.kind != LIST:
                    continue  # `config`: where git reads its configuration (not a file rule)
                kind = "search" if access.recursive else "read"
            word = access.word
            value = word.value
            if value is None or word.kind == DYNAMIC or "\x00" in value:
                continue
            # the word as the path resolver reads it (plan._path_word)
            path = "./" + value if not word.tilde and value.startswith("~") else value
            if not path:
                continue
            if not bases_known:
                bases = _NO_CD if command.cds == 0 else base_words(plan, command)
                bases_known = True
            glob = word.kind == GLOB
            recursive = access.recursive
            key: _Key
            if path.startswith("/") or (word.tilde and path.startswith("~")) or bases is None:
                key = (kind, path, () if path.startswith(("/", "~")) else None, glob, recursive)
                if key not in seen:
                    seen.add(key)
                    out.append(PathEffect(*key))
            else:
                for base in bases:
                    key = (kind, path, base, glob, recursive)
                    if key not in seen:
                        seen.add(key)
                        out.append(PathEffect(*key))
    return tuple(out)


# base_words() of a command no `cd` came before
_NO_CD: list[tuple[str, ...]] = [()]


def path_effects(tool_input: Mapping[str, Any], context: PermissionContext | None
                 ) -> tuple[PathEffect, ...]:
    """The effects of a Bash call; a non-string command is an input error (ValueError)."""
    command = tool_input.get("command") if isinstance(tool_input, Mapping) else None
    if not isinstance(command, str):
        raise ValueError(f"Bash: expected the command as a string, got "
                         f"{type(command).__name__}")
    plan = plan_for(command, context)
    hit = plan.memo.get("path-effects")
    if hit is None:
        hit = plan.memo["path-effects"] = effects_of_plan(plan)
    return hit
