"""Effects for permissions: what a tool call does to files, so rules apply by effect, across tools.

A tool describes its file-system effects with ``path_effects(tool_input, context) ->
Sequence[PathEffect]`` (the default, a tool without the hook, is "no effects": its own rules
and check decide alone). The engine then

- applies ``Read(...)`` rules to every read/search effect and ``Edit(...)``/``Write(...)`` rules
  (one family) to every write/delete/chmod effect, whatever tool reports it — deny and ask rules
  if *any* effect matches, allow rules (for tools whose effects describe the whole call,
  ``effects_complete = True``) only when *every* effect is covered;
- resolves every effect with the one path resolver (``facts.py``/``resolver.py``: kernel
  semantics, facts from the backend the tool runs on).

A bare family rule (``Read``, ``Edit`` without a specifier) names that tool only; a rule with a
path applies to every tool's effects. ``check_effect``/``check_effects`` are the file-tool
policy of one effect (secrets, working directories, sensitive targets), shared with the Bash
tool, which reports its effects from the shell analysis.
"""

from __future__ import annotations

import contextlib
import os
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping, Sequence

from .facts import LocalFacts, PathFacts, ResolvedPath, facts_for
from .memo import current_memo
from .paths import _check_read, _check_write
from .patterns import (
    compile_glob,
    is_name_pattern,
    pattern_globs,
    search_reaches,
    spellings,
    target_matches,
)
from .protected import DecisionPlaces, places_for
from .sensitive import runs_code_later_reason
from .tree_names import name_regexes, tree_holds_name
from .types import PermissionBehavior, PermissionDecision, PermissionRule

if TYPE_CHECKING:
    from ..tools.base import Tool
    from .types import PermissionContext

__all__ = [
    "PathEffect",
    "KINDS",
    "READ_KINDS",
    "WRITE_KINDS",
    "RULE_FAMILIES",
    "is_family_rule",
    "effects_of",
    "targets",
    "find_protected",
    "find_code_later",
    "effect_matches",
    "check_effect",
    "check_effects",
    "effect_safety",
    "covering_allow_rules",
    "CheckedCall",
    "checked_call",
    "checked_scope",
    "current_checked",
]

READ_KINDS = frozenset({"read", "search"})
#: "chmod": a change of permissions or owner (chmod, chown, chgrp): a write of the metadata
WRITE_KINDS = frozenset({"write", "delete", "chmod"})
KINDS = READ_KINDS | WRITE_KINDS

#: which rule names apply to which effect kinds (Edit and Write are one family)
RULE_FAMILIES: dict[str, frozenset[str]] = {"Read": READ_KINDS, "Edit": WRITE_KINDS,
                                            "Write": WRITE_KINDS}


@dataclass(frozen=True)
class PathEffect:
    """One file-system effect of a tool call.

    ``kind``: "read" (a file's content), "search" (a recursive read: Grep/Glob roots,
    ``grep -r``, ``find``: the path and everything below it), "write" (create or change),
    "delete" (remove or move away: acts on a final symlink itself), "chmod" (permissions or
    owner). ``path``: the word as written (relative, ``~``, or absolute). ``base``: the
    directory words a shell ``cd``'d through before it, applied in order to the cwd (``()``:
    none; ``None``: unknown at analysis time). ``glob``: the word is a pattern the shell expands
    (``*``, ``?``, ``[``). ``recursive``: the effect covers the whole tree below ``path``
    (``rm -r``, ``chmod -R``, ``find -delete``, ``cp -r``, ``tar c``). ``filtered``: the
    tool itself skips the names the ``Read`` deny and ask rules name while it searches (Grep,
    Glob: :attr:`CheckedCall.excluded_names`); a program run by Bash does not, so a name rule
    applies to its recursive reads when the tree holds such a name (``tree_names.py``)."""

    kind: str
    path: str
    base: tuple[str, ...] | None = ()
    glob: bool = False
    recursive: bool = False
    filtered: bool = False

    def __init__(self, kind: str, path: str, base: Sequence[str] | None = (),
                 glob: bool = False, recursive: bool = False, filtered: bool = False):
        # the generated __init__ plus the checks, written straight to the instance (a frozen
        # dataclass sets each field through object.__setattr__: ~2 us per effect)
        if kind not in KINDS:
            raise ValueError(f"a PathEffect kind is one of {sorted(KINDS)}, got {kind!r}")
        if not isinstance(path, str):
            raise ValueError(f"a PathEffect path is a string, got {type(path).__name__}")
        state = self.__dict__
        state["kind"] = kind
        state["path"] = path
        state["base"] = base if base is None or type(base) is tuple else tuple(base)
        state["glob"] = glob
        state["recursive"] = recursive
        state["filtered"] = filtered

    @property
    def family(self) -> str:
        """"Read" or "Edit": the rule family that applies to this effect."""
        return "Read" if self.kind in READ_KINDS else "Edit"

    @property
    def is_write(self) -> bool:
        return self.kind in WRITE_KINDS

    @property
    def reads_below(self) -> bool:
        """A read of the whole tree below ``path``: a search, or a recursive read
        (``cp -r``, ``tar c``)."""
        return self.kind == "search" or (self.kind == "read" and self.recursive)


