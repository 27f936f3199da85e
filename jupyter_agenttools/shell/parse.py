"""The names earlier code imported from ``shell.parse``: the analysis entry point and the
syntax records (the work is done in ``analysis.py`` and ``syntax.py``)."""

from __future__ import annotations

from .analysis import MAX_COMMAND_CHARS, ShellAnalysis, analyze
from .syntax import (
                     IN_CONDITION,
                     IN_FUNCTION,
                     IN_INNER,
                     IN_LOOP,
                     IN_SUBSHELL,
                     IN_SUBSTITUTION,
                     PARSER,
                     Command,
                     Heredoc,
                     Redirect,
)
from .words import Word

SimpleCommand = Command

__all__ = ["Word", "Redirect", "Heredoc", "Command", "SimpleCommand", "ShellAnalysis",
           "analyze", "MAX_COMMAND_CHARS", "IN_SUBSTITUTION", "IN_SUBSHELL", "IN_LOOP",
           "IN_FUNCTION", "IN_CONDITION", "IN_INNER", "PARSER"]
