"""Notebook files with nbformat: read, find a cell, render cells for the model, write atomically.

A write never leaves a half-written notebook: the new text goes to a temporary file in the same
folder (flushed and fsynced, with the original's permissions), the file on disk is checked to be
still the one that was read (``mtime_ns`` and size), and ``os.replace`` swaps it in.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import tempfile
from typing import Any

from ...backends import checked_files
from ...errors import ToolExecutionError
from ...tools.base import ToolResponse, text_block
from ...tools.redact import redact

__all__ = ["read_notebook", "write_notebook", "find_cell", "cell_ids", "render_cells",
           "new_cell", "stat_key", "MAX_NOTEBOOK_BYTES"]

MAX_NOTEBOOK_BYTES = 100 * 1024 * 1024
MAX_IMAGE_BYTES = 5 * 1024 * 1024
MAX_IMAGES = 8
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_POSITIONAL = re.compile(r"^cell-(\d+)$")


def stat_key(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def read_notebook(path: str, opened: str | None = None) -> tuple[Any, tuple[int, int]]:
    """``(notebook, (mtime_ns, size))``; a clear ToolExecutionError for a missing, huge or
    invalid file. ``opened``: the physical path the permission check resolved, opened so that
    it is that file (``backends/checked_files.py``: a link swapped in since is refused)."""
    import nbformat

    try:
        st = os.stat(opened or path)
    except FileNotFoundError:
        raise ToolExecutionError(f"Notebook not found: {path}") from None
    except OSError as exc:
        raise ToolExecutionError(f"Cannot read {path}: {exc.strerror or exc}") from None
    if os.path.isdir(path):
        raise ToolExecutionError(f"{path} is a directory, not a notebook.")
    if st.st_size > MAX_NOTEBOOK_BYTES:
        raise ToolExecutionError(f"{path} is {st.st_size:,} bytes, more than the "
                                 f"{MAX_NOTEBOOK_BYTES:,} bytes NotebookRead reads.")
    try:
        data = checked_files.read_checked(opened) if opened else _read(path)
    except OSError as exc:
        raise ToolExecutionError(f"Cannot read {path}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
        nb = nbformat.reads(text, as_version=4)
    except UnicodeDecodeError:
        raise ToolExecutionError(f"{path} is not UTF-8 text, so not a notebook.") from None
    except Exception as exc:  # nbformat raises several kinds for a file that is not a notebook
        raise ToolExecutionError(f"{path} is not a valid notebook: {type(exc).__name__}: "
                                 f"{str(exc)[:300]}") from None
    if not isinstance(nb.get("cells"), list):
        raise ToolExecutionError(f"{path} has no list of cells: not a notebook.")
    return nb, (st.st_mtime_ns, st.st_size)


def _cell_source(cell: Any) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def cell_ids(nb: Any) -> list[str]:
    """Each cell's id; cells without one (notebooks older than format 4.5) are ``cell-N``."""
    return [str(c.get("id") or f"cell-{i}") for i, c in enumerate(nb["cells"])]


def find_cell(ids: list[str], cell_id: str) -> int:
    if cell_id in ids:
        return ids.index(cell_id)
    m = _POSITIONAL.match(cell_id)
    if m and int(m.group(1)) < len(ids):
        return int(m.group(1))
    shown = ", ".join(ids[:12]) + (" …" if len(ids) > 12 else "")
    raise ToolExecutionError(f"No cell with id {cell_id!r} (cells: {shown or 'none'}). Read the "
                             f"notebook with NotebookRead to see the ids.")


def new_cell(cell_type: str, source: str) -> Any:
    import nbformat.v4 as v4

    if cell_type == "markdown":
        return v4.new_markdown_cell(source)
    if cell_type == "raw":
        return v4.new_raw_cell(source)
    return v4.new_code_cell(source)


def ensure_cell_ids(nb: Any) -> None:
    """Give every cell an id (format 4.5), so edits can name cells stably."""
    from nbformat.v4.convert import random_cell_id

    if (nb.get("nbformat"), nb.get("nbformat_minor", 0)) < (4, 5):
        nb["nbformat_minor"] = 5
    seen: set[str] = set()
    for cell in nb["cells"]:
        cid = cell.get("id")
        if not cid or cid in seen:
            cell["id"] = random_cell_id()
        seen.add(cell["id"])


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def write_notebook(path: str, nb: Any, expected: tuple[int, int],
                   opened: str | None = None) -> tuple[int, int]:
    """Write ``nb`` over ``path`` atomically, only if the file is still ``expected``.
    ``opened``: the physical path the permission check resolved, written inside its verified
    folder (``backends/checked_files.py``)."""
    import nbformat

    text = nbformat.writes(nb)
    if not text.endswith("\n"):
        text += "\n"
    data = text.encode("utf-8")
    if opened:
        def unchanged() -> None:
            if stat_key(opened) != expected:
                raise ToolExecutionError(
                    f"{path} changed on disk while the edit was prepared; read it again with "
                    f"NotebookRead and redo the edit, so the other change is not lost.")

        try:
            checked_files.write_checked(opened, [data], before_replace=unchanged)
        except OSError as exc:
            raise ToolExecutionError(f"Cannot write {path}: {exc.strerror or exc}") from None
        found = stat_key(opened)
        if found is None or found[1] != len(data):
            raise ToolExecutionError(f"Writing {path} reported success but the file on disk "
                                     f"is not what was written.")
        return found
    folder = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        except OSError:
            pass
        if stat_key(path) != expected:
            raise ToolExecutionError(
                f"{path} changed on disk while the edit was prepared; read it again with "
                f"NotebookRead and redo the edit, so the other change is not lost.")
        os.replace(tmp, path)
        tmp = ""
    except OSError as exc:
        raise ToolExecutionError(f"Cannot write {path}: {exc.strerror or exc}") from None
    finally:
        if tmp:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    st = stat_key(path)
    if st is None or st[1] != len(data):
        raise ToolExecutionError(f"Writing {path} reported success but the file on disk is not "
                                 f"what was written.")
    return st


