"""Read, Write and Edit on a local backend and on another Jupyter kernel: windows, notices,
binary and image files, the read-before-write rule (backend mtime), Edit's uniqueness,
empty old_string, line endings and refreshed read state."""

from __future__ import annotations

import base64
import os

import pytest
import pytest_asyncio
from builtin_helpers import run_tool, schema_errors

from jupyter_agenttools.backends.jupyter_kernel import JupyterKernelBackend
from jupyter_agenttools.backends.local import LocalBackend
from jupyter_agenttools.builtin import Edit, Read, Write, default_tools
from jupyter_agenttools.tools.base import ToolResultState

pytestmark = pytest.mark.asyncio(loop_scope="module")

PNG = base64.b64decode(  # a 1x1 pixel
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAAB"
    "JRU5ErkJggg==")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def kernel_backend():
    backend = await JupyterKernelBackend.start("python3")
    yield backend
    await backend.close()


@pytest_asyncio.fixture(loop_scope="module", params=["local", "jupyter_kernel"])
async def tools(request, kernel_backend, tmp_path):
    if request.param == "local":
        backend = LocalBackend(str(tmp_path))
    else:
        backend = kernel_backend
        backend.file_read_state.clear()
    return {t.name: t for t in default_tools(backend)}


def lines_file(tmp_path, n, name="f.txt", eol="\n"):
    p = tmp_path / name
    p.write_bytes("".join(f"line {i}{eol}" for i in range(1, n + 1)).encode())
    return p


# --- Read -----------------------------------------------------------------------------------


async def test_read_numbers_lines_cat_n_style(tools, tmp_path):
    p = lines_file(tmp_path, 3)
    _, r = await run_tool(tools["Read"], file_path=str(p))
    assert r.text == "     1\tline 1\n     2\tline 2\n     3\tline 3"
    assert r.metadata["total_lines"] == 3 and not r.is_error


async def test_read_window_and_more_lines_notice(tools, tmp_path):
    p = lines_file(tmp_path, 10)
    _, r = await run_tool(tools["Read"], file_path=str(p), offset=4, limit=3)
    body, notice = r.text.split("\n\n")
    assert body.splitlines() == ["     4\tline 4", "     5\tline 5", "     6\tline 6"]
    assert notice == ("[Showing lines 4-6 of 10. 4 more lines: call Read with offset=7 to "
                      "continue.]")
    _, r = await run_tool(tools["Read"], file_path=str(p), offset=8)
    assert r.text.splitlines()[-1] == "    10\tline 10" and "more lines" not in r.text


async def test_read_default_limit_is_2000_lines(tools, tmp_path):
    p = lines_file(tmp_path, 2500)
    _, r = await run_tool(tools["Read"], file_path=str(p))
    body = r.text.split("\n\n")[0].splitlines()
    assert len(body) == 2000 and body[-1] == "  2000\tline 2000"
    assert "offset=2001" in r.text


async def test_read_offset_past_the_end_is_an_error(tools, tmp_path):
    p = lines_file(tmp_path, 3)
    _, r = await run_tool(tools["Read"], file_path=str(p), offset=9)
    assert r.state is ToolResultState.ERROR
    assert "offset 9 is past the end" in r.text and "3 lines" in r.text


async def test_read_empty_file(tools, tmp_path):
    (tmp_path / "e.txt").write_text("")
    _, r = await run_tool(tools["Read"], file_path=str(tmp_path / "e.txt"))
    assert r.text == f"[{tmp_path / 'e.txt'} is empty.]" and not r.is_error


async def test_read_cuts_long_lines(tools, tmp_path):
    (tmp_path / "long.txt").write_text("a" * 5000 + "\nshort\n")
    _, r = await run_tool(tools["Read"], file_path=str(tmp_path / "long.txt"))
    first, second = r.text.splitlines()
    assert first.startswith("     1\t" + "a" * 2000 + "… [line cut: 5,000 bytes")
    assert "a" * 2001 not in first
    assert second == "     2\tshort"


async def test_read_crlf_lines_show_without_carriage_returns(tools, tmp_path):
    p = lines_file(tmp_path, 2, eol="\r\n")
    _, r = await run_tool(tools["Read"], file_path=str(p))
    assert r.text == "     1\tline 1\n     2\tline 2"


@pytest.mark.parametrize("data", [b"\x00\x01\x02binary", bytes(range(128, 256)) * 40])
async def test_read_binary_file_is_refused_clearly(tools, tmp_path, data):
    (tmp_path / "b.bin").write_bytes(data)
    _, r = await run_tool(tools["Read"], file_path=str(tmp_path / "b.bin"))
    assert r.state is ToolResultState.ERROR and "looks like a binary file" in r.text