def is_family_rule(rule: PermissionRule) -> bool:
    """``Read(spec)``, ``Edit(spec)``, ``Write(spec)``: applied by effect, to every tool."""
    return rule.specifier is not None and rule.tool in RULE_FAMILIES


def effects_of(tool: "Tool", tool_input: Mapping[str, Any], context: "PermissionContext"
               ) -> tuple[PathEffect, ...] | None:
    """The tool's effects for this call (None: the tool reports none), asked once per decision.

    A hook that raises (an input it cannot describe, such as a missing path) propagates: the
    engine turns it into an ASK naming the problem, never a guessed default path."""
    hook = getattr(tool, "path_effects", None)
    if hook is None:
        return None
    memo = current_memo()
    key = ("agenttools.effects", id(tool), id(tool_input))
    if memo is not None and key in memo:
        return memo[key][1]
    found = hook(tool_input, context)
    if found is not None:
        found = tuple(found)
        for e in found:
            if not isinstance(e, PathEffect):
                raise TypeError(f"{tool.name}.path_effects returned {e!r}, expected PathEffect")
    if memo is not None:
        memo[key] = (tool_input, found)  # the input is kept so its id cannot be reused
    return found


def targets(effect: PathEffect, context: "PermissionContext"
            ) -> tuple[list[ResolvedPath], bool]:
    """The paths an effect acts on, resolved, and whether that list is complete. A glob word
    gives its matches (bash's expansion, on the backend's facts) *and* the word itself (what
    runs when nothing matches); an expansion that could not be listed in full is incomplete."""
    found, complete = _targets(effect, facts_for(context))
    return list(found), complete


def _targets(effect: PathEffect, facts: PathFacts) -> tuple[list[ResolvedPath], bool]:
    """:func:`targets` on ``facts``, worked out once per facts object (one decision): the
    protected tier, the rules and the effect's own policy all go over the same targets. The
    list is shared: callers only read it."""
    follow = effect.kind != "delete"
    key = (effect.path, effect.base, effect.glob, follow)
    cache: dict[Any, tuple[list[ResolvedPath], bool]] = \
        facts.__dict__.setdefault("_targets", {})
    found = cache.get(key)
    if found is not None:
        return found
    literal = facts.resolve_word(effect.path, effect.base, follow)
    if not effect.glob:
        found = ([literal], literal.known)
    else:
        matches, complete = facts.expand(effect.path, effect.base, follow)
        found = ([literal, *matches], complete and literal.known)
    cache[key] = found
    return found


