"""The shared value types: verdict order, rule text parsing, the errors tree, the public surface."""

import subprocess
import sys

import pytest

import jupyter_agenttools
from jupyter_agenttools import errors
from jupyter_agenttools.permission.types import (
    PermissionBehavior as B,
)
from jupyter_agenttools.permission.types import (
    PermissionContext,
    PermissionDecision,
    PermissionMode,
    PermissionRule,
)
from jupyter_agenttools.tools.base import ToolChunk, ToolResponse, ToolResultState


@pytest.mark.parametrize(
    "verdicts, strictest",
    [
        ([B.ALLOW, B.ASK], B.ASK),
        ([B.ASK, B.DENY, B.ALLOW], B.DENY),
        ([B.PASSTHROUGH, B.ALLOW], B.ALLOW),
        ([B.PASSTHROUGH], B.PASSTHROUGH),
        ([B.DENY, B.PASSTHROUGH], B.DENY),
    ],
)
def test_strictest_verdict_is_max(verdicts, strictest):
    assert max(verdicts) is strictest


def test_behaviors_compare_as_their_strings():
    assert B.ALLOW == "allow" and B.parse("DENY") is B.DENY
    with pytest.raises(ValueError, match="expected allow"):
        B.parse("maybe")


@pytest.mark.parametrize(
    "text, tool, spec",
    [
        ("Bash", "Bash", None),
        ("Bash(git commit:*)", "Bash", "git commit:*"),
        ("Bash(npm run test *)", "Bash", "npm run test *"),
        ("Read(src/**)", "Read", "src/**"),
        ("Write(~/notes/**)", "Write", "~/notes/**"),
        ("Edit(/abs/path/*.py)", "Edit", "/abs/path/*.py"),
        ("mcp__server", "mcp__server", None),
        ("mcp__server__tool", "mcp__server__tool", None),
        ("my_function", "my_function", None),
        ("  Bash(make)  ", "Bash", "make"),
        ("Bash(*)", "Bash", None),
        ("Bash(echo (a))", "Bash", "echo (a)"),
    ],
)
def test_rule_text_parses(text, tool, spec):
    rule = PermissionRule.parse(text, "allow", source="x.json")
    assert (rule.tool, rule.specifier, rule.source) == (tool, spec, "x.json")
    assert PermissionRule.parse(rule.text) == PermissionRule(tool, spec)


@pytest.mark.parametrize(
    "text, problem",
    [
        ("", "empty"),
        ("   ", "empty"),
        ("Bash(", "closing"),
        ("Bash()", "empty specifier"),
        ("(ls)", "tool name"),
        ("Bash ls", "unexpected"),
        ("Bash(ls)x", "closing"),
        ("Bash(a\nb)", "control"),
        (42, "expected a string"),
        (None, "expected a string"),
    ],
)
def test_bad_rule_text_is_a_clear_error(text, problem):
    with pytest.raises(errors.RuleSyntaxError, match=problem) as info:
        PermissionRule.parse(text)
    assert repr(text) in str(info.value)


def test_rule_behavior_cannot_be_passthrough():
    with pytest.raises(errors.RuleSyntaxError):
        PermissionRule("Bash", behavior="passthrough")


def test_mode_parse_accepts_dashes_and_rejects_unknown():
    assert PermissionMode.parse("accept-edits") is PermissionMode.ACCEPT_EDITS
    with pytest.raises(ValueError, match="expected a permission mode"):
        PermissionMode.parse("yolo")


def test_context_working_directories_include_cwd_and_project(tmp_path):
    (tmp_path / "a").mkdir()
    ctx = PermissionContext(cwd=str(tmp_path / "a"), project_root=str(tmp_path),
                            working_directories=(str(tmp_path / "a"),))
    assert ctx.all_working_directories == (str((tmp_path / "a").resolve()),
                                           str(tmp_path.resolve()))


def test_safety_ask_flag():
    assert PermissionDecision.ask("x", safety=True).is_safety_ask
    assert not PermissionDecision.ask("x").is_safety_ask
    assert not PermissionDecision.deny("x", bypass_immune=True).is_safety_ask


def test_response_accumulates_text_and_keeps_error_sticky():
    resp = ToolResponse()
    resp.append_chunk(ToolChunk.text("a"))
    resp.append_chunk(ToolChunk.text("b", metadata={"k": 1}))
    resp.append_chunk(ToolChunk.error("!"))
    resp.append_chunk(ToolChunk(state=ToolResultState.INTERRUPTED))
    resp.append_chunk(ToolChunk([{"type": "image", "data": "AA==", "mime_type": "image/png"}]))
    resp.append_chunk(ToolChunk.text("c"))
    assert resp.state is ToolResultState.ERROR
    assert resp.text == "ab!c"
    assert [b["type"] for b in resp.content] == ["text", "image", "text"]
    assert resp.metadata == {"k": 1}


@pytest.mark.parametrize(
    "exc, family",
    [
        (errors.ToolNotFound("x"), errors.AgentOrientedException),
        (errors.ToolGroupInactive("x", "g"), errors.AgentOrientedException),
        (errors.ToolArgumentsError("bad"), errors.AgentOrientedException),
        (errors.BackendError("dead"), errors.ToolExecutionError),
        (errors.ToolReturnTypeError("t"), errors.DeveloperOrientedException),
        (errors.RuleSyntaxError("x", "p"), errors.DeveloperOrientedException),
        (errors.SettingsError("/f", "bad", 3), errors.DeveloperOrientedException),
    ],
)
def test_errors_belong_to_their_family(exc, family):
    assert isinstance(exc, family)
    assert isinstance(exc, errors.AgentToolsError)


def test_every_error_is_drawn_in_the_tree():
    for name in errors.__all__:
        assert name in errors.__doc__, name


def test_inactive_group_message_names_the_reset_tools_call():
    msg = str(errors.ToolGroupInactive("plot", "charts"))
    assert 'reset_tools with {"charts": true}' in msg


def test_settings_error_names_file_and_line():
    assert str(errors.SettingsError("/p/settings.json", "bad JSON", 7)).startswith(
        "settings file /p/settings.json:7:")


def test_import_is_light():
    code = ("import sys, jupyter_agenttools; heavy = [m for m in ('openai', 'mcp', 'ipywidgets',"
            " 'jupyter_server', 'IPython', 'tree_sitter', 'jsonschema') if m in sys.modules];"
            " print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_public_names_resolve():
    missing = []
    for name in jupyter_agenttools.__all__:
        try:
            getattr(jupyter_agenttools, name)
        except (AttributeError, ImportError) as exc:
            missing.append(f"{name}: {exc}")
    assert not missing
