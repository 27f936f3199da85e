"""What the notebook tools need from the kernel they live in: ``NotebookHost``.

The tools are core code (no IPython, no Jupyter server imports); the Jupyter layer gives them a
host that knows the kernel (``jupyter/notebook_host.py``): its namespace, how IPython turns
``%magic`` lines into Python, how it formats a value, which notebook the kernel belongs to,
which cell started the agent, and how to reach the notebook's live document in JupyterLab.

This base class is the host of a plain Python process: a namespace of its own (or the one
given), no live documents, no default notebook. Tests and ``agenttools check`` use it.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any, Iterator

__all__ = ["NotebookHost", "NotebookState"]


class NotebookHost:
    def __init__(self, namespace: dict[str, Any] | None = None, *,
                 notebook_path: str | None = None, offload_dir: str | None = None):
        self._namespace = namespace
        self._notebook_path = notebook_path
        self.offload_dir = offload_dir

    # -- the namespace code runs in -------------------------------------------------------
    @property
    def namespace(self) -> dict[str, Any] | None:
        """The variables RunCode and Inspect see (None: none known, e.g. ``agenttools check``)."""
        return self._namespace

    def execution_namespace(self) -> dict[str, Any]:
        if self._namespace is None:
            self._namespace = {"__name__": "__agent__"}
        return self._namespace

    def transform(self, code: str) -> str:
        """The Python that actually runs for ``code`` (IPython rewrites ``%magic``, ``!cmd``)."""
        return code

    def format_value(self, value: Any) -> dict[str, Any]:
        """A MIME bundle for a result (IPython's display formatter in a kernel)."""
        return {"text/plain": repr(value)}

    @contextlib.contextmanager
    def capture_displays(self, sink: list[dict[str, Any]]) -> Iterator[None]:
        """While active, ``display(...)`` calls of the running code land in ``sink``."""
        yield

    # -- the notebook ----------------------------------------------------------------------
    def cwd(self) -> str:
        return os.getcwd()

    def notebook_path(self) -> str | None:
        """The absolute path of the notebook the agent runs in, when known."""
        return self._notebook_path

    def active_cell_id(self) -> str | None:
        """The id of the cell that started the agent, when known."""
        return None

    async def live_read(self, path: str) -> dict[str, Any] | None:
        """The notebook as open in JupyterLab (nbformat dict), or None when it is not open in
        a live (collaborative) document."""
        return None

    async def live_edit(self, path: str, request: dict[str, Any]) -> dict[str, Any] | None:
        """Apply an edit to the live document; None when it is not open live."""
        return None


class NotebookState:
    """What NotebookRead saw, so NotebookEdit can refuse to edit something that changed since:
    per notebook path, the file's ``(mtime_ns, size)`` and each read cell's source."""

    def __init__(self) -> None:
        self.files: dict[str, tuple[int, int]] = {}
        self.cells: dict[str, dict[str, str]] = {}

    def remember(self, path: str, stat: tuple[int, int] | None,
                 cells: dict[str, str]) -> None:
        if stat is not None:
            self.files[path] = stat
        self.cells.setdefault(path, {}).update(cells)

    def forget_cell(self, path: str, cell_id: str) -> None:
        self.cells.get(path, {}).pop(cell_id, None)

    def was_read(self, path: str) -> bool:
        return path in self.files or path in self.cells
