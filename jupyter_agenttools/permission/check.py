"""``check()``: one permission decision without an agent, a kernel or any execution.

Built-in tools are found by name (Bash, Read, Write, Edit, Glob, Grep) and imported only when
first needed; any Tool object is accepted as well. Only the tools' permission hooks run:
nothing is executed.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Iterable

from .. import builtin  # loads no tool: each tool's module loads on first use of its name
from ..errors import ToolNotFound
from .engine import PermissionEngine
from .types import PermissionContext, PermissionDecision, PermissionMode, PermissionRule

if TYPE_CHECKING:
    from ..tools.base import Tool

__all__ = ["check", "prepare", "builtin_tool", "builtin_names"]

#: the built-in tools made so far (for permission decisions: nothing is executed with them)
_BUILTIN: dict[str, "Tool"] = {}
_BUILTIN_LOCK = threading.Lock()
#: the names ``builtin.notebook.notebook_tools()`` makes (known here without loading the Python
#: analysis; tests/hooks/test_hook_imports.py checks the two agree)
_NOTEBOOK_TOOLS = ("NotebookRead", "NotebookEdit", "RunCode", "Inspect")


def _make(name: str) -> "Tool | None":
    """Make the built-in tool ``name``, loading only its own modules: ``agenttools hook`` runs
    before every call of another agent, and a Read must not pay for the shell analysis."""
    if name in builtin.TOOL_MODULES:
        return getattr(builtin, name)()
    if name in _NOTEBOOK_TOOLS:
        from ..builtin.notebook import notebook_tools  # lazy: the Python analysis

        # made together: NotebookRead and NotebookEdit share what was read; outside a kernel
        # they know no variables (RunCode: built-ins only)
        made = {t.name: t for t in notebook_tools()}
        for other, tool in made.items():
            _BUILTIN.setdefault(other, tool)
        return made.get(name)
    return None


def _builtins() -> dict[str, "Tool"]:
    """Every built-in tool (all their modules load)."""
    for name in (*builtin.TOOL_MODULES, *_NOTEBOOK_TOOLS):
        builtin_tool(name)
    return dict(_BUILTIN)


def builtin_names() -> list[str]:
    return sorted(_builtins())


def builtin_tool(name: str) -> "Tool | None":
    """The built-in tool called ``name``, or None."""
    found = _BUILTIN.get(name)
    if found is not None:
        return found
    with _BUILTIN_LOCK:
        found = _BUILTIN.get(name)
        if found is None:
            try:
                found = _make(name)
            except ImportError:
                return None
            if found is not None:
                _BUILTIN[name] = found
    return found


def _resolve(tool: "Tool | str") -> "Tool":
    if isinstance(tool, str):
        found = builtin_tool(tool)
        if found is None:
            raise ToolNotFound(tool, builtin_names())
        return found
    if not callable(getattr(tool, "check_permissions", None)) or not isinstance(
            getattr(tool, "name", None), str):
        raise TypeError(f"expected a tool name or a Tool object, got {tool!r}")
    return tool


def prepare(tool: "Tool | str", *, mode: PermissionMode | str | None = None,
            rules: Mapping[str, Iterable[Any]] | Iterable[PermissionRule] | None = None,
            cwd: str | os.PathLike[str] | None = None,
            working_directories: Iterable[str | os.PathLike[str]] = ()
            ) -> tuple[PermissionEngine, "Tool"]:
    """The engine and tool ``check`` would use (rules parsed and their examples checked)."""
    t = _resolve(tool)
    base = os.path.abspath(os.path.expanduser(os.fspath(cwd))) if cwd is not None \
        else os.getcwd()
    dirs = tuple(os.path.normpath(os.path.join(base, os.path.expanduser(os.fspath(d))))
                 for d in working_directories)
    def resolver(name: str) -> "Tool | None":
        return t if name == t.name else builtin_tool(name)

    # None: the mode nobody chose (default, or what the managed lock-down allows); a mode the
    # managed settings forbid raises ModeUnavailable here
    engine = PermissionEngine(mode=None if mode is None else PermissionMode.parse(mode),
                              rules=rules or (), tools=resolver,
                              context=PermissionContext(cwd=base, working_directories=dirs))
    engine.context = engine.context.with_(mode=engine.mode)
    return engine, t


def check(tool: "Tool | str", tool_input: Mapping[str, Any], *,
          mode: PermissionMode | str | None = None,
          rules: Mapping[str, Iterable[Any]] | Iterable[PermissionRule] | None = None,
          cwd: str | os.PathLike[str] | None = None,
          working_directories: Iterable[str | os.PathLike[str]] = ()) -> PermissionDecision:
    """Decide one call. ``rules``: ``{"allow": [...], "ask": [...], "deny": [...]}`` (strings
    or ``{"rule", "examples", "counter_examples"}``) or a list of PermissionRule. ``mode``: None
    is ``default`` (or the mode the managed lock-down allows).

    The input goes through gate 2 first, as in an agent: one that does not fit the tool's schema
    (a missing ``file_path``, a pattern that is not a string) raises ToolArgumentsError instead
    of being judged — the check never guesses a default path."""
    if not isinstance(tool_input, Mapping):
        raise TypeError(f"expected the tool input as a dict, got {type(tool_input).__name__}")
    engine, t = prepare(tool, mode=mode, rules=rules, cwd=cwd,
                        working_directories=working_directories)
    from ..gates.arguments import validate_input

    validate_input(t, dict(tool_input))
    return engine.decide(t, tool_input)
