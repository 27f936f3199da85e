"""The audit log: a line per decision and per answer, filters, corrupt lines, no interleaving."""

from __future__ import annotations

import json
import threading
from datetime import datetime, timedelta, timezone

import pytest
from perm_tools import Judge

from jupyter_agenttools.permission.audit import AuditLog
from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.permission.settings import SettingsStore


@pytest.fixture
def log(tmp_path):
    return AuditLog(tmp_path / "proj" / ".agenttools" / "audit.jsonl")


def test_decisions_and_answers_are_logged(log):
    engine = PermissionEngine(rules={"allow": ["Judge(ok)"], "deny": ["Judge(rm*)"]},
                              audit=log, session="s1")
    judge = Judge()
    engine.decide(judge, {"text": "ok"})
    engine.decide(judge, {"text": "rm -rf x"})
    asked = engine.decide(judge, {"text": "push"})
    safety = engine.decide(judge, {"text": "key", "verdict": "safety"})
    engine.record_answer(judge, {"text": "push"}, asked, "always_allow",
                         rule=asked.suggestions[0])
    engine.record_answer(judge, {"text": "key"}, safety, "deny")

    lines = [json.loads(x) for x in log.path.read_text().splitlines()]
    assert [(e["kind"], e.get("behavior"), e["input"]) for e in lines] == [
        ("decision", "allow", "ok"), ("decision", "deny", "rm -rf x"),
        ("decision", "ask", "push"), ("decision", "ask", "key"),
        ("answer", "ask", "push"), ("answer", "ask", "key")]
    allow, deny, ask, safe, ans1, ans2 = lines
    assert allow["rule"] == "Judge(ok)" and allow["rule_source"] == "session"
    assert allow["step"] == "allow_rules" and allow["mode"] == "default"
    assert deny["step"] == "deny_rules" and deny["rule"] == "Judge(rm*)"
    assert safe["bypass_immune"] is True and ask["bypass_immune"] is False
    assert (ans1["answer"], ans1["rule_chosen"]) == ("always_allow", "Judge(push*)")
    assert (ans2["answer"], ans2["rule_chosen"]) == ("deny", None)
    assert all(e["session"] == "s1" and e["tool"] == "Judge" for e in lines)
    for e in lines:  # ISO 8601, UTC
        assert datetime.fromisoformat(e["time"]).utcoffset() == timedelta(0)
    # the .agenttools folder was created with its .gitignore
    assert "audit.jsonl" in (log.path.parent / ".gitignore").read_text()


def test_engine_without_audit_writes_nothing(tmp_path):
    store = SettingsStore(tmp_path, user_dir=tmp_path / "u", managed_path=tmp_path / "m.json")
    PermissionEngine(settings=store).decide(Judge(), {"text": "x"})
    assert not store.audit_path.exists()


def test_reader_filters_and_order(log):
    old = (datetime.now(timezone.utc) - timedelta(days=2)).isoformat()
    log.record(time=old, kind="decision", tool="Judge", behavior="allow", input="old")
    for i, (tool, behavior) in enumerate([("Judge", "allow"), ("Bash", "deny"),
                                          ("Judge", "ask"), ("Judge", "deny")]):
        log.record(kind="decision", tool=tool, behavior=behavior, input=str(i))
    log.record(kind="answer", tool="Judge", behavior="ask", answer="allow_once", input="2")

    assert [e["input"] for e in log.read()] == ["2", "3", "2", "1", "0", "old"]
    assert [e["input"] for e in log.read(newest_first=False)] == ["old", "0", "1", "2", "3",
                                                                  "2"]
    assert [e["input"] for e in log.read(limit=2)] == ["2", "3"]
    assert [e["input"] for e in log.read(limit=2, newest_first=False)] == ["3", "2"]
    assert [e["input"] for e in log.read(tool="Bash")] == ["1"]
    assert [e["input"] for e in log.read(behavior="deny")] == ["3", "1"]
    assert [e["input"] for e in log.read(tool="Judge", behavior="ask", kind="decision")] == ["2"]
    since = (datetime.now(timezone.utc) - timedelta(hours=1)).isoformat().replace("+00:00", "Z")
    assert "old" not in [e["input"] for e in log.read(since=since)]
    assert len(log.read(since=since)) == 5
    with pytest.raises(ValueError, match="ISO 8601"):
        log.read(since="yesterday")


def test_corrupt_lines_are_skipped_and_counted(log):
    log.record(kind="decision", tool="Judge", behavior="allow", input="a")
    with open(log.path, "a") as f:
        f.write('{"cut in the midd\n[1, 2]\n\n{"no_time": 1}\n')
    log.record(kind="decision", tool="Judge", behavior="deny", input="b")
    entries = log.read(since="2000-01-01T00:00:00Z")
    assert [e["input"] for e in entries] == ["b", "a"]
    assert log.skipped == 3  # the cut line, the list, the entry without time


def test_missing_log_reads_empty(tmp_path):
    log = AuditLog(tmp_path / "none.jsonl")
    assert log.read() == [] and log.skipped == 0


def test_concurrent_appends_never_interleave(log):
    big = "x" * 20000  # far beyond one pipe buffer

    def writer(tag):
        for i in range(50):
            log.record(kind="decision", tool=tag, behavior="allow", input=f"{tag}{i}{big}")

    threads = [threading.Thread(target=writer, args=(t,)) for t in "abcd"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    entries = log.read()
    assert log.skipped == 0 and len(entries) == 200
    assert {e["input"][:3].rstrip("x") for e in entries} == {f"{t}{i}" for t in "abcd"
                                                             for i in range(50)}


def test_an_unwritable_log_warns_once_and_decisions_go_on(tmp_path, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    engine = PermissionEngine(audit=AuditLog(blocker / "audit.jsonl"),
                              rules={"deny": ["Judge(x)"]})
    with caplog.at_level("WARNING"):
        assert engine.decide(Judge(), {"text": "x"}).behavior.value == "deny"
        assert engine.decide(Judge(), {"text": "x"}).behavior.value == "deny"
    assert len([r for r in caplog.records if "audit log" in r.getMessage()]) == 1
