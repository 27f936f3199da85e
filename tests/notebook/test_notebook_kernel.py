"""The notebook tools in a real ipykernel, driven by a ScriptedModel from ``%%agent`` cells.

The kernel starts with ``JPY_SESSION_NAME`` pointing at a notebook in the project (what
jupyter_server does), so the tools' default notebook is that file. Every tool runs in every
mode; questions are answered "allow once" from a later cell (the same path as a click), and
the effects are checked: the variable RunCode sets, the cell NotebookEdit inserts. Then
RunCode's timeout and the user's Interrupt button, output capture, the agent's cell id.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import nbformat
import pytest


def _jupyter_conftest():
    """The kernel driver of tests/jupyter (a conftest, so not importable by name)."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "jupyter" / "conftest.py"
    spec = importlib.util.spec_from_file_location("agenttools_jupyter_conftest", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


_driver = _jupyter_conftest()
KernelDriver, isolated_env = _driver.KernelDriver, _driver.isolated_env

pytestmark = pytest.mark.kernel

MODES = ["default", "accept_edits", "explore", "bypass", "dont_ask"]


@pytest.fixture
def notebook_kernel(tmp_path: Path):
    project = tmp_path / "project"
    project.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("df = make_data()", execution_count=1),
                nbformat.v4.new_code_cell("%%agent\nlook at df")]
    nb.cells[0].id, nb.cells[1].id = "data-cell", "agent-cell"
    nbformat.write(nb, str(project / "analysis.ipynb"))
    env = isolated_env(tmp_path)
    env["JPY_SESSION_NAME"] = str(project / "analysis.ipynb")
    driver = KernelDriver(project, env)
    try:
        driver.run(SETUP)
        yield driver, project
    finally:
        driver.stop()


SETUP = '''
%load_ext jupyter_agenttools
import json, asyncio
import pandas as pd
from jupyter_agenttools import ScriptedModel
from jupyter_agenttools.jupyter import current_session
session = current_session()
df = pd.DataFrame({"city": ["Paris", "Lima"], "temp": [18.0, 22.0]})

async def drive(run, answer="allow_once"):
    """Answer every question of the run, then report what happened."""
    asked = []
    while True:
        ask = await run.next_ask(timeout=60)
        if ask is None:
            break
        asked.append(ask.tool)
        ask.answer(answer)
    await run.wait_done(timeout=60)
    return {"asked": asked, "state": run.state,
            "results": [[r.name, r.state.value, r.text[:3000]] for r in run.tool_results]}
'''

SCRIPT = '''
calls = [
    [{"name": "reset_tools", "input": {"notebook": True}}],
    [{"name": "NotebookRead", "input": {}}],
    [{"name": "Inspect", "input": {"name": "df"}}],
    [{"name": "RunCode", "input": {"code": "df.temp.mean()"}}],
    [{"name": "RunCode", "input": {"code": "open('analysis.ipynb').read()[:1]"}}],
    [{"name": "RunCode", "input": {"code": "written = df.temp.max()"}}],
    [{"name": "NotebookEdit", "input": {"cell_id": "data-cell", "edit_mode": "insert",
                                        "new_source": "df.describe()"}}],
    "done",
]
model = ScriptedModel(calls)
'''

# mode -> (tools that were asked, tools that ran, tools denied)
EXPECTED = {
    "default": (["RunCode", "NotebookEdit"], {"NotebookRead", "Inspect", "RunCode",
                                              "NotebookEdit"}, set()),
    "accept_edits": (["RunCode"], {"NotebookRead", "Inspect", "RunCode", "NotebookEdit"},
                     set()),
    "explore": ([], {"NotebookRead", "Inspect", "RunCode"}, {"RunCode", "NotebookEdit"}),
    "bypass": ([], {"NotebookRead", "Inspect", "RunCode", "NotebookEdit"}, set()),
    "dont_ask": ([], {"NotebookRead", "Inspect", "RunCode"}, {"RunCode", "NotebookEdit"}),
}


def run_report(kernel: KernelDriver, code: str) -> dict:
    out = kernel.run(code, timeout=120)
    return json.loads(out.strip().splitlines()[-1])


def test_the_tools_are_in_the_notebook_group(notebook_kernel):
    kernel, _project = notebook_kernel
    out = kernel.run('print(json.dumps({"groups": {t.name: session.toolkit.group_of(t.name) '
                     'for t in session.toolkit.tools}, "active": [g.name for g in '
                     'session.toolkit.groups if g.active], "offered": [s["name"] for s in '
                     'session.toolkit.schemas()]}))')
    info = json.loads(out.strip().splitlines()[-1])
    assert {k for k, v in info["groups"].items() if v == "notebook"} == {
        "NotebookRead", "NotebookEdit", "RunCode", "Inspect"}
    assert "notebook" not in info["active"]  # the model turns it on with reset_tools
    assert "reset_tools" in info["offered"] and "RunCode" not in info["offered"]


