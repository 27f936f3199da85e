"""Fault injection: processes that leave the command's process group, ignore SIGTERM or keep
forking are stopped at a timeout and at a cancellation, on every backend, and the result says
what was stopped; a SIGKILLed kernel takes its commands' trees with it.

Each scenario's processes write their own pid to a file, so the test knows exactly which
processes must be gone afterwards. Every loop in the scenarios is bounded.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path

import pytest
import pytest_asyncio
from backend_helpers import pid_alive, wait_dead
from jupyter_client.manager import start_new_kernel

from jupyter_agenttools.backends.jupyter_kernel import JupyterKernelBackend
from jupyter_agenttools.backends.kernel import KernelBackend
from jupyter_agenttools.backends.local import LocalBackend
from jupyter_agenttools.backends.supervisor import SUPERVISION
from jupyter_agenttools.errors import BackendError

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.kernel,
              pytest.mark.skipif(not SUPERVISION, reason="the supervisor needs Linux /proc")]

REPO = Path(__file__).resolve().parents[2]
PY = sys.executable
# A process that records its pid ($$ of the bash that becomes it) and then lives long.
LIVE = "echo $$ >> {pids}; exec sleep 300"

#: scenario -> (script run by bash -c, number of pids it records). Every background process
#: keeps the inherited stdout: the escapees hold the output pipe.
SCENARIOS = {
    "setsid": (f"setsid bash -c '{LIVE}' & wait_for 1; sleep 300", 1),
    "setpgid": (f"{PY} -c 'import os, time; os.setpgid(0, 0); "
                f"open(\"{{pids}}\", \"a\").write(\"%d\\n\" % os.getpid()); time.sleep(300)' & "
                f"wait_for 1; sleep 300", 1),
    "double_fork": (f"( bash -c '{LIVE}' & ) ; wait_for 1; sleep 300", 1),
    "term_ignoring_grandchild": (
        "setsid bash -c 'trap \"\" TERM; echo $$ >> {pids}; "
        "for i in $(seq 600); do sleep 0.5; done' & wait_for 1; sleep 300", 1),
    "leader_exits_escapees_hold_pipe": (
        f"setsid bash -c '{LIVE}' & ( bash -c '{LIVE}' & ) ; wait_for 2; exit 0", 2),
    "fork_storm_in_new_session": (
        "setsid bash -c 'echo $$ >> {pids}; for i in $(seq 40); do "
        "( setsid bash -c \"echo \\$\\$ >> {pids}; exec sleep 300\" & ); done; sleep 300' & "
        "wait_for 41; sleep 300", 41),
}
#: waits (bounded) until the pid file has N lines, so every process exists before the stop
PRELUDE = ("wait_for() { for _ in $(seq 200); do [ \"$(wc -l < {pids} 2>/dev/null || "
           "echo 0)\" -ge \"$1\" ] && return; sleep 0.05; done; }; ")
KINDS = ["local", "kernel", "jupyter_kernel"]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def jupyter_backend():
    backend = await JupyterKernelBackend.start("python3")
    yield backend
    await backend.close()


@pytest_asyncio.fixture(loop_scope="module", params=KINDS)
async def backend(request, jupyter_backend, tmp_path):
    if request.param == "local":
        return LocalBackend(str(tmp_path))
    if request.param == "kernel":
        return KernelBackend()
    return jupyter_backend


def _script(name: str, pidfile: Path) -> tuple[str, int]:
    script, count = SCENARIOS[name]
    return (PRELUDE + script).replace("{pids}", str(pidfile)), count


def _pids(pidfile: Path) -> list[int]:
    return [int(x) for x in pidfile.read_text().split()] if pidfile.exists() else []


@pytest.mark.parametrize("scenario", list(SCENARIOS))
async def test_timeout_stops_every_process_and_says_so(backend, scenario, tmp_path):
    pidfile = tmp_path / "pids"
    script, count = _script(scenario, pidfile)
    timeout = 3.0  # room for the processes to start on a loaded machine
    start = time.monotonic()
    r = await backend.exec_shell(["/bin/bash", "-c", script], timeout=timeout)
    elapsed = time.monotonic() - start
    pids = _pids(pidfile)
    assert len(pids) == count, (r, pids)
    assert r.timed_out and not r.ok
    # Honoured although escapees hold the output pipe: the kill grace (0.5 s) plus slack,
    # not the old "timeout, then a drain, then another wait" (4.5 s for a 1.5 s timeout).
    assert elapsed < timeout + 2.5, f"returned after {elapsed:.1f} s"
    assert wait_dead(pids, timeout=1.0) == [], f"survivors of {scenario}"
    assert r.tracked is True
    assert r.survivors == ()
    assert r.stopped is not None and r.stopped >= count


@pytest.mark.parametrize("scenario", ["setsid", "double_fork", "term_ignoring_grandchild",
                                      "leader_exits_escapees_hold_pipe"])
async def test_cancellation_stops_every_process(backend, scenario, tmp_path):
    pidfile = tmp_path / "pids"
    script, count = _script(scenario, pidfile)
    task = asyncio.ensure_future(backend.exec_shell(["/bin/bash", "-c", script], timeout=60))
    for _ in range(300):
        if len(_pids(pidfile)) >= count:
            break
        await asyncio.sleep(0.05)
    pids = _pids(pidfile)
    assert len(pids) == count
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert wait_dead(pids, timeout=3.0) == []
    r = await backend.exec_shell(["echo", "usable"])  # the backend works afterwards
    assert r.stdout == b"usable\n"


async def test_completed_command_reports_detached_processes_it_left(backend, tmp_path):
    """A command that completed may leave a deliberately detached process (its output
    redirected); the result names it instead of claiming nothing runs."""
    pidfile = tmp_path / "pids"
    script = (PRELUDE + f"setsid bash -c '{LIVE}' >/dev/null 2>&1 & wait_for 1; echo done"
              ).replace("{pids}", str(pidfile))
    r = await backend.exec_shell(["/bin/bash", "-c", script], timeout=30)
    try:
        assert r.ok and r.stdout == b"done\n"
        pid = _pids(pidfile)[0]
        assert pid_alive(pid)
        assert any(entry.startswith(f"{pid}:") for entry in r.left_running), r
        assert r.stopped is None
    finally:
        for pid in _pids(pidfile):
            os.kill(pid, signal.SIGKILL)


async def test_command_that_closes_its_output_still_times_out(backend):
    start = time.monotonic()
    r = await backend.exec_shell(["/bin/bash", "-c", "exec >&- 2>&-; sleep 300"], timeout=1.0)
    assert r.timed_out and time.monotonic() - start < 4.0


# --- a SIGKILLed kernel -------------------------------------------------------------------

async def test_sigkilled_jupyter_kernel_takes_the_tree_with_it(tmp_path):
    """No restart, no later call: the supervisor sees its parent die and stops the tree."""
    backend = await JupyterKernelBackend.start("python3")
    try:
        pidfile = tmp_path / "pids"
        script, count = _script("fork_storm_in_new_session", pidfile)
        call = asyncio.ensure_future(backend.exec_shell(["/bin/bash", "-c", script],
                                                        timeout=120))
        for _ in range(300):
            if len(_pids(pidfile)) >= count:
                break
            await asyncio.sleep(0.05)
        pids = _pids(pidfile)
        assert len(pids) == count
        os.kill(backend.kernel_pid, signal.SIGKILL)
        assert wait_dead(pids, timeout=5.0) == []
        with pytest.raises(BackendError):
            await call
    finally:
        await backend.close()


KERNEL_CELL = """
import asyncio
from jupyter_agenttools.backends.kernel import KernelBackend
backend = KernelBackend()
task = asyncio.get_running_loop().create_task(
    backend.exec_shell(["/bin/bash", "-c", {script!r}], timeout=120))
await asyncio.sleep(0.2)
"""


def test_sigkilled_notebook_kernel_takes_the_tree_with_it(tmp_path):
    """KernelBackend in a real ipykernel: kill -9 the kernel, the escapees die too."""
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    km, kc = start_new_kernel(kernel_name="python3", cwd=str(tmp_path), env=env)
    pidfile = tmp_path / "pids"
    script, count = _script("fork_storm_in_new_session", pidfile)
    try:
        kc.execute_interactive(KERNEL_CELL.format(script=script), timeout=60)
        deadline = time.monotonic() + 30
        while len(_pids(pidfile)) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        pids = _pids(pidfile)
        assert len(pids) == count
        os.kill(km.provisioner.process.pid, signal.SIGKILL)
        assert wait_dead(pids, timeout=5.0) == []
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
