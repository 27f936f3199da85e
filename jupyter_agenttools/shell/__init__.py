"""Bash analysis: what a command does, as effects (pure: no permission types, no I/O).

``analyze(command)`` (analysis.py) parses once with tree-sitter-bash (or the linear fast
path for plain commands), walks the tree once (syntax.py) and describes every command with
its effects (effects.py) from the program table (programs/). The Bash tool's permission
decision (``builtin/bash``) resolves the paths and decides.
"""
