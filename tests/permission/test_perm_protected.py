"""The protected tier (DENY in every mode, bypass included), the files that run code later (a
safety ASK in every mode but bypass), and what allow rules can never silence — case tables × the
mode ladder, for the file tools and for a tool that reports shell-like effects."""

from __future__ import annotations

import os

import pytest

from jupyter_agenttools.backends.local import LocalBackend
from jupyter_agenttools.builtin import Edit, Read, Write
from jupyter_agenttools.permission.effects import PathEffect
from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.permission.types import PermissionContext, PermissionDecision
from jupyter_agenttools.tools.base import Tool

MODES = ["default", "accept_edits", "explore", "bypass", "dont_ask"]


@pytest.fixture
def tree(tmp_path, monkeypatch):
    root = tmp_path.resolve()
    for d in ("home/.ssh", "work/proj/.agenttools", "work/proj/src", "work/proj/.git/hooks",
              "outside"):
        (root / d).mkdir(parents=True)
    (root / "home/.ssh/known_hosts").write_text("h")
    (root / "work/proj/.agenttools/settings.local.json").write_text("{}")
    (root / "work/proj/src/a.py").write_text("x")
    os.symlink(root / "work/proj/.agenttools", root / "work/proj/cfg")   # another name for it
    monkeypatch.setenv("AGENTTOOLS_USER_DIR", str(root / "home/.config/agenttools"))
    monkeypatch.setenv("AGENTTOOLS_MANAGED_SETTINGS", str(root / "etc/managed.json"))
    return root


def ctx(tree, mode="default"):
    proj = str(tree / "work/proj")
    return PermissionContext(mode=mode, cwd=proj, project_root=proj, home=str(tree / "home"))


class Shellish(Tool):
    """Reports the effects a shell command would have (the Bash tool does this from its
    analysis); its own check has no opinion, so the engine's tiers decide."""

    name = "Shellish"
    rule_argument = "label"
    input_schema = {"type": "object"}

    def path_effects(self, tool_input, context):
        return [PathEffect(**e) for e in tool_input["effects"]]

    def check_permissions(self, tool_input, context):
        return PermissionDecision.passthrough("no opinion")


SHELL = Shellish()
FILES = {c.__name__: c(LocalBackend()) for c in (Read, Write, Edit)}


def decide(tree, tool, tool_input, mode, rules=()):
    engine = PermissionEngine(mode=mode, rules=rules, context=ctx(tree, mode))
    return engine.decide(tool, tool_input)


def fx(*effects):
    return {"effects": [dict(zip(("kind", "path", "base", "glob", "recursive"), e))
                        for e in effects]}


