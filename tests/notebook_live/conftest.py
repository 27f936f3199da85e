"""A real jupyter-server with jupyter-collaboration and the agenttools extension, and a real
Yjs client in the room of an open notebook (what JupyterLab is to the server)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any, AsyncIterator

import pytest

# pytest refuses `pytest_plugins` outside the top-level conftest (see tests/server/conftest.py)
from pytest_jupyter.jupyter_server import *  # noqa: F401,F403


@pytest.fixture
def jp_server_config(jp_root_dir: Path, tmp_path: Path) -> dict[str, Any]:
    return {
        "ServerApp": {"jpserver_extensions": {"jupyter_agenttools": True,
                                              "jupyter_server_ydoc": True,
                                              "jupyter_server_fileid": True}},
        "AgentToolsServer": {"user_dir": str(tmp_path / "user"),
                             "managed_path": str(tmp_path / "managed.json")},
        "SQLiteYStore": {"db_path": str(tmp_path / "ystore.db")},
        "BaseFileIdManager": {"root_dir": str(jp_root_dir), "db_path": str(tmp_path / "fid.db"),
                              "db_journal_mode": "OFF"},
        "YDocExtension": {"document_save_delay": 0.5},
    }


class TornadoChannel:
    """pycrdt's Channel over a tornado websocket client connection."""

    def __init__(self, connection: Any, path: str):
        self._connection = connection
        self._path = path

    @property
    def path(self) -> str:
        return self._path

    def __aiter__(self) -> "TornadoChannel":
        return self

    async def __anext__(self) -> bytes:
        message = await self._connection.read_message()
        if message is None:
            raise StopAsyncIteration
        return message if isinstance(message, bytes) else message.encode()

    async def send(self, message: bytes) -> None:
        await self._connection.write_message(message, binary=True)

    async def recv(self) -> bytes:
        return await self.__anext__()


@pytest.fixture
def run(jp_asyncio_loop):
    """Run a coroutine on the test server's own loop (an ``async def`` test would run on
    pytest-asyncio's loop, where the server does not listen)."""
    return jp_asyncio_loop.run_until_complete


@pytest.fixture
def open_notebook(jp_fetch, jp_http_port, jp_base_url, jp_auth_header):
    """``async with open_notebook("x.ipynb") as ynotebook``: the notebook open in a room, as a
    JupyterLab tab holds it; the YNotebook stays in sync with the server's document."""

    @contextlib.asynccontextmanager
    async def opener(path: str) -> AsyncIterator[Any]:
        from jupyter_ydoc import YNotebook
        from pycrdt import Provider
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        reply = await jp_fetch("api", "collaboration", "session", path, method="PUT",
                               body=json.dumps({"format": "json", "type": "notebook"}))
        session = json.loads(reply.body)
        room = f"json:notebook:{session['fileId']}"
        url = (f"ws://127.0.0.1:{jp_http_port}{jp_base_url}api/collaboration/room/{room}"
               f"?sessionId={session['sessionId']}")
        connection = await websocket_connect(HTTPRequest(url, headers=jp_auth_header))
        ynotebook = YNotebook()
        async with Provider(ynotebook.ydoc, TornadoChannel(connection, room)) as provider:
            await asyncio.wait_for(provider.synced.wait(), 20)
            yield ynotebook
        connection.close()

    return opener