# --- rendering for the model ---------------------------------------------------------------------


class _Renderer:
    def __init__(self, output_budget: int, offload_dir: str | None):
        self.output_budget = output_budget
        self.offload_dir = offload_dir
        self.blocks: list[dict[str, Any]] = []
        self.parts: list[str] = []
        self.images = 0
        self.offloaded: list[str] = []
        self.hidden: list[str] = []  # secret-looking values cut out (``tools/redact.py``)

    def text(self, text: str) -> None:
        self.parts.append(self.redact(text))

    def redact(self, text: str) -> str:
        text, hidden = redact(text)
        self.hidden += hidden
        return text

    def flush_text(self) -> None:
        if self.parts:
            self.blocks.append(text_block("".join(self.parts)))
            self.parts = []

    def cut(self, text: str, label: str) -> str:
        """A long output is cut like any long tool result (head + tail + the full text in an
        offload file the model is told about). Secrets are hidden first: the offload file is
        for the model too."""
        text = self.redact(text)
        if len(text) <= self.output_budget:
            return text
        from ...tools.truncate import truncate_response

        cut = truncate_response(ToolResponse([text_block(text)], name=f"notebook-{label}"),
                                budget_chars=self.output_budget, offload_dir=self.offload_dir)
        path = cut.metadata.get("offload_path")
        if path:
            self.offloaded.append(str(path))
        return cut.text

    def image(self, mime: str, data: Any, where: str) -> None:
        raw = "".join(data) if isinstance(data, list) else str(data)
        raw = raw.replace("\n", "").strip()
        try:
            size = len(base64.b64decode(raw, validate=True))
        except (binascii.Error, ValueError):
            self.text(f"[{mime} output of {where}: not valid base64, not shown]\n")
            return
        if size > MAX_IMAGE_BYTES or self.images >= MAX_IMAGES:
            why = "too large" if size > MAX_IMAGE_BYTES else f"more than {MAX_IMAGES} images"
            self.text(f"[{mime} output of {where}, {size:,} bytes: not shown ({why}); read "
                      f"fewer cells to see it]\n")
            return
        self.images += 1
        self.text(f"[image {self.images}: {mime}, {size:,} bytes, follows]\n")
        self.flush_text()
        self.blocks.append({"type": "image", "data": raw, "mime_type": mime})


def _join(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _render_output(r: _Renderer, output: dict[str, Any], where: str) -> None:
    kind = output.get("output_type", "?")
    if kind == "stream":
        name = output.get("name", "stdout")
        text = r.cut(_ANSI.sub("", _join(output.get("text", ""))), f"{where}-{name}")
        r.text(f'<output type="stream" name="{name}">\n{text}'
               + ("" if text.endswith("\n") else "\n") + "</output>\n")
        return
    if kind == "error":
        tb = "\n".join(_ANSI.sub("", line) for line in output.get("traceback", []) or [])
        head = f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
        text = r.cut(tb or head, f"{where}-error")
        r.text(f'<output type="error">\n{head}\n{text}\n</output>\n')
        return
    data = output.get("data", {}) or {}
    images = [m for m in IMAGE_TYPES if m in data]
    for mime in images:
        r.text(f'<output type="{kind}" mime="{mime}">\n')
        r.image(mime, data[mime], where)
        r.text("</output>\n")
    if "application/vnd.jupyter.widget-view+json" in data:
        r.text(f'<output type="{kind}" mime="widget">[an interactive widget; its text: '
               f'{_join(data.get("text/plain", "")).strip()[:200]}]</output>\n')
        return
    for mime in ("text/plain", "text/markdown", "text/latex", "application/json", "text/html"):
        if mime in data:
            text = data[mime]
            text = _join(text) if not isinstance(text, (dict, list)) or mime != \
                "application/json" else str(text)
            if images and mime == "text/plain":
                break  # the figure's repr ("<Figure size …>") says nothing the image does not
            r.text(f'<output type="{kind}" mime="{mime}">\n'
                   f"{r.cut(_ANSI.sub('', text), f'{where}-{kind}')}\n</output>\n")
            break
    else:
        if not images:
            shown = ", ".join(sorted(data)) or "nothing"
            r.text(f'<output type="{kind}">[{shown}: not shown as text]</output>\n')


def render_cells(nb: Any, ids: list[str], start: int, stop: int, *, active: str | None,
                 output_budget: int, offload_dir: str | None
                 ) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """Content blocks for cells ``start..stop-1`` (text, with image blocks where the cells
    have images), the offload files of cut outputs, and what secret-looking values were
    hidden (sources and outputs alike)."""
    r = _Renderer(output_budget, offload_dir)
    for i in range(start, stop):
        cell = nb["cells"][i]
        cid = ids[i]
        attrs = f'id="{cid}" index="{i}" type="{cell.get("cell_type", "?")}"'
        if cell.get("cell_type") == "code":
            count = cell.get("execution_count")
            attrs += f' execution_count="{count if count is not None else ""}"'
        if active is not None and cid == active:
            attrs += ' agent="this cell started the agent"'
        source = _cell_source(cell)
        r.text(f"<cell {attrs}>\n{source}" + ("" if source.endswith("\n") or not source
                                               else "\n"))
        for output in cell.get("outputs", []) or []:
            _render_output(r, output, f"cell-{cid}")
        r.text("</cell>\n")
    r.flush_text()
    return r.blocks, r.offloaded, r.hidden


def cell_source(cell: Any) -> str:
    return _cell_source(cell)
