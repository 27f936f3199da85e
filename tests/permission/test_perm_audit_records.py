"""The audit log answers who and what: user, agent, outcome after execution, redacted secrets,
capped lines, rotation, reads from the end, and only regular files."""

from __future__ import annotations

import getpass
import json
import os
import threading

import pytest
from perm_tools import Judge

from jupyter_agenttools.agent.loop import Agent
from jupyter_agenttools.agent.models import ScriptedModel
from jupyter_agenttools.backends.local import LocalBackend
from jupyter_agenttools.errors import AuditLogError
from jupyter_agenttools.permission import audit as audit_mod
from jupyter_agenttools.permission.audit import AuditLog, current_user
from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.permission.redact import REDACTION_RULES, redact


@pytest.fixture
def log(tmp_path):
    return AuditLog(tmp_path / "proj" / ".agenttools" / "audit.jsonl")


# --- redaction: one row per case, (text, expected text, rules that fire) ---------------------

REDACTION_CASES = [
    ("export OPENAI_API_KEY=sk-proj-Abcdefghijklmnopqrstuvwxyz0123",
     "export OPENAI_API_KEY=[REDACTED:openai_key]", ["openai_key"]),
    ("curl -H 'x-api-key: sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345' https://api.anthropic.com",
     "curl -H 'x-api-key: [REDACTED:anthropic_key]' https://api.anthropic.com",
     ["anthropic_key"]),
    ("git clone https://ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789@github.com/o/r",
     "git clone https://[REDACTED:github_token]@github.com/o/r", ["github_token"]),
    ("gh auth login --with-token github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv",
     "gh auth login --with-token [REDACTED:github_token]", ["github_token"]),
    ("aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE",
     "aws configure set aws_access_key_id [REDACTED:aws_access_key_id]", ["aws_access_key_id"]),
    ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY aws s3 ls",
     "AWS_SECRET_ACCESS_KEY=[REDACTED:aws_secret_key] aws s3 ls", ["aws_secret_key"]),
    ("curl -d token=xoxb-123456789012-abcdefABCDEF https://slack.com/api/chat.postMessage",
     "curl -d token=[REDACTED:slack_token] https://slack.com/api/chat.postMessage",
     ["slack_token"]),
    ("curl -X POST https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXX -d '{}'",
     "curl -X POST [REDACTED:slack_webhook] -d '{}'", ["slack_webhook"]),
    ("curl 'https://maps.googleapis.com/x?key=AIzaSyA1234567890abcdefghijklmnopqrstuv'",
     "curl 'https://maps.googleapis.com/x?key=[REDACTED:google_api_key]'", ["google_api_key"]),
    ("curl -H 'Authorization: Bearer abcdef0123456789abcdef' https://api.example.com",
     "curl -H 'Authorization: Bearer [REDACTED:authorization_header]' https://api.example.com",
     ["authorization_header"]),
    ("http GET api.example.com 'Authorization:Basic dXNlcjpodW50ZXIy'",
     "http GET api.example.com 'Authorization:Basic [REDACTED:authorization_header]'",
     ["authorization_header"]),
    ("echo eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9",
     "echo [REDACTED:jwt]", ["jwt"]),
    ("psql postgres://app:hunter2@db.internal:5432/app",
     "psql postgres://app:[REDACTED:url_password]@db.internal:5432/app", ["url_password"]),
    ("mytool --password=hunter2 --user bob",
     "mytool --password=[REDACTED:password_flag] --user bob",
     ["password_flag"]),
    ("vault login --token s.AbCdEf123456", "vault login --token [REDACTED:password_flag]",
     ["password_flag"]),
    ("mysqldump -u root -phunter2 app", "mysqldump -u root -p[REDACTED:mysql_password] app",
     ["mysql_password"]),
    ("DB_PASSWORD=hunter2 ./run.sh", "DB_PASSWORD=[REDACTED:secret_variable] ./run.sh",
     ["secret_variable"]),
    ('client = Client(api_key="abc123secret")',
     'client = Client(api_key="[REDACTED:secret_assignment]")',
     ["secret_assignment"]),
    ('{"user": "bob", "password": "hunter2"}',
     '{"user": "bob", "password": "[REDACTED:secret_json_field]"}', ["secret_json_field"]),
    ("cat <<EOF > k⏎-----BEGIN OPENSSH PRIVATE KEY-----⏎b3BlbnNzaC1rZXk⏎-----END OPENSSH "
     "PRIVATE KEY-----⏎EOF", "cat <<EOF > k⏎[REDACTED:private_key]⏎EOF", ["private_key"]),
    ("-----BEGIN RSA PRIVATE KEY-----⏎MIIEowIBAAKCAQEA…",  # cut by the 200-char summary
     "[REDACTED:private_key]", ["private_key"]),
    ("HF_HOME=/x huggingface-cli login --token hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
     "HF_HOME=/x huggingface-cli login --token [REDACTED:huggingface_token]",
     ["huggingface_token"]),
    ("stripe listen --api-key sk_test_AbCdEfGhIjKlMnOpQrStUvWx",
     "stripe listen --api-key [REDACTED:stripe_key]", ["stripe_key"]),
    ("curl -H 'Authorization: token ya29.a0AfH6SMBx1234567890abcdefgh' https://x",
     "curl -H 'Authorization: token [REDACTED:google_oauth_token]' https://x",
     ["google_oauth_token"]),
    ("oauth2l fetch | xargs -I{} echo Bearer abcdefghijklmnop0123",
     "oauth2l fetch | xargs -I{} echo Bearer [REDACTED:bearer_token]", ["bearer_token"]),
]

