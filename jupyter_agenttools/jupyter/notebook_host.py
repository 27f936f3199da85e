"""The notebook tools' host inside a kernel, and their registration in the session.

``KernelNotebookHost`` gives NotebookRead/NotebookEdit/RunCode/Inspect what only the kernel
knows:

- the namespace: IPython's ``user_ns``; code is transformed with ``shell.transform_cell`` (so
  ``%magic`` and ``!cmd`` become the Python that really runs, and that is what is analysed);
  results are formatted with IPython's display formatter; ``display()`` calls of RunCode's
  code are routed to RunCode (only that code's: a context variable marks it);
- the notebook the kernel belongs to. jupyter_server starts a notebook's kernel with
  ``JPY_SESSION_NAME`` set to the notebook's absolute path, and ipykernel (≥ 6.22) copies it
  to ``__session__`` in the namespace. That path is used while the file exists; after a rename
  the server's sessions API (``GET /api/sessions``, the session whose kernel id is this
  kernel's) gives the current path;
- the cell that started the agent: the ``cellId`` JupyterLab puts in the metadata of the
  ``execute_request`` of the ``%%agent`` cell (the run's task keeps that request as its parent);
- the live document: see ``notebook_link.py``.

``install_notebook_tools(session)`` adds the tool group ``notebook`` (inactive: the model turns
it on with ``reset_tools``; ``AgentSession.toolkit.set_active_groups({"notebook": True})`` turns
it on for it) and the four tools, when the extension loads.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from typing import Any, Iterator

from ..builtin.notebook import NotebookHost, notebook_group, notebook_tools
from .notebook_link import ServerLink

__all__ = ["KernelNotebookHost", "install_notebook_tools"]

_DISPLAY_SINK: contextvars.ContextVar[list[dict[str, Any]] | None] = contextvars.ContextVar(
    "agenttools_runcode_displays", default=None)


class _RoutingPublisher:
    """Stands in for IPython's display publisher while RunCode's code runs: that code's
    ``display()`` calls go to RunCode, everyone else's to the notebook as before."""

    def __init__(self, original: Any):
        self._original = original

    def publish(self, data: Any, metadata: Any = None, *args: Any, **kwargs: Any) -> Any:
        sink = _DISPLAY_SINK.get()
        if sink is None:
            return self._original.publish(data, metadata, *args, **kwargs)
        sink.append(dict(data or {}))
        return None

    def clear_output(self, *args: Any, **kwargs: Any) -> Any:
        if _DISPLAY_SINK.get() is None:
            return self._original.clear_output(*args, **kwargs)
        return None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._original, name)


class KernelNotebookHost(NotebookHost):
    def __init__(self, shell: Any, *, offload_dir: str | None = None,
                 link: ServerLink | None = None):
        super().__init__(None, offload_dir=offload_dir)
        self.shell = shell
        self.link = link if link is not None else ServerLink()

    @property
    def namespace(self) -> dict[str, Any] | None:
        return self.shell.user_ns

    def execution_namespace(self) -> dict[str, Any]:
        return self.shell.user_ns

    def transform(self, code: str) -> str:
        return self.shell.transform_cell(code)

    def format_value(self, value: Any) -> dict[str, Any]:
        data, _metadata = self.shell.display_formatter.format(value)
        return dict(data)

    @contextlib.contextmanager
    def capture_displays(self, sink: list[dict[str, Any]]) -> Iterator[None]:
        original = self.shell.display_pub
        router = _RoutingPublisher(original)
        self.shell.display_pub = router
        token = _DISPLAY_SINK.set(sink)
        try:
            yield
        finally:
            _DISPLAY_SINK.reset(token)
            if self.shell.display_pub is router:
                self.shell.display_pub = original

    def notebook_path(self) -> str | None:
        path = os.environ.get("JPY_SESSION_NAME") or self.shell.user_ns.get("__session__")
        if isinstance(path, str) and path and os.path.isfile(path):
            return path
        current = self.link.session_path(self._kernel_id())
        if current is not None:
            return current
        return path if isinstance(path, str) and path else None

    def _kernel_id(self) -> str | None:
        kernel = getattr(self.shell, "kernel", None)
        connection = getattr(getattr(kernel, "parent", None), "connection_file", None) or ""
        name = os.path.basename(str(connection))
        if name.startswith("kernel-") and name.endswith(".json"):
            return name[len("kernel-"):-len(".json")]
        return None

    def active_cell_id(self) -> str | None:
        kernel = getattr(self.shell, "kernel", None)
        if kernel is None:
            return None
        try:
            parent = kernel.get_parent()
        except Exception:
            return None
        cell_id = ((parent or {}).get("metadata") or {}).get("cellId")
        return str(cell_id) if cell_id else None

    async def live_read(self, path: str) -> dict[str, Any] | None:
        return await self.link.live_read(path)

    async def live_edit(self, path: str, request: dict[str, Any]) -> dict[str, Any] | None:
        return await self.link.live_edit(path, request)


def install_notebook_tools(session: Any) -> list[Any]:
    """Add the ``notebook`` group and its four tools to ``session``'s toolkit."""
    offload = str(session.project_dir / ".agenttools" / "tool-results")
    host = KernelNotebookHost(session.shell, offload_dir=offload)
    toolkit = session.toolkit
    if "notebook" not in {g.name for g in toolkit.groups}:
        toolkit.add_group(notebook_group(active=False))
    tools = notebook_tools(host)
    for tool in tools:
        toolkit.add_tool(tool, group="notebook", replace=True)
    session.notebook_host = host
    return tools
