"""``GET /agenttools/kernels`` and ``?project=``: the panel's view of the running kernels, on a
real jupyter-server with a real kernel started through its API.

The kernel's side (``%load_ext`` writing its state file) is tested in
tests/jupyter/test_jupyter_kernel_state.py; here the file is written with the same function
(``state.write_state``) for a kernel the server runs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_agenttools.jupyter.state import write_state

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def kernel_id(jp_fetch, jp_asyncio_loop):
    async def start():
        reply = await jp_fetch("api", "kernels", method="POST",
                               body=json.dumps({"name": "python3"}))
        return json.loads(reply.body)["id"]

    kid = jp_asyncio_loop.run_until_complete(start())
    yield kid

    async def stop():
        await jp_fetch("api", "kernels", kid, method="DELETE", raise_error=False)

    jp_asyncio_loop.run_until_complete(stop())


def _state(project: Path, tmp_path: Path) -> dict:
    return {"project_dir": str(project), "cwd": str(project), "mode": "accept_edits",
            "mode_source": "set in this kernel", "settings_mode": "default",
            "session_override": True, "model": "none yet", "conversation": {"prompts": 2},
            "session_rules": [{"behavior": "allow", "rule": "Bash(make test:*)"}],
            "pending": [{"id": "ask-3", "tool": "Bash", "title": "Bash: touch x",
                         "why": "…", "safety": False, "run": "agent_run"}],
            "runs": {"active": 1, "total": 3}, "updated": 0,
            "user_dir": str(tmp_path / "kernel-user"),
            "managed_path": str(tmp_path / "kernel-managed.json")}


def test_kernels_lists_each_kernel_with_its_agent(api, kernel_id, tmp_path, jp_root_dir):
    status, data = api("GET", "kernels")
    assert status == 200
    assert data["server_project"] == str(Path(jp_root_dir).resolve())
    (entry,) = [k for k in data["kernels"] if k["id"] == kernel_id]
    assert entry["agent"] is None and entry["name"] == "python3"  # no %load_ext yet

    project = tmp_path / "elsewhere"
    project.mkdir()
    write_state(kernel_id, _state(project, tmp_path))
    write_state("not-a-running-kernel", _state(tmp_path, tmp_path))
    status, data = api("GET", "kernels")
    assert [k["id"] for k in data["kernels"]] == [kernel_id]  # stale files are ignored
    agent = data["kernels"][0]["agent"]
    assert agent["project_dir"] == str(project) and agent["mode"] == "accept_edits"
    assert agent["session_override"] is True
    assert agent["pending"][0]["id"] == "ask-3"


def test_project_query_reads_and_writes_a_kernels_project(api, kernel_id, tmp_path, files):
    project = tmp_path / "elsewhere"
    project.mkdir()
    write_state(kernel_id, _state(project, tmp_path))
    query = {"project": str(project)}

    status, data = api("POST", "rules", {"layer": "local", "behavior": "allow",
                                         "rule": "Bash(ls:*)"}, params=query)
    assert status == 201, data
    local = project / ".agenttools" / "settings.local.json"
    assert json.loads(local.read_text())["permissions"]["allow"] == ["Bash(ls:*)"]
    assert not files["local"].exists()  # not the server's own project

    status, data = api("GET", "settings", params=query)
    assert data["project_root"] == str(project)
    user = next(layer for layer in data["layers"] if layer["layer"] == "user")
    assert user["file"] == str(tmp_path / "kernel-user" / "settings.json")  # the kernel's own
    status, data = api("PUT", "mode", {"layer": "project", "mode": "explore"}, params=query)
    assert status == 200 and data["effective"] == "explore"
    status, data = api("POST", "check", {"tool": "Bash", "input": "ls -la"}, params=query)
    assert status == 200 and data["mode"] == "explore"
    status, data = api("GET", "audit", params=query)
    assert status == 200 and data["file"] == str(project / ".agenttools" / "audit.jsonl")


@pytest.mark.parametrize("route, method, body", [
    ("settings", "GET", None),
    ("rules", "POST", {"layer": "local", "behavior": "allow", "rule": "Bash(ls)"}),
    ("audit", "GET", None),
])
def test_a_project_no_kernel_works_in_is_refused(api, kernel_id, tmp_path, route, method, body):
    stranger = tmp_path / "stranger"
    stranger.mkdir()
    status, data = api(method, route, body, params={"project": str(stranger)})
    assert status == 400
    assert "unknown project" in data["error"] and "running kernel" in data["error"]
    assert not (stranger / ".agenttools").exists()


def test_the_servers_own_project_by_name_is_the_default(api, jp_root_dir):
    status, data = api("GET", "settings", params={"project": str(Path(jp_root_dir).resolve())})
    assert status == 200 and data["project_root"] == str(Path(jp_root_dir).resolve())


def test_a_settings_change_shows_in_the_kernels_mode_at_once(api, kernel_id, tmp_path):
    """Without a session override a kernel's mode is its settings' mode: an edit of the
    settings (here through the API) shows before the kernel writes its state again."""
    project = tmp_path / "elsewhere"
    project.mkdir()
    state = _state(project, tmp_path)
    state.update(session_override=False, mode="default", mode_source="built-in default")
    write_state(kernel_id, state)
    status, _ = api("PUT", "mode", {"layer": "project", "mode": "explore"},
                    params={"project": str(project)})
    assert status == 200
    status, data = api("GET", "kernels")
    agent = data["kernels"][0]["agent"]
    assert (agent["mode"], agent["mode_source"]) == ("explore",
                                                     "from .agenttools/settings.json")
    state.update(session_override=True, mode="bypass")  # an override stands
    write_state(kernel_id, state)
    assert api("GET", "kernels")[1]["kernels"][0]["agent"]["mode"] == "bypass"


@pytest.mark.parametrize("override", [False, True])
def test_a_trust_given_through_the_api_shows_in_the_kernels_view(api, kernel_id, tmp_path,
                                                                 override):
    """A kernel in a cloned project whose settings ship a mode: the card says the project waits
    for trust (``trust_pending``), and after ``POST trust`` for that project it says so no more
    and (without a session override) takes the project's mode, before the kernel writes its
    state again."""
    project = tmp_path / "cloned"
    (project / ".agenttools").mkdir(parents=True)
    (project / ".agenttools" / "settings.json").write_text(json.dumps(
        {"permissions": {"mode": "explore", "allow": ["Bash(make test:*)"]}}))
    state = _state(project, tmp_path)
    state.update(session_override=override, mode="bypass" if override else "default",
                 mode_source="built-in default")
    write_state(kernel_id, state)
    agent = api("GET", "kernels")[1]["kernels"][0]["agent"]
    assert agent["trust_pending"] is True
    assert agent["mode"] == ("bypass" if override else "default")
    status, trust = api("POST", "trust", {"trusted": True}, params={"project": str(project)})
    assert status == 200 and trust["trusted"] is True
    agent = api("GET", "kernels")[1]["kernels"][0]["agent"]
    assert agent["trust_pending"] is False
    assert agent["mode"] == ("bypass" if override else "explore")
