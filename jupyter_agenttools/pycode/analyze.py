"""``analyze(code)``: is a piece of Python read-only, and what files does it touch?

An allow-list over the ``ast``, in the spirit of the shell analysis: the code is read-only only
when every statement is an expression (or ``pass``), every node is of a kind walked here, every
call is a table entry whose checks pass (``tables.py``), and every object an operator, index,
format or repr touches is a library object (``kinds.py``). Anything else is not proven
read-only, with a reason naming the line and the construct. Never read-only, whatever the
types: assignment of any kind (``=``, ``+=``, ``:=``, ``del``, ``for``/``with`` targets),
imports, definitions, ``await``/``yield``, dunder names and attributes (``__builtins__``,
``x.__class__``), ``exec``/``eval``/``compile``/``__import__``, ``globals``/``locals``/``vars``,
``open`` in a write mode, unpickling, calls into ``os``/``subprocess``/``shutil``/``sys`` and the
network, names that look like credentials.

The analysis is pure: it reads the code and asks ``names`` (an oracle, see ``values.py``) what a
name stands for; it runs nothing. A second, simpler pass lists every dotted name the code
mentions (as written and resolved: ``np.save`` → ``numpy.save``) for deny and ask rules, and the
files written or deleted with a literal path, whether or not the code is read-only.

Where the parts are: ``findings.py`` (what an analysis reports), ``expressions.py`` (the walk
over statements and expressions), ``calls.py`` (calls and the checks table entries name),
``references.py`` (the second pass), ``nodes.py`` (small questions about ``ast`` nodes).
"""


from __future__ import annotations

import ast
from typing import Any, Callable

from .calls import Walker
from .findings import CodeAnalysis, Effect, Names, Reason, secret_word
from .references import MAX_POSSIBLE_WRITES, ReferenceCollector
from .values import BuiltinNames

__all__ = ["analyze", "CodeAnalysis", "Effect", "Reason", "Names", "secret_word",
           "MAX_CODE_CHARS"]

MAX_CODE_CHARS = 200_000


def analyze(code: str, names: Names | None = None, *,
            blessed: Callable[[str], bool] | None = None) -> CodeAnalysis:
    """Analyse ``code`` (already transformed from IPython syntax, if any). ``names`` answers
    what a name is (None: only built-ins are known); ``blessed(callee)`` is True for a call an
    allow rule covers (it then counts as read-only, its result as a library value)."""
    if not isinstance(code, str):
        return CodeAnalysis(str(code), False, [Reason(
            f"expected the code as a string, got {type(code).__name__}", 0, "")])
    if len(code) > MAX_CODE_CHARS:
        return CodeAnalysis(code, False, [Reason(
            f"the code is {len(code):,} characters long, more than the {MAX_CODE_CHARS:,} "
            f"the analysis reads", 0, "")])
    try:
        tree = ast.parse(code, mode="exec")
    except SyntaxError as exc:
        where = f"line {exc.lineno}" if exc.lineno else "somewhere"
        text = f"does not parse as Python ({exc.msg}, {where})"
        return CodeAnalysis(code, False, [Reason(text, exc.lineno or 0, "")],
                            syntax_error=text)
    except (ValueError, RecursionError, MemoryError) as exc:
        return CodeAnalysis(code, False, [Reason(
            f"cannot be parsed: {type(exc).__name__}: {exc}", 0, "")])
    walker = Walker(code, names or BuiltinNames(), blessed)
    collector = ReferenceCollector(walker)
    try:
        walker.module(tree)
        collector.visit(tree)
    except RecursionError:
        walker.fail(tree, "the code is nested too deeply to analyse")
    effects = unique(walker.effects + collector.effects)
    unchecked = 0
    if walker.reasons:  # not read-only: any path it names may be written
        possible = collector.possible_writes(effects)
        unchecked = max(0, len(possible) - MAX_POSSIBLE_WRITES)
        effects += possible[:MAX_POSSIBLE_WRITES]
    return CodeAnalysis(code, not walker.reasons, walker.reasons, effects,
                        unique(collector.references), unique(walker.blessed_used),
                        unchecked_paths=unchecked)


def unique(items: list[Any]) -> list[Any]:
    return list(dict.fromkeys(items))

