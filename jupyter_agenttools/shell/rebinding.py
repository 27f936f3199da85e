"""Words whose meaning an earlier command of the same text changes: ``~`` after ``HOME=``.

bash expands ``~``, ``~/x`` and ``$HOME`` with the value HOME has when the word is expanded.
``export HOME=/etc; rm -rf ~/x`` removes /etc/x, yet the word alone reads as the user's home.
When any command of the text may give HOME another value (an assignment or declaration,
``read``/``mapfile``/``printf -v``/``getopts`` into it, ``unset``, a ``for HOME in`` loop, a
``${HOME:=…}`` default, a name reference to it, or same-shell code nobody can read: ``source``,
``eval`` of a run-time string, a declaration of a run-time name), every path spelled with a
home ``~`` keeps its plain reading (the assignment may not run, may sit in a subshell, or come
after the word) and gains two more: the same access *decided at run time* (never allowed, a
safety question) and, for each literal value HOME is given, the path under that value (so
``HOME=/etc; rm -rf ~`` meets the protected tier in every mode). A ``cd`` to ``~`` (or a bare
``cd``) then goes to a directory decided at run time.

Additive on purpose: a reading is only ever added, so no text can lose a finding by adding an
assignment to HOME after the word (``rm -rf ~; HOME=/x`` is still the home directory).
"""

from __future__ import annotations

import re

from .effects import Access
from .syntax import Command
from .words import DYNAMIC, GLOB, LITERAL, Word

__all__ = ["home_rebinding", "apply_home_rebinding", "apply_assigned_values", "MAX_VALUES",
           "TooManyValues"]

# builtins that store into the variables their (non-option) words name
_STORES = frozenset({"read", "mapfile", "readarray", "getopts"})
# same-shell code the analysis cannot read (any variable may change)
_OPAQUE_SAME_SHELL = frozenset({"source", "."})
# `for HOME in`, `select HOME in`, `${HOME:=x}` / `${HOME=x}`: bindings the records don't show
_TEXT_BINDING = re.compile(r"\b(?:for|select)[ \t]+HOME\b|\$\{HOME:?=")


def _binds_home(name_and_rest: str) -> bool:
    """``HOME``, ``HOME=x``, ``HOME+=x``, ``HOME[0]=x`` (also a name reference's target)."""
    return name_and_rest == "HOME" or name_and_rest.startswith(("HOME=", "HOME+=", "HOME["))


def _command_binding(cmd: Command, values: list[str]) -> bool:
    """Whether ``cmd`` may change HOME; the literal values it gives are appended."""
    found = False
    for name, value in cmd.assignments:
        if name == "HOME" or name.startswith("HOME["):
            found = True
            if value.kind == LITERAL and value.value:
                values.append(value.value)
        elif value.value == "HOME" and cmd.kind == "declaration":
            found = True  # `declare -n r=HOME`: assigning r assigns HOME
    argv = cmd.argv
    if not argv or argv[0].kind != LITERAL:
        return found
    name = argv[0].value or ""
    words = argv[1:]
    if cmd.kind in ("declaration", "unset") or name in _STORES:
        for word in words:
            if word.kind == DYNAMIC:
                return True  # `declare "$n=/etc"`, `read $n`: any name
            spelled = word.value or ""
            if not spelled.startswith("-") and _binds_home(spelled):
                return True
    elif name == "printf":
        for k, word in enumerate(words):
            spelled = word.value or ""
            if spelled == "-v" and k + 1 < len(words):
                target = words[k + 1]
                if target.kind == DYNAMIC or _binds_home(target.value or ""):
                    return True
            elif spelled.startswith("-v") and _binds_home(spelled[2:]):
                return True
    elif name in _OPAQUE_SAME_SHELL:
        return True
    effects = cmd.effects
    if effects is not None and any(r.runner == "eval" and r.source is None
                                   for r in effects.runs):
        return True  # eval of a string decided at run time
    return found


def home_rebinding(text: str, records: list[Command]) -> list[str] | None:
    """None when no command of ``text`` may change HOME, else the literal values it may be
    given (possibly none)."""
    values: list[str] = []
    found = bool(_TEXT_BINDING.search(text)) if "HOME" in text else False
    for cmd in records:
        if _command_binding(cmd, values):
            found = True
    return values if found else None


def _home_tilde(word: Word) -> bool:
    value = word.value
    return word.tilde and value is not None and (value == "~" or value.startswith("~/"))


def apply_home_rebinding(records: list[Command], values: list[str]) -> bool:
    """Add the run-time and the assigned readings of every home ``~`` path (module docstring);
    whether a command had one."""
    changed = False
    for cmd in records:
        effects = cmd.effects
        if effects is None:
            continue
        if effects.cwd is not None and _home_tilde(effects.cwd):
            effects.cwd = Word(effects.cwd.text, None)
            effects.no("changes to the home directory while HOME is assigned in the command")
            changed = True
        added: list[Access] = []
        for access in effects.paths:
            word = access.word
            if not _home_tilde(word):
                continue
            rest = (word.value or "")[1:]
            added.append(_like(access, Word(word.text, None)))
            for value in values:
                spelled = value.rstrip("/") + rest if rest else value
                added.append(_like(access, Word(spelled, spelled, tilde=False)))
        if added:
            effects.paths[:0] = added  # the first finding names the path: the likelier one
            effects.no(f"'~' is decided at run time: HOME is assigned in the command "
                       f"({added[0].word.text[:40]})")
            changed = True
    return changed


def _like(access: Access, word: Word) -> Access:
    return Access(access.kind, word, recursive=access.recursive, hidden=access.hidden,
                  follow=access.follow, detail=access.detail)


