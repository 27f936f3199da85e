"""Bash rules matched per command (SPEC §5.3).

``Bash(git commit:*)`` is a word prefix, ``Bash(npm run test *)`` a wildcard over the joined
argv (a trailing `` *`` also matches nothing), ``Bash(make)`` exact.

- **Allow** rules must cover *every* command written in the text (``$( )`` and subshell
  commands included): each is matched by a rule, or is itself read-only and reads no secret.
  The argv matched is the command's after transparent wrappers (``timeout 60 git commit``);
  the program must be written exactly as in the rule (``/usr/bin/git`` is not ``git``),
  assignments must be harmless, a word decided at run time never matches a literal, and an
  opaque or over-budget command is never approved. Several allow rules may cover a compound
  command together (:func:`match_allow_rules`).
- **Deny/ask** rules match if *any* command matches, also those run by other commands
  (``sudo``, ``xargs``, ``find -exec``, ``sh -c``, ``eval`` …) and every suffix after a
  wrapper whose options were not understood; program paths are compared by basename, git's
  global options are skipped, assignments ignored, a word decided at run time matches
  anything.

Rules are indexed by their first word: a deny rule whose program the command never names
(and no program is decided at run time) is rejected without looking at the commands.
Wildcards are matched by a linear scan (no regular expression over the command).
"""

from __future__ import annotations

from ...permission.types import PermissionBehavior, PermissionContext, PermissionRule
from ...shell.analysis import analyze
from ...shell.effects import ARGV
from ...shell.environment import harmless_assignment
from ...shell.syntax import Command
from ...shell.words import GLOB, LITERAL
from .plan import Plan, plan_for
from .secrets import secrets_of

__all__ = ["Spec", "spec_of", "match_rule", "match_allow_rules", "effective", "allow_hit",
           "words_match", "normal_text"]


class Spec:
    """A parsed rule specifier: ``kind`` prefix / exact / wildcard, its words, and for a
    wildcard the literal pieces between the ``*``."""

    __slots__ = ("kind", "words", "pieces", "optional_tail", "first")

    def __init__(self, kind: str, words: tuple[str, ...], pieces: tuple[str, ...] = (),
                 optional_tail: bool = False) -> None:
        self.kind = kind
        self.words = words
        self.pieces = pieces
        self.optional_tail = optional_tail
        first = words[0] if words else ""
        self.first = _basename(first) if "*" not in first else ""


_SPECS: dict[str, Spec] = {}


def normal_text(text: str) -> str:
    """A command's text with runs of blanks (spaces, tabs, newlines) made one space: how a
    rule for a whole compound command is compared."""
    return " ".join(text.split())


def spec_of(text: str) -> Spec:
    hit = _SPECS.get(text)
    if hit is not None:
        return hit
    t = normal_text(text)
    whole = _whole_command(t)
    if whole:
        spec = Spec("whole", (t,))
        if len(_SPECS) < 4096:
            _SPECS[text] = spec
        return spec
    if t.endswith(":*"):
        spec = Spec("prefix", _spec_words(t[:-2]))
    elif "*" in t:
        optional = t.endswith(" *")
        body = t[:-2] if optional else t
        spec = Spec("wildcard", tuple(t.split()), tuple(body.split("*")), optional)
    else:
        spec = Spec("exact", _spec_words(t))
    if len(_SPECS) < 4096:
        _SPECS[text] = spec
    return spec


def _whole_command(text: str) -> bool:
    """A specifier naming several commands (``git add . && git commit -m x``): the rule is
    the exact whole command (wildcards and ``:*`` are not read in it)."""
    if "*" in text:
        return False
    a = analyze(text)
    return not a.unanalyzable and len(a.commands) > 1


def _spec_words(text: str) -> tuple[str, ...]:
    a = analyze(text)
    if not a.unanalyzable and len(a.commands) == 1 and a.commands[0].kind == "command":
        values = [w.value for w in a.commands[0].argv]
        if values and all(v is not None for v in values):
            return tuple(values)  # type: ignore[arg-type]
    return tuple(text.split())


def _basename(value: str) -> str:
    return value.rsplit("/", 1)[-1] if "/" in value else value


