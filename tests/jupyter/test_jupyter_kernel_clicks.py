"""The approval widgets in a real kernel: the click arrives as the comm message JupyterLab sends.

Each test loads the extension in a fresh ipykernel (jupyter_client over ZMQ), starts a
``%%agent`` cell with a ScriptedModel that calls a function tool (a plain ASK in default
mode), clicks a button of the question card, and checks from a later cell that the run
resumed with the right outcome.
"""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.kernel

SETUP = '''
%load_ext jupyter_agenttools
from jupyter_agenttools import ScriptedModel
notes = []

@agent_tool
def add_note(text: str) -> str:
    """Append a note to the notebook's list.

    Args:
        text: the note
    """
    notes.append(text)
    return f"noted {text!r}"

def script(note="hello"):
    return ScriptedModel([[{"name": "add_note", "input": {"text": note}}], "all done"])
m = script()
'''

START = "%%agent --model m\nPlease add a note."

REPORT = '''
result = await agent_run.wait_done(timeout=20)
print(json.dumps({"result": result, "state": agent_run.state, "notes": notes,
                  "results": [r.state.value for r in agent_run.tool_results],
                  "asks": [(a.choice, a.message) for a in agent_run.asks]}))
'''


def report(kernel) -> dict:
    out = kernel.run("import json\n" + REPORT)
    return json.loads(out.strip().splitlines()[-1])


def start_run(kernel) -> None:
    kernel.run(SETUP)
    kernel.run(START)  # returns at once: the run waits for the question to be answered


def test_allow_once_click_resumes_the_run(kernel):
    start_run(kernel)
    allow = kernel.wait_button("agenttools-allow_once")
    assert kernel.run("print(len(agent_run.pending), notes)").strip() == "1 []"
    kernel.click(allow)
    # the buttons disable themselves once the answer is in
    kernel.wait_for(lambda: allow in kernel.buttons(css="agenttools-allow_once", enabled=False),
                    what="the Allow once button disabled")
    r = report(kernel)
    assert r == {"result": "all done", "state": "done", "notes": ["hello"],
                 "results": ["success"], "asks": [["allow_once", None]]}
    assert any("allowed once" in v for v in kernel.html_values())


def test_always_allow_click_writes_the_local_settings_file(kernel, project):
    start_run(kernel)
    always = kernel.wait_button("agenttools-always")
    kernel.click(always)
    r = report(kernel)
    assert r["notes"] == ["hello"] and r["asks"] == [["always", None]]
    local = json.loads((project / ".agenttools" / "settings.local.json").read_text())
    assert "add_note" in local["permissions"]["allow"]
    # the rule holds for the next run: no question this time
    kernel.run("m = script('again')")
    kernel.run(START)
    r = report(kernel)
    assert r["notes"] == ["hello", "again"] and r["asks"] == [] and r["state"] == "done"


def test_deny_click_with_a_message_reaches_the_model(kernel):
    start_run(kernel)
    deny = kernel.wait_button("agenttools-deny")
    text_ids = [c for c, s in kernel.models.items()
                if "agenttools-deny-message" in s.get("_dom_classes", ())]
    assert text_ids, "the Deny message field is missing"
    kernel.set_value(text_ids[-1], {"value": "not today"})
    kernel.click(deny)
    r = report(kernel)
    assert r["notes"] == [] and r["results"] == ["denied"]
    assert r["asks"] == [["deny", "not today"]]
    assert r["state"] == "done"


def test_cancel_button_cancels_the_run(kernel):
    start_run(kernel)
    kernel.wait_button("agenttools-allow_once")
    cancel = kernel.wait_button("agenttools-cancel")
    kernel.click(cancel)
    out = kernel.run("import asyncio\n"
                     "try:\n    await agent_run.wait_done(timeout=20)\n"
                     "except asyncio.CancelledError:\n    pass\n"
                     "print(agent_run.state, notes)")
    assert out.strip() == "cancelled []"
    # the open question's buttons are closed with the run
    kernel.wait_for(lambda: not kernel.buttons(css="agenttools-allow_once", enabled=True),
                    what="question buttons disabled after cancel")


def test_wait_cell_blocks_until_the_click(kernel):
    kernel.run(SETUP)
    msg_id = kernel.send("%%agent --model m --wait\nPlease add a note.")
    allow = kernel.wait_button("agenttools-allow_once")
    kernel.pump(0.3)
    assert msg_id not in kernel.idle, "the --wait cell ended before the question was answered"
    kernel.click(allow)
    content = kernel.reply(msg_id, timeout=30)
    assert content["status"] == "ok"
    assert report(kernel)["notes"] == ["hello"]


def test_unload_removes_everything_and_reload_works(kernel):
    start_run(kernel)
    kernel.wait_button("agenttools-allow_once")
    out = kernel.run(
        "run0 = agent_run\n"
        "%unload_ext jupyter_agenttools\n"
        "import asyncio\n"
        "await asyncio.sleep(0.2)\n"
        "mm = get_ipython().magics_manager.magics\n"
        "print('agent' in mm['line'], 'agent' in mm['cell'], 'agent_tool' in dir(), run0.state)"
    )
    assert out.strip() == "False False False cancelled"
    out = kernel.run("%reload_ext jupyter_agenttools\n%agent mode\n"
                     "print('agent' in get_ipython().magics_manager.magics['cell'])")
    lines = out.strip().splitlines()
    assert lines[0].startswith("jupyter_agenttools: mode default · model none yet")
    assert lines[1:] == ["mode: default (built-in default)", "True"]


def test_safety_question_is_marked_and_offers_no_always(kernel):
    kernel.run(SETUP)
    kernel.run('m = ScriptedModel([[{"name": "Read", "input": {"file_path": "~/.ssh/id_rsa"}}],'
               ' "no key for me"])')
    kernel.run(START)
    deny = kernel.wait_button("agenttools-deny")
    kernel.wait_for(lambda: [s for s in kernel.models.values()
                             if "agenttools-question-safety" in s.get("_dom_classes", ())],
                    what="the card marked as a safety question")
    assert not kernel.buttons(css="agenttools-always")
    assert any("allow rules cannot silence this" in v for v in kernel.html_values())
    kernel.click(deny)
    r = report(kernel)
    assert r["results"] == ["denied"] and r["asks"] == [["deny", None]]
