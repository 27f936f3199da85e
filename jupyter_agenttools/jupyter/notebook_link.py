"""From the kernel to the Jupyter server that started it: the notebook's live document.

With jupyter-collaboration, a notebook open in JupyterLab is a shared (Yjs) document held by
the server; JupyterLab shows every change to it at once, and saves it to the file itself. The
kernel reaches it through this package's server extension (``GET/POST
<base_url>/agenttools/notebook``, see ``notebook_handlers.py``), which edits the document in the
server's own process.

Which server: the one whose process started this kernel. jupyter_server writes
``jpserver-<pid>.json`` (URL and token) into the Jupyter runtime folder; a kernel started by it
has that pid as its parent. No such server (a kernel started by a test, nbclient or a console)
means no live document: the tools edit the file.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from ..errors import ToolExecutionError

__all__ = ["ServerLink"]

TIMEOUT = 10.0
SESSION_TIMEOUT = 2.0


class ServerLink:
    def __init__(self, info: dict[str, Any] | None = None):
        self._info = info
        self._looked = info is not None
        self._session_cache: tuple[float, str | None] | None = None

    def info(self) -> dict[str, Any] | None:
        """``{"url", "token", "root_dir", …}`` of the server that started this kernel."""
        if self._looked:
            return self._info
        self._looked = True
        try:
            from jupyter_core.paths import jupyter_runtime_dir

            path = os.path.join(jupyter_runtime_dir(), f"jpserver-{os.getppid()}.json")
            with open(path, encoding="utf-8") as f:
                info = json.load(f)
        except (OSError, ValueError):
            return None
        if isinstance(info, dict) and isinstance(info.get("url"), str):
            self._info = info
        return self._info

    def _request(self, method: str, route: str, body: dict[str, Any] | None = None,
                 query: dict[str, str] | None = None,
                 timeout: float = TIMEOUT) -> tuple[int, Any]:
        info = self.info()
        if info is None:
            return 0, None
        url = info["url"].rstrip("/") + "/" + route.lstrip("/")
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = json.dumps(body).encode("utf-8") if body is not None else None
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        token = info.get("token")
        if token:
            request.add_header("Authorization", f"token {token}")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            try:
                payload = json.loads(exc.read() or b"null")
            except ValueError:
                payload = None
            return exc.code, payload
        except (OSError, ValueError):
            return 0, None  # the server went away: no live document

    def session_path(self, kernel_id: str | None) -> str | None:
        """The current path of this kernel's notebook, from the server's sessions (cached a
        few seconds; None when unknown)."""
        if kernel_id is None or self.info() is None:
            return None
        now = time.monotonic()
        if self._session_cache is not None and now - self._session_cache[0] < 5:
            return self._session_cache[1]
        # asked from a permission check, on the kernel's loop: a short wait at most
        status, sessions = self._request("GET", "api/sessions", timeout=SESSION_TIMEOUT)
        found = None
        if status == 200 and isinstance(sessions, list):
            for s in sessions:
                if isinstance(s, dict) and (s.get("kernel") or {}).get("id") == kernel_id:
                    root = str((self.info() or {}).get("root_dir") or "")
                    found = os.path.join(root, str(s.get("path") or ""))
                    break
        self._session_cache = (now, found)
        return found

    async def live_read(self, path: str) -> dict[str, Any] | None:
        status, payload = await asyncio.to_thread(
            self._request, "GET", "agenttools/notebook", None, {"path": path})
        return self._live(status, payload, "read")

    async def live_edit(self, path: str, request: dict[str, Any]) -> dict[str, Any] | None:
        status, payload = await asyncio.to_thread(
            self._request, "POST", "agenttools/notebook", dict(request, path=path))
        if status == 409 and isinstance(payload, dict):
            return {"error": payload.get("error") or "the cell changed since it was read"}
        return self._live(status, payload, "edit")

    @staticmethod
    def _live(status: int, payload: Any, what: str) -> dict[str, Any] | None:
        if status in (0, 404) or not isinstance(payload, dict):
            return None  # no server, or a server without this extension: the file it is
        if status != 200:
            raise ToolExecutionError(f"JupyterLab's live document could not {what} the "
                                     f"notebook (HTTP {status}): {payload.get('error', '')}")
        if not payload.get("live"):
            return None
        return payload.get("notebook") if what == "read" else payload
