"""The server side of the notebook tools' live edits: ``<base_url>/agenttools/notebook``
(the handler is ``handlers.NotebookHandler``; this module is what it does).

- GET ``?path=<absolute path>`` → ``{"live": true, "notebook": {...}}`` when the notebook is
  open in a collaborative (jupyter-collaboration) room, else ``{"live": false}``;
- POST ``{"path", "edit_mode", "cell_id", "new_source", "cell_type", "expect_source"}`` →
  applies the edit to the live shared document (JupyterLab shows it at once and saves it) and
  answers ``{"live": true, "index", "cell_id", "cell_type", "old_source", "new_source",
  "cleared_outputs"}``; ``{"live": false}`` when the notebook is not open; 409 when the cell's
  source is not ``expect_source`` any more (the user changed it since the agent read it) or the
  cell is gone.

Paths are absolute and must lie inside the server's ``root_dir`` (400 otherwise). Both verbs
are ``@web.authenticated`` and ``@authorized``, with the bounded, strict bodies of every
agenttools route. The edit runs on the server's event loop inside one document transaction,
so it cannot interleave with another change.
"""

from __future__ import annotations

import os
import re
from typing import Any

from tornado import web

__all__ = ["live_read", "live_edit", "apply_live_edit"]

EDIT_MODES = ("replace", "insert", "delete")
CELL_TYPES = ("code", "markdown")
_POSITIONAL = re.compile(r"^cell-(\d+)$")


class _Conflict(Exception):
    pass


def _api_path(settings: Any, path: Any) -> str:
    if not isinstance(path, str) or not path:
        raise web.HTTPError(400, "expected 'path': the notebook's absolute path")
    root = os.path.realpath(settings.get("server_root_dir") or settings["serverapp"].root_dir)
    full = os.path.realpath(path)
    rel = os.path.relpath(full, root)
    if rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel):
        raise web.HTTPError(400, "%s is outside the server's root folder", path)
    return rel.replace(os.sep, "/")


async def _document(settings: Any, path: Any, *, copy: bool) -> Any:
    api_path = _api_path(settings, path)
    ydoc = settings.get("jupyter_server_ydoc")
    if ydoc is None:  # jupyter-collaboration is not installed or not enabled
        return None
    return await ydoc.get_document(path=api_path, content_type="notebook", file_format="json",
                                   copy=copy)


async def live_read(settings: Any, path: Any) -> dict[str, Any]:
    """GET: the notebook as the live document holds it, or ``{"live": false}``."""
    doc = await _document(settings, path, copy=True)
    if doc is None:
        return {"live": False}
    return {"live": True, "notebook": doc.get()}


async def live_edit(settings: Any, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """POST: ``(status, payload)`` of an edit of the live document."""
    request = _validated(body)
    doc = await _document(settings, body.get("path"), copy=False)
    if doc is None:
        return 200, {"live": False}
    try:
        result = apply_live_edit(doc, request)
    except _Conflict as exc:
        return 409, {"error": str(exc)}
    return 200, dict(result, live=True)


def _validated(body: dict[str, Any]) -> dict[str, Any]:
    mode = body.get("edit_mode", "replace")
    if mode not in EDIT_MODES:
        raise web.HTTPError(400, "edit_mode must be replace, insert or delete")
    kind = body.get("cell_type")
    if kind is not None and kind not in CELL_TYPES:
        raise web.HTTPError(400, "cell_type must be code or markdown")
    for key in ("cell_id", "expect_source"):
        if body.get(key) is not None and not isinstance(body[key], str):
            raise web.HTTPError(400, "%s must be a string", key)
    if not isinstance(body.get("new_source", ""), str):
        raise web.HTTPError(400, "new_source must be a string")
    if mode != "insert" and not body.get("cell_id"):
        raise web.HTTPError(400, "%s needs cell_id", mode)
    return {"edit_mode": mode, "cell_id": body.get("cell_id"), "cell_type": kind,
            "new_source": body.get("new_source") or "", "expect_source": body.get("expect_source")}


def _ids(doc: Any) -> list[str]:
    out = []
    for i, ycell in enumerate(doc.ycells):
        cid = ycell.get("id")
        out.append(str(cid) if cid else f"cell-{i}")
    return out


def _index(ids: list[str], cell_id: str) -> int:
    if cell_id in ids:
        return ids.index(cell_id)
    m = _POSITIONAL.match(cell_id)
    if m and int(m.group(1)) < len(ids):
        return int(m.group(1))
    raise _Conflict(f"No cell with id {cell_id!r} in the open notebook any more (it may have "
                    f"been deleted). Read the notebook again with NotebookRead.")


def _new_cell(kind: str, source: str, cell_id: str | None = None) -> dict[str, Any]:
    cell: dict[str, Any] = {"cell_type": kind, "source": source, "metadata": {}}
    if kind == "code":
        cell.update(outputs=[], execution_count=None)
    if cell_id:
        cell["id"] = cell_id
    return cell


def apply_live_edit(doc: Any, request: dict[str, Any]) -> dict[str, Any]:
    """Apply the edit to a jupyter_ydoc YNotebook in one transaction; the same rules as the
    file edit (``builtin/notebook/edit.py: apply_edit``)."""
    mode, cell_id = request["edit_mode"], request.get("cell_id")
    source = request.get("new_source") or ""
    ycells = doc.ycells
    with doc.ydoc.transaction():
        ids = _ids(doc)
        if mode == "insert":
            index = _index(ids, cell_id) + 1 if cell_id else 0
            kind = request.get("cell_type") or "code"
            ycell = doc.create_ycell(_new_cell(kind, source))
            ycells.insert(index, ycell)
            return {"index": index, "cell_id": str(ycell.get("id")), "cell_type": kind,
                    "old_source": "", "new_source": source}
        index = _index(ids, str(cell_id))
        ycell = ycells[index]
        old = str(ycell.get("source") or "")
        expect = request.get("expect_source")
        if expect is not None and old != expect:
            raise _Conflict(f"Cell {cell_id} changed since you read it (the user may be "
                            f"editing it). Read it again with NotebookRead, then redo the "
                            f"edit on its current source.")
        current_kind = str(ycell.get("cell_type") or "code")
        if mode == "delete":
            del ycells[index]
            return {"index": index, "cell_id": ids[index], "cell_type": current_kind,
                    "old_source": old, "new_source": ""}
        kind = request.get("cell_type") or current_kind
        outputs = ycell.get("outputs")
        cleared = bool(outputs is not None and len(outputs))
        if kind != current_kind:
            doc.set_ycell(index, doc.create_ycell(_new_cell(kind, source, ids[index])))
        else:
            doc.set_cell(index, source=source)
            if kind == "code":
                if outputs is not None:
                    outputs.clear()
                ycell["execution_count"] = None
        return {"index": index, "cell_id": ids[index], "cell_type": kind, "old_source": old,
                "new_source": source, "cleared_outputs": cleared}
