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
    assert agent["trust_pending"] is False and agent["trust_changed"] is False
    assert agent["mode"] == ("bypass" if override else "explore")
    # a git pull adds an allow rule: waits for trust again, and the card says it changed
    (project / ".agenttools" / "settings.json").write_text(json.dumps(
        {"permissions": {"mode": "explore", "allow": ["Bash(make test:*)", "Bash(curl:*)"]}}))
    agent = api("GET", "kernels")[1]["kernels"][0]["agent"]
    assert agent["trust_pending"] is True and agent["trust_changed"] is True


_NAN = float("nan")


@pytest.mark.parametrize("field, value", [
    ("project_dir", 5), ("project_dir", None), ("project_dir", ["/tmp"]), ("project_dir", ""),
    ("user_dir", 5), ("user_dir", ["a", "b"]), ("user_dir", {"a": 1}), ("user_dir", "a\x00b"),
    ("managed_path", 7), ("managed_path", [[]]), ("managed_path", False),
    ("mode", 3), ("mode_source", ["x"]), ("session_override", "yes"), ("model", {"a": "b"}),
    ("session_rules", "Bash(ls)"), ("session_rules", [5, {"behavior": 1, "rule": []}]),
    ("pending", {"id": "ask-1"}), ("pending", [None, {"id": 3}]),
    ("conversation", [1]), ("conversation", {"prompts": "2"}), ("runs", 5),
    ("updated", "now"), ("updated", _NAN), ("pid", -1.5), ("cwd", 0),
    ("usage", "lots"), ("usage", {"total": 5}), ("usage", {"total": {"model_calls": "x"}}),
    ("trust_pending", "yes"), ("settings_error", 5),
])
def test_a_state_file_with_a_wrong_field_type_does_not_break_the_listing(
        api, kernel_id, tmp_path, field, value, caplog):
    """A state file is input from outside the server (an older kernel, a hand edit): a field of
    the wrong type skips the file (the fields that choose the kernel's settings files) or takes
    its empty value, with a log line; the listing answers, and every field it shows has the
    type the panel reads; the project routes answer too."""
    project = tmp_path / "elsewhere"
    project.mkdir()
    state = _state(project, tmp_path)
    state[field] = value
    path = write_state(kernel_id, state)
    path.write_text(json.dumps(state))  # NaN as json writes it (strict readers refuse it)
    status, data = api("GET", "kernels")
    assert status == 200, data
    (entry,) = [k for k in data["kernels"] if k["id"] == kernel_id]
    _assert_panel_shape(entry["agent"])
    assert any("kernel" in r.getMessage() and kernel_id in r.getMessage()
               for r in caplog.records if r.name.startswith("jupyter_agenttools")), \
        [r.getMessage() for r in caplog.records]
    status, data = api("GET", "settings", params={"project": str(project)})
    assert status in (200, 400), data
    if entry["agent"] is None:
        assert status == 400 and "unknown project" in data["error"]


@pytest.mark.parametrize("text", [
    '{"project_dir": "/tmp", "mode": ', '[1, 2]', '"a string"', '{"updated": Infinity}',
    "[" * 100_000, '{"project_dir": "/a", "project_dir": "/b"}', "\xff\xfe",
], ids=["truncated", "array", "string", "Infinity", "deep", "key-twice", "not-utf8"])
def test_a_state_file_that_is_not_a_clean_json_object_is_skipped(api, kernel_id, text, caplog):
    path = write_state(kernel_id, {})
    path.write_bytes(text.encode("latin-1"))
    status, data = api("GET", "kernels")
    assert status == 200, data
    (entry,) = [k for k in data["kernels"] if k["id"] == kernel_id]
    assert entry["agent"] is None
    assert any(kernel_id in r.getMessage() for r in caplog.records)


def test_a_directory_in_place_of_a_state_file_is_skipped(api, kernel_id):
    path = write_state(kernel_id, {})
    path.unlink()
    path.mkdir()
    status, data = api("GET", "kernels")
    assert status == 200
    assert [k["agent"] for k in data["kernels"] if k["id"] == kernel_id] == [None]


def _assert_panel_shape(agent: dict | None) -> None:
    """What labextension/src/kernels.ts (IAgentState) and notebooks.ts read from a card."""
    if agent is None:
        return
    for name in ("project_dir", "cwd", "mode", "mode_source", "settings_mode", "model"):
        assert isinstance(agent[name], str), (name, agent[name])
    for name in ("user_dir", "managed_path"):
        assert isinstance(agent.get(name, ""), str), (name, agent[name])
    assert agent["project_dir"]
    assert isinstance(agent["session_override"], bool)
    assert isinstance(agent.get("trust_pending", False), bool)
    assert isinstance(agent.get("settings_error", ""), str)
    assert isinstance(agent["updated"], (int, float)) and agent["updated"] == agent["updated"]
    assert isinstance(agent["conversation"]["prompts"], int)
    assert all(isinstance(agent["runs"][k], int) for k in ("active", "total"))
    assert all(isinstance(r["behavior"], str) and isinstance(r["rule"], str)
               for r in agent["session_rules"])
    assert all(isinstance(q[k], str) for q in agent["pending"]
               for k in ("id", "tool", "title", "why", "run"))
    if "usage" in agent:
        assert isinstance(agent["usage"]["total"]["model_calls"], int)



def _reaped_pid() -> int:
    import subprocess
    import sys

    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()  # exited and reaped: no process has this pid (until it is reused)
    return process.pid


@pytest.mark.parametrize("writer,open_questions", [
    ("dead", 0),        # an earlier process of the kernel, killed: its questions are gone
    ("kernel", 1),      # the kernel's own process
    ("alive", 1),       # another live process (a kernel started through a wrapper script)
    ("none", 1),        # no pid in the file: taken as it is
])
def test_a_state_file_left_by_a_dead_kernel_process_is_not_shown(
        api, kernel_id, tmp_path, jp_serverapp, writer, open_questions):
    """A kernel that died or was killed is restarted under the same id; the state file its
    dead process left (its exit handler never ran) kept the run's question open: in the
    panel, the status-bar badge and a notification that never went away."""
    import os

    project = tmp_path / "elsewhere"
    project.mkdir()
    state = _state(project, tmp_path)
    kernel_pid = jp_serverapp.kernel_manager.get_kernel(kernel_id).provisioner.pid
    state["pid"] = {"dead": _reaped_pid(), "alive": os.getpid(), "none": 0,
                    "kernel": kernel_pid}[writer]
    write_state(kernel_id, state)
    status, data = api("GET", "kernels")
    (entry,) = [k for k in data["kernels"] if k["id"] == kernel_id]
    assert len((entry["agent"] or {}).get("pending", [])) == open_questions
