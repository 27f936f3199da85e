"""The Python analysis behind RunCode and Inspect: pure, like ``shell/`` (no permission types,
no I/O, no Jupyter). ``analyze(code, names)`` says whether code is read-only and which files it
touches; ``describe(value)`` and ``safe_repr(value)`` look at live objects without running
their code; ``rules`` defines how ``RunCode(...)`` rule specifiers match."""

from .analyze import CodeAnalysis, Effect, Names, Reason, analyze, secret_word
from .kinds import TRUSTED, UNKNOWN, Kind
from .rules import allow_rule_matches, deny_rule_matches, glob_matcher
from .values import BuiltinNames, NamespaceNames, canonical_name, describe, safe_repr

__all__ = [
    "analyze", "CodeAnalysis", "Effect", "Reason", "Names", "secret_word",
    "Kind", "TRUSTED", "UNKNOWN",
    "describe", "safe_repr", "canonical_name", "NamespaceNames", "BuiltinNames",
    "allow_rule_matches", "deny_rule_matches", "glob_matcher",
]
