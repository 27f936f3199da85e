"""The agent loop end to end on ScriptedModel: the five gates, batching, ASK suspend/resume,
cancellation. Real Toolkit, real PermissionEngine with settings files in a tmp project, real
LocalBackend processes."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from typing import Any

import pytest

from jupyter_agenttools.agent.batching import ToolCall, make_batches
from jupyter_agenttools.agent.loop import Agent
from jupyter_agenttools.agent.models import NO_MODEL_MESSAGE, ScriptedModel
from jupyter_agenttools.backends.local import LocalBackend
from jupyter_agenttools.errors import AnswerError, ToolkitError
from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.permission.settings import SettingsStore
from jupyter_agenttools.permission.types import PermissionDecision, PermissionRule
from jupyter_agenttools.tools.base import Tool, ToolResultState
from jupyter_agenttools.tools.function import FunctionTool
from jupyter_agenttools.tools.toolkit import ToolGroup, Toolkit

# --- tools used by the tests -------------------------------------------------------------------


class Recorder:
    """Counts how many calls run at once, and in which order they ran."""

    def __init__(self) -> None:
        self.active = 0
        self.max_active = 0
        self.log: list[Any] = []

    async def run(self, label: Any, seconds: float) -> str:
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        self.log.append(("start", label))
        try:
            await asyncio.sleep(seconds)
        finally:
            self.active -= 1
            self.log.append(("end", label))
        return f"slept {label}"


def make_tools(rec: Recorder) -> list[Tool]:
    def echo(text: str) -> str:
        """Echo the text back.

        Args:
            text: what to echo
        """
        rec.log.append(("echo", text))
        return f"echo: {text}"

    async def nap(label: str, seconds: float = 0.3) -> str:
        """Sleep a while (read-only, safe to run concurrently)."""
        return await rec.run(label, seconds)

    async def step(label: str, seconds: float = 0.05) -> str:
        """A read-only call that must run alone (not concurrency-safe)."""
        return await rec.run(label, seconds)

    def asked(x: int) -> str:
        """A function tool: asked about unless allowed."""
        rec.log.append(("asked", x))
        return f"asked ran with {x}"

    def serial_asked(x: int) -> str:
        """Asked about, and not concurrency-safe."""
        rec.log.append(("serial_asked", x))
        return f"serial_asked ran with {x}"

    def broken(x: int) -> str:
        """Raises a developer-oriented error."""
        raise ToolkitError("misconfigured on purpose")

    return [
        FunctionTool(echo, read_only=True),
        FunctionTool(nap, read_only=True),
        FunctionTool(step, read_only=True, concurrency_safe=False),
        FunctionTool(asked),
        FunctionTool(serial_asked, concurrency_safe=False),
        FunctionTool(broken, read_only=True),
        KeyReader(rec),
    ]


class KeyReader(Tool):
    """Reads a file: a plain ASK for ordinary files (suggesting ``KeyReader(<folder>/*)``), a
    safety ASK for anything that looks like a private key."""

    name = "KeyReader"
    description = "Read a file."
    input_schema = {"type": "object", "properties": {"path": {"type": "string"}},
                    "required": ["path"], "additionalProperties": False}
    concurrency_safe = True
    rule_argument = "path"

    def __init__(self, rec: Recorder):
        self.rec = rec

    def check_permissions(self, tool_input, context):
        if "id_rsa" in tool_input["path"]:
            return PermissionDecision.ask("reads a private key", safety=True)
        return PermissionDecision.ask("reads a file")

    def suggest_rules(self, tool_input, context):
        # the folder of the file: broad enough to cover a key file next to it
        return [PermissionRule("KeyReader", os.path.dirname(tool_input["path"]) + "/*")]

    def call(self, path: str) -> str:
        self.rec.log.append(("read", path))
        return f"contents of {path}"


def grouped_tool() -> FunctionTool:
    def plot(x: int) -> str:
        """Plot (in the inactive 'viz' group)."""
        return "plotted"

    return FunctionTool(plot, read_only=True)


@pytest.fixture
def rec() -> Recorder:
    return Recorder()


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    return root


def make_engine(project, **kw) -> PermissionEngine:
    store = SettingsStore(project, user_dir=project.parent / "user",
                          managed_path=project.parent / "managed-settings.json")
    return PermissionEngine(settings=store, audit=store.audit_path, **kw)


def make_agent(rec: Recorder, turns, project, **kw) -> Agent:
    toolkit = Toolkit(make_tools(rec), groups=[ToolGroup("viz", "plots")])
    toolkit.add_tool(grouped_tool(), group="viz")
    engine = kw.pop("engine", None) or make_engine(project)
    return Agent(ScriptedModel(turns), toolkit, engine=engine,
                 offload_dir=project.parent / "offload", **kw)


def call(name: str, input: Any, id: str | None = None) -> dict[str, Any]:
    out = {"name": name, "input": input}
    if id:
        out["id"] = id
    return out


def tool_messages(messages: list[dict[str, Any]]) -> dict[str, str]:
    return {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}


def kinds(run) -> list[str]:
    return [e.kind for e in run.events]


# --- gates: every failure is an error result and the run goes on --------------------------------

GATE_CASES = [
    # (call, expected state, text the model must read)
    pytest.param(call("nope", {}), "error", "Tool 'nope' does not exist", id="gate1-unknown"),
    pytest.param(call("plot", {"x": 1}), "error", "reset_tools", id="gate1-inactive-group"),
    pytest.param(call("echo", '{"text": "hi"'), "success", "echo: hi", id="gate2-repaired"),
    pytest.param(call("echo", "{text: 'single quoted'}"), "success", "echo: single quoted",
                 id="gate2-repaired-quotes"),
    pytest.param(call("echo", "[1, 2]"), "error", "could not be read", id="gate2-not-object"),
    pytest.param(call("echo", {"text": 5}), "error", "5 is not of type 'string'",
                 id="gate2-schema-type"),
    pytest.param(call("echo", {}), "error", "'text' is a required property",
                 id="gate2-schema-required"),
    pytest.param(call("KeyReader", {"path": "secret.txt"}), "denied",
                 "Permission denied for KeyReader", id="gate3-deny-rule"),
]


@pytest.mark.parametrize("the_call, state, text", GATE_CASES)
async def test_each_gate_failure_feeds_an_error_back_and_the_run_continues(
        rec, project, the_call, state, text):
    seen: list[list[dict[str, Any]]] = []

    def final(messages, tools):
        seen.append(messages)
        return "final answer"

    the_call = dict(the_call, id="c1")
    engine = make_engine(project, rules={"deny": ["KeyReader(secret*)"]})
    agent = make_agent(rec, [[the_call], final], project, engine=engine)
    run = await agent.run("go")
    assert await run.wait_done(timeout=10) == "final answer"
    assert run.state == "done"
    (result,) = run.tool_results
    assert result.state.value == state
    model_reads = tool_messages(seen[0])["c1"]
    assert text in model_reads
    if state != "success":
        assert model_reads.startswith(("Error: ", "Denied: "))
    result_events = [e for e in run.events if e.kind == "tool_result"]
    assert [e.call_id for e in result_events] == ["c1"]


async def test_gate2_executes_the_validated_dict(rec, project):
    # the repaired, schema-coerced input is what runs, not a re-parse of the raw string
    agent = make_agent(rec, [[call("nap", '{"label": "x", "seconds": "0.01"')], "ok"], project)
    run = await agent.run("go")
    await run.wait_done(timeout=10)
    assert run.tool_results[0].state is ToolResultState.SUCCESS
    assert ("start", "x") in rec.log


async def test_a_developer_error_fails_the_run_visibly(rec, project):
    agent = make_agent(rec, [[call("broken", {"x": 1})], "never reached"], project)
    run = await agent.run("go")
    with pytest.raises(ToolkitError, match="misconfigured on purpose"):
        await run.wait_done(timeout=10)
    assert run.state == "failed" and isinstance(run.error, ToolkitError)
    assert kinds(run)[-1] == "run_failed"
    # the conversation stays well formed: the failed call has a result message
    (text,) = tool_messages(agent.messages).values()
    assert text.startswith("Error: ") and "misconfigured on purpose" in text


# --- models ------------------------------------------------------------------------------------


async def test_running_out_of_script_ends_with_a_clear_message(rec, project):
    agent = make_agent(rec, [[call("echo", {"text": "a"})]], project)
    run = await agent.run("go")
    result = await run.wait_done(timeout=10)
    assert run.state == "done"
    assert "no turn left" in result and "1 played" in result


async def test_the_scripted_spec_explains_how_to_configure_a_model(project):
    agent = Agent("scripted", Toolkit(), engine=make_engine(project))
    run = await agent.run("hello")
    assert await run.wait_done(timeout=10) == NO_MODEL_MESSAGE
    assert "OPENAI_API_KEY" in NO_MODEL_MESSAGE


async def test_scripted_text_streams_in_several_deltas(rec, project):
    agent = make_agent(rec, ["The quick brown fox jumps over the lazy dog."], project)
    run = await agent.run("go")
    await run.wait_done(timeout=10)
    deltas = [e.text for e in run.events if e.kind == "text_delta"]
    assert len(deltas) >= 2 and "".join(deltas) == run.result


def test_scripted_model_from_yaml_and_bad_scripts():
    model = ScriptedModel.from_yaml("""
turns:
  - - name: echo
      input: {text: hi}
  - text: thinking
    tool_calls: [{name: echo, input: '{"text": "x"'}]
  - all done
""")
    assert model.remaining == 3
    from jupyter_agenttools.errors import ModelError

    with pytest.raises(ModelError, match="turn 0"):
        ScriptedModel([42])
    with pytest.raises(ModelError, match="list of turns"):
        ScriptedModel.from_yaml("just a string")
    with pytest.raises(ModelError, match="needs a 'name'"):
        ScriptedModel([[{"input": {}}]])


async def test_history_is_kept_across_runs(rec, project):
    seen = []

    def second(messages, tools):
        seen.append(messages)
        return "second"

    agent = make_agent(rec, ["first", second], project)
    await (await agent.run("one")).wait_done(timeout=10)
    await (await agent.run("two")).wait_done(timeout=10)
    roles = [(m["role"], m.get("content")) for m in seen[0]]
    assert roles[1:] == [("user", "one"), ("assistant", "first"), ("user", "two")]


# --- batching ----------------------------------------------------------------------------------


def test_batches_keep_order_and_group_safe_runs(rec):
    toolkit = Toolkit(make_tools(rec))
    names = ["echo", "nap", "step", "step", "unknown_tool", "nap", "serial_asked", "echo"]
    calls = [ToolCall(f"c{i}", n, "{}") for i, n in enumerate(names)]
    batches = make_batches(calls, toolkit)
    shape = [(b.concurrent, [c.name for c in b.calls]) for b in batches]
    assert shape == [
        (True, ["echo", "nap"]),
        (False, ["step"]),
        (False, ["step"]),
        (True, ["unknown_tool", "nap"]),  # unknown names count as safe
        (False, ["serial_asked"]),
        (True, ["echo"]),
    ]


async def test_five_safe_calls_run_in_parallel(rec, project):
    calls = [call("nap", {"label": i, "seconds": 0.3}) for i in range(5)]
    calls = [dict(c, input={"label": str(i), "seconds": 0.3}) for i, c in enumerate(calls)]
    agent = make_agent(rec, [calls, "rested"], project)
    start = time.monotonic()
    run = await agent.run("go")
    assert await run.wait_done(timeout=10) == "rested"
    elapsed = time.monotonic() - start
    assert rec.max_active == 5
    assert elapsed < 1.2, f"5 × 0.3 s calls took {elapsed:.2f} s: not parallel"


async def test_unsafe_calls_run_one_by_one_in_order(rec, project):
    calls = [call("step", {"label": str(i)}) for i in range(3)]
    agent = make_agent(rec, [calls, "ok"], project)
    run = await agent.run("go")
    await run.wait_done(timeout=10)
    assert rec.max_active == 1
    assert rec.log == [("start", "0"), ("end", "0"), ("start", "1"), ("end", "1"),
                       ("start", "2"), ("end", "2")]


# --- ASK, suspend and resume --------------------------------------------------------------------


async def test_ask_allow_once_resumes_and_asks_again_next_time(rec, project):
    agent = make_agent(rec, [[call("asked", {"x": 1})], [call("asked", {"x": 2})], "done"],
                       project)
    run = await agent.run("go")
    ask = await run.next_ask(timeout=10)
    assert run.state == "waiting" and run.pending == [ask]
    assert (ask.tool, ask.input, ask.safety) == ("asked", {"x": 1}, False)
    assert [r.text for r in ask.suggestions] == ["asked"]
    assert ("asked", 1) not in rec.log  # parked, not run
    assert ask.answer("allow_once") is True
    second = await run.next_ask(timeout=10)
    assert second is not ask and second.input == {"x": 2}  # allow_once saved nothing
    second.answer("allow_once")
    assert await run.wait_done(timeout=10) == "done"
    assert ("asked", 1) in rec.log and ("asked", 2) in rec.log
    assert "ask_answered" in kinds(run)


async def test_ask_always_saves_the_rule_to_local_settings(rec, project):
    agent = make_agent(rec, [[call("asked", {"x": 1})], "first done",
                             [call("asked", {"x": 1})], "second done"], project)
    run = await agent.run("go")
    ask = await run.next_ask(timeout=10)
    assert ask.answer("always") is True
    assert await run.wait_done(timeout=10) == "first done"
    local = json.loads((project / ".agenttools" / "settings.local.json").read_text())
    assert local["permissions"]["allow"] == ["asked"]
    # the next identical call is not asked
    run2 = await agent.run("again")
    assert await run2.wait_done(timeout=10) == "second done"
    assert "ask" not in kinds(run2)
    decision = next(e.decision for e in run2.events if e.kind == "permission_decision")
    assert decision.behavior.value == "allow" and decision.step == "allow_rules"
    # the answer is in the audit log
    answers = agent.engine.audit.read(kind="answer")
    assert [(a["tool"], a["answer"], a["rule_chosen"]) for a in answers] == \
        [("asked", "always_allow", "asked")]


async def test_ask_always_with_an_explicit_rule_text(rec, project):
    agent = make_agent(rec, [[call("KeyReader", {"path": "notes.txt"})], "ok"], project)
    run = await agent.run("go")
    ask = await run.next_ask(timeout=10)
    with pytest.raises(AnswerError, match="invalid permission rule"):
        ask.answer("always", rule="KeyReader(")
    assert not ask.answered  # a bad answer loses nothing
    assert ask.answer("always", rule="KeyReader(*.txt)")
    await run.wait_done(timeout=10)
    assert engine_rules(agent) == ["KeyReader(*.txt)"]


def engine_rules(agent: Agent) -> list[str]:
    return [r.text for r in agent.engine.rules if r.behavior.value == "allow"]


async def test_ask_deny_sends_the_message_to_the_model(rec, project):
    seen = []

    def after(messages, tools):
        seen.append(tool_messages(messages))
        return "understood"

    agent = make_agent(rec, [[call("asked", {"x": 7}, id="c7")], after], project)
    run = await agent.run("go")
    ask = await run.next_ask(timeout=10)
    ask.answer("deny", message="use x=3 instead")
    assert await run.wait_done(timeout=10) == "understood"
    assert ("asked", 7) not in rec.log
    assert run.tool_results[0].state is ToolResultState.DENIED
    text = seen[0]["c7"]
    assert text.startswith("Denied: ") and "use x=3 instead" in text


async def test_answer_can_edit_the_input_and_it_is_revalidated(rec, project):
    agent = make_agent(rec, [[call("asked", {"x": 1})], "ok"], project)
    run = await agent.run("go")
    ask = await run.next_ask(timeout=10)
    with pytest.raises(AnswerError, match="does not fit"):
        ask.answer("allow_once", input={"x": "not a number"})
    assert ask.answer("allow_once", input={"x": 42})
    await run.wait_done(timeout=10)
    assert ("asked", 42) in rec.log and ("asked", 1) not in rec.log


async def test_an_edited_input_still_meets_the_deny_rules(rec, project):
    engine = make_engine(project, rules={"deny": ["KeyReader(/etc/*)"]})
    agent = make_agent(rec, [[call("KeyReader", {"path": "notes.txt"})], "ok"], project,
                       engine=engine)
    run = await agent.run("go")
    ask = await run.next_ask(timeout=10)
    ask.answer("allow_once", input={"path": "/etc/shadow"})
    await run.wait_done(timeout=10)
    assert run.tool_results[0].state is ToolResultState.DENIED
    assert ("read", "/etc/shadow") not in rec.log


@pytest.mark.parametrize("choice, error", [
    ("maybe", "expected a choice"),
    ("allow_once", "a rule only goes with 'always'"),
])
async def test_invalid_answers_are_refused_and_lose_nothing(rec, project, choice, error):
    agent = make_agent(rec, [[call("asked", {"x": 1})], "ok"], project)
    run = await agent.run("go")
    ask = await run.next_ask(timeout=10)
    with pytest.raises(AnswerError, match=error):
        ask.answer(choice, rule="asked")
    assert run.pending == [ask]
    ask.answer("deny")
    await run.wait_done(timeout=10)


async def test_a_sequential_batch_stops_at_the_first_ask(rec, project):
    calls = [call("serial_asked", {"x": 1}), call("step", {"label": "after"})]
    agent = make_agent(rec, [calls, "ok"], project)
    run = await agent.run("go")
    ask = await run.next_ask(timeout=10)
    await asyncio.sleep(0.1)
    assert ("start", "after") not in rec.log  # still pending behind the question
    ask.answer("allow_once")
    await run.wait_done(timeout=10)
    assert rec.log.index(("serial_asked", 1)) < rec.log.index(("start", "after"))


async def test_an_ask_in_a_concurrent_batch_does_not_stop_its_siblings(rec, project):
    calls = [call("asked", {"x": 1}), call("echo", {"text": "sibling"})]
    agent = make_agent(rec, [calls, "ok"], project)
    run = await agent.run("go")
    ask = await run.next_ask(timeout=10)
    assert ("echo", "sibling") in rec.log
    ask.answer("allow_once")
    await run.wait_done(timeout=10)
    # results reach the model in the model's order, though the sibling finished first
    assert [r.name for r in run.tool_results] == ["echo", "asked"]
    order = [m for m in agent.messages if m["role"] == "tool"]
    assert "asked ran with 1" in order[0]["content"] and "echo: sibling" in order[1]["content"]


async def test_two_concurrent_asks_matching_one_suggestion_give_one_question(rec, project):
    calls = [call("asked", {"x": 1}), call("asked", {"x": 2})]
    agent = make_agent(rec, [calls, "ok"], project)
    run = await agent.run("go")
    ask = await run.next_ask(timeout=10)
    await asyncio.sleep(0.05)
    assert len(run.pending) == 1 and len([e for e in run.events if e.kind == "ask"]) == 1
    ask.answer("always")
    assert await run.wait_done(timeout=10) == "ok"
    assert len(run.asks) == 1  # the second call was allowed by the saved rule
    assert ("asked", 1) in rec.log and ("asked", 2) in rec.log


async def test_a_deduplicated_call_is_asked_later_after_allow_once(rec, project):
    calls = [call("asked", {"x": 1}), call("asked", {"x": 2})]
    agent = make_agent(rec, [calls, "ok"], project)
    run = await agent.run("go")
    first = await run.next_ask(timeout=10)
    first.answer("allow_once")
    second = await run.next_ask(timeout=10)
    assert second is not first and second.input == {"x": 2}
    second.answer("allow_once")
    await run.wait_done(timeout=10)
    assert len(run.asks) == 2


async def test_a_safety_ask_in_the_same_batch_is_asked_separately(rec, project):
    calls = [call("KeyReader", {"path": "/home/u/notes.txt"}),
             call("KeyReader", {"path": "/home/u/.ssh/id_rsa"})]
    agent = make_agent(rec, [calls, "ok"], project)
    run = await agent.run("go")
    await run.next_ask(timeout=10)
    await asyncio.sleep(0.05)
    plain, safety = run.pending
    assert (plain.safety, safety.safety) == (False, True)
    assert safety.suggestions == []
    # the kept suggestion matches the key file too: only the safety flag made it a question
    assert [r.text for r in plain.suggestions] == ["KeyReader(/home/u/*)"]
    assert plain.tool_obj.match_rule(plain.suggestions[0], safety.input, None)
    with pytest.raises(AnswerError, match="safety"):
        safety.answer("always", rule="KeyReader")
    assert run.state == "waiting"
    plain.answer("always")
    await asyncio.sleep(0.05)
    assert run.state == "waiting"  # the round resumes only when every question is answered
    safety.answer("deny")
    await run.wait_done(timeout=10)
    states = [r.state.value for r in sorted(run.tool_results, key=lambda r: r.id)]
    assert ("read", "/home/u/notes.txt") in rec.log
    assert ("read", "/home/u/.ssh/id_rsa") not in rec.log
    assert sorted(states) == ["denied", "success"]


async def test_answer_from_another_thread(rec, project):
    agent = make_agent(rec, [[call("asked", {"x": 5})], "ok"], project)
    run = await agent.run("go")
    ask = await run.next_ask(timeout=10)
    results: list[bool] = []
    threads = [threading.Thread(target=lambda: results.append(ask.answer("allow_once")))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [False, False, False, True]  # idempotent, exactly one wins
    assert await run.wait_done(timeout=10) == "ok"
    assert ("asked", 5) in rec.log
    assert [e.choice for e in run.events if e.kind == "ask_answered"] == ["allow_once"]


async def test_a_second_answer_is_ignored(rec, project):
    agent = make_agent(rec, [[call("asked", {"x": 5})], "ok"], project)
    run = await agent.run("go")
    ask = await run.next_ask(timeout=10)
    assert ask.answer("deny") is True
    assert ask.answer("allow_once") is False
    await run.wait_done(timeout=10)
    assert ask.choice == "deny" and ("asked", 5) not in rec.log


async def test_listeners_and_live_iteration_see_the_same_events(rec, project):
    agent = make_agent(rec, [[call("echo", {"text": "a"})], "fin"], project)
    run = await agent.run("go")
    heard: list[str] = []
    run.add_listener(lambda e: heard.append(e.kind))
    live = [e.kind async for e in run]
    assert live == heard == kinds(run)
    assert live == ["tool_call_started", "permission_decision", "tool_chunk", "tool_result",
                    "text_delta", "run_finished"]


async def test_a_new_prompt_while_busy_is_refused(rec, project):
    from jupyter_agenttools.errors import UsageError

    agent = make_agent(rec, [[call("asked", {"x": 1})], "ok"], project)
    run = await agent.run("go")
    ask = await run.next_ask(timeout=10)
    with pytest.raises(UsageError, match="still busy"):
        await agent.run("another")
    ask.answer("deny")
    await run.wait_done(timeout=10)


# --- finish gate ---------------------------------------------------------------------------------


async def test_a_long_result_is_cut_and_offloaded(rec, project):
    seen = []

    def after(messages, tools):
        seen.append(tool_messages(messages))
        return "ok"

    long_text = "".join(f"line {i}\n" for i in range(5000))
    agent = make_agent(rec, [[call("echo", {"text": long_text}, id="big")], after], project,
                       output_budget=2000)
    run = await agent.run("go")
    await run.wait_done(timeout=10)
    text = seen[0]["big"]
    assert len(text) < 4000
    offload_dir = project.parent / "offload"
    files = [p for p in offload_dir.rglob("*") if p.is_file()]
    assert files and str(files[0]) in text
    assert "line 4999" in files[0].read_text()


# --- cancellation --------------------------------------------------------------------------------


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead for our purpose
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def test_cancel_during_a_long_call_kills_the_process(rec, project, tmp_path):
    backend = LocalBackend(str(tmp_path))
    pidfile = tmp_path / "pid"

    async def long_shell(seconds: int) -> str:
        """Run a long shell command."""
        result = await backend.exec_shell(
            ["sh", "-c", f"echo $$ > {pidfile}; exec sleep {seconds}"])
        return result.stdout_text

    toolkit = Toolkit([FunctionTool(long_shell, read_only=True)])
    agent = Agent(ScriptedModel([[call("long_shell", {"seconds": 60})], "never"]), toolkit,
                  engine=make_engine(project))
    run = await agent.run("go")
    # a deadline, not a timing claim: a loaded 2-core machine can take seconds to start sh
    deadline = time.monotonic() + 60
    while not (pidfile.exists() and pidfile.read_text().strip()) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    pid = int(pidfile.read_text())
    assert _alive(pid)
    assert run.cancel() is True
    await run.wait_done(timeout=10)
    assert run.state == "cancelled" and kinds(run)[-1] == "run_cancelled"
    assert not _alive(pid)
    assert run.tool_results[0].state is ToolResultState.INTERRUPTED
    assert run.cancel() is False
    # the conversation stays valid for the next prompt
    assert [m["role"] for m in agent.messages][-1] == "tool"


async def test_cancel_while_waiting_closes_the_questions(rec, project):
    agent = make_agent(rec, [[call("asked", {"x": 1})], "ok"], project)
    run = await agent.run("go")
    ask = await run.next_ask(timeout=10)
    threading.Thread(target=run.cancel).start()  # from another thread, like a button
    await asyncio.wait_for(run.wait_done(), 10)
    assert run.state == "cancelled" and run.pending == []
    assert ask.answer("allow_once") is False
    assert ("asked", 1) not in rec.log
