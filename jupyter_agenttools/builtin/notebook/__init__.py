"""The notebook tools: NotebookRead, NotebookEdit, RunCode, Inspect (tool group ``notebook``).

They go through the same five gates, modes, rules and audit log as the built-in file and shell
tools. What they need from the kernel comes from a ``NotebookHost`` (``host.py``); the Jupyter
extension passes one that knows the kernel, its notebook and JupyterLab's live document.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .edit import NotebookEdit
from .host import NotebookHost, NotebookState
from .inspect_var import Inspect
from .read import NotebookRead
from .runcode import RunCode

if TYPE_CHECKING:
    from ...tools.base import Tool
    from ...tools.toolkit import ToolGroup

__all__ = ["NotebookRead", "NotebookEdit", "RunCode", "Inspect", "NotebookHost",
           "NotebookState", "notebook_tools", "notebook_group", "GROUP_NAME"]

GROUP_NAME = "notebook"
GROUP_DESCRIPTION = ("Tools for the notebook you run in: read its cells and outputs, edit "
                     "cells, run Python in the user's kernel, inspect a variable.")
GROUP_INSTRUCTIONS = (
    "You run inside a Jupyter notebook. NotebookRead (no arguments) shows its cells with ids "
    "and outputs and marks the cell that started you; read before you NotebookEdit. RunCode "
    "runs Python in the user's kernel, on the user's variables: prefer read-only code (it runs "
    "without a question); code that changes anything is shown to the user first. Inspect "
    "shows one variable without running code. NotebookEdit does not run cells.")


def notebook_tools(host: NotebookHost | None = None) -> list["Tool"]:
    """One instance of each notebook tool on ``host`` (None: a plain-Python host); the read
    and edit tools share what was read, so an edit can check nothing changed since."""
    host = host if host is not None else NotebookHost()
    state = NotebookState()
    return [NotebookRead(host, state), NotebookEdit(host, state), RunCode(host), Inspect(host)]


def notebook_group(active: bool = False) -> "ToolGroup":
    from ...tools.toolkit import ToolGroup

    return ToolGroup(GROUP_NAME, GROUP_DESCRIPTION, GROUP_INSTRUCTIONS, active=active)
