"""Bash: streaming, exit codes, timeouts, truncation with offload, the 200 MB bound, and the
permission hooks' delegation to builtin.bash.policy."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import time

import pytest
from builtin_helpers import run_tool, schema_errors

from jupyter_agenttools.backends.local import LocalBackend
from jupyter_agenttools.builtin import Bash
from jupyter_agenttools.permission.types import (
    PermissionBehavior,
    PermissionContext,
    PermissionRule,
)
from jupyter_agenttools.tools.base import ToolResultState


@pytest.fixture
def bash(tmp_path):
    return Bash(LocalBackend(str(tmp_path)), offload_dir=str(tmp_path / "offload"))


async def test_output_streams_as_it_arrives(bash):
    stamps = []
    from jupyter_agenttools.tools.toolkit import Toolkit

    async for item in Toolkit([bash]).call_tool(
            bash, {"command": "echo one; sleep 2; echo two"}):
        stamps.append((time.monotonic(), item))
    texts = [(t, c.content[0]["text"]) for t, c in stamps[:-1] if c.content]
    assert texts[0][1] == "one\n"
    assert any(text == "two\n" for _, text in texts)
    assert texts[-1][0] - texts[0][0] > 1.0  # "one" was delivered before "two" existed
    response = stamps[-1][1]
    assert response.text == "one\ntwo\n" and response.state is ToolResultState.SUCCESS
    assert response.metadata["exit_code"] == 0


async def test_runs_bash_in_the_backend_cwd_with_stderr_interleaved(bash, tmp_path):
    _, r = await run_tool(bash, command="[[ 1 == 1 ]] && pwd; echo oops >&2")
    assert r.text == f"{tmp_path.resolve()}\noops\n"


async def test_nonzero_exit_is_an_error_with_the_code_and_the_output(bash):
    _, r = await run_tool(bash, command="echo partial; exit 3")
    assert r.state is ToolResultState.ERROR
    assert r.text == "partial\n\n[Exit code 3]"
    assert r.metadata["exit_code"] == 3


async def test_no_output_is_said(bash):
    _, r = await run_tool(bash, command="true")
    assert r.text == "[The command succeeded with no output.]" and not r.is_error


async def test_timeout_in_ms_kills_the_command_group(bash, tmp_path):
    start = time.monotonic()
    _, r = await run_tool(bash, command=f"echo started; sleep 30 & echo $! > {tmp_path}/p; wait",
                          timeout=700)
    assert time.monotonic() - start < 3
    assert r.state is ToolResultState.ERROR
    assert r.text.startswith("started\n")
    assert "timed out after 0.7 s" in r.text
    assert r.metadata["timed_out"] is True
    pid = int((tmp_path / "p").read_text())
    assert not _alive(pid)


async def test_cancelling_the_call_kills_the_command(bash, tmp_path):
    from jupyter_agenttools.tools.toolkit import Toolkit

    items = []

    async def consume():
        async for item in Toolkit([bash]).call_tool(
                bash, {"command": f"sleep 60 & echo $! > {tmp_path}/p; echo started; wait"}):
            items.append(item)

    task = asyncio.ensure_future(consume())
    for _ in range(200):
        if (tmp_path / "p").exists() and (tmp_path / "p").read_text().strip():
            break
        await asyncio.sleep(0.05)
    pid = int((tmp_path / "p").read_text())
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert items[-1].state is ToolResultState.INTERRUPTED
    for _ in range(100):
        if not _alive(pid):
            break
        await asyncio.sleep(0.05)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("bad", [{"command": "x", "timeout": 600_001}, {"command": "x",
                                 "timeout": 0}, {"command": ""}, {}, {"command": ["ls"]},
                                 {"command": "x", "timeout": 1.5}, {"command": "x", "cwd": "/"}])
def test_schema_refuses_bad_input(bad):
    assert schema_errors(Bash(LocalBackend()), bad)


def test_schema_accepts_the_maximum_timeout():
    assert schema_errors(Bash(LocalBackend()), {"command": "x", "timeout": 600_000}) == []


async def test_long_output_is_cut_with_head_tail_and_full_offload(tmp_path):
    bash = Bash(LocalBackend(str(tmp_path)), output_budget=2_000,
                offload_dir=str(tmp_path / "off"))
    chunks, r = await run_tool(bash, command="seq 1 100000")
    full = "".join(f"{i}\n" for i in range(1, 100_001))
    path = r.metadata["offload_path"]
    assert r.metadata["truncated"] is True and path.startswith(str(tmp_path / "off"))
    with open(path, encoding="utf-8") as f:
        assert f.read() == full
    assert r.text.startswith("1\n2\n3\n")
    assert "99999\n100000\n" in r.text
    assert path in r.text and f"{len(full):,} characters" in r.text
    assert len(r.text) < 2_000 + 400  # the budget plus the notice
    assert sum(len(c.content[0]["text"]) for c in chunks if c.content) == len(r.text)


def test_200mb_of_output_keeps_memory_bounded(tmp_path):
    # A fresh interpreter, so the peak-memory figure belongs to this run alone.
    script = textwrap.dedent(f"""
        import asyncio, json, resource, time
        from jupyter_agenttools.backends.local import LocalBackend
        from jupyter_agenttools.builtin import Bash
        from jupyter_agenttools.tools.base import ToolResponse

        def hwm_kb():
            for line in open("/proc/self/status"):
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])

        async def main():
            bash = Bash(LocalBackend({str(tmp_path)!r}), offload_dir={str(tmp_path / 'off')!r})
            before = hwm_kb()
            start = time.monotonic()
            response = ToolResponse()
            async for chunk in bash.call(command="yes | head -c 200000000"):
                response.append_chunk(chunk)
            print(json.dumps({{"growth_kb": hwm_kb() - before, "seconds": time.monotonic() - start,
                              "meta": response.metadata, "text_len": len(response.text)}}))

        asyncio.run(main())
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.getcwd()] + sys.path))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, timeout=240)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["meta"]["exit_code"] == 0 and report["meta"]["truncated"]
    assert report["meta"]["output_chars"] == 200_000_000
    assert os.path.getsize(report["meta"]["offload_path"]) == 200_000_000
    assert report["growth_kb"] < 64 * 1024, report
    assert report["text_len"] < 31_000


# --- permission hooks delegate to builtin.bash.policy -----------------------------------------

@pytest.mark.parametrize("command", [None, 42, ["ls"], {"a": 1}])
def test_permission_hooks_never_crash_on_a_non_string_command(command):
    bash = Bash(LocalBackend())
    ctx = PermissionContext()
    assert bash.is_read_only({"command": command}) is False
    assert bash.check_permissions({"command": command}, ctx).behavior is PermissionBehavior.ASK
    assert bash.match_rule(PermissionRule.parse("Bash(ls:*)"), {"command": command}, ctx) is False
    assert bash.suggest_rules({"command": command}, ctx) == []
