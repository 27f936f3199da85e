"""``GET <base_url>/agenttools/kernels``: what the panel shows about the running notebooks.

Every kernel the server runs, with its notebook (from the session manager) and, when it
loaded the extension, the state its agent session keeps in its state file (``state.py``):
project, effective mode and where it comes from, model, session rules, open questions,
conversation length. Kernels without the extension have ``"agent": null``.
"""

from __future__ import annotations

from typing import Any

from jupyter_server.auth.decorator import authorized
from tornado import web

from .handlers import AgentToolsHandler, kernel_project_store

__all__ = ["PANEL_ROUTES"]


class KernelsHandler(AgentToolsHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        from .state import read_states

        ids = list(self.kernel_manager.list_kernel_ids())
        notebooks: dict[str, str] = {}
        try:
            for session in await self.session_manager.list_sessions():
                kernel = session.get("kernel") or {}
                if kernel.get("id"):
                    notebooks[kernel["id"]] = session.get("path") or session.get("name") or ""
        except Exception:  # no session manager (a bare server): kernels without notebooks
            pass
        states = await self.run(read_states, ids)
        for state in states.values():
            await self.run(self._settings_mode, state)
        kernels: list[dict[str, Any]] = []
        for kid in ids:
            try:
                model = self.kernel_manager.get_kernel(kid)
                name = getattr(model, "kernel_name", "")
                execution_state = getattr(model, "execution_state", "")
            except KeyError:  # shut down meanwhile
                continue
            kernels.append({"id": kid, "name": name, "execution_state": execution_state,
                            "notebook": notebooks.get(kid), "agent": states.get(kid)})
        self.reply({"server_project": str(self.settings["agenttools_store"].project_root),
                    "kernels": kernels})


    def _settings_mode(self, state: dict[str, Any]) -> None:
        """A kernel writes its state when something happens in it; a settings file edited
        meanwhile (in the panel, an editor) changes the mode of a kernel without a session
        override at once: read it here."""
        if state.get("session_override") or not state.get("project_dir"):
            return
        store = kernel_project_store(self.settings, state)
        try:
            store.reload_if_changed()
            merged = store.merged
        except Exception as exc:  # a corrupt file: the kernel's own view, and why
            state["settings_error"] = str(exc)
            return
        mode = merged.mode.value if merged.mode is not None else "default"
        state["mode"] = state["settings_mode"] = mode
        source = str(merged.mode_source or "")
        prefix = str(state["project_dir"]).rstrip("/") + "/"
        state["mode_source"] = (f"from {source.removeprefix(prefix)}" if source
                                else "built-in default")


PANEL_ROUTES = [
    ("kernels", KernelsHandler),
]
