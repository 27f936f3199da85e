"""tools/truncate.py when the offload file cannot be written (a read-only or full disk, a
folder that is a file): the cut result still reaches the model, saying the full text could not
be saved; no half-written file is left, and no notice names one. Before, the OSError failed the
whole run ("The run failed before this call finished: Not a directory")."""

from __future__ import annotations

import asyncio
import builtins
import errno
from pathlib import Path
from typing import Any

import pytest

import jupyter_agenttools.tools.truncate as truncate
from jupyter_agenttools.agent.loop import Agent
from jupyter_agenttools.agent.models import ScriptedModel
from jupyter_agenttools.backends.local import LocalBackend
from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.tools.base import ToolResponse, ToolResultState, text_block
from jupyter_agenttools.tools.truncate import OutputSpool, truncate_response

FULL = "".join(f"line {i}\n" for i in range(5000))


class _FailingFile:
    """A real file that fails with ENOSPC at the ``fail_at``-th write, or when closed."""

    def __init__(self, path: str, fail_at: str):
        self.file = builtins.open(path, "wb")
        self.fail_at = fail_at
        self.writes = 0

    def write(self, data: bytes) -> int:
        self.writes += 1
        if self.fail_at == f"write{self.writes}":
            self.file.write(data[: len(data) // 2])  # part of it reached the disk
            self.file.flush()
            raise OSError(errno.ENOSPC, "No space left on device")
        return self.file.write(data)

    def close(self) -> None:
        self.file.close()
        if self.fail_at == "close":
            raise OSError(errno.ENOSPC, "No space left on device")

    def __enter__(self) -> "_FailingFile":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


ONE_WRITE = ["folder is a file", "read-only", "write1", "close"]  # truncate_response
STREAMED = [*ONE_WRITE, "write2"]  # the spool writes on as the output comes


@pytest.fixture
def offload(request, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An offload folder where writing fails as ``request.param`` says."""
    folder = tmp_path / "offload"
    if request.param == "folder is a file":
        (tmp_path / "blocker").write_text("")
        return tmp_path / "blocker" / "offload"
    if request.param == "read-only":
        def refuse(path: str, mode: str = "r", *args: Any, **kw: Any) -> Any:
            raise OSError(errno.EROFS, "Read-only file system", path)
        monkeypatch.setattr(truncate, "open", refuse, raising=False)
        return folder
    monkeypatch.setattr(truncate, "open",
                        lambda path, mode="r", *a, **k: _FailingFile(path, request.param),
                        raising=False)
    return folder


def _no_partial_file(folder: Path) -> None:
    if folder.is_dir():
        assert list(folder.iterdir()) == []


@pytest.mark.parametrize("offload", ONE_WRITE, indirect=True)
def test_a_cut_result_reaches_the_model_when_the_full_text_cannot_be_saved(offload):
    r = ToolResponse([text_block(FULL)], state=ToolResultState.SUCCESS, name="Bash")
    cut = truncate_response(r, budget_chars=1000, offload_dir=offload)
    assert cut.text.startswith(FULL[:800]) and FULL[-200:] in cut.text
    assert "could not be saved" in cut.text and str(offload) not in cut.text
    assert cut.metadata["offload_path"] is None and cut.metadata["offload_error"]
    assert cut.state is ToolResultState.SUCCESS
    _no_partial_file(offload)


@pytest.mark.parametrize("offload", STREAMED, indirect=True)
def test_the_spool_goes_on_without_its_file(offload):
    spool = OutputSpool(budget_chars=1000, offload_dir=offload, name="Bash")
    shown = "".join(spool.feed(FULL[i:i + 700]) for i in range(0, len(FULL), 700))
    closing = spool.finish()
    assert shown == FULL[:800] and closing.endswith(
        "if the omitted part matters, run it again with less output.]")
    assert FULL[-200:] in closing and "could not be saved" in closing
    assert spool.truncated and spool.path is None and spool.offload_error
    _no_partial_file(offload)


@pytest.mark.parametrize("offload", ONE_WRITE, indirect=True)
async def test_a_long_bash_output_with_an_unwritable_offload_folder_does_not_fail_the_run(
        tmp_path, offload):
    agent = Agent(ScriptedModel([[{"name": "Bash", "input": {"command": "seq 1 20000"}}],
                                 "done"]),
                  backend=LocalBackend(str(tmp_path)), engine=PermissionEngine(mode="bypass"),
                  offload_dir=offload)
    for tool in agent.toolkit.tools:  # Bash's own spool writes there too
        if hasattr(tool, "offload_dir"):
            tool.offload_dir = offload
    run = await agent.run("count")
    assert await asyncio.wait_for(run.wait_done(timeout=30), 40) == "done"
    (result,) = run.tool_results
    assert result.state is ToolResultState.SUCCESS
    assert result.text.startswith("1\n2\n3\n") and "20000" in result.text
    assert "could not be saved" in result.text
    _no_partial_file(offload)


@pytest.mark.parametrize("fault", ["folder is a file", "write2"])
async def test_exec_output_past_the_memory_cap_keeps_its_head_when_it_cannot_be_spooled(
        tmp_path, monkeypatch, fault):
    """The backend's own spool (``BackendBase.collect``): the command still answers, with its
    head, ``truncated`` and no spool file named; nothing half-written is left."""
    import jupyter_agenttools.backends.base as base

    spool_dir = tmp_path / "spool"
    if fault == "folder is a file":
        (tmp_path / "blocker").write_text("")
        spool_dir = tmp_path / "blocker" / "spool"
    else:
        monkeypatch.setattr(base, "open", lambda path, mode="r", *a, **k:
                            _FailingFile(path, fault), raising=False)
    backend = LocalBackend(str(tmp_path), memory_cap=1000, spool_dir=str(spool_dir))
    r = await backend.exec_shell(["/bin/bash", "-c", "seq 1 100000"], timeout=60)
    assert r.ok and r.truncated and r.offload_path is None
    assert r.stdout[:8] == b"1\n2\n3\n4\n" and len(r.stdout) == 1000
    _no_partial_file(spool_dir)


async def test_a_long_bash_output_is_cut_once_and_its_notice_names_the_whole_output(tmp_path):
    """Bash cuts its output as it streams; the loop's gate 5 cut it again (30,288 > 30,000
    characters), saving the already-cut text as "the full output (30,288 characters)"."""
    agent = Agent(ScriptedModel([[{"name": "Bash", "input": {"command": "seq 1 200000"}}],
                                 "done"]),
                  backend=LocalBackend(str(tmp_path)), engine=PermissionEngine(mode="bypass"),
                  offload_dir=tmp_path / "results")
    run = await agent.run("count")
    assert await asyncio.wait_for(run.wait_done(timeout=30), 40) == "done"
    (result,) = run.tool_results
    assert result.text.count("[Output truncated") == 1
    saved = Path(result.metadata["offload_path"]).read_text()
    assert saved == "".join(f"{i}\n" for i in range(1, 200_001))
    assert f"{len(saved):,} characters" in result.text
