"""JupyterKernelBackend beyond the contract: a kernel that dies mid-call, and kernels on a real
jupyter-server reached by URL + token (REST + WebSocket channels)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
import urllib.error
import urllib.request

import pytest
from backend_helpers import jupyter_server, wait_dead

from jupyter_agenttools.backends.jupyter_kernel import JupyterKernelBackend
from jupyter_agenttools.errors import BackendError

pytestmark = pytest.mark.kernel

TOKEN = "agenttools-test-token"


async def _kill_during_long_call(backend, tmp_path, kernel_pid):
    """Start `sleep 60` in the kernel, SIGKILL the kernel process, return (error, elapsed,
    the orphaned sleep's pid)."""
    pidfile = tmp_path / f"sleep-{time.monotonic_ns()}"
    call = asyncio.ensure_future(backend.exec_shell(
        ["/bin/bash", "-c", f"sleep 60 & echo $! > {pidfile}; wait"]))
    for _ in range(200):
        if pidfile.exists() and pidfile.read_text().strip():
            break
        await asyncio.sleep(0.05)
    sleep_pid = int(pidfile.read_text())
    start = time.monotonic()
    os.kill(kernel_pid, signal.SIGKILL)
    with pytest.raises(BackendError) as info:
        await call
    return info.value, time.monotonic() - start, sleep_pid


async def _kernel_pid(backend) -> int:
    # the command's parent is its supervisor; the supervisor's parent is the kernel
    r = await backend.exec_shell(["/bin/bash", "-c", "ps -o ppid= -p $PPID"])
    return int(r.stdout_text)


async def test_kernel_dying_mid_call_gives_a_clear_error_then_restarts(tmp_path):
    backend = await JupyterKernelBackend.start("python3")
    try:
        pid = await _kernel_pid(backend)
        assert pid == backend.kernel_pid
        error, elapsed, sleep_pid = await _kill_during_long_call(backend, tmp_path, pid)
        assert "kernel died" in str(error) and "restart" in str(error)
        assert elapsed < 20  # noticed promptly, not at the command's end
        await backend.restart()
        assert wait_dead([sleep_pid]) == []  # the orphaned command was cleaned up
        r = await backend.exec_shell(["echo", "alive again"])
        assert r.stdout == b"alive again\n"
        assert await _kernel_pid(backend) != pid

        # Without an explicit restart, the next call brings the kernel back by itself.
        error, _, sleep_pid = await _kill_during_long_call(backend, tmp_path,
                                                           await _kernel_pid(backend))
        assert isinstance(error, BackendError)
        await backend.write_file(str(tmp_path / "after.txt"), b"ok")
        assert (tmp_path / "after.txt").read_bytes() == b"ok"
        assert wait_dead([sleep_pid]) == []
    finally:
        await backend.close()
    assert backend.kernel_pid is None or wait_dead([backend.kernel_pid]) == []


async def test_started_kernel_runs_in_the_given_cwd(tmp_path):
    backend = await JupyterKernelBackend.start("python3", cwd=str(tmp_path))
    try:
        assert await backend.getcwd() == str(tmp_path)
        r = await backend.exec_shell(["pwd"])
        assert r.stdout_text.strip() == str(tmp_path.resolve())
    finally:
        await backend.close()


# --- a kernel on a real Jupyter Server ----------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with jupyter_server(str(tmp_path_factory.mktemp("server-root")), TOKEN) as url:
        yield url


def _rest(url: str, method: str, path: str, token: str = TOKEN, body: dict | None = None):
    req = urllib.request.Request(url + path, method=method,
                                 data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        data = resp.read()
        return json.loads(data) if data else None


async def test_server_kernel_full_round_trip(server, tmp_path):
    backend = await JupyterKernelBackend.connect(server, TOKEN)
    kernel_id = backend.kernel_id
    try:
        assert _rest(server, "GET", f"/api/kernels/{kernel_id}")["id"] == kernel_id
        r = await backend.exec_shell(["/bin/bash", "-c", "echo out; echo err >&2; exit 4"])
        assert (r.exit_code, r.stdout, r.stderr) == (4, b"out\n", b"err\n")
        blob = bytes(range(256)) * 5000
        path = str(tmp_path / "x" / "blob.bin")
        await backend.write_file(path, blob)
        assert await backend.read_file(path) == blob
        assert (await backend.stat(path)).size == len(blob)

        chunks = []
        async for item in backend.exec_shell_stream(
                ["/bin/bash", "-c", "echo a; sleep 2; echo b"], timeout=30):
            chunks.append((time.monotonic(), item))
        assert chunks[0][1] == ("stdout", b"a\n")
        assert chunks[-1][0] - chunks[0][0] > 1.0

        pidfile = tmp_path / "pids"
        start = time.monotonic()
        r = await backend.exec_shell(
            ["/bin/bash", "-c", f"sleep 100 & echo $! > {pidfile}; sleep 100 & "
                                f"echo $! >> {pidfile}; wait"], timeout=1)
        assert r.timed_out and time.monotonic() - start < 3
        assert wait_dead([int(p) for p in pidfile.read_text().split()]) == []
    finally:
        await backend.close()
    with pytest.raises(urllib.error.HTTPError) as info:  # close shut down the kernel it made
        _rest(server, "GET", f"/api/kernels/{kernel_id}")
    assert info.value.code == 404


async def test_server_existing_kernel_by_id_is_left_running(server):
    kernel_id = _rest(server, "POST", "/api/kernels", body={"name": "python3"})["id"]
    try:
        backend = await JupyterKernelBackend.connect(server, TOKEN, kernel_id=kernel_id)
        assert backend.kernel_id == kernel_id
        r = await backend.exec_shell(["echo", "shared"])
        assert r.stdout == b"shared\n"
        await backend.close()
        assert _rest(server, "GET", f"/api/kernels/{kernel_id}")["id"] == kernel_id
    finally:
        _rest(server, "DELETE", f"/api/kernels/{kernel_id}")


@pytest.mark.parametrize("token,kernel_id,expected", [
    ("wrong-token", None, "HTTP 403"),
    (TOKEN, "00000000-0000-0000-0000-000000000000", "HTTP 404"),
])
async def test_server_connect_errors_are_clear(server, token, kernel_id, expected):
    with pytest.raises(BackendError) as info:
        await JupyterKernelBackend.connect(server, token, kernel_id=kernel_id)
    assert expected in str(info.value)


async def test_closed_backend_refuses_calls_clearly():
    backend = await JupyterKernelBackend.start("python3")
    await backend.close()
    with pytest.raises(BackendError, match="closed"):
        await backend.exec_shell(["true"])


async def test_server_dropped_connection_reconnects_and_keeps_kernel_state(server):
    backend = await JupyterKernelBackend.connect(server, TOKEN)
    try:
        pid = await _kernel_pid(backend)
        backend._transport.ws.close()  # the network drops; the kernel lives on
        for _ in range(100):
            if not await backend._transport.alive():
                break
            await asyncio.sleep(0.05)
        # the next call notices before sending, reconnects (reported) and runs
        assert (await backend.exec_shell(["true"])).exit_code == 0
        assert [r["what"].split(" ")[0] for r in backend.recoveries] == ["reconnected"]
        assert await _kernel_pid(backend) == pid  # reconnected, not restarted
    finally:
        await backend.close()


async def test_server_unreachable_is_a_backend_error():
    with pytest.raises(BackendError, match="cannot reach"):
        await JupyterKernelBackend.connect("http://127.0.0.1:9", TOKEN)


async def test_server_kernel_dying_mid_call_then_next_call_works(server, tmp_path):
    backend = await JupyterKernelBackend.connect(server, TOKEN)
    try:
        error, elapsed, sleep_pid = await _kill_during_long_call(
            backend, tmp_path, await _kernel_pid(backend))
        assert "kernel died" in str(error)
        assert elapsed < 20
        r = await backend.exec_shell(["echo", "back"])  # reconnects to the restarted kernel
        assert r.stdout == b"back\n"
        assert wait_dead([sleep_pid]) == []
    finally:
        await backend.close()


async def test_kernel_backend_inside_a_real_ipython_kernel_follows_cd_and_env(tmp_path):
    """KernelBackend used from a notebook: %cd and %env take effect on the next call."""
    from jupyter_client.manager import AsyncKernelManager

    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    km = AsyncKernelManager(kernel_name="python3")
    await km.start_kernel(env=dict(os.environ, PYTHONPATH=repo))
    kc = km.client()
    kc.start_channels()
    try:
        await kc.wait_for_ready(timeout=60)
        out: list[str] = []

        def hook(msg):
            if msg["msg_type"] == "stream":
                out.append(msg["content"]["text"])
            elif msg["msg_type"] == "error":
                out.append("ERROR " + msg["content"]["evalue"])

        cells = [
            "from jupyter_agenttools.backends.kernel import KernelBackend\nb = KernelBackend()",
            f"%cd {tmp_path}",
            "%env AGT_FROM_ENV_MAGIC=seven",
            "r = await b.exec_shell(['/bin/bash', '-c', 'pwd; echo $AGT_FROM_ENV_MAGIC; "
            "python -c \"import sys; print(sys.executable)\"'])",
        ]
        for code in cells:
            await kc.execute_interactive(code, timeout=60, output_hook=hook)
        out.clear()
        await kc.execute_interactive("print(r.stdout_text, end='')\nimport sys\n"
                                     "print(sys.executable)", timeout=60, output_hook=hook)
        pwd, env_value, python, kernel_python = "".join(out).split("\n")[:4]
        assert pwd == str(tmp_path.resolve())
        assert env_value == "seven"
        assert os.path.realpath(python) == os.path.realpath(kernel_python)
    finally:
        kc.stop_channels()
        await km.shutdown_kernel(now=True)


async def test_a_kernel_that_overruns_is_interrupted_by_the_host(monkeypatch):
    """The host's backstop: kernel-side work that outlives its time limit (plus slack) is
    interrupted, the call fails clearly, and the kernel stays usable."""
    from jupyter_agenttools.backends import jupyter_kernel

    monkeypatch.setattr(jupyter_kernel, "TIMEOUT_SLACK", 0.0)
    backend = await JupyterKernelBackend.start("python3")
    try:
        start = time.monotonic()
        with pytest.raises(BackendError, match="overran its time limit and was interrupted"):
            async for _ in backend._run("import time; time.sleep(60)", {}, 1.0):
                pass
        assert time.monotonic() - start < 20
        r = await backend.exec_shell(["echo", "fine"])
        assert r.stdout == b"fine\n"
    finally:
        await backend.close()
