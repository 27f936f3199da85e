"""The engine knows when a Bash call will be sandboxed (issue 16): confined commands are
ALLOWed ("sandboxed: …" in the trace) in default, accept_edits and dont_ask; network (when the
sandbox lets it through), secrets, protected paths, unreadable shell text and writes outside
still ask; deny and ask rules always apply; explore stays read-only."""

from __future__ import annotations

import os
import tempfile

import pytest

from jupyter_agenttools.backends.local import LocalBackend
from jupyter_agenttools.backends.sandbox import SandboxController, SandboxPolicy, probe_local
from jupyter_agenttools.builtin.bash import Bash
from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.permission.types import PermissionContext

AVAILABLE, WHY = probe_local()
pytestmark = pytest.mark.skipif(not AVAILABLE, reason=f"bubblewrap unavailable: {WHY}")

A, Q, D = "allow", "ask", "deny"

# command -> (default without sandbox, default sandboxed, sandboxed with network on)
CASES = {
    "python train.py > log.txt": (Q, A, A),
    "make": (Q, A, A),
    "./run.sh && pytest -x tests": (Q, A, A),
    "for f in *.py; do python $f; done": (Q, A, A),
    # outside the working directories: the Bash check's safety ask comes first (SPEC §9),
    # although the sandbox's own /tmp would take it
    "echo scratch > /tmp/scratch.txt": (Q, Q, Q),
    "pip install pandas": (Q, A, Q),  # network: fails offline, asks when it would reach out
    "curl -o page.html https://example.com": (Q, A, Q),
    "git push": (Q, A, Q),
    "echo x > {outside}/f": (Q, Q, Q),  # a write the sandbox would refuse: asked first
    "echo x > $OUT": (Q, Q, Q),  # decided at run time
    'eval "$X"': (Q, Q, Q),  # shell text no deny rule could see
    "cat script.sh | bash": (Q, Q, Q),
    "cat ~/.ssh/id_rsa": (Q, Q, Q),  # secrets: the Bash check's safety ask
    "echo x > .git/hooks/pre-commit": (Q, Q, Q),  # runs code later
    "env": (Q, Q, Q),  # prints the environment
}


@pytest.fixture(scope="module")
def place():
    root = tempfile.mkdtemp(prefix="agt-sbx-engine-", dir="/var/tmp")
    project, outside = os.path.join(root, "project"), os.path.join(root, "outside")
    os.makedirs(os.path.join(project, ".git", "hooks"))
    os.makedirs(outside)
    yield project, outside


def _engine(project: str, mode: str, policy: SandboxPolicy | None, rules=(), bwrap="bwrap"):
    sandbox = None if policy is None else SandboxController(policy, [project], bwrap=bwrap)
    tool = Bash(LocalBackend(project), sandbox=sandbox)
    engine = PermissionEngine(mode=mode, rules=list(rules), tools=[tool],
                              context=PermissionContext(cwd=project, project_root=project))
    return engine, tool


@pytest.mark.parametrize("command", list(CASES))
@pytest.mark.parametrize("column", [0, 1, 2], ids=["unsandboxed", "sandboxed", "network-on"])
def test_default_mode_table(place, command, column):
    project, outside = place
    policy = [None, SandboxPolicy(enabled=True),
              SandboxPolicy(enabled=True, network=True)][column]
    engine, tool = _engine(project, "default", policy)
    decision = engine.decide(tool, {"command": command.format(outside=outside)})
    assert decision.behavior.value == CASES[command][column], decision.reason
    sandboxed = "sandboxed" in decision.reason
    assert sandboxed == (column > 0 and decision.behavior.value == A)
    if sandboxed:  # the trace says why: step 4, the tool's own check
        assert any("sandboxed" in t.detail for t in decision.trace), decision.trace


# mode -> (a confined command, a command still asked)
MODES = {"default": (A, Q), "accept_edits": (A, Q), "dont_ask": (A, D), "explore": (D, D),
         "bypass": (A, A)}


@pytest.mark.parametrize("mode", list(MODES))
def test_mode_ladder(place, mode):
    project, _ = place
    engine, tool = _engine(project, mode, SandboxPolicy(enabled=True))
    confined = engine.decide(tool, {"command": "python train.py > log.txt"})
    asked = engine.decide(tool, {"command": 'eval "$X"'})
    assert (confined.behavior.value, asked.behavior.value) == MODES[mode]


@pytest.mark.parametrize("rule,expected", [
    ({"deny": ["Bash(make)"]}, D), ({"ask": ["Bash(make)"]}, Q), ({"deny": ["Bash(make:*)"]}, D),
])
def test_deny_and_ask_rules_always_apply(place, rule, expected):
    project, _ = place
    engine, tool = _engine(project, "default", SandboxPolicy(enabled=True))
    engine = PermissionEngine(mode="default", rules=rule, tools=[tool],
                              context=PermissionContext(cwd=project, project_root=project))
    assert engine.decide(tool, {"command": "make"}).behavior.value == expected


def test_no_sandboxed_allow_when_the_sandbox_cannot_run(place):
    project, _ = place
    engine, tool = _engine(project, "default", SandboxPolicy(enabled=True),
                           bwrap="/nonexistent/bwrap")
    decision = engine.decide(tool, {"command": "make"})
    assert decision.behavior.value == Q and "sandboxed" not in decision.reason
