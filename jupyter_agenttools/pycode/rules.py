"""How a ``RunCode(...)`` rule's specifier matches a piece of code.

The specifier is a glob (``fnmatch``: ``*`` any text, ``?`` one character, ``[...]`` a class)
over **dotted callee names**, never over the code's text (a text prefix such as ``df.head*``
would also match ``df.head(os.system("…"))``):

- an **allow** rule vouches for the calls it names: the code is analysed again with those
  calls counted as read-only (their results as library values). It matches when the code is
  then read-only, so every *other* part of the code must still be proven read-only:
  ``RunCode(model.predict)`` allows ``model.predict(X_test)`` but not
  ``model.predict(X); os.remove("x")`` nor ``x = model.predict(X)`` (an assignment), nor
  ``model.predict(X); open("/etc/hostname").read()`` (the files the code reads are checked
  as without the rule), nor ``sorted(lst, key=os.remove)`` for ``RunCode(sorted)`` (a function
  handed to the allowed call must be one library code may call). A name written through a
  module that is not a submodule (``os.path.os.system``) is not offered to a rule: only its
  real name (``posix.system``) is;
- a **deny** or **ask** rule matches when any dotted name the code mentions matches — as
  written (``os.system``) or resolved through imports and the notebook's variables
  (``from os import system as s`` → ``os.system``; ``np.save`` → ``numpy.save``).

Names are matched as written (``df.head``, ``model.predict``), resolved for functions and
modules (``numpy.mean``, ``posix.system`` for ``os.system``), and for methods of known library
values as ``family.method`` (``pandas.to_csv`` for ``df.to_csv(...)`` on any DataFrame).
Deny rules are a tripwire, not a sandbox: code can build a name at run time (``getattr`` with a
computed name, ``exec``), which is never read-only and so always asks, except in bypass mode.
"""

from __future__ import annotations

import fnmatch
from typing import Callable

from .analyze import CodeAnalysis, Names, analyze

__all__ = ["glob_matcher", "allow_rule_matches", "allow_rule_analysis", "deny_rule_matches"]


def glob_matcher(specifier: str) -> Callable[[str], bool]:
    spec = specifier.strip()

    def match(name: str) -> bool:
        return fnmatch.fnmatchcase(name, spec)

    return match


def allow_rule_matches(specifier: str, code: str, names: Names | None = None) -> bool:
    """The code is read-only once the calls the specifier names count as read-only (the
    tool also checks the files it reads: ``allow_rule_analysis``)."""
    return allow_rule_analysis(specifier, code, names).read_only


def allow_rule_analysis(specifier: str, code: str, names: Names | None = None) -> CodeAnalysis:
    """The analysis with the calls the specifier names counted as read-only."""
    return analyze(code, names, blessed=glob_matcher(specifier))


def deny_rule_matches(specifier: str, analysis: CodeAnalysis) -> bool:
    """Some dotted name the code mentions matches the specifier."""
    match = glob_matcher(specifier)
    return any(match(name) for name in analysis.references)
