"""Live edits of a notebook open in a collaborative room, through ``/agenttools/notebook``:
the server changes its shared document, the open client (what JupyterLab shows) sees it, the
server saves it; a cell the user changed since the read is a 409, never overwritten. The
kernel's side (``ServerLink``) is driven over real HTTP too."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import nbformat
import pytest
from tornado.httpclient import HTTPClientError

from jupyter_agenttools.jupyter.notebook_link import ServerLink


def write_notebook(path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    first = nbformat.v4.new_code_cell("x = 1", execution_count=1)
    first.outputs = [nbformat.v4.new_output("stream", name="stdout", text="old output\n")]
    nb.cells = [first, nbformat.v4.new_markdown_cell("# Notes")]
    nb.cells[0].id, nb.cells[1].id = "first", "notes"
    nbformat.write(nb, str(path))


async def until(predicate: Any, timeout: float = 20) -> None:
    for _ in range(int(timeout / 0.1)):
        if predicate():
            return
        await asyncio.sleep(0.1)
    raise AssertionError("timed out")


def sources(ynotebook: Any) -> list[str]:
    return [str(c["source"]) for c in ynotebook.ycells]


async def post(jp_fetch, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    try:
        reply = await jp_fetch("agenttools", "notebook", method="POST", body=json.dumps(body))
    except HTTPClientError as exc:
        return exc.code, json.loads(exc.response.body) if exc.response else {}
    return reply.code, json.loads(reply.body)


def test_an_insert_appears_in_the_open_notebook_and_is_saved(run, jp_fetch, jp_root_dir,
                                                                   open_notebook):
    async def scenario() -> None:
        path = jp_root_dir / "analysis.ipynb"
        write_notebook(path)
        async with open_notebook("analysis.ipynb") as ynotebook:
            assert sources(ynotebook) == ["x = 1", "# Notes"]
            status, reply = await post(jp_fetch, {"path": str(path), "edit_mode": "insert",
                                                  "cell_id": "first", "new_source": "x + 41",
                                                  "cell_type": "code"})
            assert status == 200 and reply["live"] is True and reply["index"] == 1
            await until(lambda: sources(ynotebook) == ["x = 1", "x + 41", "# Notes"])
            got = json.loads((await jp_fetch("agenttools", "notebook",
                                              params={"path": str(path)})).body)
            assert got["live"] and [c["source"] for c in got["notebook"]["cells"]] == \
                ["x = 1", "x + 41", "# Notes"]
            await until(lambda: len(nbformat.read(str(path), 4).cells) == 3)  # saved by the room
            assert nbformat.read(str(path), 4).cells[1].source == "x + 41"

    run(scenario())


def test_replace_clears_outputs_and_delete_removes(run, jp_fetch, jp_root_dir, open_notebook):
    async def scenario() -> None:
        path = jp_root_dir / "analysis.ipynb"
        write_notebook(path)
        async with open_notebook("analysis.ipynb") as ynotebook:
            status, reply = await post(jp_fetch, {"path": str(path), "edit_mode": "replace",
                                                  "cell_id": "first", "new_source": "x = 2",
                                                  "expect_source": "x = 1"})
            assert status == 200 and reply["old_source"] == "x = 1" and reply["cleared_outputs"]
            await until(lambda: sources(ynotebook)[0] == "x = 2")
            assert len(ynotebook.ycells[0]["outputs"]) == 0
            status, reply = await post(jp_fetch, {"path": str(path), "edit_mode": "delete",
                                                  "cell_id": "notes", "expect_source": "# Notes"})
            assert status == 200
            await until(lambda: sources(ynotebook) == ["x = 2"])

    run(scenario())


def test_a_cell_the_user_changed_is_a_conflict(run, jp_fetch, jp_root_dir, open_notebook):
    async def scenario() -> None:
        path = jp_root_dir / "analysis.ipynb"
        write_notebook(path)
        async with open_notebook("analysis.ipynb") as ynotebook:
            ynotebook.set_cell(0, source="x = 'typed by the user'")  # the user types meanwhile
            await asyncio.sleep(1)
            status, reply = await post(jp_fetch, {"path": str(path), "edit_mode": "replace",
                                                  "cell_id": "first", "new_source": "x = 3",
                                                  "expect_source": "x = 1"})
            assert status == 409 and "changed since you read it" in reply["error"]
            await asyncio.sleep(0.5)
            assert sources(ynotebook)[0] == "x = 'typed by the user'"
            status, reply = await post(jp_fetch, {"path": str(path), "edit_mode": "delete",
                                                  "cell_id": "gone"})
            assert status == 409 and "No cell with id" in reply["error"]

    run(scenario())


def test_a_notebook_that_is_not_open_is_not_live(run, jp_fetch, jp_root_dir):
    async def scenario() -> None:
        path = jp_root_dir / "closed.ipynb"
        write_notebook(path)
        status, reply = await post(jp_fetch, {"path": str(path), "edit_mode": "insert",
                                              "new_source": "y"})
        assert (status, reply) == (200, {"live": False})
        assert len(nbformat.read(str(path), 4).cells) == 2  # untouched: the tool edits the file

    run(scenario())


@pytest.mark.parametrize("body,error", [
    ({"path": "/etc/x.ipynb", "edit_mode": "insert", "new_source": "y"}, "outside"),
    ({"path": "PLACEHOLDER", "edit_mode": "move", "new_source": "y"}, "edit_mode"),
    ({"path": "PLACEHOLDER", "edit_mode": "replace", "new_source": "y"}, "cell_id"),
    ({"path": "PLACEHOLDER", "edit_mode": "insert", "new_source": 5}, "new_source"),
    ({"edit_mode": "insert", "new_source": "y"}, "path"),
])
def test_bad_requests_are_400(run, jp_fetch, jp_root_dir, body, error):
    if body.get("path") == "PLACEHOLDER":
        body = dict(body, path=str(jp_root_dir / "x.ipynb"))

    async def scenario() -> None:
        status, reply = await post(jp_fetch, body)
        assert status == 400 and error in reply["error"]

    run(scenario())


def test_the_kernels_link_edits_the_live_document(run, jp_fetch, jp_root_dir, jp_http_port,
                                                        jp_base_url, jp_serverapp,
                                                        open_notebook):
    async def scenario() -> None:
        path = jp_root_dir / "analysis.ipynb"
        write_notebook(path)
        link = ServerLink({"url": f"http://127.0.0.1:{jp_http_port}{jp_base_url}",
                           "token": jp_serverapp.identity_provider.token,
                           "root_dir": str(jp_root_dir)})
        assert await link.live_read(str(jp_root_dir / "never-opened.ipynb")) is None
        async with open_notebook("analysis.ipynb") as ynotebook:
            nb = await link.live_read(str(path))
            assert [c["id"] for c in nb["cells"]] == ["first", "notes"]
            reply = await link.live_edit(str(path), {"edit_mode": "insert", "cell_id": "notes",
                                                     "new_source": "print('from the agent')",
                                                     "cell_type": "code"})
            assert reply["live"] and reply["index"] == 2
            await until(lambda: sources(ynotebook)[-1] == "print('from the agent')")
            conflict = await link.live_edit(str(path), {"edit_mode": "replace", "cell_id": "first",
                                                        "new_source": "z", "expect_source": "nope"})
            assert "changed since you read it" in conflict["error"]

    run(scenario())


def test_without_a_server_there_is_no_live_document(run, tmp_path: Path):
    async def scenario() -> None:
        link = ServerLink({"url": "http://127.0.0.1:9/", "token": "x", "root_dir": str(tmp_path)})
        assert await link.live_read(str(tmp_path / "a.ipynb")) is None
        assert await link.live_edit(str(tmp_path / "a.ipynb"), {"edit_mode": "insert",
                                                                "new_source": "y"}) is None

    run(scenario())


@pytest.mark.parametrize("tool,tool_input,expected", [
    ("RunCode", {"code": "len([1, 2])"}, "allow"),
    ("RunCode", {"code": "open('out.txt', 'w')"}, "ask"),
    ("RunCode", {"code": "open('.agenttools/settings.json', 'w')"}, "deny"),
    ("NotebookEdit", {"notebook_path": "a.ipynb", "new_source": "x"}, "ask"),
    ("Inspect", {"name": "df"}, "allow"),
])
def test_the_panels_try_box_decides_notebook_tools(run, jp_fetch, tool, tool_input, expected):
    async def scenario() -> None:
        reply = await jp_fetch("agenttools", "check", method="POST",
                               body=json.dumps({"tool": tool, "input": tool_input}))
        assert json.loads(reply.body)["behavior"] == expected

    run(scenario())


def test_the_kernel_finds_its_notebook_after_a_rename(run, jp_fetch, jp_root_dir, jp_http_port,
                                                      jp_base_url, jp_serverapp):
    """A kernel started for a notebook knows its path from JPY_SESSION_NAME; after a rename
    only the server knows: the link asks its sessions API for this kernel's session."""
    write_notebook(jp_root_dir / "before.ipynb")
    info = {"url": f"http://127.0.0.1:{jp_http_port}{jp_base_url}",
            "token": jp_serverapp.identity_provider.token, "root_dir": str(jp_root_dir)}

    async def scenario() -> None:
        reply = await jp_fetch("api", "sessions", method="POST", body=json.dumps(
            {"path": "before.ipynb", "type": "notebook", "name": "before.ipynb",
             "kernel": {"name": "python3"}}))
        session = json.loads(reply.body)
        kernel_id = session["kernel"]["id"]
        try:
            found = await asyncio.to_thread(ServerLink(info).session_path, kernel_id)
            assert found == str(jp_root_dir / "before.ipynb")
            (jp_root_dir / "before.ipynb").rename(jp_root_dir / "after.ipynb")
            await jp_fetch("api", "sessions", session["id"], method="PATCH",
                           body=json.dumps({"path": "after.ipynb"}))
            found = await asyncio.to_thread(ServerLink(info).session_path, kernel_id)
            assert found == str(jp_root_dir / "after.ipynb")
            assert await asyncio.to_thread(ServerLink(info).session_path, "no-such-kernel") \
                is None
        finally:
            await jp_fetch("api", "sessions", session["id"], method="DELETE")

    run(scenario())
