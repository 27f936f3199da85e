"""The built-in tools' permission hooks only delegate: Bash → builtin.bash.policy, the file tools →
permission.paths. These tests check the delegation (same answers), not the policies."""

from __future__ import annotations

import pytest

from jupyter_agenttools.backends.local import LocalBackend
from jupyter_agenttools.builtin import Bash, Edit, Glob, Grep, Read, Write, default_tools
from jupyter_agenttools.builtin.bash import policy
from jupyter_agenttools.permission import paths
from jupyter_agenttools.permission.types import (
    PermissionBehavior,
    PermissionContext,
    PermissionRule,
)


@pytest.fixture
def ctx(tmp_path):
    (tmp_path / "proj" / "src").mkdir(parents=True)
    return PermissionContext(cwd=str(tmp_path / "proj"), home=str(tmp_path))


def test_default_tools_share_one_backend():
    tools = default_tools()
    assert [t.name for t in tools] == ["Bash", "Read", "Write", "Edit", "Glob", "Grep"]
    assert len({id(t.backend) for t in tools}) == 1
    backend = LocalBackend()
    assert all(t.backend is backend for t in default_tools(backend))


@pytest.mark.parametrize("cls,read_only,safe,arg", [
    (Bash, False, False, "command"), (Read, True, True, "file_path"),
    (Write, False, False, "file_path"), (Edit, False, False, "file_path"),
    (Glob, True, True, "path"), (Grep, True, True, "path"),
])
def test_tool_flags(cls, read_only, safe, arg):
    tool = cls(LocalBackend())
    assert tool.name == cls.__name__
    assert (tool.read_only, tool.is_concurrency_safe({}), tool.rule_argument) == \
        (read_only, safe, arg)


FILE_PATHS = ["src/a.py", "/etc/hosts", "~/.ssh/id_rsa", "../outside.txt", ".env"]
BAD_PATHS = ["", None, 5, ["a"]]
RULES = ["Read(src/**)", "Edit(/etc/**)", "Read(~/.ssh/**)", "Edit(.env)", "Write"]


def _same_decision(a, b):
    return (a.behavior, a.bypass_immune, a.message, [r.text for r in a.suggestions]) == \
        (b.behavior, b.bypass_immune, b.message, [r.text for r in b.suggestions])


@pytest.mark.parametrize("path", FILE_PATHS)
def test_read_write_edit_delegate_to_paths(ctx, path):
    read, write, edit = Read(LocalBackend()), Write(LocalBackend()), Edit(LocalBackend())
    assert read.is_read_only({"file_path": path}) is False  # no context: step 4 decides
    assert read.is_read_only({"file_path": path}, context=ctx) == \
        paths.read_is_fast_path_safe(path, ctx)
    for tool in (write, edit):
        assert tool.is_read_only({"file_path": path}, context=ctx) is False
    assert _same_decision(read.check_permissions({"file_path": path}, ctx),
                          paths.check_read(path, ctx, "Read"))
    full = {"Write": {"content": "x"}, "Edit": {"old_string": "a", "new_string": "b"}}
    for tool in (write, edit):
        assert _same_decision(tool.check_permissions({"file_path": path, **full[tool.name]}, ctx),
                              paths.check_write(path, ctx, tool.name))
    for tool in (read, write, edit):
        assert [r.text for r in tool.suggest_rules({"file_path": path}, ctx)] == \
            [r.text for r in paths.suggest_path_rules(tool.name, path, ctx)]
        for text in RULES:
            for behavior in ("allow", "deny"):
                rule = PermissionRule.parse(text, behavior)
                # a Read rule applies to reads, Edit/Write rules to writes, of any tool
                family = {"Read": {"Read"}, "Edit": {"Write", "Edit"},
                          "Write": {"Write", "Edit"}}[rule.tool]
                expected = paths.match_path_rule(rule, path, ctx) \
                    if rule.specifier is None or tool.name in family else False
                whole = {"file_path": path, **full.get(tool.name, {})}
                assert tool.match_rule(rule, whole, ctx) == expected