# a path word that is one variable and a plain rest: `$X`, `"${X}"/y`, `${X:-/d}/*` (quotes
# removed first); the rest has no quote, escape or expansion of its own
_ONE_VARIABLE = re.compile(r"\$(?:([A-Za-z_][A-Za-z0-9_]*|[1-9])"
                           r"|\{([A-Za-z_][A-Za-z0-9_]*|[1-9])(?:(:?-)([A-Za-z0-9_./,:+@%=~-]*))?\})"
                           r"((?:/[A-Za-z0-9_./,:+@%=*?-]*)?)\Z")


# `for NAME in WORDS;` / newline: the values a loop gives NAME (at most 200 characters of
# words are looked at from each `for`: linear)
_FOR_LOOP = re.compile(r"\bfor[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]+in[ \t]"
                       r"([^;\n&|()<>`$\\{}]{0,200})[;\n]")
_PLAIN_VALUE = re.compile(r"[A-Za-z0-9_./~,:+@%=*?-]+\Z")


def _loop_values(text: str, values: dict[str, list[tuple[str, bool]]]) -> None:
    for match in _FOR_LOOP.finditer(text):
        for token in match.group(2).split():
            quoted = token[:1] in ("'", '"') and len(token) > 1 and token[-1] == token[0]
            value = token[1:-1] if quoted else token
            if _PLAIN_VALUE.match(value):
                values.setdefault(match.group(1), []).append(
                    (value, not quoted and value.startswith("~")))


# distinct values of one variable followed (more: the command is too complex to analyse)
MAX_VALUES = 64


class TooManyValues(Exception):
    """A variable is given more than MAX_VALUES distinct values."""


# a function definition: `name() {`, `function name {` (the names calls are looked for)
_FUNCTION = re.compile(r"\bfunction[ \t]+([A-Za-z_][A-Za-z0-9_:.-]*)"
                       r"|([A-Za-z_][A-Za-z0-9_:.-]*)[ \t]*\([ \t]*\)")


def _positional_values(records: list[Command], text: str,
                       values: dict[str, list[tuple[str, bool]]]) -> None:
    """``$1`` … ``$9``: the words ``set -- a b`` and every call of a function the text defines
    (``f() { rm -rf "$1"; }; f /etc``) give them."""
    functions = {m.group(1) or m.group(2) for m in _FUNCTION.finditer(text)} \
        if "(" in text or "function" in text else set()
    for cmd in records:
        argv = cmd.argv
        if not argv or argv[0].kind != LITERAL:
            continue
        name = argv[0].value
        if name == "set" and len(argv) > 1 and argv[1].value == "--":
            given = argv[2:11]
        elif name in functions:
            given = argv[1:10]
        else:
            continue
        for position, word in enumerate(given, 1):
            if word.kind == LITERAL and word.value is not None:
                values.setdefault(str(position), []).append((word.value, word.tilde))


def apply_assigned_values(records: list[Command], text: str = "") -> bool:
    """``X=/etc; rm -rf $X``: a path word made of one variable is decided at run time; when
    the command gives that variable literal values (an assignment, ``for X in /etc /usr``,
    ``set -- /etc`` or a call of a function it defines for ``$1``) or the word a literal
    default (``${X:-/}``), each is one more reading of the path, added beside the run-time
    one (so the protected tier meets ``rm -rf /etc`` in every mode). Whether one was added."""
    values: dict[str, list[tuple[str, bool]]] = {}
    for cmd in records:
        for name, value in cmd.assignments:
            if value.kind == LITERAL and value.value is not None:
                # (bash expands a leading `~` of an assignment's value: `P=~/x`)
                values.setdefault(name, []).append((value.value, value.tilde))
    if "for" in text:
        _loop_values(text, values)
    _positional_values(records, text, values)
    for name, found in values.items():
        values[name] = list(dict.fromkeys(found))
    changed = False
    for cmd in records:
        effects = cmd.effects
        if effects is None or not effects.paths:
            continue
        added: list[Access] = []
        for access in effects.paths:
            word = access.word
            if word.kind != DYNAMIC or "$" not in word.text:
                continue
            for spelled, tilde in _readings(word.text, values):
                kind = GLOB if any(c in spelled for c in "*?[") else LITERAL
                added.append(_like(access, Word(spelled, spelled, kind, tilde=tilde)))
        if added:
            effects.paths.extend(added)
            changed = True
    return changed


def _readings(text: str, values: dict[str, list[tuple[str, bool]]]
              ) -> list[tuple[str, bool]]:
    """The paths ``text`` may name by the values (and whether a leading ``~`` of each is
    expanded)."""
    if any(c in text for c in "'\\`"):
        return []
    match = _ONE_VARIABLE.match(text.replace('"', ""))
    if match is None:
        return []
    name = match.group(1) or match.group(2)
    found = list(values.get(name, ()))
    if len(found) > MAX_VALUES:  # (only for a variable a path is made of)
        raise TooManyValues(f"more than {MAX_VALUES} values given to {name}")
    if match.group(3):  # `${X:-default}`, `${X-default}`: a `~` is expanded unquoted only
        default = match.group(4) or ""
        found.append((default, default.startswith("~") and '"' not in text))
    rest = match.group(5) or ""
    out: list[tuple[str, bool]] = []
    for value, tilde in dict.fromkeys(found):
        spelled = (value.rstrip("/") + rest if rest and value else value + rest)
        reading = (spelled, tilde and spelled.startswith("~"))
        if spelled and "\n" not in spelled and reading not in out:
            out.append(reading)
    return out