def _wildcard(pieces: tuple[str, ...], text: str) -> bool:
    """``text`` matches ``*``-separated literal ``pieces`` (greedy leftmost search is exact
    for patterns made of ``*`` only)."""
    first = pieces[0]
    last = pieces[-1]
    if len(pieces) == 1:
        return text == first
    if not text.startswith(first) or len(text) < len(first) + len(last):
        return False
    if not text.endswith(last):
        return False
    position = len(first)
    end = len(text) - len(last)
    for piece in pieces[1:-1]:
        k = text.find(piece, position, end)
        if k < 0:
            return False
        position = k + len(piece)
    return True


def words_match(spec: Spec, values: list[str | None], allow: bool) -> bool:
    """Does one argv (values; None for a word decided at run time) match the spec?"""
    if not values:
        return False
    words = spec.words
    if not allow:
        head = values[0]
        values = [_basename(head) if head is not None else None] + values[1:]
        words = (_basename(words[0]),) + words[1:] if words else words
    if spec.kind != "wildcard":
        if spec.kind == "exact" and len(values) != len(words):
            return False
        if len(values) < len(words):
            return False
        for v, w in zip(values, words):
            if v is None:
                if allow:
                    return False
                continue  # decided at run time: it might be exactly this word
            if v != w:
                return False
        return True
    pieces = spec.pieces
    if not allow:
        first, space, rest = pieces[0].partition(" ")
        pieces = (_basename(first) + space + rest,) + pieces[1:]
    if None in values:
        if allow:
            return False
        # a run-time word may be anything: the literal words before it must fit the rule's
        # literal start
        start = " ".join(values[:values.index(None)])  # type: ignore[arg-type]
        head = pieces[0]
        return start.startswith(head) or head.startswith(start)
    joined = " ".join(values)  # type: ignore[arg-type]
    if spec.optional_tail:
        return _wildcard(pieces, joined) or _wildcard(pieces[:-1] + (pieces[-1] + " ", ""),
                                                      joined)
    return _wildcard(pieces, joined)


# --- the command's argv as a rule sees it ---------------------------------------------------

def effective(plan: Plan, command: Command) -> Command:
    """The command after transparent wrappers (``timeout 60 git commit`` → ``git commit``)."""
    records = plan.analysis.records
    current = command
    for _ in range(16):
        e = current.effects
        if e is None or len(e.runs) != 1:
            return current
        run = e.runs[0]
        if run.how != ARGV or not run.transparent or not run.exact or not current.children:
            return current
        current = records[current.children[0]]
    return current


def _values(command: Command) -> list[str | None]:
    return [w.value if w.kind == LITERAL else None for w in command.argv]


def allow_hit(plan: Plan, command: Command, specs: list[tuple[PermissionRule, Spec]]):
    """The rule approving one command, True when it needs none (read-only, no secret), None
    when none does. A rule naming the command approves it even if it reads a plain secret
    (a key or credential is a safety ASK before allow rules are consulted)."""
    if command.kind == "assignment":
        return True if all(harmless_assignment(n) for n, _ in command.assignments) else None
    if command.kind == "redirect":
        return True if command.read_only and not secrets_of(plan, command) else None
    inner = effective(plan, command)
    if all(harmless_assignment(n) for n, _ in command.assignments) and \
            all(harmless_assignment(n) for n, _ in inner.assignments):
        values = _values(inner)
        for rule, spec in specs:
            if words_match(spec, values, True):
                return rule
    if command.read_only and not _secret_below(plan, command):
        return True
    return None


def _secret_below(plan: Plan, command: Command) -> bool:
    records = plan.analysis.records
    todo = [command]
    seen = 0
    while todo and seen < 256:
        c = todo.pop()
        seen += 1
        if secrets_of(plan, c):
            return True
        todo.extend(records[k] for k in c.children)
    return False


def _approvable(plan: Plan) -> bool:
    a = plan.analysis
    return not (a.unanalyzable or a.opaque or a.too_complex or not a.written)