async def test_read_image_returns_an_image_block(tools, tmp_path):
    (tmp_path / "dot.png").write_bytes(PNG)
    (tmp_path / "dot.data").write_bytes(PNG)  # the bytes decide, not the extension
    for name in ("dot.png", "dot.data"):
        _, r = await run_tool(tools["Read"], file_path=str(tmp_path / name))
        image = [b for b in r.content if b["type"] == "image"]
        assert len(image) == 1 and image[0]["mime_type"] == "image/png"
        assert base64.b64decode(image[0]["data"]) == PNG


@pytest.mark.parametrize("name,message", [("missing.txt", "File does not exist"),
                                          ("", "is a directory")])
async def test_read_missing_or_directory(tools, tmp_path, name, message):
    _, r = await run_tool(tools["Read"], file_path=str(tmp_path / name) if name else str(tmp_path))
    assert r.state is ToolResultState.ERROR and message in r.text


async def test_read_relative_path_uses_the_backend_cwd(tmp_path):
    (tmp_path / "rel.txt").write_text("hello\n")
    _, r = await run_tool(Read(LocalBackend(str(tmp_path))), file_path="rel.txt")
    assert r.text == "     1\thello"


async def test_read_schema_limits():
    read = Read(LocalBackend())
    assert schema_errors(read, {"file_path": "x", "offset": 0})
    assert schema_errors(read, {"file_path": "x", "limit": 2001})
    assert schema_errors(read, {"file_path": ""})
    assert not schema_errors(read, {"file_path": "x", "offset": 1, "limit": 2000})


# --- Write ----------------------------------------------------------------------------------


async def test_write_new_file_needs_no_read_and_creates_parents(tools, tmp_path):
    target = tmp_path / "new" / "dir" / "f.txt"
    _, r = await run_tool(tools["Write"], file_path=str(target), content="a\nb\n")
    assert not r.is_error and r.text.startswith(f"Created {target} (2 lines")
    assert target.read_text() == "a\nb\n" and r.metadata["created"] is True


async def test_write_existing_file_needs_a_read_first(tools, tmp_path):
    p = lines_file(tmp_path, 2)
    _, r = await run_tool(tools["Write"], file_path=str(p), content="new")
    assert r.state is ToolResultState.ERROR and "has not been read yet" in r.text
    assert p.read_text() == "line 1\nline 2\n"  # nothing lost
    await run_tool(tools["Read"], file_path=str(p))
    _, r = await run_tool(tools["Write"], file_path=str(p), content="new")
    assert not r.is_error and p.read_text() == "new"
    _, r = await run_tool(tools["Write"], file_path=str(p), content="again")  # state refreshed
    assert not r.is_error and p.read_text() == "again"


async def test_write_refuses_a_file_changed_since_it_was_read(tools, tmp_path):
    p = lines_file(tmp_path, 2)
    await run_tool(tools["Read"], file_path=str(p))
    p.write_text("someone else's change, a different size\n")
    _, r = await run_tool(tools["Write"], file_path=str(p), content="mine")
    assert r.state is ToolResultState.ERROR and "changed on disk" in r.text
    assert p.read_text() == "someone else's change, a different size\n"


async def test_write_to_a_directory_is_an_error(tools, tmp_path):
    _, r = await run_tool(tools["Write"], file_path=str(tmp_path), content="x")
    assert r.state is ToolResultState.ERROR and "is a directory" in r.text


class SkewedClockBackend(LocalBackend):
    """A backend whose clock differs from the host's (a container, a remote machine)."""

    async def stat(self, path):
        st = await super().stat(path)
        if st is None:
            return None
        return type(st)(st.size, st.mtime_ns + 3_600 * 10**9, st.is_dir)


async def test_read_state_uses_the_backend_mtime_not_the_host(tmp_path):
    p = lines_file(tmp_path, 2)
    tools = {t.name: t for t in default_tools(SkewedClockBackend(str(tmp_path)))}
    await run_tool(tools["Read"], file_path=str(p))
    _, r = await run_tool(tools["Edit"], file_path=str(p), old_string="line 1",
                          new_string="LINE 1")
    assert not r.is_error, r.text
    _, r = await run_tool(tools["Edit"], file_path=str(p), old_string="line 2",
                          new_string="LINE 2")
    assert not r.is_error, r.text
    assert p.read_text() == "LINE 1\nLINE 2\n"


async def test_read_state_is_per_backend(tmp_path):
    p = lines_file(tmp_path, 2)
    await run_tool(Read(LocalBackend(str(tmp_path))), file_path=str(p))
    _, r = await run_tool(Write(LocalBackend(str(tmp_path))), file_path=str(p), content="x")
    assert r.state is ToolResultState.ERROR and "has not been read yet" in r.text


# --- Edit -----------------------------------------------------------------------------------