# the examples and their neighbours: every one DENY in every mode, bypass included
PROTECTED = [
    (SHELL, fx(("write", "/dev/sda")), "disk device"),                       # dd of=/dev/sda
    (SHELL, fx(("write", "/dev/nvme0n1p1")), "disk device"),
    (SHELL, fx(("chmod", "~", (), False, True)), "home folder"),             # chmod -R 000 ~
    (SHELL, fx(("delete", ".", ("~",), False, True)), "home folder"),        # cd ~ && rm -rf .
    (SHELL, fx(("delete", "/", (), False, True)), "root of the file system"),
    (SHELL, fx(("delete", "/usr/lib", (), False, True)), "system"),
    (SHELL, fx(("chmod", "/etc", (), False, True)), "system configuration"),
    (SHELL, fx(("delete", "..", (), False, True)), "parent of the working directory"),
    (SHELL, fx(("delete", "~", ())), "home folder"),                         # mv ~ /tmp/x
    (SHELL, fx(("write", ".agenttools/x")), "settings"),                     # mv x .agenttools/
    (SHELL, fx(("delete", ".agenttools", (), False, True)), "settings"),     # rm -r .agenttools
    (SHELL, fx(("delete", ".", (), False, True)), "settings"),               # rm -rf . (project)
    (SHELL, fx(("delete", "cfg/", (), False, True)), "settings"),            # through a symlink
    (SHELL, fx(("write", "src/../.agenttools/settings.json")), "settings"),
    (SHELL, fx(("write", "~/.config/agenttools/settings.json")), "settings"),  # the user layer
    (SHELL, fx(("write", "{t}/etc/managed.json")), "settings"),
    (SHELL, fx(("read", "src/a.py"), ("write", "/dev/sdb")), "disk device"),  # worst wins
    (FILES["Write"], {"file_path": ".agenttools/settings.local.json", "content": "{}"},
     "settings"),                                                            # self-approval
    (FILES["Edit"], {"file_path": "cfg/settings.local.json", "old_string": "{", "new_string": "["},
     "settings"),
    (FILES["Write"], {"file_path": "/dev/sda", "content": ""}, "disk device"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tool,tool_input,why", PROTECTED,
                         ids=[f"{t.name}-{i}" for i, (t, _, _) in enumerate(PROTECTED)])
def test_protected_tier_is_deny_in_every_mode(tree, mode, tool, tool_input, why):
    tool_input = _fmt(tool_input, tree)
    # even a rule that allows everything cannot lift it
    rules = {"allow": ["Shellish", "Write", "Edit", "Edit(**)", "Edit(//**)"]}
    decision = decide(tree, tool, tool_input, mode, rules)
    assert decision.behavior.value == "deny", decision.trace
    assert decision.step == "deny_rules" and "protected" in decision.reason
    assert why in decision.reason


NOT_PROTECTED = [
    fx(("delete", "build", (), False, True)),        # rm -rf build (inside)
    fx(("delete", "/tmp/scratch", (), False, True)),
    fx(("chmod", "src/a.py")),
    fx(("write", "/dev/null")),
    fx(("read", ".agenttools/settings.local.json")),  # reading its settings is fine
    fx(("write", "~/notes.txt")),                   # outside: a safety ASK, not protected
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tool_input", NOT_PROTECTED)
def test_neighbours_are_not_protected(tree, mode, tool_input):
    decision = decide(tree, SHELL, tool_input, mode)
    assert "protected" not in decision.reason, decision.trace


RUNS_CODE = [
    ".git/hooks/pre-commit", ".git/config", ".husky/pre-commit", ".vscode/tasks.json",
    "~/.bashrc", "~/.bash_aliases", "~/.ipython/profile_default/startup/00.py",
    "~/.local/share/jupyter/kernels/py/kernel.json", "venv/share/jupyter/kernels/x/kernel.json",
    "etc/jupyter/jupyter_server_config.d/evil.json", "~/.gradle/init.d/x.gradle",
    ".pre-commit-config.yaml", "sitecustomize.py",
]


@pytest.mark.parametrize("mode,expected", [("default", "ask"), ("accept_edits", "ask"),
                                           ("explore", "deny"), ("bypass", "ask"),
                                           ("dont_ask", "deny")])
@pytest.mark.parametrize("path", RUNS_CODE)
@pytest.mark.parametrize("via", ["Write", "Shellish"])
def test_files_that_run_code_later_are_a_safety_ask_bypass_included(tree, mode, expected, path,
                                                                      via):
    rules = {"allow": ["Edit(**)", "Edit(//**)", "Write", "Shellish"]}
    if via == "Write":
        tool, tool_input = FILES["Write"], {"file_path": path, "content": "x"}
    else:
        tool, tool_input = SHELL, fx(("write", path))
    decision = decide(tree, tool, tool_input, mode, rules)
    assert decision.behavior.value == expected, decision.trace
    if expected == "ask":
        assert decision.is_safety_ask and not decision.suggestions


# --- bullet 5: what allow rules never silence --------------------------------------------------

NEVER_SILENCED = [
    (FILES["Read"], {"file_path": "~/.ssh/known_hosts"}, "Read(~/.ssh/**)", "secret"),
    (FILES["Read"], {"file_path": "~/.ssh/known_hosts"}, "Read", "secret"),
    (FILES["Write"], {"file_path": "{t}/outside/x", "content": ""}, "Edit(//{t}/outside/**)",
     "outside the working directories"),
    (FILES["Write"], {"file_path": "{t}/outside/x", "content": ""}, "Write", "outside"),
    (SHELL, fx(("read", "~/.ssh/known_hosts")), "Shellish", "secret"),
    (SHELL, fx(("write", "{t}/outside/x")), "Shellish", "outside"),
    (SHELL, fx(("read", "*", ("~/.ssh",), True)), "Shellish", "secret"),     # cd ~/.ssh; cat *
    (SHELL, fx(("read", "x", None)), "Shellish", "cannot tell"),             # cd $X; cat x
]


@pytest.mark.parametrize("mode,expected", [("default", "ask"), ("accept_edits", "ask"),
                                           ("bypass", "allow"), ("dont_ask", "deny")])
@pytest.mark.parametrize("tool,tool_input,rule,why", NEVER_SILENCED)
def test_allow_rules_never_silence_secrets_outside_writes(tree, mode, expected, tool,
                                                          tool_input, rule, why):
    tool_input = _fmt(tool_input, tree)
    decision = decide(tree, tool, tool_input, mode, {"allow": [rule.format(t=tree)]})
    assert decision.behavior.value == expected, decision.trace
    if expected == "ask":
        assert decision.is_safety_ask and why in decision.reason


@pytest.mark.parametrize("mode,expected", [("default", "allow"), ("accept_edits", "allow"),
                                           ("dont_ask", "allow")])
def test_allow_rules_still_silence_is_this_program_ok(tree, mode, expected):
    """A call whose effects are all inside the working directories and harmless: the tool's
    own rule allows it."""
    decision = decide(tree, SHELL, fx(("read", "src/a.py"), ("write", "src/b.py")), mode,
                      {"allow": ["Shellish"]})
    assert decision.behavior.value == expected, decision.trace


def _fmt(value, tree):
    if isinstance(value, str):
        return value.replace("{t}", str(tree))
    if isinstance(value, dict):
        return {k: _fmt(v, tree) for k, v in value.items()}
    if isinstance(value, list):
        return [_fmt(v, tree) for v in value]
    if isinstance(value, tuple):
        return tuple(_fmt(v, tree) for v in value)
    return value
