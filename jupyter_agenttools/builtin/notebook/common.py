"""What NotebookRead and NotebookEdit share: the notebook path (default: the agent's own
notebook) and the path-based permission hooks, delegated to ``permission.paths`` like the file
tools' (``NotebookEdit(notebooks/**)``, ``Read(...)``/``Edit(...)`` through path effects)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Mapping

from ...errors import ToolExecutionError
from .host import NotebookHost, NotebookState

if TYPE_CHECKING:
    from ...permission.types import PermissionContext, PermissionRule

__all__ = ["NotebookPathMixin", "NO_NOTEBOOK"]

NO_NOTEBOOK = ("no notebook_path was given and this kernel does not know which notebook it "
               "belongs to; pass notebook_path")


class NotebookPathMixin:
    name: str
    rule_argument: str | None = "notebook_path"
    #: "read" or "write": what the call does to the notebook file, for rules and modes
    effect_kind = "read"

    def __init__(self, host: NotebookHost | None = None, state: NotebookState | None = None):
        self.host = host if host is not None else NotebookHost()
        self.state = state if state is not None else NotebookState()

    def _path_of(self, tool_input: Mapping[str, Any],
                 context: "PermissionContext | None" = None) -> str | None:
        path = tool_input.get("notebook_path")
        if path is None or path == "":
            return self.host.notebook_path()
        return path if isinstance(path, str) else None

    def resolve(self, notebook_path: str | None) -> str:
        """The absolute path a call works on (relative paths start at the kernel's cwd)."""
        path = notebook_path or self.host.notebook_path()
        if not path:
            raise ToolExecutionError(NO_NOTEBOOK)
        path = os.path.expanduser(path)
        return os.path.normpath(os.path.join(self.host.cwd(), path))

    def input_summary(self, tool_input: Mapping[str, Any], limit: int = 200) -> str:
        path = self._path_of(tool_input) or "(the agent's notebook)"
        extra = [f"{k}={tool_input[k]}" for k in ("cell_id", "edit_mode", "offset", "limit")
                 if tool_input.get(k) is not None]
        text = " ".join([path] + extra)
        return text if len(text) <= limit else text[: limit - 1] + "…"

    # -- permission hooks (delegated to permission.paths, like the file tools) -------------
    def match_rule(self, rule: "PermissionRule", tool_input: Mapping[str, Any],
                   context: "PermissionContext") -> bool:
        from ...permission.paths import match_path_rule

        path = self._path_of(tool_input, context)
        if rule.specifier is None:
            return True
        return path is not None and bool(match_path_rule(rule, path, context))

    def suggest_rules(self, tool_input: Mapping[str, Any],
                      context: "PermissionContext") -> list["PermissionRule"]:
        from ...permission.paths import suggest_path_rules

        path = self._path_of(tool_input, context)
        if path is None:
            return []
        return list(suggest_path_rules(self.name, path, context))

    def path_effects(self, tool_input: Mapping[str, Any],
                     context: "PermissionContext") -> list[Any]:
        """The notebook file is read (NotebookRead) or written (NotebookEdit): Read(...) and
        Edit(...) rules apply to it as to any file."""
        path = self._path_of(tool_input, context)
        if path is None:
            return []
        from ...permission.effects import PathEffect  # type: ignore[import-not-found]

        return [PathEffect(self.effect_kind, path)]