# What must stay as it is: look-alikes that are not secrets.
NOT_SECRETS = [
    "git status && git log --oneline -5",
    "python train.py --max_tokens=100 --tokens 5",
    "curl http://localhost:8080/path@v2",
    "ssh git@github.com",
    "echo sk-short",
    "grep -r 'password' src/",
    "ls --token-file=./t",
    "pytest -p no:cacheprovider",
    "echo Bearer of bad news",
]


@pytest.mark.parametrize(("text", "expected", "rules"), REDACTION_CASES,
                         ids=[rules[0] + f"-{n}" for n, (_, _, rules)
                              in enumerate(REDACTION_CASES)])
def test_redaction_table(text, expected, rules):
    assert redact(text) == (expected, rules)


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_look_alikes_are_kept(text):
    assert redact(text) == (text, [])


def test_every_redaction_rule_has_a_reason_and_a_case():
    covered = {name for _, _, rules in REDACTION_CASES for name in rules}
    for rule in REDACTION_RULES:
        assert len(rule.reason) > 20, rule.name
        assert rule.name in covered, f"no test case for redaction rule {rule.name}"


def test_records_are_redacted_and_say_which_rules_fired(log):
    entry = log.record(kind="decision", tool="Bash", behavior="allow",
                       input="psql postgres://app:hunter2@db/app",
                       reason="matched OPENAI_API_KEY=sk-proj-Abcdefghijklmnopqrstuvwxyz0123")
    raw = log.path.read_text()
    assert "hunter2" not in raw and "sk-proj-Abcdef" not in raw
    assert entry["redacted"] == ["url_password", "openai_key"]
    assert json.loads(raw)["input"] == "psql postgres://app:[REDACTED:url_password]@db/app"


def test_engine_decisions_are_redacted(log):
    engine = PermissionEngine(rules={"allow": ["Judge(*)"]}, audit=log)
    engine.decide(Judge(), {"text": "login --password=hunter2"})
    assert "hunter2" not in log.path.read_text()
    assert log.read()[0]["input"] == "login --password=[REDACTED:password_flag]"


# --- who -------------------------------------------------------------------------------------


def test_user_is_the_hub_user_else_the_os_user(log, monkeypatch):
    monkeypatch.setenv("JUPYTERHUB_USER", "ada")
    assert log.record(kind="decision")["user"] == "ada"
    monkeypatch.delenv("JUPYTERHUB_USER")
    assert log.record(kind="decision")["user"] == getpass.getuser() == current_user()
    assert [e["user"] for e in log.read(user="ada")] == ["ada"]


def test_agent_is_recorded_and_filtered(tmp_path):
    path = tmp_path / "audit.jsonl"
    AuditLog(path).record(kind="decision", tool="Bash")
    AuditLog(path, agent="claude-code").record(kind="decision", tool="Bash")
    log = AuditLog(path)
    assert [e["agent"] for e in log.read()] == ["claude-code", "agenttools"]
    assert len(log.read(agent="claude-code")) == 1


