"""``AgentSession.close()`` (``%unload_ext``): what the session started ends with it, also when
nothing but the closing task itself holds on to what it waits for."""

from __future__ import annotations

import asyncio
import gc
import weakref
from pathlib import Path
from typing import Any

import pytest

from jupyter_agenttools.jupyter.config import AgentTools
from jupyter_agenttools.jupyter.extension import AgentSession


@pytest.fixture
def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AgentSession:
    monkeypatch.setenv("AGENTTOOLS_USER_DIR", str(tmp_path / "user"))
    monkeypatch.setenv("AGENTTOOLS_MANAGED_SETTINGS", str(tmp_path / "managed.json"))
    project = tmp_path / "project"
    project.mkdir()
    return AgentSession(None, AgentTools(project_dir=str(project)))


class _Backend:
    """A started kernel whose close waits on a future only its own coroutine holds (as a
    process's exit does when nobody else watches it)."""

    def __init__(self) -> None:
        self.waiting: weakref.ref[asyncio.Future[None]] | None = None
        self.closed = False

    async def close(self) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiting = weakref.ref(future)
        await future
        self.closed = True


async def test_close_keeps_its_task_until_every_started_backend_closed(session: Any):
    backends = [_Backend(), _Backend()]
    session.started_backends.extend(backends)
    session.close()
    assert session.started_backends == []
    await asyncio.sleep(0)  # the closing task starts and waits in the first close()
    gc.collect()  # before the fix the task, unreferenced, was collected here mid-close
    assert backends[0].waiting is not None
    first = backends[0].waiting()
    assert first is not None, "the closing task was garbage-collected mid-run"
    first.set_result(None)
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    gc.collect()
    second = backends[1].waiting() if backends[1].waiting else None
    assert second is not None
    second.set_result(None)
    await asyncio.wait_for(session.closing, 5)
    assert [b.closed for b in backends] == [True, True]


def test_close_without_a_loop_closes_before_it_returns(session: Any):
    class Quick:
        closed = False

        async def close(self) -> None:
            await asyncio.sleep(0)
            Quick.closed = True

    session.started_backends.append(Quick())
    session.close()
    assert Quick.closed and session.closing is None


def test_a_state_write_on_a_full_disk_keeps_the_last_state_and_no_temp_file(
        tmp_path, monkeypatch):
    import errno
    import json
    import os

    from jupyter_agenttools.jupyter import state

    monkeypatch.setattr(state, "state_dir", lambda: tmp_path)
    path = state.write_state("k1", {"project_dir": "/p", "mode": "default"})

    def full(self, *args, **kwargs):
        with open(self, "w") as f:
            f.write('{"project_dir": "/p", "mo')  # part of it reached the disk
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(OSError):
        state.write_state("k1", {"project_dir": "/p", "mode": "bypass"})
    assert json.loads(path.read_text())["mode"] == "default"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kernel-k1.json"]
