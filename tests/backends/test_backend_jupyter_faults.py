"""Fault injection, JupyterKernelBackend (issue 18): real kernels (started here with
jupyter_client, and on a real jupyter-server), faulted while a call runs and between calls:
deleted through the REST API, restarted, interrupted from outside, SIGKILLed (a bounded loop),
busy with someone else's cell. Every call answers within its time limit, the next call works
(or says clearly why it cannot), and recoveries are reported."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
import urllib.request
from typing import Any

import pytest
from backend_helpers import jupyter_server
from fault_figures import record

from jupyter_agenttools.backends import jupyter_kernel
from jupyter_agenttools.backends.jupyter_kernel import JupyterKernelBackend
from jupyter_agenttools.errors import BackendError

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(300)]

TOKEN = "agenttools-faults-token"
TIMEOUT = 8.0  # the command's timeout in these tests
#: what a call may take at most: its timeout, the host's slack, an interrupt's wait, and a
#: margin for this shared 2-core machine. The tests assert an answer came (no hang), the
#: figures record how long it took.
BOUND = TIMEOUT + jupyter_kernel.TIMEOUT_SLACK + jupyter_kernel.INTERRUPT_WAIT + 20
KILLS = 4


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with jupyter_server(str(tmp_path_factory.mktemp("faults-root")), TOKEN) as url:
        yield url


def rest(url: str, method: str, path: str, body: dict | None = None) -> Any:
    req = urllib.request.Request(url + path, method=method,
                                 data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Authorization": f"token {TOKEN}"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        data = resp.read()
        return json.loads(data) if data else None


async def timed(coro: Any) -> tuple[float, str, Any]:
    """(seconds, "ok" or the error's text, result) — never more than BOUND seconds."""
    begin = time.monotonic()
    try:
        result = await asyncio.wait_for(coro, BOUND)
        return time.monotonic() - begin, "ok", result
    except asyncio.TimeoutError:
        return time.monotonic() - begin, f"NO ANSWER within {BOUND:g} s", None
    except BackendError as exc:
        return time.monotonic() - begin, str(exc), None


async def open_backend(transport: str, server: str | None) -> JupyterKernelBackend:
    if transport == "server":
        return await JupyterKernelBackend.connect(server, TOKEN)
    return await JupyterKernelBackend.start("python3")


async def kernel_pid(backend: JupyterKernelBackend) -> int:
    # the command's parent is its supervisor (backends/supervisor.py); its parent, the kernel
    r = await backend.exec_shell(["/bin/bash", "-c", "ps -o ppid= -p $PPID"], timeout=30)
    return int(r.stdout_text)


def faults(server: str, backend: JupyterKernelBackend, transport: str) -> dict[str, Any]:
    kid = backend.kernel_id

    async def sigkill(pid: int) -> None:
        os.kill(pid, signal.SIGKILL)

    if transport == "server":
        return {
            "deleted": lambda pid: asyncio.to_thread(rest, server, "DELETE", f"/api/kernels/{kid}"),
            "restarted": lambda pid: asyncio.to_thread(rest, server, "POST",
                                                       f"/api/kernels/{kid}/restart"),
            "interrupted": lambda pid: asyncio.to_thread(rest, server, "POST",
                                                         f"/api/kernels/{kid}/interrupt"),
            "killed": sigkill,
        }
    km = backend._transport.km
    return {
        "restarted": lambda pid: km.restart_kernel(now=True),
        "interrupted": lambda pid: km.interrupt_kernel(),
        "killed": sigkill,
    }


CASES = [(transport, fault, moment)
         for transport, names in (("server", ("deleted", "restarted", "interrupted", "killed")),
                                  ("local", ("restarted", "interrupted", "killed")))
         for fault in names for moment in ("during", "between")]


@pytest.mark.parametrize("transport, fault, moment", CASES,
                         ids=[f"{t}-{f}-{m}" for t, f, m in CASES])
async def test_every_fault_gets_an_answer_in_bounded_time_and_the_next_call_works(
        server, tmp_path, transport, fault, moment):
    backend = await open_backend(transport, server)
    try:
        pid = await kernel_pid(backend)
        inject = faults(server, backend, transport)[fault]
        faulted: tuple[float, str, Any] | None = None
        if moment == "during":
            call = asyncio.ensure_future(timed(backend.exec_shell(["sleep", "60"],
                                                                  timeout=TIMEOUT)))
            await asyncio.sleep(1.0)
            await inject(pid)
            faulted = await call
            assert not faulted[1].startswith("NO ANSWER"), faulted
            assert faulted[1] != "ok", faulted  # the command was cut short: an error says so
        else:
            await inject(pid)
            await asyncio.sleep(0.5)
        after = await timed(backend.exec_shell(["echo", "fine"], timeout=TIMEOUT))
        again = after
        if after[1] != "ok":  # at most one call fails (the kernel vanished under it)
            again = await timed(backend.exec_shell(["echo", "fine"], timeout=TIMEOUT))
        assert again[1] == "ok" and again[2].stdout == b"fine\n", (after, again)
        if fault != "interrupted":  # the kernel's state was lost: the backend says so
            assert backend.recoveries, "a recovery is reported"
        else:
            assert backend.recoveries == []
        record("kernel", f"{transport}-{fault}-{moment}", timeout_s=TIMEOUT,
               faulted_call_s=None if faulted is None else round(faulted[0], 2),
               faulted_call_says=None if faulted is None else faulted[1][:140],
               next_call_s=round(after[0], 2), next_call_says=after[1][:140],
               second_call_s=round(again[0], 2),
               recoveries=[r["what"][:60] for r in backend.recoveries])
    finally:
        await asyncio.wait_for(backend.close(), 60)


@pytest.mark.parametrize("transport", ["local", "server"])
async def test_a_bounded_sigkill_loop_each_call_answers_and_the_next_works(server, transport):
    backend = await open_backend(transport, server)
    rounds = []
    try:
        for _ in range(KILLS):
            pid = await kernel_pid(backend)
            call = asyncio.ensure_future(timed(backend.exec_shell(["sleep", "60"],
                                                                  timeout=TIMEOUT)))
            await asyncio.sleep(0.5)
            os.kill(pid, signal.SIGKILL)
            seconds, says, _ = await call
            assert says != "ok" and not says.startswith("NO ANSWER"), says
            next_seconds, next_says, result = await timed(backend.exec_shell(["echo", "x"],
                                                                             timeout=TIMEOUT))
            assert next_says == "ok" and result.stdout == b"x\n", next_says
            rounds.append((round(seconds, 2), round(next_seconds, 2)))
        assert len(backend.recoveries) == KILLS
        record("kernel", f"{transport}-sigkill-loop", kills=KILLS, timeout_s=TIMEOUT,
               faulted_and_next_call_s=rounds)
    finally:
        await asyncio.wait_for(backend.close(), 60)


async def test_deleted_kernel_that_was_not_ours_is_reported_not_replaced(server):
    kid = rest(server, "POST", "/api/kernels", {"name": "python3"})["id"]
    backend = await JupyterKernelBackend.connect(server, TOKEN, kernel_id=kid)
    try:
        assert (await backend.exec_shell(["true"])).exit_code == 0
        rest(server, "DELETE", f"/api/kernels/{kid}")
        for _ in range(2):
            seconds, says, _ = await timed(backend.exec_shell(["true"], timeout=TIMEOUT))
            assert "not started by this backend" in says or "deleted" in says, says
        record("kernel", "server-foreign-kernel-deleted", second_call_s=round(seconds, 2),
               says=says[:160])
    finally:
        await backend.close()


# --- someone else's cell keeps the kernel busy -------------------------------------------------


async def _busy_cell(backend: JupyterKernelBackend, seconds: float) -> Any:
    """A person's cell on the same kernel: a second client (a session of its own, as a
    notebook's would be) of the same kernel manager."""
    from jupyter_client.session import Session

    km = backend._transport.km
    kc = km.client(session=Session(key=km.session.key))
    kc.start_channels()
    await kc.wait_for_ready(timeout=60)
    kc.execute(f"import time; time.sleep({seconds})")
    return kc


async def test_a_request_behind_a_busy_cell_times_out_unsent_and_never_runs_later(tmp_path):
    marker = tmp_path / "ran"
    backend = await JupyterKernelBackend.start("python3")
    try:
        await backend.exec_shell(["true"])  # installed, clock known
        kc = await _busy_cell(backend, 25)
        await asyncio.sleep(1.0)
        seconds, says, _ = await timed(backend.exec_shell(["touch", str(marker)], timeout=2))
        assert "this request was not sent" in says, says
        # the cell ends; the queued request must not run then
        r = await asyncio.wait_for(backend.exec_shell(["echo", "after"], timeout=60), 90)
        assert r.stdout == b"after\n"
        assert not marker.exists()
        kc.stop_channels()
        record("kernel", "queued-behind-busy-cell", timeout_s=2, answered_after_s=round(
            seconds, 2), says=says[:120], ran_later=marker.exists())
    finally:
        await backend.close()


async def test_cancelling_a_queued_request_returns_at_once_and_it_never_runs(tmp_path):
    marker = tmp_path / "ran"
    backend = await JupyterKernelBackend.start("python3")
    try:
        await backend.exec_shell(["true"])
        kc = await _busy_cell(backend, 6)
        await asyncio.sleep(1.0)
        call = asyncio.ensure_future(backend.exec_shell(["touch", str(marker)], timeout=60))
        await asyncio.sleep(1.0)
        begin = time.monotonic()
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        cancel_s = time.monotonic() - begin
        r = await asyncio.wait_for(backend.exec_shell(["echo", "after"], timeout=60), 90)
        assert r.stdout == b"after\n"
        assert not marker.exists()  # it started after the cell, and was stopped at once
        kc.stop_channels()
        record("kernel", "cancel-queued-request", cancel_s=round(cancel_s, 2),
               ran_later=marker.exists())
    finally:
        await backend.close()


@pytest.mark.parametrize("transport", ["local", "server"])
async def test_cancelling_a_running_command_is_quick_and_kills_it(server, tmp_path, transport):
    pidfile = tmp_path / "pid"
    backend = await open_backend(transport, server)
    try:
        call = asyncio.ensure_future(backend.exec_shell(
            ["/bin/bash", "-c", f"echo $$ > {pidfile}; exec sleep 60"], timeout=60))
        while not (pidfile.exists() and pidfile.read_text().strip()):
            await asyncio.sleep(0.05)
        begin = time.monotonic()
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        cancel_s = time.monotonic() - begin
        pid = int(pidfile.read_text())
        from backend_helpers import wait_dead

        assert wait_dead([pid]) == []
        r = await backend.exec_shell(["echo", "next"], timeout=TIMEOUT)
        assert r.stdout == b"next\n"
        record("kernel", f"{transport}-cancel-running", cancel_s=round(cancel_s, 2))
    finally:
        await backend.close()