# --- what happened after an ALLOW -------------------------------------------------------------


async def test_the_loop_records_each_calls_outcome(tmp_path, log):
    engine = PermissionEngine(rules={"allow": ["Bash"]}, audit=log, session="s9")
    model = ScriptedModel([[{"name": "Bash", "input": {"command": "echo hi"}, "id": "c1"},
                            {"name": "Bash", "input": {"command": "exit 3"}, "id": "c2"}],
                           "done"])
    agent = Agent(model, backend=LocalBackend(str(tmp_path)), engine=engine)
    run = await agent.run("go")
    await run.wait_done(timeout=60)
    assert run.state == "done"
    outcomes = {e["call_id"]: e for e in log.read(kind="outcome")}
    assert outcomes["c1"]["state"] == "success" and outcomes["c1"]["exit_code"] == 0
    assert outcomes["c2"]["state"] == "error" and outcomes["c2"]["exit_code"] == 3
    for e in outcomes.values():
        assert e["session"] == "s9" and e["tool"] == "Bash" and e["duration_s"] >= 0
    decisions = {e["call_id"]: e for e in log.read(kind="decision")}
    assert decisions["c2"]["behavior"] == "allow" and decisions["c2"]["input"] == "exit 3"
    assert [e["call_id"] for e in log.read(outcome="error")] == ["c2"]
    assert [e["call_id"] for e in log.read(outcome="success")] == ["c1"]


async def test_a_denied_call_has_no_outcome(tmp_path, log):
    engine = PermissionEngine(rules={"deny": ["Bash"]}, audit=log)
    model = ScriptedModel([[{"name": "Bash", "input": {"command": "echo hi"}, "id": "d1"}], "ok"])
    run = await Agent(model, backend=LocalBackend(str(tmp_path)), engine=engine).run("go")
    await run.wait_done(timeout=60)
    assert [e["behavior"] for e in log.read(call_id="d1")] == ["deny"]
    assert log.read(kind="outcome") == []


# --- size cap and rotation ---------------------------------------------------------------------


def test_a_line_is_capped_and_says_so(tmp_path):
    log = AuditLog(tmp_path / "a.jsonl", max_line_bytes=4096)
    entry = log.record(kind="decision", tool="Bash", input="é" * 50_000, reason="r" * 9000)
    line = log.path.read_bytes()
    assert len(line) <= 4096 + 1 and line.endswith(b"\n")
    assert entry["truncated"] is True and entry["tool"] == "Bash"
    assert "[cut " in entry["input"]
    assert log.read()[0] == entry


