"""jupyter_agenttools.check(): any Tool object, rule lists or PermissionRule lists, cwd."""

from __future__ import annotations

import pytest
from perm_tools import Judge

import jupyter_agenttools
from jupyter_agenttools.errors import RuleExampleError, RuleSyntaxError, ToolNotFound
from jupyter_agenttools.permission.check import check
from jupyter_agenttools.permission.types import PermissionBehavior as B
from jupyter_agenttools.permission.types import PermissionRule


def test_check_is_the_package_level_api():
    assert jupyter_agenttools.check is check


@pytest.mark.parametrize("mode, expected", [
    ("default", B.ASK), ("accept_edits", B.ASK), ("explore", B.DENY), ("bypass", B.ALLOW),
    ("dont_ask", B.DENY)])
def test_check_a_tool_object(mode, expected):
    assert check(Judge(), {"text": "x"}, mode=mode).behavior is expected


def test_check_rules_as_dict_or_list():
    d = check(Judge(), {"text": "go"}, rules={"allow": ["Judge(go)"]})
    assert (d.behavior, d.step, d.rule_source) == (B.ALLOW, "allow_rules", "session")
    d = check(Judge(), {"text": "go"}, rules=[PermissionRule.parse("Judge(go)", "deny")])
    assert d.behavior is B.DENY
    with pytest.raises(RuleSyntaxError):
        check(Judge(), {"text": "go"}, rules={"allow": ["Judge(go"]})
    with pytest.raises(ValueError, match="'allow', 'ask', 'deny'"):
        check(Judge(), {"text": "go"}, rules={"allowed": ["Judge(go)"]})
    with pytest.raises(RuleExampleError):
        check(Judge(), {"text": "go"},
              rules={"allow": [{"rule": "Judge(go)", "examples": ["stop"]}]})


def test_check_passes_cwd_and_working_directories(tmp_path):
    seen = []

    class Where(Judge):
        def check_permissions(self, tool_input, context):
            seen.append(context)
            return super().check_permissions(tool_input, context)

    check(Where(), {"text": "x"}, cwd=tmp_path, working_directories=["data", "/abs"],
          mode="accept_edits")
    ctx = seen[0]
    assert ctx.cwd == str(tmp_path) and ctx.mode.value == "accept_edits"
    assert ctx.working_directories == (str(tmp_path / "data"), "/abs")


def test_check_errors():
    with pytest.raises(ToolNotFound, match="NoSuchTool"):
        check("NoSuchTool", {})
    with pytest.raises(TypeError, match="as a dict"):
        check(Judge(), "ls")
    with pytest.raises(ValueError, match="permission mode"):
        check(Judge(), {}, mode="yolo")
