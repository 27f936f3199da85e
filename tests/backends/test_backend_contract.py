"""One contract, every backend: Local, Kernel, JupyterKernel (a real kernel started with
jupyter_client) and the BackendBase defaults (a backend with only the three primitives)."""

from __future__ import annotations

import asyncio
import os
import stat
import sys
import time
import uuid

import pytest
import pytest_asyncio
from backend_helpers import PrimitivesOnlyBackend, pid_alive, wait_dead

from jupyter_agenttools.backends.base import ExecResult, FileStat
from jupyter_agenttools.backends.jupyter_kernel import JupyterKernelBackend
from jupyter_agenttools.backends.kernel import KernelBackend
from jupyter_agenttools.backends.local import LocalBackend

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.kernel]

KINDS = ["local", "kernel", "jupyter_kernel", "defaults"]
BLOB = bytes(range(256)) * 6000  # 1.5 MB: every byte value, more than one transfer chunk


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def jupyter_backend():
    backend = await JupyterKernelBackend.start("python3")
    yield backend
    await backend.close()


@pytest_asyncio.fixture(loop_scope="module", params=KINDS)
async def backend(request, jupyter_backend, tmp_path):
    kind = request.param
    if kind == "local":
        return LocalBackend(str(tmp_path))
    if kind == "kernel":
        return KernelBackend()
    if kind == "jupyter_kernel":
        return jupyter_backend
    return PrimitivesOnlyBackend(str(tmp_path))


async def test_exec_captures_stdout_stderr_and_exit_code(backend):
    r = await backend.exec_shell(["/bin/bash", "-c", "printf out; printf err >&2; exit 7"])
    assert (r.exit_code, r.stdout, r.stderr, r.timed_out) == (7, b"out", b"err", False)
    assert not r.ok and not r.truncated


async def test_exec_runs_argv_without_a_shell(backend):
    r = await backend.exec_shell(["printf", "%s|", "a b", "$HOME", ";rm"])
    assert r.ok and r.stdout == b"a b|$HOME|;rm|"


async def test_exec_cwd_and_env_overlay(backend, tmp_path):
    r = await backend.exec_shell(["/bin/bash", "-c", 'pwd; echo "$AGT_X"; test -n "$PATH"'],
                                 cwd=str(tmp_path), env={"AGT_X": "overlay"})
    assert r.ok, r
    assert r.stdout_text.splitlines() == [os.path.realpath(tmp_path), "overlay"]


async def test_exec_stdin_is_closed(backend):
    r = await backend.exec_shell(["cat"], timeout=20)
    assert r.ok and r.stdout == b"" and not r.timed_out


@pytest.mark.parametrize("argv,code", [(["agt-no-such-program-xyz"], 127),
                                       (["/etc/passwd"], 126)])
async def test_exec_program_that_cannot_start(backend, argv, code):
    r = await backend.exec_shell(argv)
    assert r.exit_code == code
    assert "cannot run" in r.stderr_text


async def test_timeout_kills_the_whole_group_promptly(backend, tmp_path):
    pidfile = tmp_path / "pids"
    script = (f"echo $$ > {pidfile}; sleep 100 & echo $! >> {pidfile}; "
              f"sleep 100 & echo $! >> {pidfile}; wait")
    start = time.monotonic()
    r = await backend.exec_shell(["/bin/bash", "-c", script], timeout=1)
    elapsed = time.monotonic() - start
    assert r.timed_out and not r.ok
    assert r.exit_code < 0  # killed by a signal
    assert elapsed < 3, f"returned after {elapsed:.1f} s"
    pids = [int(x) for x in pidfile.read_text().split()]
    assert len(pids) == 3
    assert wait_dead(pids) == []


async def test_stream_yields_output_before_the_command_ends(backend):
    seen: list[tuple[float, object]] = []
    async for item in backend.exec_shell_stream(
            ["/bin/bash", "-c", "echo first; sleep 2; echo second >&2"], timeout=30):
        seen.append((time.monotonic(), item))
    chunks = [(t, i) for t, i in seen if not isinstance(i, ExecResult)]
    final = seen[-1][1]
    assert isinstance(final, ExecResult) and final.exit_code == 0
    assert chunks[0][1] == ("stdout", b"first\n")
    assert chunks[-1][1] == ("stderr", b"second\n")
    if isinstance(backend, PrimitivesOnlyBackend):
        return  # the default stream runs exec_shell, then yields it all (documented)
    assert seen[-1][0] - chunks[0][0] > 1.0  # the first line came while the command ran


