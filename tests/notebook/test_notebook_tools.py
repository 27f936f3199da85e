"""The four notebook tools in this process (a plain host: a namespace dict, no live document):
NotebookRead's rendering, NotebookEdit on files (read first, unchanged since, atomic), Inspect,
RunCode's execution (capture, result, errors, timeouts), and their permission ladders."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import stat
from pathlib import Path
from typing import Any

import nb_namespace
import nbformat
import pandas as pd
import pytest
from nb_namespace import Model

from jupyter_agenttools.builtin.notebook import (
    Inspect,
    NotebookHost,
    notebook_group,
    notebook_tools,
)
from jupyter_agenttools.permission.check import check
from jupyter_agenttools.tools.base import ToolResponse
from jupyter_agenttools.tools.toolkit import Toolkit

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 40).decode()


def write_nb(path: Path, *, minor: int = 5) -> list[str]:
    nb = nbformat.v4.new_notebook()
    nb.nbformat_minor = minor
    code = nbformat.v4.new_code_cell("print('hi')\n1 + 1", execution_count=3)
    code.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="hi\n"),
        nbformat.v4.new_output("execute_result", data={"text/plain": "2"}, execution_count=3),
        nbformat.v4.new_output("display_data", data={"image/png": PNG,
                                                     "text/plain": "<Figure>"}),
        nbformat.v4.new_output("error", ename="ValueError", evalue="bad",
                               traceback=["\x1b[31mValueError\x1b[0m: bad"]),
    ]
    md = nbformat.v4.new_markdown_cell("# Title")
    long = nbformat.v4.new_code_cell("print('x' * 20000)")
    long.outputs = [nbformat.v4.new_output("stream", name="stdout", text="x" * 20000)]
    nb.cells = [code, md, long]
    if minor < 5:
        for cell in nb.cells:
            cell.pop("id", None)
    path.write_text(nbformat.writes(nb, version=4))
    return [c.get("id", f"cell-{i}") for i, c in enumerate(nb.cells)]


@pytest.fixture
def setup(tmp_path: Path):
    path = tmp_path / "work.ipynb"
    ids = write_nb(path)
    namespace: dict[str, Any] = {"df": pd.DataFrame({"a": [1, 2]}), "model": Model(),
                                 "n": 3}
    host = NotebookHost(namespace, notebook_path=str(path),
                        offload_dir=str(tmp_path / "offload"))
    tools = {t.name: t for t in notebook_tools(host)}
    toolkit = Toolkit(list(tools.values()))

    def call(name: str, tool_input: dict[str, Any]) -> ToolResponse:
        async def go() -> ToolResponse:
            last = None
            async for item in toolkit.call_tool(tools[name], tool_input):
                last = item
            return last

        return asyncio.run(go())

    return path, ids, tools, call, namespace


def test_group_and_tool_names():
    group = notebook_group()
    assert group.name == "notebook" and not group.active and group.instructions
    assert [t.name for t in notebook_tools()] == ["NotebookRead", "NotebookEdit", "RunCode",
                                                  "Inspect"]
    schema = notebook_tools()[1].input_schema
    assert set(schema["properties"]) == {"notebook_path", "cell_id", "new_source",
                                         "cell_type", "edit_mode"}
    assert schema["properties"]["edit_mode"]["enum"] == ["replace", "insert", "delete"]


def test_read_renders_cells_outputs_and_images(setup):
    path, ids, _tools, call, _ns = setup
    result = call("NotebookRead", {})
    assert not result.is_error
    text = result.text
    assert f'<cell id="{ids[0]}" index="0" type="code" execution_count="3">' in text
    assert "print('hi')" in text and "hi\n" in text and ">\n2\n<" in text
    assert "ValueError: bad" in text and "\x1b[" not in text  # ANSI colours removed
    assert f'<cell id="{ids[1]}" index="1" type="markdown">\n# Title' in text
    images = [b for b in result.content if b["type"] == "image"]
    assert len(images) == 1 and images[0]["mime_type"] == "image/png"
    assert result.metadata["cells"] == 3 and result.metadata["live"] is False


def test_long_outputs_are_cut_and_offloaded(setup):
    path, ids, _tools, call, _ns = setup
    result = call("NotebookRead", {"cell_id": ids[2]})
    assert "Output truncated" in result.text and len(result.text) < 8000
    offloaded = result.metadata["offloaded"]
    assert offloaded and Path(offloaded[0]).read_text() == "x" * 20000


def test_ranges_and_bad_ranges(setup):
    path, ids, _tools, call, _ns = setup
    result = call("NotebookRead", {"offset": 1, "limit": 1})
    assert f'id="{ids[1]}"' in result.text and f'id="{ids[0]}"' not in result.text
    assert "offset=2 to continue" in result.text
    assert call("NotebookRead", {"offset": 9}).is_error
    missing = call("NotebookRead", {"cell_id": "nope"})
    assert missing.is_error and ids[0] in missing.text  # the error lists the ids


@pytest.mark.parametrize("content,why", [
    ("not json", "not a valid notebook"), ('{"cells": 5}', "not a valid notebook"),
    (b"\xff\xfe", "not UTF-8"),
])
def test_a_broken_file_is_a_clear_error(setup, content, why):
    path, _ids, _tools, call, _ns = setup
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    result = call("NotebookRead", {})
    assert result.is_error and why in result.text


def test_edit_needs_a_read_first(setup):
    path, ids, _tools, call, _ns = setup
    result = call("NotebookEdit", {"cell_id": ids[0], "new_source": "x"})
    assert result.is_error and "NotebookRead first" in result.text
    assert nbformat.read(str(path), 4).cells[0].source.startswith("print")


def test_replace_insert_delete(setup):
    path, ids, _tools, call, _ns = setup
    call("NotebookRead", {})
    replaced = call("NotebookEdit", {"cell_id": ids[0], "new_source": "n * 2"})
    assert not replaced.is_error, replaced.text
    assert "outputs were cleared" in replaced.text
    assert "-print('hi')" in replaced.metadata["diff"] and "+n * 2" in replaced.metadata["diff"]
    inserted = call("NotebookEdit", {"cell_id": ids[1], "new_source": "## Notes",
                                     "cell_type": "markdown", "edit_mode": "insert"})
    assert not inserted.is_error and inserted.metadata["index"] == 2
    top = call("NotebookEdit", {"new_source": "import math", "edit_mode": "insert"})
    assert top.metadata["index"] == 0
    deleted = call("NotebookEdit", {"cell_id": ids[2], "new_source": "",
                                    "edit_mode": "delete"})
    assert not deleted.is_error, deleted.text
    nb = nbformat.read(str(path), 4)
    nbformat.validate(nb)
    assert [c.source for c in nb.cells] == ["import math", "n * 2", "# Title", "## Notes"]
    assert nb.cells[1].outputs == [] and nb.cells[1].execution_count is None
    assert nb.cells[3].cell_type == "markdown"


def test_replace_can_change_the_cell_type(setup):
    path, ids, _tools, call, _ns = setup
    call("NotebookRead", {})
    call("NotebookEdit", {"cell_id": ids[1], "new_source": "x = 1", "cell_type": "code"})
    cell = nbformat.read(str(path), 4).cells[1]
    assert cell.cell_type == "code" and cell.id == ids[1] and cell.source == "x = 1"


def test_a_file_changed_since_the_read_is_not_overwritten(setup):
    path, ids, _tools, call, _ns = setup
    call("NotebookRead", {})
    nb = nbformat.read(str(path), 4)
    nb.cells[1].source = "# Changed by the user"
    nbformat.write(nb, str(path))
    result = call("NotebookEdit", {"cell_id": ids[0], "new_source": "x"})
    assert result.is_error and "changed on disk" in result.text
    assert nbformat.read(str(path), 4).cells[1].source == "# Changed by the user"


def test_the_write_is_atomic_and_keeps_the_permissions(setup):
    path, ids, _tools, call, _ns = setup
    os.chmod(path, 0o640)
    call("NotebookRead", {})
    call("NotebookEdit", {"cell_id": ids[0], "new_source": "x"})
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith(".")) == []
    json.loads(path.read_text())  # whole, valid JSON


def test_a_failed_write_leaves_the_file_and_no_temp(setup, monkeypatch):
    path, ids, _tools, call, _ns = setup
    call("NotebookRead", {})
    before = path.read_bytes()

    def broken(*args: Any, **kwargs: Any) -> None:  # (renameat: the folder's descriptor)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    result = call("NotebookEdit", {"cell_id": ids[0], "new_source": "x"})
    assert result.is_error and "No space left" in result.text
    assert path.read_bytes() == before
    assert [p.name for p in path.parent.iterdir()
            if p.suffix == ".tmp" or p.name.startswith(".agt-")] == []


def test_old_notebooks_get_positional_ids_then_real_ones(tmp_path: Path):
    path = tmp_path / "old.ipynb"
    write_nb(path, minor=4)
    host = NotebookHost({}, notebook_path=str(path))
    tools = {t.name: t for t in notebook_tools(host)}

    async def go() -> None:
        read = await tools["NotebookRead"].call()
        assert read.metadata["cell_ids"] == ["cell-0", "cell-1", "cell-2"]
        await tools["NotebookEdit"].call(new_source="changed", cell_id="cell-1")

    asyncio.run(go())
    nb = nbformat.read(str(path), 4)
    assert nb.nbformat_minor == 5 and all(c.get("id") for c in nb.cells)
    assert nb.cells[1].source == "changed"


@pytest.mark.parametrize("tool_input,error", [
    ({"new_source": "x", "edit_mode": "delete"}, "needs the cell_id"),
    ({"new_source": "x", "cell_id": "nope"}, "has not been read"),
])
def test_edit_input_errors(setup, tool_input, error):
    _path, _ids, _tools, call, _ns = setup
    call("NotebookRead", {})
    result = call("NotebookEdit", tool_input)
    assert result.is_error and error in result.text


def test_no_default_notebook_is_a_clear_error(tmp_path: Path):
    tools = {t.name: t for t in notebook_tools(NotebookHost({}))}
    with pytest.raises(Exception, match="notebook_path"):
        asyncio.run(tools["NotebookRead"].call())
    decision = check(tools["NotebookEdit"], {"new_source": "x"})
    assert decision.behavior.value == "ask" and "notebook_path" in decision.reason


# --- Inspect ------------------------------------------------------------------------------------


def test_inspect_a_frame(setup):
    _path, _ids, _tools, call, _ns = setup
    text = call("Inspect", {"name": "df"}).text
    assert "type: pandas.DataFrame" in text and "shape: (2, 1)" in text
    assert "a: int64" in text and "value (library repr):" in text


def test_inspect_never_runs_user_code(setup):
    _path, _ids, _tools, call, _ns = setup
    nb_namespace.TRACE.clear()
    text = call("Inspect", {"name": "model"}).text
    assert "type: nb_namespace.Model" in text and "not shown" in text
    coef = call("Inspect", {"name": "model.coef_"}).text
    assert "[1.0, 2.0]" in coef
    prop = call("Inspect", {"name": "model.score"})
    assert prop.is_error and "computed by code" in prop.text
    assert nb_namespace.TRACE == []


@pytest.mark.parametrize("name", ["liar", "loud", "loud_callable", "hashy", "Hashy", "box",
                                  "box.liar", "box.loud", "box.hashy", "liars", "model"])
def test_inspect_runs_no_user_code_even_of_objects_that_lie(name):
    """Objects whose ``__class__`` is a property, whose ``__getattribute__`` is user code, or
    whose metaclass hashes/compares/reads attributes with user code: Inspect reports their
    type without calling any of it (``isinstance`` would)."""
    tool = Inspect(NotebookHost(nb_namespace.make_namespace()))
    nb_namespace.TRACE.clear()
    text = tool.call(name).content[0]["text"]
    assert nb_namespace.TRACE == []
    assert "type: " in text and "not shown" in text


@pytest.mark.parametrize("name,error", [
    ("missing", "not defined"), ("df.__class__", "dunder"), ("model.nothing", "does not exist"),
])
def test_inspect_errors(setup, name, error):
    _path, _ids, _tools, call, _ns = setup
    result = call("Inspect", {"name": name})
    assert result.is_error and error in result.text


# --- RunCode execution ----------------------------------------------------------------------------


def test_runcode_output_result_and_namespace(setup):
    _path, _ids, _tools, call, namespace = setup
    result = call("RunCode", {"code": "import sys\nprint('out')\nprint('err', file=sys.stderr)"
                                      "\ny = n * 2\ny + 1"})
    assert not result.is_error
    assert "[stdout]\nout\n" in result.text and "[stderr]\nerr\n" in result.text
    assert "[result]\n7" in result.text
    assert namespace["y"] == 6  # it ran in the notebook's namespace


def test_runcode_errors_show_the_users_traceback(setup):
    _path, _ids, _tools, call, _ns = setup
    result = call("RunCode", {"code": "def f():\n    return 1 / 0\nf()"})
    assert result.is_error and "ZeroDivisionError" in result.text
    assert "return 1 / 0" in result.text and "execute.py" not in result.text


def test_runcode_syntax_error(setup):
    _path, _ids, _tools, call, _ns = setup
    result = call("RunCode", {"code": "def ("})
    assert result.is_error and "SyntaxError" in result.text


@pytest.mark.parametrize("code", ["while True: pass", "import time; time.sleep(60)",
                                  "import asyncio\nawait asyncio.sleep(60)"])
def test_runcode_timeout_stops_the_code(setup, code):
    _path, _ids, _tools, call, _ns = setup
    result = call("RunCode", {"code": code, "timeout": 1})
    assert result.is_error and "Timed out" in result.text
    assert result.metadata["timed_out"] and result.metadata["seconds"] < 10


def test_runcode_captures_figures_and_closes_them(setup):
    _path, _ids, _tools, call, _ns = setup
    import matplotlib.pyplot as plt

    before = len(plt.get_fignums())
    result = call("RunCode", {"code": "import matplotlib.pyplot as plt\nplt.plot([1, 2])\n"
                                      "None"})
    assert any(b["type"] == "image" for b in result.content)
    assert len(plt.get_fignums()) == before


def test_runcode_shows_a_figure_the_user_had_open_when_it_draws_on_it(setup):
    _path, _ids, _tools, call, _ns = setup
    import matplotlib.pyplot as plt

    plt.close("all")
    user_fig = plt.figure()  # the user's open figure, current: plt.plot draws on it
    other = plt.figure()
    plt.figure(user_fig.number)
    try:
        untouched = call("RunCode", {"code": "1 + 1"})
        assert not any(b["type"] == "image" for b in untouched.content)
        drawn = call("RunCode", {"code": "import matplotlib.pyplot as plt\n"
                                         "plt.plot([1, 2])\nNone"})
        images = [b for b in drawn.content if b["type"] == "image"]
        assert len(images) == 1  # the figure drawn on, not the other open one
        assert plt.get_fignums() == [user_fig.number, other.number]  # the user's stay open
        assert user_fig.axes and not other.axes
    finally:
        plt.close("all")


def test_runcode_output_is_bounded(setup):
    _path, _ids, _tools, call, _ns = setup
    result = call("RunCode", {"code": "print('x' * 3_000_000)"})
    assert "characters of output were not kept" in result.text


def test_runcode_refuses_when_the_namespace_changed_after_the_check(setup):
    _path, _ids, tools, call, namespace = setup
    tool = tools["RunCode"]
    assert check(tool, {"code": "df.head()"}).behavior.value == "allow"
    namespace["df"] = Model()  # rebound between the decision and the call
    nb_namespace.TRACE.clear()
    result = call("RunCode", {"code": "df.head()"})
    assert result.is_error and "changed after the permission check" in result.text
    assert nb_namespace.TRACE == []


# --- permission ladders of the file-like tools ----------------------------------------------------

MODES = ["default", "accept_edits", "explore", "bypass", "dont_ask"]
LADDER = [
    ("NotebookRead", {}, {}, ["allow"] * 5),
    ("NotebookRead", {"notebook_path": "/etc/outside.ipynb"}, {},
     ["ask", "ask", "deny", "allow", "deny"]),
    ("NotebookRead", {"notebook_path": "~/.ssh/nb.ipynb"}, {},
     ["ask", "ask", "deny", "allow", "deny"]),
    ("NotebookEdit", {"new_source": "x"}, {}, ["ask", "allow", "deny", "allow", "deny"]),
    ("NotebookEdit", {"new_source": "x", "notebook_path": "/tmp/elsewhere.ipynb"}, {},
     ["ask", "ask", "deny", "allow", "deny"]),
    ("NotebookEdit", {"new_source": "x"}, {"allow": ["Edit(*.ipynb)"]},
     ["allow", "allow", "deny", "allow", "allow"]),
    ("NotebookEdit", {"new_source": "x"}, {"deny": ["Edit(work.ipynb)"]}, ["deny"] * 5),
    ("NotebookEdit", {"new_source": "x"}, {"ask": ["NotebookEdit"]},
     ["ask", "ask", "ask", "ask", "deny"]),
    ("NotebookRead", {}, {"deny": ["Read(*.ipynb)"]}, ["deny"] * 5),
    ("Inspect", {"name": "df"}, {}, ["allow"] * 5),
    ("Inspect", {"name": "db_password"}, {}, ["ask", "ask", "deny", "allow", "deny"]),
    ("Inspect", {"name": "df"}, {"deny": ["Inspect(d*)"]}, ["deny"] * 5),
]


@pytest.mark.parametrize("mode_index,mode", list(enumerate(MODES)))
@pytest.mark.parametrize("name,tool_input,rules,expected", LADDER)
def test_permission_ladder(setup, name, tool_input, rules, expected, mode_index, mode):
    path, _ids, tools, _call, _ns = setup
    decision = check(tools[name], tool_input, mode=mode, rules=rules, cwd=str(path.parent))
    assert decision.behavior.value == expected[mode_index], decision.reason


def test_the_question_card_preview_is_the_cells_diff(setup):
    from jupyter_agenttools.jupyter.explain import preview

    path, ids, tools, call, _ns = setup
    call("NotebookRead", {})
    shown = preview(tools["NotebookEdit"], {"cell_id": ids[0], "new_source": "n * 2"},
                    str(path.parent))
    assert "-print('hi')" in shown.text and "+n * 2" in shown.text
    inserted = preview(tools["NotebookEdit"], {"cell_id": ids[0], "edit_mode": "insert",
                                               "new_source": "y"}, str(path.parent))
    assert f"new cell after {ids[0]}" in inserted.text and "+y" in inserted.text


# --- agenttools check knows the notebook tools (no kernel: only built-ins are known) ---------


@pytest.mark.parametrize("argv,expected", [
    (["--tool", "RunCode", "--input", '{"code": "sorted([3, 1])"}'], "allow"),
    (["--tool", "RunCode", "--input", '{"code": "import os; os.remove(\\"x\\")"}'], "ask"),
    (["--tool", "RunCode", "--input", '{"code": "df.head()"}'], "ask"),  # df is unknown here
    (["--tool", "RunCode", "--mode", "dont_ask", "--input", '{"code": "x = 1"}'], "deny"),
    (["--tool", "NotebookEdit", "--mode", "accept_edits", "--input",
      '{"notebook_path": "a.ipynb", "new_source": "x"}'], "allow"),
    (["--tool", "Inspect", "--input", '{"name": "df"}'], "allow"),
])
def test_agenttools_check(argv, expected, capsys, tmp_path, monkeypatch):
    from jupyter_agenttools.cli import main

    monkeypatch.chdir(tmp_path)
    main(["check", "--json", *argv])
    decision = json.loads(capsys.readouterr().out)
    assert decision["behavior"] == expected