def find_protected(effects: Iterable[PathEffect], context: "PermissionContext"
                   ) -> tuple[PathEffect, ResolvedPath, str] | None:
    """The first effect that touches the protected tier (``protected.py``), with its target
    and reason."""
    places = None
    for effect in effects:
        if not effect.is_write:
            continue
        if places is None:
            places = places_for(context)
        kind, recursive = effect.kind, effect.recursive
        for target in _targets(effect, places.facts)[0]:
            reason = places.protected(kind, recursive, target)
            if reason is not None:
                return effect, target, reason
    return None


#: the effects that can make a file run code later: writing it, or making it executable (a
#: delete removes code, it does not plant any)
_PLANTING = frozenset({"write", "chmod"})


def find_code_later(effects: Iterable[PathEffect], context: "PermissionContext"
                    ) -> tuple[PathEffect, ResolvedPath, str] | None:
    """The first write or permission change of a file that runs code later
    (``sensitive.runs_code_later_reason``), resolved or as spelled, with its target and
    reason."""
    places = None
    for effect in effects:
        if effect.kind not in _PLANTING:
            continue
        if places is None:
            places = places_for(context)
        home = places.usable_home
        for target in _targets(effect, places.facts)[0]:
            if not target.known:
                continue
            reason = runs_code_later_reason(target.physical, home)
            if reason is None and target.lexical != target.physical:
                reason = runs_code_later_reason(target.lexical, home)
            if reason is not None:
                return effect, target, reason
    return None


# --- rules -----------------------------------------------------------------------------------


def effect_matches(rule: PermissionRule, effect: PathEffect,
                   context: "PermissionContext") -> bool:
    """Does the family rule ``rule`` apply to ``effect``? Deny and ask rules match if any target
    matches (resolved or as spelled, case ignored, a matched directory covers what is below it,
    a search also matches when it would traverse a path the rule names); an allow rule only
    when every target is known and matches narrowly."""
    family = RULE_FAMILIES.get(rule.tool)
    if family is None or rule.specifier is None or effect.kind not in family:
        return False
    broad = rule.behavior is not PermissionBehavior.ALLOW
    found, complete = targets(effect, context)
    below = effect.reads_below
    if not broad:
        if not complete:
            return False
        return all(target_matches(rule.specifier, t, context, broad=False,
                                  below=below) for t in found)
    names = None
    for t in found:
        if target_matches(rule.specifier, t, context, broad=True):
            return True
        if _hard_link_of(rule.specifier, t, context):
            return True
        if not below or not t.known:
            continue
        if search_reaches(rule.specifier, t, context):
            return True
        if not effect.filtered and t.is_dir and is_name_pattern(rule.specifier):
            # a file name anywhere: does the tree hold one (or may it)? (tree_names.py)
            if names is None:
                names = name_regexes(rule.specifier)
            if names and tree_holds_name(facts_for(context), t.physical, names) is not False:
                return True
    return False


_GLOB_CHARACTERS = frozenset("*?[{")


def _hard_link_of(pattern: str, target: ResolvedPath, context: "PermissionContext") -> bool:
    """Is ``target`` another name (a hard link) of the one file a deny or ask rule names
    concretely (``Read(secrets/token.txt)``: no wildcard, not a name anywhere)? Compared by
    device and inode, on this machine's file system only (remote facts carry no inodes), and
    only for a file with more than one name, so the common case costs one ``stat``."""
    if not target.known or not target.exists or target.is_dir or is_name_pattern(pattern) \
            or _GLOB_CHARACTERS.intersection(pattern) \
            or not isinstance(facts_for(context), LocalFacts):
        return False
    try:
        found = os.stat(target.physical)
    except (OSError, ValueError):
        return False
    if found.st_nlink < 2:
        return False
    try:
        named = pattern_globs(pattern, context, broad=True)
    except ValueError:
        return False
    for path in named:
        try:
            other = os.stat(path)
        except (OSError, ValueError):
            continue
        if (other.st_dev, other.st_ino) == (found.st_dev, found.st_ino):
            return True
    return False


