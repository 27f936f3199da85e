"""``%agent sandbox on|off|status`` and ``AgentTools.sandbox`` in-process (InteractiveShell),
with the session's Bash tool really running under bubblewrap."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from traitlets import TraitError

from jupyter_agenttools.backends.sandbox import probe_local
from jupyter_agenttools.tools.base import ToolResponse

AVAILABLE, WHY = probe_local()


@pytest.fixture
def shell(tmp_path: Path, monkeypatch):
    from IPython.core.interactiveshell import InteractiveShell

    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("AGENTTOOLS_USER_DIR", str(tmp_path / "user"))
    monkeypatch.setenv("AGENTTOOLS_MANAGED_SETTINGS", str(tmp_path / "managed.json"))
    monkeypatch.delenv("AGENTTOOLS_MODEL", raising=False)
    sh = InteractiveShell.instance()
    sh.config.pop("AgentTools", None)
    sh.run_line_magic("load_ext", "jupyter_agenttools")
    sh.project = project
    sh.managed = tmp_path / "managed.json"
    try:
        yield sh
    finally:
        sh.run_line_magic("unload_ext", "jupyter_agenttools")
        sh.config.pop("AgentTools", None)


def session(sh):
    from jupyter_agenttools.jupyter import current_session

    return current_session(sh)


def rows(table) -> dict[str, list]:
    return {row[0]: row[1:] for row in table.rows}


def bash_text(sh, command: str) -> tuple[str, dict]:
    tool = session(sh).toolkit.get_tool("Bash")

    async def go():
        response = ToolResponse()
        async for chunk in tool.call(command=command):
            response.append_chunk(chunk)
        return response

    response = asyncio.run(go())
    return response.text, response.metadata


def test_status_shows_off_by_default(shell):
    table = rows(shell.run_line_magic("agent", "sandbox"))
    assert table["enabled"] == ["no", "default"]
    assert table["available"][0] == "-"
    assert session(shell).toolkit.get_tool("Bash").sandbox is session(shell).sandbox


@pytest.mark.skipif(not AVAILABLE, reason=f"bubblewrap unavailable: {WHY}")
def test_on_then_off_changes_what_bash_can_do(shell, tmp_path):
    outside = shell.project.parent / "outside.txt"  # not a working folder
    shell.run_line_magic("agent", "sandbox on")
    assert session(shell).config.sandbox == {"enabled": True}
    table = rows(shell.run_line_magic("agent", "sandbox status"))
    assert table["enabled"] == ["yes", "session"] and table["available"][0] == "yes"
    text, meta = bash_text(shell, f"echo x > {outside}; echo in > inside.txt")
    assert meta["sandboxed"] is True
    # (a path under /tmp: the sandbox's own /tmp got it, not the host's)
    assert not outside.exists() and (shell.project / "inside.txt").exists()
    shell.run_line_magic("agent", "sandbox off")
    text, meta = bash_text(shell, f"echo x > {outside}")
    assert meta["sandboxed"] is False and outside.exists()


def test_managed_layer_cannot_be_switched_off(shell):
    shell.managed.write_text(json.dumps({"sandbox": {"required": True}}))
    with pytest.raises(UsageError, match="enabled stays true: the managed settings decide"):
        shell.run_line_magic("agent", "sandbox off")
    table = rows(shell.run_line_magic("agent", "sandbox"))
    assert table["required"] == ["yes", "managed"]


@pytest.mark.parametrize("lower", [{}, {"enabled": False, "required": False}])
def test_managed_required_refuses_to_run_unconfined(shell, lower):
    """sandbox.required in the managed layer: without bubblewrap Bash refuses (nothing runs),
    whatever the project settings or the session say."""
    shell.managed.write_text(json.dumps({"sandbox": {"required": True}}))
    if lower:
        settings = shell.project / ".agenttools" / "settings.json"
        settings.parent.mkdir()
        settings.write_text(json.dumps({"sandbox": lower}))
        session(shell).config.sandbox = lower
    session(shell).sandbox.bwrap = "/nonexistent/bwrap"  # as on a machine without it
    text, meta = bash_text(shell, "touch ran; echo done")
    assert "The sandbox is required (sandbox.required)" in text and "not installed" in text
    assert "done" not in text and not (shell.project / "ran").exists()
    table = rows(shell.run_line_magic("agent", "sandbox"))
    assert table["required"] == ["yes", "managed"] and table["enabled"][0] == "yes"


def test_settings_file_turns_it_on_and_network_flag(shell):
    settings = shell.project / ".agenttools" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"sandbox": {"enabled": True}}))
    table = rows(shell.run_line_magic("agent", "sandbox"))
    assert table["enabled"] == ["yes", "project"]
    table = rows(shell.run_line_magic("agent", "sandbox status --network on"))
    assert table["network"] == ["yes", "session"]


def test_trait_is_validated(shell):
    with pytest.raises(TraitError, match="did you mean 'network'"):
        session(shell).config.sandbox = {"netwrok": True}
    with pytest.raises(UsageError):
        shell.run_line_magic("agent", "sandbox maybe")