async def test_exec_output_over_the_memory_cap_is_spooled_whole(backend):
    size = 3 * 1024 * 1024
    r = await backend.exec_shell(["/bin/bash", "-c", f"head -c {size} /dev/zero | tr '\\0' x"],
                                 timeout=60)
    assert r.ok and r.truncated
    assert len(r.stdout) == 1 << 20  # the head, the default memory cap
    assert r.offload_path and os.path.getsize(r.offload_path) == size
    with open(r.offload_path, "rb") as f:
        assert set(f.read()) == {ord("x")}
    os.unlink(r.offload_path)


async def test_cancellation_kills_the_command(backend, tmp_path):
    pidfile = tmp_path / "cpid"
    task = asyncio.ensure_future(backend.exec_shell(
        ["/bin/bash", "-c", f"sleep 100 & echo $! > {pidfile}; wait"]))
    for _ in range(100):
        if pidfile.exists() and pidfile.read_text().strip():
            break
        await asyncio.sleep(0.05)
    pid = int(pidfile.read_text())
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert wait_dead([pid]) == []
    r = await backend.exec_shell(["echo", "still usable"])  # the backend works afterwards
    assert r.stdout == b"still usable\n"


async def test_cancellation_kills_children_of_a_leader_that_exited(backend, tmp_path):
    pidfile = tmp_path / "bg"
    # The leader exits at once; its background child keeps the output pipe open.
    task = asyncio.ensure_future(backend.exec_shell(
        ["/bin/bash", "-c", f"sleep 100 & echo $! > {pidfile}"]))
    for _ in range(200):
        if pidfile.exists() and pidfile.read_text().strip():
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert wait_dead([int(pidfile.read_text())]) == []


async def test_immediate_cancellation_leaves_nothing_running(backend, tmp_path):
    marker = f"{tmp_path}/started"
    seconds = 1000 + uuid.uuid4().int % 9000  # a sleep we can recognise
    task = asyncio.ensure_future(backend.exec_shell(
        ["/bin/bash", "-c", f"touch {marker}; exec sleep {seconds}"]))
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(1.0)  # a request that was still queued would have started by now
    assert _sleepers(seconds) == []


def _sleepers(seconds: int) -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    argv = f.read().split(b"\0")
            except OSError:
                continue
            if argv[:2] == [b"sleep", str(seconds).encode()] and pid_alive(int(pid)):
                found.append(int(pid))
    return found


async def test_files_round_trip_binary_safe(backend, tmp_path):
    path = str(tmp_path / "deep" / "er" / "blob.bin")
    await backend.write_file(path, BLOB)
    assert await backend.read_file(path) == BLOB
    chunks = [c async for c in backend.read_stream(path)]
    assert b"".join(chunks) == BLOB
    await backend.write_stream(path, [b"ab", b"", b"cd"])
    assert await backend.read_file(path) == b"abcd"
    await backend.write_file(path, b"")
    assert await backend.read_file(path) == b""