def test_rotation_by_size_keeps_the_newest_and_reads_across(tmp_path):
    log = AuditLog(tmp_path / "a.jsonl", max_bytes=2000, backups=2)
    for i in range(60):
        log.record(kind="decision", tool="Bash", input=f"n{i:02d}" + "x" * 100)
    names = sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock"))
    assert names == ["a.jsonl", "a.jsonl.1", "a.jsonl.2"]
    assert all(p.stat().st_size <= 2000 for p in tmp_path.iterdir())
    inputs = [e["input"][:3] for e in log.read()]
    assert inputs[0] == "n59" and inputs == sorted(inputs, reverse=True)
    assert inputs == [f"n{i:02d}" for i in range(59, 59 - len(inputs), -1)]  # no gap
    assert len(inputs) >= 3 * (2000 // 300)  # three files of about 7 lines


def test_rotated_logs_are_git_ignored(tmp_path):
    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    log = AuditLog(tmp_path / ".agenttools" / "audit.jsonl", max_bytes=600, backups=2)
    for i in range(12):
        log.record(kind="decision", tool="Bash", input=f"n{i}" + "x" * 100)
    names = sorted(p.name for p in log.path.parent.iterdir() if p.name.startswith("audit"))
    assert names == ["audit.jsonl", "audit.jsonl.1", "audit.jsonl.2"]
    status = subprocess.run(["git", "-C", str(tmp_path), "status", "--porcelain",
                             "--untracked-files=all"], capture_output=True, text=True,
                            check=True).stdout
    assert status.split() == ["??", ".agenttools/.gitignore"]  # the logs are ignored


def test_concurrent_writers_across_a_rotation_lose_nothing(tmp_path):
    log = AuditLog(tmp_path / "a.jsonl", max_bytes=50_000, backups=50)

    def writer(tag):
        for i in range(100):
            AuditLog(log.path, max_bytes=50_000, backups=50).record(
                kind="decision", tool=tag, input=f"{tag}{i}" + "y" * 300)

    threads = [threading.Thread(target=writer, args=(t,)) for t in "abc"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    entries = log.read()
    assert log.skipped == 0
    assert sorted(e["input"].rstrip("y") for e in entries) == sorted(
        f"{t}{i}" for t in "abc" for i in range(100))


# --- reads from the end, bounded ---------------------------------------------------------------


def _fill(path, megabytes):
    line = json.dumps({"time": "2026-01-01T00:00:00.000+00:00", "kind": "decision",
                       "tool": "Bash", "behavior": "allow", "input": "o" * 900}) + "\n"
    chunk = (line * 1000).encode()
    with open(path, "wb") as f:
        for _ in range(max(1, megabytes * 1024 * 1024 // len(chunk))):
            f.write(chunk)


def test_a_bounded_read_of_a_big_log_touches_only_its_end(tmp_path):
    log = AuditLog(tmp_path / "a.jsonl", max_bytes=None)
    _fill(log.path, 30)
    for i in range(5):
        log.record(kind="decision", tool="Bash", behavior="deny", input=f"new{i}")
    assert [e["input"] for e in log.read(limit=1)] == ["new4"]
    assert log.scanned_bytes <= 128 * 1024
    assert [e["input"] for e in log.read(limit=2, offset=1)] == ["new3", "new2"]
    assert [e["input"] for e in log.read(limit=3, behavior="deny", newest_first=False)] == [
        "new2", "new3", "new4"]
    assert log.scanned_bytes <= 128 * 1024
    assert len(log.read(limit=10, offset=5)) == 10 and log.skipped == 0


def test_an_oversize_line_is_skipped_without_being_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(audit_mod, "MAX_READ_LINE", 200_000)
    log = AuditLog(tmp_path / "a.jsonl")
    log.record(kind="decision", input="before")
    with open(log.path, "ab") as f:
        f.write(b'{"x": "' + b"z" * 1_000_000 + b'"}\n')
    log.record(kind="decision", input="after")
    assert [e["input"] for e in log.read()] == ["after", "before"]
    assert log.skipped == 1


# --- only regular files ------------------------------------------------------------------------


def test_a_fifo_is_refused_without_hanging(tmp_path):
    path = tmp_path / "audit.jsonl"
    os.mkfifo(path)
    log = AuditLog(path)
    with pytest.raises(AuditLogError, match="is a FIFO; it must be a regular file"):
        log.read(limit=1)
    with pytest.raises(AuditLogError, match="FIFO"):
        log.record(kind="decision")


def test_a_link_to_dev_zero_is_refused(tmp_path):
    path = tmp_path / "audit.jsonl"
    path.symlink_to("/dev/zero")
    log = AuditLog(path)
    with pytest.raises(AuditLogError, match="character device"):
        log.read()
    with pytest.raises(AuditLogError, match="symbolic link"):
        log.record(kind="decision")


def test_a_link_is_never_written_through(tmp_path):
    target = tmp_path / "bashrc"
    target.write_text("# mine\n")
    path = tmp_path / "audit.jsonl"
    path.symlink_to(target)
    with pytest.raises(AuditLogError, match="symbolic link"):
        AuditLog(path).record(kind="decision", input="echo pwned")
    assert target.read_text() == "# mine\n"


def test_the_engine_decides_on_when_the_log_is_a_fifo(tmp_path, caplog):
    path = tmp_path / "audit.jsonl"
    os.mkfifo(path)
    engine = PermissionEngine(audit=AuditLog(path), rules={"deny": ["Judge(x)"]})
    with caplog.at_level("WARNING"):
        assert engine.decide(Judge(), {"text": "x"}).behavior.value == "deny"
    assert any("FIFO" in r.getMessage() for r in caplog.records)