def match_allow_rules(rules, command: object,
                      context: PermissionContext | None = None) -> PermissionRule | None:
    """Several allow rules together: each command matched by at least one of them (or
    read-only). Returns the first rule used, or None (also when no rule was needed)."""
    try:
        rules = [r for r in rules if r.behavior is PermissionBehavior.ALLOW]
        for r in rules:
            if r.specifier is None:
                return r
        if not rules:
            return None
        plan = plan_for(command, context)
        if not _approvable(plan):
            return None
        specs = [(r, spec_of(r.specifier)) for r in rules]
        text = normal_text(command) if isinstance(command, str) else ""
        for r, spec in specs:
            if spec.kind == "whole" and spec.words[0] == text:
                return r
        specs = [(r, spec) for r, spec in specs if spec.kind != "whole"]
        used: PermissionRule | None = None
        for c in plan.analysis.commands:
            hit = allow_hit(plan, c, specs)
            if hit is None:
                return None
            if used is None and hit is not True:
                used = hit
        return used
    except Exception:
        return None


def _first_words(plan: Plan) -> tuple[frozenset[str], bool]:
    """The program names of every command (basenames) and whether one is decided at run
    time: the index deny rules are looked up in."""
    hit = plan.memo.get("first-words")
    if hit is None:
        names: set[str] = set()
        dynamic = False
        for c in plan.analysis.records:
            if not c.argv:
                continue
            w = c.argv[0]
            if w.kind != LITERAL:
                dynamic = True
                continue
            names.add(_basename(w.value or ""))
        hit = (frozenset(names), dynamic)
        plan.memo["first-words"] = hit
    return hit


# git options taking a separate value, before the sub-command
_GIT_GLOBAL_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace",
                               "--config-env", "--exec-path", "--super-prefix"})


def _deny_forms(values: list[str | None]) -> list[list[str | None]]:
    """argv as written, plus ``git -C . push`` seen as ``git push``."""
    forms = [values]
    name = _basename(values[0]) if values and values[0] else None
    if name == "git":
        i = 1
        while i < len(values) and (value := values[i]) is not None and value.startswith("-"):
            i += 2 if value in _GIT_GLOBAL_VALUE else 1
        if i > 1:
            forms.append(values[:1] + values[i:])
    return forms


def match_rule(rule: PermissionRule, command: object,
               context: PermissionContext | None = None) -> bool:
    allow = rule.behavior is PermissionBehavior.ALLOW
    if rule.specifier is None:
        return True
    spec = spec_of(rule.specifier)
    plan = plan_for(command, context)
    a = plan.analysis
    if spec.kind == "whole":
        # an exact compound command: the same text (blanks aside), analysable and not opaque
        return isinstance(command, str) and normal_text(command) == spec.words[0] and \
            (not allow or _approvable(plan))
    if a.unanalyzable or (a.too_complex and not allow):
        # the commands are unknown (or only partly known: the budget ran out): a deny or ask
        # rule matches when its program appears anywhere in the text
        if allow or not isinstance(command, str) or not spec.words:
            return False
        if _word_in_text(_basename(spec.words[0]), command):
            return True
        if a.unanalyzable:
            return False
    if allow:
        if not _approvable(plan):
            return False
        matched = False
        pair = [(rule, spec)]
        for c in a.commands:
            hit = allow_hit(plan, c, pair)
            if hit is None:
                return False
            matched = matched or hit is not True
        return matched
    names, dynamic = _first_words(plan)
    if spec.first and spec.first not in names and not dynamic:
        return False
    for c in a.records:
        if c.kind == "assignment" or not c.argv:
            continue
        values = [w.value if w.kind != GLOB else None for w in c.argv]
        if any(words_match(spec, form, False) for form in _deny_forms(values)):
            return True
    return False


def _word_in_text(word: str, text: str) -> bool:
    """``word`` appears in ``text`` delimited by non-word characters (linear)."""
    start = 0
    n = len(word)
    if not n:
        return False
    while True:
        k = text.find(word, start)
        if k < 0:
            return False
        before = text[k - 1] if k > 0 else " "
        after = text[k + n] if k + n < len(text) else " "
        if not (before.isalnum() or before in "_-") and not (after.isalnum() or after in "_-"):
            return True
        start = k + 1
