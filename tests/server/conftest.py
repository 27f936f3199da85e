"""A real jupyter-server with the agenttools extension, per test (pytest-jupyter fixtures)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

# pytest refuses `pytest_plugins` outside the top-level conftest, so the fixtures (and the
# plugin's hooks that run async tests on its own loop) are imported into this folder only.
from pytest_jupyter.jupyter_server import *  # noqa: F401,F403


@pytest.fixture
def agenttools_dirs(tmp_path: Path) -> dict[str, Path]:
    return {"user": tmp_path / "user-config" / "agenttools",
            "managed": tmp_path / "managed" / "managed-settings.json"}


@pytest.fixture
def jp_server_config(agenttools_dirs: dict[str, Path], request: Any) -> dict[str, Any]:
    """The extension enabled, settings in throwaway folders; an indirect parameter is an
    Authorizer class to run the server with."""
    config: dict[str, Any] = {
        "ServerApp": {"jpserver_extensions": {"jupyter_agenttools": True}},
        "AgentToolsServer": {"user_dir": str(agenttools_dirs["user"]),
                             "managed_path": str(agenttools_dirs["managed"])},
    }
    authorizer = getattr(request, "param", None)
    if authorizer is not None:
        config["ServerApp"]["authorizer_class"] = authorizer
    return config


@pytest.fixture
def files(jp_root_dir: Path, agenttools_dirs: dict[str, Path]) -> dict[str, Path]:
    """The four settings files of the test project, by layer."""
    return {
        "managed": agenttools_dirs["managed"],
        "local": jp_root_dir / ".agenttools" / "settings.local.json",
        "project": jp_root_dir / ".agenttools" / "settings.json",
        "user": agenttools_dirs["user"] / "settings.json",
    }


class Api:
    """Calls the REST API on the server's own loop (pytest-jupyter's ``jp_asyncio_loop``).

    The tests are plain functions: under pytest-asyncio's auto mode an ``async def`` test would
    run on a different loop than the one the test server listens on.
    ``api(method, route, body=None, params=None) -> (status, json)`` never raises on an HTTP
    error status; ``api.many([(method, route, body), ...])`` sends them all concurrently.
    """

    def __init__(self, fetch: Any, loop: Any):
        self.fetch, self.loop = fetch, loop

    async def call(self, method: str, route: str, body: Any = None,
                   params: dict[str, str] | None = None) -> tuple[int, Any]:
        kw: dict[str, Any] = {}
        if body is not None:
            kw["body"] = body if isinstance(body, (str, bytes)) else json.dumps(body)
        elif method in ("POST", "PUT"):
            kw["body"] = ""
        if method == "DELETE" and body is not None:
            kw["allow_nonstandard_methods"] = True
        r = await self.fetch("agenttools", route, method=method, params=params,
                             raise_error=False, **kw)
        return r.code, (json.loads(r.body) if r.body else None)

    def __call__(self, method: str, route: str, body: Any = None,
                 params: dict[str, str] | None = None) -> tuple[int, Any]:
        return self.loop.run_until_complete(self.call(method, route, body, params))

    def many(self, calls: list[tuple[str, str, Any]]) -> list[tuple[int, Any]]:
        async def all_of() -> list[tuple[int, Any]]:
            return list(await asyncio.gather(*[self.call(*c) for c in calls]))

        return self.loop.run_until_complete(all_of())


@pytest.fixture
def api(jp_fetch, jp_asyncio_loop) -> Api:
    return Api(jp_fetch, jp_asyncio_loop)
