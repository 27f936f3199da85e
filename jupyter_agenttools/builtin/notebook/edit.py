"""NotebookEdit: replace, insert or delete a cell (Claude Code's input shape).

When the notebook is open in JupyterLab with real-time collaboration, the edit goes into the
live shared document (the user sees it at once, their unsaved typing is kept); otherwise the
file is edited with nbformat, only if it did not change since NotebookRead read it, and written
atomically. Either way the notebook must have been read first, and a replaced or deleted cell
must still hold the source that was read.
"""

from __future__ import annotations

import os
from typing import Any, Mapping

from ...errors import ToolExecutionError
from ...tools.base import Tool, ToolChunk
from ...tools.redact import refuse_hidden_secret
from ..write import short_diff
from .common import NotebookPathMixin
from .nbfile import (
    cell_ids,
    cell_source,
    ensure_cell_ids,
    find_cell,
    new_cell,
    read_notebook,
    write_notebook,
)

__all__ = ["NotebookEdit", "EDIT_MODES", "CELL_TYPES"]

EDIT_MODES = ("replace", "insert", "delete")
CELL_TYPES = ("code", "markdown")


class NotebookEdit(NotebookPathMixin, Tool):
    name = "NotebookEdit"
    description = (
        "Change one cell of a Jupyter notebook: edit_mode 'replace' (default) sets the source "
        "of cell cell_id (a code cell's old outputs are cleared), 'insert' adds a new cell "
        "after cell_id (at the top when cell_id is omitted), 'delete' removes cell cell_id. "
        "cell_type ('code' or 'markdown') is the new cell's type (insert: default code; "
        "replace: changes the type). Without notebook_path it edits the notebook you run in. "
        "Read the notebook with NotebookRead first. The user sees the change at once when the "
        "notebook is open in JupyterLab. It does not run the cell.")
    input_schema = {
        "type": "object",
        "properties": {
            "notebook_path": {"type": "string", "minLength": 1,
                              "description": "The .ipynb file; default: your own notebook."},
            "cell_id": {"type": "string", "minLength": 1,
                        "description": "The cell to replace or delete, or to insert after."},
            "new_source": {"type": "string",
                           "description": "The new source of the cell (ignored by delete)."},
            "cell_type": {"type": "string", "enum": list(CELL_TYPES),
                          "description": "The type of the new or replaced cell."},
            "edit_mode": {"type": "string", "enum": list(EDIT_MODES), "default": "replace",
                          "description": "replace, insert or delete."},
        },
        "required": ["new_source"],
        "additionalProperties": False,
    }
    read_only = False
    concurrency_safe = False
    effect_kind = "write"

    def preview(self, tool_input: Mapping[str, Any], cwd: Any = None) -> str | None:
        """What the question card shows (``jupyter/explain.py: preview``): the cell's change as
        a unified diff, from the cell's source as NotebookRead last saw it."""
        try:
            path = self.resolve(self._path_of(tool_input))
        except ToolExecutionError:
            return None
        mode = tool_input.get("edit_mode") or "replace"
        cell_id = tool_input.get("cell_id")
        new = str(tool_input.get("new_source") or "")
        old = self.state.cells.get(path, {}).get(cell_id or "", "") if mode != "insert" else ""
        if mode == "delete":
            new = ""
        where = {"insert": f"new cell after {cell_id}" if cell_id else "new cell at the top",
                 "delete": f"delete cell {cell_id}"}.get(mode, f"cell {cell_id}")
        return short_diff(old, new, f"{os.path.basename(path)} ({where})")

    async def call(self, new_source: str, notebook_path: str | None = None,
                   cell_id: str | None = None, cell_type: str | None = None,
                   edit_mode: str = "replace") -> ToolChunk:
        if edit_mode not in EDIT_MODES:
            raise ToolExecutionError(f"edit_mode must be one of {', '.join(EDIT_MODES)}, got "
                                     f"{edit_mode!r}")
        if cell_type is not None and cell_type not in CELL_TYPES:
            raise ToolExecutionError(f"cell_type must be 'code' or 'markdown', got {cell_type!r}")
        if edit_mode in ("replace", "delete") and not cell_id:
            raise ToolExecutionError(f"edit_mode {edit_mode!r} needs the cell_id of the cell to "
                                     f"{edit_mode}.")
        refuse_hidden_secret(new_source, "the new source")
        path = self.resolve(notebook_path)
        physical = self.hold(notebook_path, path)
        if not self.state.was_read(path):
            raise ToolExecutionError(f"{path} has not been read yet. Read it with NotebookRead "
                                     f"first, then edit it.")
        known = self.state.cells.get(path, {})
        if edit_mode in ("replace", "delete") and cell_id not in known:
            raise ToolExecutionError(f"Cell {cell_id!r} of {path} has not been read (or was "
                                     f"changed by an edit since). Read it with NotebookRead "
                                     f"first.")
        request = {"edit_mode": edit_mode, "cell_id": cell_id, "new_source": new_source,
                   "cell_type": cell_type,
                   "expect_source": known.get(cell_id) if cell_id else None}
        live = await self.host.live_edit(path, request)
        if live is not None:
            return self._finish(path, request, live, live=True)
        return self._finish(path, request, self._edit_file(path, physical, request), live=False)

    def _edit_file(self, path: str, physical: str, request: dict[str, Any]) -> dict[str, Any]:
        expected = self.state.files.get(path)
        if expected is None:
            raise ToolExecutionError(
                f"{path} was read from JupyterLab's live document, which is not open any more; "
                f"read it again with NotebookRead before editing the file.")
        nb, st = read_notebook(path, physical)
        if st != expected:
            raise ToolExecutionError(
                f"{path} has changed on disk since you read it (someone or something else "
                f"modified it). Read it again with NotebookRead before you edit it, so their "
                f"change is not lost.")
        result = apply_edit(nb, request)
        ensure_cell_ids(nb)
        result["cell_id"] = str(nb["cells"][result["index"]].get("id")) \
            if request["edit_mode"] != "delete" else result["cell_id"]
        self.state.files[path] = write_notebook(path, nb, st, physical)
        return result

    def _finish(self, path: str, request: dict[str, Any], result: dict[str, Any], *,
                live: bool) -> ToolChunk:
        if result.get("error"):
            raise ToolExecutionError(str(result["error"]))
        mode = request["edit_mode"]
        cid = str(result.get("cell_id"))
        old, new = result.get("old_source", ""), result.get("new_source", "")
        known = self.state.cells.setdefault(path, {})
        if mode == "delete":
            known.pop(cid, None)
        else:
            known[cid] = new
        where = ("in the notebook open in JupyterLab (the user sees it now)" if live
                 else f"in {path}")
        kind = result.get("cell_type", "code")
        if mode == "insert":
            after = request.get("cell_id")
            pos = f"after cell {after}" if after else "at the top"
            text = f"Inserted a {kind} cell (id {cid}) {pos}, at index {result['index']}, {where}."
        elif mode == "delete":
            text = f"Deleted cell {cid} (was at index {result['index']}) {where}."
        else:
            text = f"Replaced the source of {kind} cell {cid} (index {result['index']}) {where}."
            if result.get("cleared_outputs"):
                text += " Its old outputs were cleared; it has not been run."
        return ToolChunk.text(text, metadata={
            "notebook_path": path, "cell_id": cid, "edit_mode": mode, "live": live,
            "index": result["index"], "diff": short_diff(old, new, f"{path}#{cid}")})


