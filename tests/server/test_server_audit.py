"""GET /agenttools/audit: who and what (user, agent, outcome), offset pages from the end, and a
log that is not a regular file is a clear 409 (real jupyter-server)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jupyter_agenttools.permission.audit import AuditLog

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def log(jp_root_dir):
    return AuditLog(Path(jp_root_dir) / ".agenttools" / "audit.jsonl")


@pytest.fixture
def mixed(log):
    AuditLog(log.path, agent="claude-code", user="ada").record(
        kind="decision", tool="Bash", behavior="deny", input="rm -rf /", n=0)
    log.record(kind="decision", tool="Bash", behavior="allow", input="exit 3", user="bob",
               call_id="c1", n=1)
    log.record_outcome(tool="Bash", input_summary="exit 3", state="error", exit_code=3,
                       duration_s=0.01, call_id="c1")
    AuditLog(log.path, agent="gemini-cli", user="ada").record(
        kind="decision", tool="Read", behavior="allow", input="a.txt", n=3)


def test_filters_by_user_agent_outcome_and_kind(api, mixed):
    _, data = api("GET", "audit", params={"user": "ada"})
    assert [e["n"] for e in data["entries"]] == [3, 0]
    _, data = api("GET", "audit", params={"agent": "claude-code"})
    assert [(e["agent"], e["behavior"]) for e in data["entries"]] == [("claude-code", "deny")]
    _, data = api("GET", "audit", params={"outcome": "error"})
    assert [(e["kind"], e["exit_code"], e["call_id"]) for e in data["entries"]] == [
        ("outcome", 3, "c1")]
    _, data = api("GET", "audit", params={"kind": "decision", "agent": "agenttools"})
    assert [e["n"] for e in data["entries"]] == [1]
    status, data = api("GET", "audit", params={"outcome": "success"})
    assert status == 200 and data["entries"] == []


def test_every_entry_says_who_and_which_agent(api, mixed):
    _, data = api("GET", "audit")
    assert {(e["user"], e["agent"]) for e in data["entries"]} >= {
        ("ada", "claude-code"), ("bob", "agenttools"), ("ada", "gemini-cli")}


def test_offset_pages_from_the_newest(api, log):
    for i in range(30):
        log.record(kind="decision", tool="Bash", behavior="allow", input=f"c{i}")
    _, first = api("GET", "audit", params={"limit": "10"})
    _, second = api("GET", "audit", params={"limit": "10", "offset": "10"})
    _, last = api("GET", "audit", params={"limit": "10", "offset": "25"})
    assert [e["input"] for e in first["entries"]] == [f"c{i}" for i in range(29, 19, -1)]
    assert [e["input"] for e in second["entries"]] == [f"c{i}" for i in range(19, 9, -1)]
    assert [e["input"] for e in last["entries"]] == [f"c{i}" for i in range(4, -1, -1)]
    assert first["more"] is True and last["more"] is False


@pytest.mark.parametrize("params,needle", [
    ({"offset": "-1"}, "'offset'"), ({"offset": "x"}, "'offset'"),
    ({"outcome": "crashed"}, "'outcome'"), ({"kind": "Decision"}, "did you mean 'decision'"),
    ({"since": "yesterday"}, "ISO 8601"),
])
def test_bad_audit_filters_are_400(api, params, needle):
    status, data = api("GET", "audit", params=params)
    assert status == 400 and needle in data["error"]


def test_a_fifo_audit_log_is_a_409_not_a_hang(api, log):
    log.path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(log.path)
    status, data = api("GET", "audit", params={"limit": "1"})
    assert status == 409 and "FIFO" in data["error"]


def test_a_link_to_dev_zero_is_a_409_not_a_memory_error(api, log):
    log.path.parent.mkdir(parents=True, exist_ok=True)
    log.path.symlink_to("/dev/zero")
    status, data = api("GET", "audit", params={"limit": "1"})
    assert status == 409 and "character device" in data["error"]
