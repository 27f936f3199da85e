"""Builtins that store code or a program for later: ``trap``, ``alias`` and ``hash -p``.

``trap 'rm -rf ~' EXIT`` runs its first argument as shell code on exit (``DEBUG`` before every
command, ``ERR`` after a failure); ``alias ls='rm -rf ~'`` makes a later ``ls`` run that text
(when aliases are expanded: ``shopt -s expand_aliases``, an interactive shell);
``hash -p /bin/rm ls`` makes a later ``ls`` run ``/bin/rm``. The stored text is code the
command runs (analysed like ``eval``'s); which later commands an alias or ``hash -p`` changes is
the analysis' question (``rebound_names``).
"""

from __future__ import annotations

from ..effects import ARGV, CODE, SOURCE, Effects, Run
from ..words import DYNAMIC, LITERAL, Word

__all__ = ["HOOKS", "rebound_names"]

# trap's listing options: no code stored
_TRAP_LISTING = frozenset({"-l", "-p", "-lp", "-pl"})


def trap(argv: list[Word]) -> Effects:
    effects = Effects(False, "trap stores shell code run later (on exit, on an error, on a "
                             "signal or before every command)")
    words = argv[1:]
    while words and words[0].kind == LITERAL and (words[0].value or "") in _TRAP_LISTING:
        words = words[1:]
    if words and words[0].kind == LITERAL and words[0].value == "--":
        words = words[1:]
    if len(words) < 2:
        return effects  # a listing, or `trap SIG` (resets the signal)
    action = words[0]
    if action.kind == DYNAMIC:
        effects.runs.append(Run(CODE, "trap", language="sh"))
    elif action.value and action.value != "-":  # "" ignores the signal, "-" resets it
        effects.runs.append(Run(SOURCE, "trap", source=action.value, language="sh",
                                same_shell=True))
    return effects


def alias(argv: list[Word]) -> Effects:
    effects = Effects(False, "alias defines a name that later runs other code")
    for word in argv[1:]:
        if word.kind == DYNAMIC:
            effects.runs.append(Run(CODE, "alias", language="sh"))
            continue
        name, equals, value = (word.value or "").partition("=")
        if equals and value.strip():
            effects.runs.append(Run(SOURCE, "alias", source=value, language="sh",
                                    same_shell=True))
    return effects


def hash_(argv: list[Word]) -> Effects:
    return Effects(False, "hash changes which program a name runs")


HOOKS = {"trap": trap, "alias": alias, "hash": hash_}


def rebound_names(argv: list[Word]) -> list[tuple[str, str, bool]]:
    """The names ``argv`` (an ``alias`` or ``hash -p`` command) gives new meaning to, as
    (name, replacement, is_source): an alias' text, or the program ``hash -p`` names. A name
    decided at run time is ``*`` (any later command)."""
    if not argv or argv[0].kind != LITERAL:
        return []
    program = argv[0].value
    found: list[tuple[str, str, bool]] = []
    if program == "alias":
        for word in argv[1:]:
            if word.kind == DYNAMIC:
                found.append(("*", "", True))
                continue
            name, equals, value = (word.value or "").partition("=")
            if equals:
                found.append((name, value, True))
    elif program == "hash":
        words = argv[1:]
        k = 0
        while k < len(words):
            word = words[k]
            value = word.value or ""
            if word.kind == DYNAMIC:
                found.append(("*", "", False))
            elif value == "-p" and k + 1 < len(words):
                path = words[k + 1]
                rest = words[k + 2:]
                names = [w for w in rest if not (w.value or "").startswith("-")]
                if path.kind != LITERAL or any(w.kind != LITERAL for w in names):
                    found.append(("*", "", False))
                else:
                    found.extend((w.value or "", path.value or "", False) for w in names)
                break
            elif value.startswith("-p") and len(value) > 2:
                rest = words[k + 1:]
                if any(w.kind != LITERAL for w in rest):
                    found.append(("*", "", False))
                else:
                    found.extend((w.value or "", value[2:], False) for w in rest
                                 if not (w.value or "").startswith("-"))
                break
            k += 1
    return found


def rebound_run(name: str, replacement: str, is_source: bool, argv: list[Word],
                text: str) -> Run:
    """What a later command ``argv`` (spelled ``text``) runs once ``name`` is rebound."""
    if name == "*" or (is_source and not text.lstrip().startswith(argv[0].text)):
        return Run(CODE, "alias" if is_source else "hash", language="sh")
    if is_source:
        rest = text.lstrip()[len(argv[0].text):]
        return Run(SOURCE, "alias", source=replacement + rest, language="sh", same_shell=True)
    return Run(ARGV, "hash", argv=[Word(replacement, replacement)] + argv[1:])