async def test_edit_replaces_a_unique_string_and_a_second_edit_works(tools, tmp_path):
    p = lines_file(tmp_path, 3)
    await run_tool(tools["Read"], file_path=str(p))
    _, r = await run_tool(tools["Edit"], file_path=str(p), old_string="line 2",
                          new_string="second")
    assert r.text == f"Replaced 1 occurrence in {p}." and r.metadata["occurrences"] == 1
    assert "-line 2" in r.metadata["diff"] and "+second" in r.metadata["diff"]
    _, r = await run_tool(tools["Edit"], file_path=str(p), old_string="line 3",
                          new_string="third")
    assert not r.is_error, r.text
    assert p.read_text() == "line 1\nsecond\nthird\n"


async def test_edit_ambiguous_needs_replace_all(tools, tmp_path):
    p = tmp_path / "dup.txt"
    p.write_text("x = 1\nx = 1\nx = 1\n")
    await run_tool(tools["Read"], file_path=str(p))
    _, r = await run_tool(tools["Edit"], file_path=str(p), old_string="x = 1", new_string="y")
    assert r.state is ToolResultState.ERROR and "occurs 3 times" in r.text
    assert "replace_all" in r.text and p.read_text() == "x = 1\nx = 1\nx = 1\n"
    _, r = await run_tool(tools["Edit"], file_path=str(p), old_string="x = 1", new_string="y",
                          replace_all=True)
    assert r.text == f"Replaced all 3 occurrences in {p}." and p.read_text() == "y\ny\ny\n"


@pytest.mark.parametrize("old,new,message", [
    ("", "x", "old_string is empty"),
    ("same", "same", "are the same"),
    ("not in the file", "x", "was not found"),
])
async def test_edit_refusals_leave_the_file_alone(tools, tmp_path, old, new, message):
    p = tmp_path / "f.txt"
    p.write_text("same text\n")
    await run_tool(tools["Read"], file_path=str(p))
    edit = tools["Edit"]
    chunks = [c async for c in _call(edit, file_path=str(p), old_string=old, new_string=new)]
    assert chunks[-1].state is ToolResultState.ERROR and message in chunks[-1].text
    assert p.read_text() == "same text\n"


async def _call(tool, **tool_input):
    # Straight through the toolkit, without the schema gate (it would refuse "" already).
    from jupyter_agenttools.tools.toolkit import Toolkit

    async for item in Toolkit([tool]).call_tool(tool, tool_input):
        yield item


async def test_edit_schema_refuses_an_empty_old_string():
    assert schema_errors(Edit(LocalBackend()), {"file_path": "f", "old_string": "",
                                                "new_string": "x"})


async def test_edit_needs_a_fresh_read(tools, tmp_path):
    p = lines_file(tmp_path, 2)
    _, r = await run_tool(tools["Edit"], file_path=str(p), old_string="line 1", new_string="x")
    assert r.state is ToolResultState.ERROR and "Read it with the Read tool first" in r.text
    await run_tool(tools["Read"], file_path=str(p))
    p.write_text("line 1 changed by the user, longer\nline 2\n")
    _, r = await run_tool(tools["Edit"], file_path=str(p), old_string="line 1", new_string="x")
    assert r.state is ToolResultState.ERROR and "changed on disk" in r.text
    assert p.read_text() == "line 1 changed by the user, longer\nline 2\n"


async def test_edit_missing_file(tools, tmp_path):
    _, r = await run_tool(tools["Edit"], file_path=str(tmp_path / "nope"), old_string="a",
                          new_string="b")
    assert r.state is ToolResultState.ERROR and "File not found" in r.text


@pytest.mark.parametrize("original,old,new,expected", [
    (b"a\r\nb\r\nc\r\n", "a\nb", "x\ny\nz", b"x\r\ny\r\nz\r\nc\r\n"),  # CRLF stays CRLF
    (b"a\r\nb\r\nc\r\n", "a\r\nb", "x", b"x\r\nc\r\n"),
    (b"a\nb\nc\n", "a\nb", "x\ny", b"x\ny\nc\n"),  # LF stays LF
    (b"a\r\nb\nc\n", "b\nc", "B\nC", b"a\r\nB\nC\n"),  # mixed: edited exactly as it is
])
async def test_edit_preserves_line_endings(tools, tmp_path, original, old, new, expected):
    p = tmp_path / "eol.txt"
    p.write_bytes(original)
    await run_tool(tools["Read"], file_path=str(p))
    _, r = await run_tool(tools["Edit"], file_path=str(p), old_string=old, new_string=new)
    assert not r.is_error, r.text
    assert p.read_bytes() == expected


async def test_edit_keeps_file_mode(tmp_path):
    p = tmp_path / "run.sh"
    p.write_text("echo old\n")
    os.chmod(p, 0o755)
    tools = {t.name: t for t in default_tools(LocalBackend(str(tmp_path)))}
    await run_tool(tools["Read"], file_path=str(p))
    await run_tool(tools["Edit"], file_path=str(p), old_string="old", new_string="new")
    assert p.read_text() == "echo new\n" and os.stat(p).st_mode & 0o777 == 0o755