@pytest.mark.parametrize("mode", MODES)
def test_every_tool_in_every_mode(notebook_kernel, mode):
    kernel, project = notebook_kernel
    kernel.run(SCRIPT)
    kernel.run(f"%%agent --model model --mode {mode}\nLook at my data and add a cell.")
    report = run_report(kernel, "print(json.dumps(await drive(agent_run)))")
    asked, ran, denied = EXPECTED[mode]
    assert report["state"] == "done"
    assert report["asked"] == asked
    results = report["results"][1:]  # after reset_tools
    assert {name for name, state, _ in results if state == "success"} == ran
    assert {name for name, state, _ in results if state == "denied"} == denied
    by_name = {}
    for name, state, text in results:
        by_name.setdefault(name, []).append((state, text))
    assert "agent-cell" in by_name["NotebookRead"][0][1] or "data-cell" in \
        by_name["NotebookRead"][0][1]
    assert "pandas.DataFrame" in by_name["Inspect"][0][1]
    assert "20.0" in by_name["RunCode"][0][1]  # df.temp.mean()
    assert "'{'" in by_name["RunCode"][1][1]  # IPython's open, a read inside the project
    audited = json.loads(kernel.run(
        "print(json.dumps([[r.get('tool'), r.get('behavior'), r.get('answer')] "
        "for r in session.audit.read(newest_first=False)]))").strip().splitlines()[-1])
    for tool in ("NotebookRead", "Inspect", "RunCode", "NotebookEdit"):
        assert any(t == tool for t, _, _ in audited), (tool, audited)  # every decision
    assert sum(1 for _, _, answer in audited if answer) == len(asked)  # and every answer
    kernel.run("session.audit.path.unlink()")
    wrote = kernel.run("print('written' in dir())").strip() == "True"
    assert wrote == ("RunCode" not in denied)
    cells = [c.source for c in nbformat.read(str(project / "analysis.ipynb"), 4).cells]
    inserted = cells == ["df = make_data()", "df.describe()", "%%agent\nlook at df"]
    assert inserted == ("NotebookEdit" not in denied)
    if not inserted:
        assert cells == ["df = make_data()", "%%agent\nlook at df"]


def test_runcode_timeout_interrupts_and_the_kernel_goes_on(notebook_kernel):
    kernel, _project = notebook_kernel
    kernel.run('model = ScriptedModel([[{"name": "RunCode", "input": {"code": '
               '"import time\\nstarted = 1\\ntime.sleep(120)", "timeout": 1}}], "done"])\n'
               'session.toolkit.set_active_groups({"notebook": True})')
    begun = time.monotonic()
    kernel.run("%%agent --model model --mode bypass\nsleep")
    report = run_report(kernel, "print(json.dumps(await drive(agent_run)))")
    assert time.monotonic() - begun < 30
    (name, state, text), = report["results"]
    assert state == "error" and "Timed out" in text
    assert kernel.run("print(started, 1 + 1)").strip() == "1 2"


def test_the_interrupt_button_stops_runcode(notebook_kernel):
    kernel, project = notebook_kernel
    kernel.run('model = ScriptedModel([[{"name": "RunCode", "input": {"code": '
               '"import time, pathlib\\npathlib.Path(\'sleeping\').touch()\\n'
               'time.sleep(120)", "timeout": 300}}], "done"])\n'
               'session.toolkit.set_active_groups({"notebook": True})')
    kernel.run("%%agent --model model --mode bypass\nsleep")
    deadline = time.monotonic() + 60
    while not (project / "sleeping").exists():  # the code sleeps in the main thread now
        assert time.monotonic() < deadline, "RunCode never started"
        time.sleep(0.1)
    time.sleep(0.3)
    kernel.km.interrupt_kernel()
    report = run_report(kernel, "print(json.dumps(await drive(agent_run)))")
    (name, state, text), = report["results"]
    assert state == "error" and "Interrupted" in text


def test_runcode_output_goes_to_the_model_not_the_notebook(notebook_kernel):
    kernel, _project = notebook_kernel
    kernel.run('model = ScriptedModel([[{"name": "RunCode", "input": {"code": '
               '"print(\\"MARK-OUT\\")\\ndisplay(pd.DataFrame({\\"MARKCOL\\": [1]}))\\n'
               'df.head(1)"}}], "done"])\n'
               'session.toolkit.set_active_groups({"notebook": True})')
    kernel.run("%%agent --model model --mode bypass\nprint")
    # the check prints only booleans: the result text itself must not reach any stream
    out = kernel.run("r = await drive(agent_run)\n(name, state, text), = r['results']\n"
                     "print(state, 'MARK-OUT' in text, 'MARKCOL' in text, 'Paris' in text)")
    assert out.strip() == "success True True True"
    kernel.pump(0.5)
    assert not any("MARK-OUT" in s for s in kernel.streams.values())
    # after the run, the notebook's own print and display work as before
    assert kernel.run("print('after')").strip() == "after"


def test_notebook_read_marks_the_agents_cell(notebook_kernel):
    kernel, _project = notebook_kernel
    kernel.run('model = ScriptedModel([[{"name": "NotebookRead", "input": {}}], "done"])\n'
               'session.toolkit.set_active_groups({"notebook": True})')
    msg = kernel.kc.session.msg("execute_request", {
        "code": "%%agent --model model\nread", "silent": False, "store_history": True,
        "user_expressions": {}, "allow_stdin": False, "stop_on_error": True},
        metadata={"cellId": "agent-cell"})
    kernel.kc.shell_channel.send(msg)
    kernel.reply(msg["header"]["msg_id"])
    report = run_report(kernel, "print(json.dumps(await drive(agent_run)))")
    (name, state, text), = report["results"]
    assert "You were started from cell agent-cell (index 1)" in text
    assert 'id="agent-cell" index="1" type="code" execution_count="" agent=' in text