def covering_allow_rules(rules: Iterable[PermissionRule], effects: Sequence[PathEffect],
                         context: "PermissionContext") -> list[PermissionRule] | None:
    """The allow rules that together cover every effect (one per effect), or None when one
    effect is covered by none of them."""
    rules = [r for r in rules if is_family_rule(r)]
    used: list[PermissionRule] = []
    for effect in effects:
        rule = next((r for r in rules if effect_matches(r, effect, context)), None)
        if rule is None:
            return None
        if rule not in used:
            used.append(rule)
    return used


# --- the per-effect policy (file tools, and Bash through its own decision) -------------------


def check_effect(effect: PathEffect, context: "PermissionContext",
                 tool_name: str = "Read") -> PermissionDecision:
    """What one effect alone would need: the file tools' policy (see ``paths.check_read`` and
    ``paths.check_write``), on the resolved targets; the strictest target decides."""
    return _check_effect(effect, places_for(context), tool_name, current_memo())


def _check_effect(effect: PathEffect, places: DecisionPlaces, tool_name: str,
                  memo: dict[Any, Any] | None) -> PermissionDecision:
    """:func:`check_effect` on the decision's places and memo (looked up once by the caller
    for all its effects)."""
    key = ("agenttools.check_effect", effect, tool_name, places.context.mode,
           id(places.facts))
    if memo is not None:
        known = memo.get(key)
        if known is not None:
            return known
    found, complete = _targets(effect, places.facts)
    kind = effect.kind
    if not complete and effect.glob:
        # the shell may expand the word to paths we did not see
        return PermissionDecision.ask(
            f"{tool_name}: cannot tell every file {effect.path!r} expands to", safety=True)
    if kind in READ_KINDS:
        decisions = [_check_read(t, places, tool_name, kind) for t in found]
    else:
        recursive = bool(effect.recursive)
        decisions = [_check_write(t, places, tool_name, kind, recursive) for t in found]
    result = strictest(decisions)
    if memo is not None:
        memo[key] = result
    return result


def effect_safety(effects: Sequence[PathEffect], context: "PermissionContext",
                  tool_name: str) -> PermissionDecision | None:
    """The strictest *safety* verdict the effects alone require (a DENY, or a safety ASK: a
    secret read, a write outside the working directories, a file that runs code later, a path
    that cannot be placed), or None. The engine applies it to every tool that reports effects,
    whatever its own check says; allow rules never silence it."""
    places, memo = places_for(context), current_memo()
    found = []
    for e in effects:
        d = _check_effect(e, places, tool_name, memo)
        if d.behavior is PermissionBehavior.DENY or d.is_safety_ask:
            found.append(d)
    return strictest(found) if found else None


def check_effects(effects: Sequence[PathEffect], context: "PermissionContext",
                  tool_name: str) -> PermissionDecision:
    """The strictest of the effects' decisions (an empty list: PASSTHROUGH)."""
    if not effects:
        return PermissionDecision.passthrough(f"{tool_name}: no file effects")
    places, memo = places_for(context), current_memo()
    return strictest([_check_effect(e, places, tool_name, memo) for e in effects])


# Combining per-effect checks, "no opinion" (PASSTHROUGH: rules and the fallback decide) is
# stricter than ALLOW: an allowed read next to a write that needs approval is not allowed.
_COMBINE_RANK = {PermissionBehavior.ALLOW: 0, PermissionBehavior.PASSTHROUGH: 1,
                 PermissionBehavior.ASK: 2, PermissionBehavior.DENY: 3}


def strictest(decisions: Sequence[PermissionDecision]) -> PermissionDecision:
    """The strictest decision (DENY > ASK > PASSTHROUGH > ALLOW); among equals a safety ASK wins
    over a plain one; suggestions of every ASK/PASSTHROUGH of that rank are kept together (one
    answer can cover them all)."""
    best = decisions[0]
    for d in decisions[1:]:
        rank, top = _COMBINE_RANK[d.behavior], _COMBINE_RANK[best.behavior]
        if rank > top or (rank == top and d.bypass_immune and not best.bypass_immune):
            best = d
    if best.behavior in (PermissionBehavior.ASK, PermissionBehavior.PASSTHROUGH) \
            and not best.bypass_immune:
        same = [d for d in decisions if d.behavior is best.behavior]
        if len(same) > 1:  # (one alone: its suggestions as they are, one rule at most)
            merged = PermissionDecision(best.behavior, best.message, best.reason,
                                        best.bypass_immune)
            merged.suggest_later(lambda: _merged_suggestions(same))  # when first read
            return merged
    return best


