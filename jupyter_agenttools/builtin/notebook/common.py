"""What NotebookRead and NotebookEdit share: the notebook path (default: the agent's own
notebook) and the file tools' permission hooks (``FileToolMixin``): the call's one effect is a
read (NotebookRead) or a write (NotebookEdit) of the notebook file, so ``Read(...)`` and
``Edit(...)``/``Write(...)`` rules apply to it like to any file (``Edit(notebooks/**)`` covers
NotebookEdit), as do ``NotebookRead(...)``/``NotebookEdit(...)`` path rules, the secret and
sensitive paths, and accept_edits inside the working directories."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Mapping

from ...errors import ToolExecutionError
from ...permission.facts import LocalFacts
from ..read import FileToolMixin, check_input, hold_to_check
from .host import NotebookHost, NotebookState

if TYPE_CHECKING:
    from ...permission.effects import PathEffect
    from ...permission.types import PermissionContext

__all__ = ["NotebookPathMixin", "NO_NOTEBOOK"]

NO_NOTEBOOK = ("no notebook_path was given and this kernel does not know which notebook it "
               "belongs to; pass notebook_path")


class NotebookPathMixin(FileToolMixin):
    name: str
    rule_argument: str | None = "notebook_path"
    #: "read" or "write": what the call does to the notebook file, for rules and modes
    effect_kind = "read"
    #: the notebook file is all the call touches: Read/Edit allow rules may allow it
    effects_complete = True

    def __init__(self, host: NotebookHost | None = None, state: NotebookState | None = None):
        self.host = host if host is not None else NotebookHost()
        self.state = state if state is not None else NotebookState()

    def _path_of(self, tool_input: Mapping[str, Any],
                 context: "PermissionContext | None" = None) -> str | None:
        path = tool_input.get("notebook_path")
        if path is None or path == "":
            return self.host.notebook_path()
        return path if isinstance(path, str) else None

    def path_effects(self, tool_input: Mapping[str, Any],
                     context: "PermissionContext") -> list["PathEffect"]:
        from ...permission.effects import PathEffect

        path = self._path_of(tool_input, context)
        if path is None:
            raise ValueError(NO_NOTEBOOK)
        check_input(self, tool_input)  # an input the tool cannot run with is never allowed
        return [PathEffect(self.effect_kind, path)]

    def resolve(self, notebook_path: str | None) -> str:
        """The absolute path a call works on (relative paths start at the kernel's cwd)."""
        path = notebook_path or self.host.notebook_path()
        if not path:
            raise ToolExecutionError(NO_NOTEBOOK)
        path = os.path.join(self.host.cwd(), os.path.expanduser(path))
        if ".." in path.split("/"):
            # the kernel applies ".." after resolving what precedes it (``link/..`` is the
            # parent of the link's target), as the permission check did: a lexical normpath
            # could land outside the folder that was checked
            return LocalFacts(self.host.cwd()).resolve_word(path, (), False).physical
        return os.path.normpath(path)

    def hold(self, notebook_path: str | None, path: str) -> str:
        """The physical file behind ``path`` (what :meth:`resolve` gave), refused when it is
        not the one the call's permission decision checked (a link changed in between); the
        file I/O then opens that physical path verified."""
        word = notebook_path or self.host.notebook_path() or path
        physical = LocalFacts(self.host.cwd()).resolve_word(path, (), True).physical
        hold_to_check(self.name, self.effect_kind, word, physical)
        return physical

    def input_summary(self, tool_input: Mapping[str, Any], limit: int = 200) -> str:
        path = self._path_of(tool_input) or "(the agent's notebook)"
        extra = [f"{k}={tool_input[k]}" for k in ("cell_id", "edit_mode", "offset", "limit")
                 if tool_input.get(k) is not None]
        text = " ".join([path] + extra)
        return text if len(text) <= limit else text[: limit - 1] + "…"
