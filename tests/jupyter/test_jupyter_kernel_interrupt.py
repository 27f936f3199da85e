"""Kernel ▸ Interrupt stops a running agent run and its tool's processes, in a real kernel.

The jupyter_client KernelManager's ``interrupt_kernel()`` is what JupyterLab's Interrupt does
(a SIGINT to the kernel). The tool runs ``sleep`` with SIGINT ignored, so only the run's own
cancellation (which kills the tool's process group) can stop it.
"""

from __future__ import annotations

import os
import time

import pytest

pytestmark = pytest.mark.kernel

SETUP = '''
%load_ext jupyter_agenttools
from jupyter_agenttools import ScriptedModel
%agent mode bypass
m = ScriptedModel([[{"name": "Bash", "input": {
    "command": "trap '' INT; echo $$ > pid.txt; exec sleep 300", "timeout": 600}}],
    "never said"])
'''


def _pid(project, timeout: float = 30) -> int:
    path = project / "pid.txt"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return int(path.read_text().strip())
        time.sleep(0.1)
    raise AssertionError("the tool's process never started")


def _gone(pid: int, timeout: float = 15) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:  # a zombie child of the kernel counts as gone
            with open(f"/proc/{pid}/stat") as handle:
                if handle.read().split(")")[-1].split()[0] == "Z":
                    return True
        except OSError:
            return True
        time.sleep(0.1)
    return False


def test_interrupt_cancels_a_background_run_and_kills_its_process(kernel, project):
    kernel.run(SETUP)
    kernel.run("%%agent --model m\nsleep a while")  # returns at once
    pid = _pid(project)
    kernel.km.interrupt_kernel()
    assert _gone(pid), f"the tool's process {pid} survived the interrupt"
    out = kernel.run("await agent_run.wait_done(timeout=20)\n"
                     "print(agent_run.state, '|', agent_run.events[-1].reason)")
    assert out.strip() == "cancelled | interrupted (Kernel ▸ Interrupt)"
    # the panel gave way to the transcript, which says so
    transcript = kernel.run("from jupyter_agenttools.jupyter import current_session\n"
                            "print(current_session().panels[id(agent_run)].final.text())")
    assert transcript.splitlines()[0] == \
        "agent_run · cancelled: interrupted (Kernel ▸ Interrupt) · 1 tool call"
    # the kernel is fine and a next run works
    assert kernel.run("print(1 + 1)").strip() == "2"


def test_interrupt_of_a_waiting_cell_is_one_line_and_kills_the_process(kernel, project):
    kernel.run(SETUP)
    msg_id = kernel.send("%%agent --model m --wait\nsleep a while")
    pid = _pid(project)
    kernel.km.interrupt_kernel()
    reply = kernel.reply(msg_id, timeout=60)
    assert reply["status"] == "error" and reply["ename"] == "RunInterrupted"
    assert reply["traceback"] == [
        "Interrupted: agent_run was cancelled; its tool processes were stopped"]
    assert _gone(pid), f"the tool's process {pid} survived the interrupt"
    assert kernel.run("print(agent_run.state)").strip() == "cancelled"