def _merged_suggestions(decisions: Sequence[PermissionDecision]) -> list[PermissionRule]:
    merged: list[PermissionRule] = []
    for d in decisions:
        merged.extend(r for r in d.suggestions if r not in merged)
    return merged


# --- what a decision checked, held for the call's execution -----------------------------------


@dataclass(frozen=True)
class CheckedCall:
    """What the decision of a file tool's call checked, so that the call does that and nothing
    else when it runs — maybe minutes later, after a question was answered:

    ``paths``: ``{(kind, word): physical path}`` of each effect as resolved for the decision; a
    tool whose word resolves elsewhere when it runs (a symbolic link created or changed in
    between) refuses to run. ``excluded_names``: the name patterns (``*.csv``, ``.env``,
    ``build/``) of the deny and ask ``Read`` rules: a search (Grep, Glob) of a folder is not
    refused because such files may be inside, so it must skip them — else ``deny
    Read(*.csv)`` would not stop a Grep of the project from printing the csv files."""

    paths: Mapping[tuple[str, str], str]
    excluded_names: tuple[str, ...] = ()

    def path_for(self, kind: str, word: str) -> str | None:
        return self.paths.get((kind, word))

    def excludes(self, path: str) -> bool:
        """Is the absolute ``path`` (or a folder above it) named by an excluded name pattern?
        Read as the deny rules read it: case ignored, a matched folder covers what is below."""
        return any(regex.match(path) for regex in self._excluders())

    def _excluders(self) -> list[Any]:
        found = self.__dict__.get("_regexes")
        if found is None:
            found = []
            for name in self.excluded_names:
                try:
                    found.append(compile_glob("/**/" + name.removeprefix("**/").rstrip("/"),
                                              True))
                except ValueError:
                    continue
            self.__dict__["_regexes"] = found
        return found


_CURRENT: ContextVar[CheckedCall | None] = ContextVar("agenttools_checked_call", default=None)


def checked_call(effects: Sequence[PathEffect], rules: Iterable[PermissionRule],
                 context: "PermissionContext") -> CheckedCall:
    """The :class:`CheckedCall` of a decision over ``effects`` (resolved on the decision's
    facts, already worked out by then) with the engine's ``rules``."""
    facts = facts_for(context)
    paths: dict[tuple[str, str], str] = {}
    for effect in effects:
        if effect.glob or effect.base:
            continue
        found, _ = _targets(effect, facts)
        if found and found[0].status == "ok":
            paths[(effect.kind, effect.path)] = found[0].physical
    names: list[str] = []
    if any(e.kind == "search" for e in effects):
        for rule in rules:
            if rule.behavior is PermissionBehavior.ALLOW or rule.tool != "Read" \
                    or rule.specifier is None or not is_name_pattern(rule.specifier):
                continue
            try:
                names.extend(n for n in spellings(rule.specifier) if n not in names)
            except ValueError:
                continue
    return CheckedCall(paths, tuple(names))


@contextlib.contextmanager
def checked_scope(decision: Any) -> Iterator[CheckedCall | None]:
    """Run a call under what its decision checked (``decision.checked``; None: nothing to
    hold it to, as for a tool called directly)."""
    checked = getattr(decision, "checked", None)
    token = _CURRENT.set(checked if isinstance(checked, CheckedCall) else None)
    try:
        yield _CURRENT.get()
    finally:
        _CURRENT.reset(token)


def current_checked() -> CheckedCall | None:
    """What the decision of the call now running checked (None: no decision is known)."""
    return _CURRENT.get()
