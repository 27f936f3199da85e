"""The jupyter-server extension: the project's permission settings over REST, under
``<base_url>/agenttools/``.

Enabled by ``etc/jupyter/jupyter_server_config.d/jupyter_agenttools.json`` (shipped in the
wheel). The project is the server's ``root_dir`` unless ``c.AgentToolsServer.project_root``
says otherwise; the routes are in :mod:`.handlers`.
"""

from __future__ import annotations

from typing import Any

from jupyter_server.utils import url_path_join
from traitlets import Unicode
from traitlets.config import LoggingConfigurable

from .handlers import ROUTES

__all__ = ["AgentToolsServer", "_load_jupyter_server_extension"]


class AgentToolsServer(LoggingConfigurable):
    """Where the server finds the settings it edits."""

    project_root = Unicode(
        "", config=True,
        help="Project whose .agenttools/ settings the panel edits "
             "(default: the server's root_dir).",
    )
    user_dir = Unicode(
        "", config=True,
        help="Folder of the user settings layer (default: <jupyter config dir>/agenttools, "
             "or $AGENTTOOLS_USER_DIR).",
    )
    managed_path = Unicode(
        "", config=True,
        help="The managed (read-only) settings file (default: "
             "/etc/agenttools/managed-settings.json, or $AGENTTOOLS_MANAGED_SETTINGS).",
    )

    def store(self, root_dir: str) -> Any:
        from ..permission.settings import SettingsStore

        return SettingsStore(
            self.project_root or root_dir,
            user_dir=self.user_dir or None,
            managed_path=self.managed_path or None,
        )


def _load_jupyter_server_extension(serverapp: Any) -> None:
    config = AgentToolsServer(parent=serverapp)
    store = config.store(serverapp.root_dir)
    web_app = serverapp.web_app
    web_app.settings["agenttools_store"] = store
    base_url = web_app.settings["base_url"]
    web_app.add_handlers(".*$", [
        (url_path_join(base_url, "agenttools", path), handler) for path, handler in ROUTES
    ])
    serverapp.log.info("jupyter_agenttools: permission settings of %s at %sagenttools/",
                       store.project_root, base_url)


# The older name, for servers that still look it up.
load_jupyter_server_extension = _load_jupyter_server_extension