def apply_edit(nb: Any, request: dict[str, Any]) -> dict[str, Any]:
    """Apply ``request`` to an nbformat notebook in memory: the same rules as the live edit
    (``jupyter/notebook_handlers.py``). Raises ToolExecutionError for a stale cell."""
    ids = cell_ids(nb)
    mode = request["edit_mode"]
    cell_id = request.get("cell_id")
    source = request.get("new_source") or ""
    if mode == "insert":
        index = find_cell(ids, cell_id) + 1 if cell_id else 0
        kind = request.get("cell_type") or "code"
        nb["cells"].insert(index, new_cell(kind, source))
        return {"index": index, "cell_id": None, "cell_type": kind, "old_source": "",
                "new_source": source}
    index = find_cell(ids, str(cell_id))
    cell = nb["cells"][index]
    old = cell_source(cell)
    expect = request.get("expect_source")
    if expect is not None and old != expect:
        raise ToolExecutionError(
            f"Cell {cell_id} changed since you read it. Read it again with NotebookRead, then "
            f"redo the edit on its current source.")
    if mode == "delete":
        del nb["cells"][index]
        return {"index": index, "cell_id": ids[index], "cell_type": cell.get("cell_type"),
                "old_source": old, "new_source": ""}
    kind = request.get("cell_type") or cell.get("cell_type", "code")
    cleared = False
    if kind != cell.get("cell_type"):
        replacement = new_cell(kind, source)
        if cell.get("id"):
            replacement["id"] = cell["id"]
        nb["cells"][index] = replacement
        cleared = bool(cell.get("outputs"))
    else:
        cell["source"] = source
        if kind == "code":
            cleared = bool(cell.get("outputs"))
            cell["outputs"] = []
            cell["execution_count"] = None
    return {"index": index, "cell_id": ids[index], "cell_type": kind, "old_source": old,
            "new_source": source, "cleared_outputs": cleared}
