"""Decisions read the file system of the machine the tools run on.

A real second kernel sees a different file system at the *same path*: it runs under bubblewrap
with another folder bind-mounted over the project, where ``notes.txt`` is a symlink to the
home's ``.bashrc`` (here it is a plain file). Its facts arrive in one round trip per decision;
with this machine's facts the write would be auto-allowed in accept_edits."""

from __future__ import annotations

import json
import os
import shutil
import sys

import pytest

from jupyter_agenttools.agent.loop import Agent
from jupyter_agenttools.agent.models import ScriptedModel
from jupyter_agenttools.backends.jupyter_kernel import JupyterKernelBackend
from jupyter_agenttools.backends.local import LocalBackend
from jupyter_agenttools.builtin import Glob, Grep, Read, Write
from jupyter_agenttools.gates.permission import decision_context
from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.permission.facts import PrefetchedFacts
from jupyter_agenttools.permission.types import PermissionBehavior, PermissionContext
from jupyter_agenttools.tools.toolkit import Toolkit

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")]

ALLOW, ASK, DENY = PermissionBehavior.ALLOW, PermissionBehavior.ASK, PermissionBehavior.DENY


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("remote").resolve()
    home, proj, view = root / "home", root / "proj", root / "remote-view"
    for d in (home / ".ssh", proj / "src", view / "src"):
        d.mkdir(parents=True)
    (home / ".bashrc").write_text("# rc\n")
    (home / ".ssh/work").write_text("KEY")             # a key by place, not by name
    (proj / "notes.txt").write_text("local notes\n")          # here: a plain file
    (proj / "src/a.py").write_text("print('local')\n")
    os.symlink(home / ".bashrc", view / "notes.txt")           # there: a profile
    os.symlink(home / ".ssh", view / "src/keys")               # there: a folder of keys
    (view / "src/a.py").write_text("print('remote')\n")
    spec_dir = root / "jupyter-data" / "kernels" / "remote-fs"
    spec_dir.mkdir(parents=True)
    argv = ["bwrap", "--dev-bind", "/", "/", "--bind", str(view), str(proj), "--",
            sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    env = {"HOME": str(home), "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    (spec_dir / "kernel.json").write_text(json.dumps(
        {"argv": argv, "display_name": "remote fs", "language": "python", "env": env}))
    return {"root": root, "home": home, "proj": proj, "jupyter_path": str(root / "jupyter-data")}


@pytest.fixture
async def remote(world, monkeypatch):
    monkeypatch.setenv("JUPYTER_PATH", world["jupyter_path"])
    backend = await JupyterKernelBackend.start("remote-fs", cwd=str(world["proj"]))
    calls = []
    original = backend.path_facts

    async def counted(*args, **kwargs):
        calls.append(args or kwargs)
        return await original(*args, **kwargs)

    backend.path_facts = counted
    backend.fact_calls = calls
    try:
        yield backend
    finally:
        await backend.close()


def engine_for(world, mode="accept_edits", rules=()):
    context = PermissionContext(cwd=str(world["proj"]), project_root=str(world["proj"]),
                                home=str(world["home"]))
    return PermissionEngine(mode=mode, rules=rules, context=context)


async def test_the_kernel_really_sees_another_file_system(world, remote):
    assert not os.path.islink(world["proj"] / "notes.txt")
    r = await remote.exec_shell(["readlink", str(world["proj"] / "notes.txt")])
    assert r.stdout_text.strip() == str(world["home"] / ".bashrc")


# tool, input, verdict with the remote kernel's facts (True: a safety ASK no rule silences),
# verdict with this machine's facts
CASES = [
    (Write, {"file_path": "notes.txt", "content": "x"}, (ASK, True), ALLOW),  # a profile
    (Read, {"file_path": "src/keys/work"}, (ASK, True), ALLOW),    # a key; here: no such file
    (Read, {"file_path": "src/keys/../.bashrc"}, (ASK, False), ALLOW),  # the home, not src/
    (Read, {"file_path": "src/a.py"}, (ALLOW, False), ALLOW),
    (Grep, {"pattern": "x", "path": "src/keys"}, (ASK, True), ALLOW),  # ~/.ssh, remotely
    (Glob, {"pattern": "src/keys/*"}, (ASK, True), ALLOW),
]


@pytest.mark.parametrize("cls,tool_input,remote_verdict,local_verdict", CASES,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
async def test_decisions_use_the_remote_facts_in_one_round_trip(world, remote, cls, tool_input,
                                                                remote_verdict, local_verdict):
    engine = engine_for(world)
    tool = cls(remote)
    before = len(remote.fact_calls)
    context = await decision_context(engine, tool, tool_input)
    assert len(remote.fact_calls) - before == 1          # one round trip per decision
    assert isinstance(context.facts, PrefetchedFacts)
    decision = engine.decide(tool, tool_input, context=context)
    assert (decision.behavior, decision.bypass_immune) == remote_verdict, decision.trace
    assert "could not be checked" not in decision.message  # every fact was there
    # the same call judged on this machine's files: the bug the remote facts fix
    local = cls(LocalBackend(str(world["proj"])))
    local_context = await decision_context(engine, local, tool_input)
    assert engine.decide(local, tool_input, context=local_context).behavior is local_verdict


async def test_a_fact_not_fetched_is_an_ask_not_a_local_guess(world, remote):
    engine = engine_for(world)
    tool = Write(remote)
    context = await decision_context(engine, tool, {"file_path": "src/new.py", "content": ""})
    other = {"file_path": "elsewhere/new.py", "content": ""}
    decision = engine.decide(tool, other, context=context)   # facts of another call
    assert decision.behavior is ASK and "not fetched" in decision.reason


async def test_the_backend_acts_on_the_path_that_was_checked(world, remote):
    assert await remote.resolve("notes.txt") == str(world["home"] / ".bashrc")
    assert await remote.resolve("src/keys/../.bashrc") == str(world["home"] / ".bashrc")
    chunk = await Read(remote).call("src/a.py")
    assert "remote" in chunk.content[0]["text"]


async def test_an_agent_on_the_remote_kernel_asks_before_writing_the_profile(world, remote):
    turns = [[{"name": "Write", "input": {"file_path": "notes.txt", "content": "pwned"}}],
             "done"]
    engine = engine_for(world)
    agent = Agent(ScriptedModel(turns), toolkit=Toolkit([Write(remote), Read(remote)]),
                  engine=engine)
    run = agent.start("write the notes")
    ask = await run.next_ask()
    assert ask is not None and ask.decision.bypass_immune
    assert ".bashrc" in ask.decision.reason
    ask.answer("deny")
    await run.wait_done()
    assert (world["home"] / ".bashrc").read_text() == "# rc\n"
    assert len(remote.fact_calls) == 1