async def test_write_is_atomic_and_keeps_mode_and_symlinks(backend, tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("old")
    script.chmod(0o751)
    link = tmp_path / "link.sh"
    link.symlink_to(script)
    await backend.write_file(str(link), b"new")
    assert link.is_symlink() and script.read_text() == "new"
    assert stat.S_IMODE(script.stat().st_mode) == 0o751
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.sh", "run.sh"]  # no temp left


async def test_file_errors_are_the_builtin_os_errors(backend, tmp_path):
    with pytest.raises(FileNotFoundError):
        await backend.read_file(str(tmp_path / "missing"))
    with pytest.raises(IsADirectoryError):
        await backend.read_file(str(tmp_path))
    with pytest.raises(IsADirectoryError):
        await backend.write_file(str(tmp_path), b"x")
    (tmp_path / "plain").write_text("x")
    with pytest.raises((NotADirectoryError, FileExistsError)):
        await backend.write_file(str(tmp_path / "plain" / "child"), b"x")
    with pytest.raises(FileNotFoundError):
        await backend.list_dir(str(tmp_path / "missing"))


async def test_stat_exists_is_dir(backend, tmp_path):
    f = tmp_path / "f.txt"
    f.write_bytes(b"12345")
    s = await backend.stat(str(f))
    assert s == FileStat(5, f.stat().st_mtime_ns, False)
    assert (await backend.stat(str(tmp_path))).is_dir
    assert await backend.stat(str(tmp_path / "missing")) is None
    assert await backend.stat(str(f / "below-a-file")) is None
    assert await backend.exists(str(f)) and not await backend.exists(str(tmp_path / "nope"))
    assert await backend.is_dir(str(tmp_path)) and not await backend.is_dir(str(f))


async def test_listing_operations(backend, tmp_path):
    (tmp_path / "b.txt").write_bytes(b"123")
    (tmp_path / "a").mkdir()
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    assert await backend.list_dir(str(tmp_path)) == ["a", "b.txt", "dangling"]
    entries = {e.name: e for e in await backend.scandir(str(tmp_path))}
    assert entries["a"].is_dir and not entries["b.txt"].is_dir
    assert entries["b.txt"].size == 3
    assert entries["dangling"].size is None


async def test_walk_lists_files_and_gitignores_skipping_vcs(backend, tmp_path):
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "m.py").write_text("x")
    (tmp_path / "top.txt").write_text("x")
    (tmp_path / ".gitignore").write_text("*.log\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref")
    tree = await backend.walk(str(tmp_path))
    assert sorted(p for p, _ in tree["files"]) == [".gitignore", "src/pkg/m.py", "top.txt"]
    assert tree["ignores"] == {"": "*.log\n"} and tree["complete"]
    capped = await backend.walk(str(tmp_path), max_entries=1)
    assert len(capped["files"]) == 1 and not capped["complete"]


async def test_delete_getcwd_expanduser_which(backend, tmp_path):
    (tmp_path / "d" / "e").mkdir(parents=True)
    (tmp_path / "f").write_text("x")
    assert await backend.delete_path(str(tmp_path / "d"))
    assert await backend.delete_path(str(tmp_path / "f"))
    assert not await backend.delete_path(str(tmp_path / "f"))
    assert list(tmp_path.iterdir()) == []
    cwd = await backend.getcwd()
    assert os.path.isabs(cwd) and os.path.isdir(cwd)
    assert await backend.expanduser("~/x") == os.path.join(os.path.expanduser("~"), "x")
    assert await backend.which("bash")
    assert await backend.which("agt-no-such-program-xyz") is None


async def test_relative_paths_resolve_against_the_backend_cwd(backend):
    cwd = await backend.getcwd()
    r = await backend.exec_shell(["pwd"])
    assert r.stdout_text.strip() == os.path.realpath(cwd)
    assert await backend.abspath("x/../y") == os.path.join(cwd, "y")


# --- KernelBackend follows the kernel process ------------------------------------------------


async def test_kernel_backend_follows_cd_and_env_at_call_time(tmp_path, monkeypatch):
    b = KernelBackend()
    monkeypatch.chdir(tmp_path)  # what %cd does
    monkeypatch.setenv("AGT_FOLLOW", "one")  # what %env does
    r = await b.exec_shell(["/bin/bash", "-c", 'pwd; echo "$AGT_FOLLOW"'])
    assert r.stdout_text.split() == [str(tmp_path.resolve()), "one"]
    assert await b.getcwd() == str(tmp_path)
    (tmp_path / "rel.txt").write_text("here")
    assert await b.read_file("rel.txt") == b"here"
    sub = tmp_path / "sub"
    sub.mkdir()
    monkeypatch.chdir(sub)
    monkeypatch.setenv("AGT_FOLLOW", "two")
    r = await b.exec_shell(["/bin/bash", "-c", 'pwd; echo "$AGT_FOLLOW"'])
    assert r.stdout_text.split() == [str(sub.resolve()), "two"]


async def test_kernel_backend_python_is_the_kernels_interpreter(monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    r = await KernelBackend().exec_shell(
        ["/bin/bash", "-c", "python -c 'import sys; print(sys.executable)'"])
    assert r.ok, r
    assert os.path.realpath(r.stdout_text.strip()) == os.path.realpath(sys.executable)


async def test_local_backend_cwd_is_fixed(tmp_path, monkeypatch):
    b = LocalBackend(str(tmp_path))
    monkeypatch.chdir("/")
    assert (await b.exec_shell(["pwd"])).stdout_text.strip() == str(tmp_path.resolve())
    assert await b.getcwd() == str(tmp_path)
