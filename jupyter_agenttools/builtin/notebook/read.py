"""NotebookRead: a notebook's cells with ids, types, sources and outputs (images as image
blocks), from the live document open in JupyterLab when there is one, else from the file."""

from __future__ import annotations

from ...errors import ToolExecutionError
from ...tools.base import Tool, ToolChunk, text_block
from ...tools.redact import hidden_note
from .common import NotebookPathMixin
from .nbfile import cell_ids, cell_source, find_cell, read_notebook, render_cells

__all__ = ["NotebookRead"]

DEFAULT_LIMIT = 50
MAX_LIMIT = 500
OUTPUT_BUDGET = 4000  # characters of one output before it is cut and offloaded


class NotebookRead(NotebookPathMixin, Tool):
    name = "NotebookRead"
    description = (
        "Read a Jupyter notebook: its cells with their ids, types, sources and outputs (text; "
        "images as images). Without notebook_path it reads the notebook you are running in, "
        "and marks the cell that started you. As open in JupyterLab when the user has it "
        "open (unsaved changes included), else from the file. Pass cell_id for one cell, or "
        "offset (0-based cell index) and limit (number of cells, default 50) for a range. "
        "Long outputs are cut; the full text is saved to a file you can Read. Read a notebook "
        "before you edit it with NotebookEdit.")
    input_schema = {
        "type": "object",
        "properties": {
            "notebook_path": {"type": "string", "minLength": 1,
                              "description": "The .ipynb file (absolute or relative to the "
                                             "working directory); default: your own notebook."},
            "cell_id": {"type": "string", "minLength": 1,
                        "description": "Read only this cell."},
            "offset": {"type": "integer", "minimum": 0,
                       "description": "Index of the first cell to read (0-based)."},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT,
                      "description": f"How many cells to read (default {DEFAULT_LIMIT})."},
        },
        "additionalProperties": False,
    }
    read_only = True
    concurrency_safe = True
    effect_kind = "read"

    async def call(self, notebook_path: str | None = None, cell_id: str | None = None,
                   offset: int | None = None, limit: int | None = None) -> ToolChunk:
        import nbformat

        path = self.resolve(notebook_path)
        physical = self.hold(notebook_path, path)
        live = await self.host.live_read(path)
        stat = None
        if live is not None:
            nb = nbformat.from_dict(live)
        else:
            nb, stat = read_notebook(path, physical)
        ids = cell_ids(nb)
        total = len(ids)
        if cell_id is not None:
            start = find_cell(ids, cell_id)
            stop = start + 1
        else:
            start = 0 if offset is None else int(offset)
            count = DEFAULT_LIMIT if limit is None else int(limit)
            if start < 0 or count < 1:
                raise ToolExecutionError(f"offset must be >= 0 and limit >= 1, got "
                                         f"offset={start}, limit={count}")
            if total and start >= total:
                raise ToolExecutionError(f"offset {start} is past the last cell: {path} has "
                                         f"{total} cells (indices 0-{total - 1}).")
            stop = min(total, start + count)
        active = self.host.active_cell_id()
        blocks, offloaded, hidden = render_cells(nb, ids, start, stop, active=active,
                                                 output_budget=OUTPUT_BUDGET,
                                                 offload_dir=self.host.offload_dir)
        where = ("the live document open in JupyterLab (unsaved changes included)"
                 if live is not None else "the file on disk")
        header = f"Notebook {path}: {total} cells, read from {where}.\n"
        if active is not None and active in ids:
            header += f"You were started from cell {active} (index {ids.index(active)}).\n"
        if total == 0:
            header += "The notebook has no cells.\n"
        footer = ""
        if hidden:
            footer += "\n" + hidden_note(hidden)
        if cell_id is None and stop < total:
            footer += (f"\n[Showing cells {start}-{stop - 1} of {total}. Call NotebookRead "
                       f"with offset={stop} to continue.]")
        self.state.remember(path, stat, {ids[i]: cell_source(nb["cells"][i])
                                         for i in range(start, stop)})
        if live is not None:
            self.state.cells.setdefault(path, {})
        content = [text_block(header)] + blocks + ([text_block(footer)] if footer else [])
        return ToolChunk(content, metadata={
            "notebook_path": path, "cells": total, "start": start, "stop": stop,
            "live": live is not None, "cell_ids": ids[start:stop], "offloaded": offloaded,
            "secrets_hidden": len(hidden)})