@pytest.mark.parametrize("path", BAD_PATHS)
def test_a_missing_or_wrong_path_is_never_a_guess(ctx, path):
    """``Read {}`` is not a read of the cwd: the check refuses to guess (a safety ASK), a deny
    rule matches and an allow rule does not."""
    tool_input = {} if path is None else {"file_path": path}
    for tool in (Read(LocalBackend()), Write(LocalBackend()), Edit(LocalBackend())):
        assert tool.is_read_only(tool_input, context=ctx) is False
        decision = tool.check_permissions(tool_input, ctx)
        assert decision.behavior is PermissionBehavior.ASK and decision.bypass_immune
        assert "file_path" in decision.reason
        for behavior, expected in (("allow", False), ("deny", True)):
            rule = PermissionRule.parse("Read(**)" if tool.name == "Read" else "Edit(**)",
                                        behavior)
            assert tool.match_rule(rule, tool_input, ctx) is expected


def test_read_inside_the_working_directory_is_allowed_by_its_check(ctx):
    decision = Read(LocalBackend()).check_permissions({"file_path": "src/a.py"}, ctx)
    assert decision.behavior is PermissionBehavior.ALLOW
    assert Read(LocalBackend()).is_read_only({"file_path": "src/a.py"}, context=ctx) is True


@pytest.mark.parametrize("mode,tool_input,expected", [
    ("explore", {"file_path": "src/a.py"}, "allow"),  # the read-only fast path with context
    ("explore", {"file_path": "/etc/hosts"}, "deny"),  # outside: explore cannot ask
    ("default", {"file_path": "/etc/hosts"}, "ask"),
])
def test_read_through_the_engine(ctx, mode, tool_input, expected):
    from jupyter_agenttools.permission.engine import PermissionEngine

    engine = PermissionEngine(mode=mode, context=ctx)
    assert engine.decide(Read(LocalBackend()), tool_input).behavior.value == expected


@pytest.mark.parametrize("path", ["src", "/etc", "", None, "~/.aws"])
def test_grep_delegates_on_its_path(ctx, path):
    grep = Grep(LocalBackend())
    tool_input = {"pattern": "x", "path": path}
    assert _same_decision(grep.check_permissions(tool_input, ctx),
                          paths.check_read(path, ctx, "Grep"))
    assert grep.is_read_only(tool_input, context=ctx) == paths.read_is_fast_path_safe(path, ctx)
    rule = PermissionRule.parse("Grep(/etc/**)", "deny")
    assert grep.match_rule(rule, tool_input, ctx) == paths.match_path_rule(rule, path, ctx)


@pytest.mark.parametrize("pattern,path", [("**/*.py", None), ("../../*", "src"),
                                          ("/etc/*.conf", None), ("*", "/etc")])
def test_glob_checks_the_folder_its_pattern_reaches(ctx, pattern, path):
    glob = Glob(LocalBackend())
    tool_input = {"pattern": pattern, "path": path}
    reach = paths.glob_reach(pattern, path, ctx)
    assert _same_decision(glob.check_permissions(tool_input, ctx),
                          paths.check_read(reach, ctx, "Glob"))
    assert glob.is_read_only(tool_input, context=ctx) == paths.read_is_fast_path_safe(reach, ctx)
    assert [r.text for r in glob.suggest_rules(tool_input, ctx)] == \
        [r.text for r in paths.suggest_path_rules("Glob", reach, ctx)]
    rule = PermissionRule.parse("Glob(/etc/**)", "deny")
    assert glob.match_rule(rule, tool_input, ctx) == paths.match_path_rule(rule, reach, ctx)


def test_glob_reaching_outside_asks(ctx):
    decision = Glob(LocalBackend()).check_permissions({"pattern": "../../*"}, ctx)
    assert decision.behavior is PermissionBehavior.ASK


BASH_COMMANDS = ["ls -la", "git status", "rm -rf /tmp/x", "echo $(whoami)", "cat a | grep b",
                 "git commit -m 'x' && npm test"]


@pytest.mark.parametrize("command", BASH_COMMANDS)
def test_bash_delegates_to_the_shell_policy(ctx, command):
    bash = Bash(LocalBackend())
    tool_input = {"command": command}
    assert bash.is_read_only(tool_input) == policy.bash_is_read_only(command, None)
    assert _same_decision(bash.check_permissions(tool_input, ctx),
                          policy.bash_check_permissions(command, ctx))
    for text in ("Bash(git status:*)", "Bash(ls:*)", "Bash(rm:*)", "Bash"):
        for behavior in ("allow", "deny"):
            rule = PermissionRule.parse(text, behavior)
            assert bash.match_rule(rule, tool_input, ctx) == \
                policy.bash_match_rule(rule, command, ctx)
    assert [r.text for r in bash.suggest_rules(tool_input, ctx)] == \
        [r.text for r in policy.bash_suggest_rules(command, ctx)]
