"""The agent loop: ask the model, pass each tool call through the five gates, feed the results
back, until the model answers without tool calls.

One round = the tool calls of one model turn. They run in batches (``batching.py``); a call
that needs a person's answer parks (state ASKING) with a PendingAsk, and the round resumes when
every question of the round is answered. Every failing gate becomes an error tool result the
model sees; only a DeveloperOrientedException (or a model that cannot be reached) ends the run,
as ``run_failed`` with the exception in ``run.error``.

Middlewares (``middlewares=``) hook in at two places:

- around the permission check: a callable ``(tool, tool_input, context, next) -> decision``, or
  an object with a ``check_permission`` method of that shape (see ``gates/permission.py``);
- around execution: an object with ``execute(tool, tool_input, next)``, an async generator that
  iterates ``next(tool, tool_input)`` (chunks, then one ToolResponse) and yields what it wants.

Every execution (gate 4) has a time limit: the tool's own (``tool.own_time_limit(input)``, e.g.
Bash's ``timeout``) plus OWN_LIMIT_GRACE — the tool stops itself, this is the backstop — or else
the agent's ``tool_time_limit`` (DEFAULT_TOOL_TIME_LIMIT; None: none). A call that overruns it
is cancelled (a synchronous tool's thread is stopped where Python can) and its result is an
ERROR saying so, with the output it had produced.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import time
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Sequence

from ..errors import (
    AgentOrientedException,
    ModelError,
    ToolPermissionDenied,
    ToolReturnTypeError,
    UsageError,
)
from ..gates.arguments import parse_arguments
from ..gates.availability import check_available
from ..gates.permission import check_permission, checked_scope, decision_context, needs_answer
from ..permission.audit import audit_call
from ..permission.types import PermissionBehavior
from ..tools.base import ToolChunk, ToolResponse, ToolResultState
from ..tools.worker import STUCK_MESSAGE
from . import events as ev
from .batching import CallState, ToolCall, make_batches, matches_kept_rule
from .models import ModelTurn, TextDelta, load_model
from .run import AgentRun, PendingAsk, new_ask_id

if TYPE_CHECKING:
    from ..permission.engine import PermissionEngine
    from ..permission.types import PermissionDecision, PermissionRule
    from ..tools.base import Tool
    from ..tools.toolkit import Toolkit

log = logging.getLogger(__name__)

#: unreadable tool-call arguments longer than this are not kept in the conversation
UNREAD_ARGUMENTS_KEPT = 16_384

__all__ = ["Agent", "DEFAULT_SYSTEM_PROMPT", "DEFAULT_TOOL_TIME_LIMIT", "result_text"]

#: Seconds one tool call may run when the tool has no limit of its own (Agent(tool_time_limit=)).
DEFAULT_TOOL_TIME_LIMIT = 300.0
#: Extra seconds given to a tool that enforces its own limit, to stop and report by itself.
OWN_LIMIT_GRACE = 30.0

DEFAULT_SYSTEM_PROMPT = (
    "You are a careful assistant working inside a Jupyter notebook. Use the tools when they "
    "help. Some tool calls need the user's approval; a denied call comes back with the reason."
)

_PREFIX = {
    ToolResultState.ERROR: "Error: ",
    ToolResultState.DENIED: "Denied: ",
    ToolResultState.INTERRUPTED: "Interrupted: ",
}


def result_text(response: ToolResponse) -> str:
    """What the model reads for a tool result: its text, non-text blocks described, and the
    state named when it is not a success."""
    parts: list[str] = []
    for block in response.content:
        kind = block.get("type")
        if kind == "text":
            parts.append(str(block.get("text", "")))
        elif kind == "image":
            parts.append(f"\n[image {block.get('mime_type', '')} not shown: text-only channel]\n")
        elif kind == "resource":
            parts.append(str(block.get("text") or f"\n[resource {block.get('uri', '')}]\n"))
        else:
            parts.append("\n" + json.dumps(block, default=str)[:500] + "\n")
    text = "".join(parts)
    prefix = _PREFIX.get(response.state, "")
    if prefix and not text.startswith(prefix):
        text = prefix + text
    return text or "(no output)"


class Agent:
    """An LLM agent whose every tool call passes the five gates.

    ``model``: a model object, or a spec for ``load_model`` ("openai:gpt-4.1-mini",
    "scripted"). ``toolkit``: a Toolkit (None → the built-in tools on ``backend``). ``engine``:
    a PermissionEngine; None → the engine of ``project`` (default: the current directory):
    its settings layers, trust and lock-down, its audit log, and "Always allow" answers saved
    to its ``.agenttools/settings.local.json``, as in the notebook. ``output_budget``: characters
    of one tool result the model sees; the rest is offloaded to a file under ``offload_dir``.
    ``tool_time_limit``: seconds a tool call without a limit of its own may run (None: no
    limit). The conversation (``messages``, OpenAI chat format) is kept across runs.
    """

    def __init__(self, model: Any = "scripted", toolkit: Toolkit | None = None,
                 engine: PermissionEngine | None = None,
                 backend: Any = None, system_prompt: str | None = None, max_turns: int = 20,
                 output_budget: int = 30000, offload_dir: str | os.PathLike[str] | None = None,
                 middlewares: Sequence[Any] = (),
                 tool_time_limit: float | None = DEFAULT_TOOL_TIME_LIMIT,
                 project: str | os.PathLike[str] | None = None):
        self.model = load_model(model)
        self.backend = backend
        if toolkit is None:
            from ..builtin import default_tools
            from ..tools.toolkit import Toolkit

            toolkit = Toolkit(default_tools(backend))
        self.toolkit: Toolkit = toolkit
        if engine is None:
            from ..permission.engine import PermissionEngine

            engine = PermissionEngine.for_project(project, tools=self.toolkit.find_tool)
        elif project is not None:
            raise UsageError("give either engine= or project= (the project's engine), not both")
        self.engine: PermissionEngine = engine
        self.system_prompt = system_prompt
        if not isinstance(max_turns, int) or max_turns < 1:
            raise UsageError(f"max_turns must be a positive integer, got {max_turns!r}")
        self.max_turns = max_turns
        if not isinstance(output_budget, int) or output_budget < 100:
            raise UsageError(f"output_budget must be an integer >= 100, got {output_budget!r}")
        self.output_budget = output_budget
        if tool_time_limit is not None and (
                isinstance(tool_time_limit, bool) or not isinstance(tool_time_limit, (int, float))
                or not 0 < tool_time_limit < float("inf")):
            raise UsageError(f"tool_time_limit must be a positive number of seconds or None, "
                             f"got {tool_time_limit!r}")
        self.tool_time_limit = tool_time_limit
        self.offload_dir = offload_dir
        self.middlewares = list(middlewares)
        self.messages: list[dict[str, Any]] = []
        self.runs: list[AgentRun] = []
        self._round: list[ToolCall] = []
        self._turn_no = 0
        from ..gates.arguments import warm_up

        warm_up()  # gate 2's jsonschema import, off the first call's path

    # --- public ------------------------------------------------------------------------------

    @property
    def current_run(self) -> AgentRun | None:
        """The run in progress (running or waiting for answers), if any."""
        if self.runs and not self.runs[-1].done:
            return self.runs[-1]
        return None

    def start(self, prompt: str) -> AgentRun:
        """Start a run on the running event loop and return it at once (sync form of run)."""
        if not isinstance(prompt, str) or not prompt.strip():
            raise UsageError(f"expected a non-empty prompt, got {prompt!r}")
        if self.current_run is not None:
            raise UsageError("the agent is still busy with the previous prompt: answer its "
                             "questions, await run.wait_done() or call run.cancel() first")
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise UsageError("an agent run needs a running asyncio event loop: use "
                             "`await agent.run(prompt)` in a notebook cell or inside "
                             "asyncio.run(...)") from None
        run = AgentRun(prompt, engine=self.engine, loop=loop)
        self.runs.append(run)
        run._attach(asyncio.ensure_future(self._drive(run)))
        return run

    async def run(self, prompt: str) -> AgentRun:
        """Start a run; it proceeds as an asyncio task. Returns the AgentRun at once."""
        return self.start(prompt)

    def reset(self) -> None:
        """Forget the conversation (not the rules)."""
        if self.current_run is not None:
            raise UsageError("cannot reset while a run is in progress; cancel it first")
        self.messages.clear()

    # --- the run -----------------------------------------------------------------------------

    def _system_text(self) -> str:
        parts = [self.system_prompt if self.system_prompt is not None else DEFAULT_SYSTEM_PROMPT]
        block = self.toolkit.system_prompt_block()
        if block:
            parts.append(block)
        return "\n\n".join(p for p in parts if p)

    async def _drive(self, run: AgentRun) -> None:
        self.messages.append({"role": "user", "content": run.prompt})
        try:
            result = None
            for turn_no in range(1, self.max_turns + 1):
                self._turn_no = turn_no
                turn = await self._model_turn(run, turn_no)
                if turn.stop_reason == "script_end":
                    result = turn.text
                    break
                self._unique_ids(turn)
                self.messages.append(turn.to_message())
                if not turn.tool_calls:
                    result = turn.text
                    break
                self._round = [ToolCall(c.id, c.name, c.arguments) for c in turn.tool_calls]
                await self._run_round(run, self._round)
                self._write_round()
            else:
                result = (f"Stopped after {self.max_turns} model turns (max_turns) without a "
                          "final answer.")
            run.result = result
            run.state = "done"
            run.emit(ev.RunFinished(result=result or ""))
        except asyncio.CancelledError:
            self._close_round(run, ToolResultState.INTERRUPTED,
                              "The run was cancelled before this call finished.")
            run.state = "cancelled"
            run.emit(ev.RunCancelled(reason=run._cancel_reason))
            task = asyncio.current_task()
            if task is not None and hasattr(task, "uncancel"):
                task.uncancel()
        except Exception as exc:  # DeveloperOrientedException, ModelError, or a bug: visible
            self._close_round(run, ToolResultState.ERROR,
                              f"The run failed before this call finished: {exc}")
            run.error = exc
            run.state = "failed"
            run.emit(ev.RunFailed(error=exc))
        finally:
            for ask in run._asks:
                ask.closed = True

    async def _model_turn(self, run: AgentRun, turn_no: int) -> ModelTurn:
        messages = [{"role": "system", "content": self._system_text()}]
        messages += [_copy_message(m) for m in self.messages]
        turn: ModelTurn | None = None
        async for item in self.model.stream(messages, self.toolkit.schemas()):
            if isinstance(item, TextDelta):
                if item.text:
                    run.emit(ev.TextDelta(text=item.text, turn=turn_no))
            elif isinstance(item, ModelTurn):
                turn = item
            else:
                raise ModelError(f"model {self.model!r} streamed {item!r:.100}, expected "
                                 "TextDelta or ModelTurn")
        if turn is None:
            raise ModelError(f"model {self.model!r} ended its stream without a turn")
        if getattr(turn, "usage", None) is not None:
            run.usage.add(turn.usage)  # tokens and cost, summed over the run (eco)
        return turn

    @staticmethod
    def _unique_ids(turn: ModelTurn) -> None:
        seen: set[str] = set()
        for n, call in enumerate(turn.tool_calls):
            if not call.id or call.id in seen:
                call.id = f"{call.id or 'call'}_{n}"
            seen.add(call.id)

    async def _run_round(self, run: AgentRun, calls: list[ToolCall]) -> None:
        while True:
            todo = [c for c in calls if c.state in (CallState.PENDING, CallState.ALLOWED)]
            if not todo:
                return
            for batch in make_batches(todo, self.toolkit):
                if batch.concurrent:
                    kept: list[PermissionRule] = []
                    await _gather([self._execute(run, c, kept) for c in batch.calls])
                else:
                    for call in batch.calls:
                        await self._execute(run, call, None)
                        if call.state == CallState.ASKING:
                            break
                if run.cancel_requested:
                    raise asyncio.CancelledError()
                if any(c.state == CallState.ASKING for c in batch.calls):
                    break  # later batches wait for the answers
            asking = [c for c in calls if c.state == CallState.ASKING]
            if not asking:
                continue
            run.state = "waiting"
            await asyncio.gather(*(c.ask._future for c in asking if c.ask is not None))
            run.state = "running"
            for call in asking:
                self._apply_answer(run, call)

    def _apply_answer(self, run: AgentRun, call: ToolCall) -> None:
        ask = call.ask
        assert ask is not None
        if ask.choice == "deny":
            text = f"The user denied this call of {call.name}."
            if ask.message:
                text += f" The user says: {ask.message}"
            self._finish(run, call, ToolResponse.error(text, state=ToolResultState.DENIED))
            return
        if ask.new_input is not None:
            call.input = ask.new_input
            call.recheck = True
        call.state = CallState.ALLOWED

    async def _execute(self, run: AgentRun, call: ToolCall,
                       kept: list[PermissionRule] | None) -> None:
        """One call through the gates; leaves it FINISHED, ASKING or (deduplicated) PENDING."""
        if not call.started:
            call.started = True
            run.emit(ev.ToolCallStarted(call_id=call.id, name=call.name, raw_input=call.raw,
                                        turn=self._turn_no))
        try:
            tool = call.tool = check_available(self.toolkit, call.name)  # gate 1
            if call.input is None:
                call.input = parse_arguments(tool, call.raw)  # gate 2
            if call.state != CallState.ALLOWED or call.recheck:  # gate 3
                context = await decision_context(self.engine, tool, call.input)
                with audit_call(call.id):  # the decision's audit record names the call
                    decision = check_permission(self.engine, tool, call.input,
                                                middlewares=self.middlewares, context=context)
                call.decision = decision
                run.emit(ev.PermissionDecided(call_id=call.id, name=call.name,
                                              input=call.input, decision=decision))
                if decision.behavior is PermissionBehavior.DENY:
                    reason = decision.message or decision.reason or "denied by a rule"
                    raise ToolPermissionDenied(f"Permission denied for {call.name}: {reason}")
                if call.recheck:
                    call.recheck = False  # the person approved this edited input
                elif needs_answer(decision):
                    self._park(run, call, tool, decision, kept)
                    return
            call.state = CallState.ALLOWED
            call.extra["started_at"] = time.monotonic()  # for the audit's outcome record
            with checked_scope(call.decision):  # the call does what its decision checked
                response = await self._call(run, call, tool)  # gate 4
            response = self._truncate(response)  # gate 5
            self._finish(run, call, response)
        except AgentOrientedException as exc:
            state = (ToolResultState.DENIED if isinstance(exc, ToolPermissionDenied)
                     else ToolResultState.ERROR)
            self._finish(run, call, ToolResponse.error(str(exc), state=state))

    def _park(self, run: AgentRun, call: ToolCall, tool: Tool, decision: PermissionDecision,
              kept: list[PermissionRule] | None) -> None:
        if decision.behavior is PermissionBehavior.PASSTHROUGH:  # nobody decided: a question
            decision = dataclasses.replace(
                decision, behavior=PermissionBehavior.ASK,
                message=decision.message or "no rule or check decided this call")
        safety = bool(decision.bypass_immune)
        if kept is not None and not safety:
            if matches_kept_rule(tool, call.input or {}, kept, self.engine.context):
                return  # covered by a question already asked: re-evaluated after its answer
            kept.extend(decision.suggestions or [])
        call.state = CallState.ASKING
        ask = PendingAsk(run, new_ask_id(), call.id, tool, call.input or {}, decision)
        call.ask = ask
        run._add_ask(ask)
        run.emit(ev.AskEvent(ask=ask))

    async def _call(self, run: AgentRun, call: ToolCall, tool: Tool) -> ToolResponse:
        """Gate 4: run the call (through the execution middlewares) within its time limit."""
        limit = self._time_limit(tool, call.input or {})
        progress = _Progress()
        if limit is None:
            execution = self._execute_tool(run, call, tool, progress)
            try:
                return await execution
            except asyncio.CancelledError:
                self._finish(run, call, progress.interrupted())
                raise
        task = asyncio.ensure_future(self._execute_tool(run, call, tool, progress))
        try:
            done, _ = await asyncio.wait({task}, timeout=limit)
        except asyncio.CancelledError:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            self._finish(run, call, progress.interrupted())
            raise
        if not done:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            return progress.overran(call.name, limit, self.tool_time_limit)
        return task.result()

    def _time_limit(self, tool: Tool, tool_input: dict[str, Any]) -> float | None:
        own_limit = getattr(tool, "own_time_limit", None)
        try:
            own = own_limit(tool_input) if callable(own_limit) else None
        except Exception:  # a tool that cannot say gets the default
            own = None
        if own is not None:
            return float(own) + OWN_LIMIT_GRACE
        return self.tool_time_limit

    async def _execute_tool(self, run: AgentRun, call: ToolCall, tool: Tool,
                            progress: "_Progress") -> ToolResponse:
        chain: Callable[[Any, dict[str, Any]], AsyncIterator[Any]]

        def innermost(t: Any, i: dict[str, Any]) -> AsyncIterator[Any]:
            return self.toolkit.call_tool(t, i, call_id=call.id)

        chain = innermost
        for mw in reversed(self.middlewares):
            hook = getattr(mw, "execute", None)
            if callable(hook):
                def layer(t: Any, i: dict[str, Any], _hook: Any = hook,
                          _next: Any = chain) -> AsyncIterator[Any]:
                    return _hook(t, i, _next)

                chain = layer
        stream = chain(tool, call.input or {})
        if not hasattr(stream, "__aiter__"):
            raise ToolReturnTypeError(f"an execution middleware returned {stream!r:.100}, "
                                      "expected an async iterator of chunks")
        async for item in stream:
            if isinstance(item, ToolResponse):
                progress.response = item
            elif isinstance(item, ToolChunk):
                progress.streamed.append_chunk(item)
                run.emit(ev.ToolChunkEvent(call_id=call.id, name=call.name, chunk=item))
            else:
                raise ToolReturnTypeError(f"tool {call.name!r} streamed {item!r:.100}, "
                                          "expected ToolChunk or ToolResponse")
        return progress.response if progress.response is not None else progress.streamed

    def _offload_dir(self) -> str | None:
        """Where cut results go: ``offload_dir``, else the project's ``.agenttools/
        tool-results``, else (None) the per-user temp folder of ``truncate_response``."""
        if self.offload_dir is not None:
            return os.fspath(self.offload_dir)
        root = getattr(getattr(self.engine, "settings", None), "project_root", None)
        if root is not None:
            return os.path.join(os.fspath(root), ".agenttools", "tool-results")
        return None

    def _truncate(self, response: ToolResponse) -> ToolResponse:
        from ..tools.truncate import truncate_response

        return truncate_response(response, budget_chars=self.output_budget,
                                 offload_dir=self._offload_dir())

    def _finish(self, run: AgentRun, call: ToolCall, response: ToolResponse) -> None:
        if call.state == CallState.FINISHED:
            return
        response.id, response.name = call.id, call.name
        call.result = response
        call.state = CallState.FINISHED
        run.tool_results.append(response)
        run.emit(ev.ToolResultEvent(call_id=call.id, name=call.name, response=response))
        if "started_at" in call.extra:
            self._report_outcome(call, response)

    def _report_outcome(self, call: ToolCall, response: ToolResponse) -> None:
        """The audit log's ``outcome`` record of a call that ran: state, exit code, time."""
        audit = getattr(self.engine, "audit", None)
        if audit is None or not hasattr(audit, "record_outcome"):
            return
        try:
            tool = call.tool
            summary = tool.input_summary(call.input or {}) if tool is not None else call.raw
            audit.record_outcome(
                tool=call.name, input_summary=summary, state=response.state,
                exit_code=response.metadata.get("exit_code"),
                duration_s=time.monotonic() - call.extra["started_at"],
                timed_out=response.metadata.get("timed_out"), call_id=call.id,
                session=getattr(self.engine, "session", None))
        except Exception as exc:  # the log is a record, not a gate
            log.warning("could not record the outcome of %s in the audit log: %s", call.id, exc)

    def _write_round(self) -> None:
        """Gate 5's write-back: one tool message per call, in the model's order."""
        self._shrink_unread_arguments()
        for call in self._round:
            result = call.result or ToolResponse.error("No result.")
            self.messages.append({"role": "tool", "tool_call_id": call.id,
                                  "content": result_text(result)})
        self._round = []

    def _shrink_unread_arguments(self) -> None:
        """Arguments gate 2 could not read stay in the conversation, resent with every later
        request: 2 MB of garbage there overflowed the context of every next turn and prompt.
        Past UNREAD_ARGUMENTS_KEPT characters they are replaced by a short JSON object saying
        what was there (the tool result quotes its start and end)."""
        unread = {call.id: len(call.raw or "") for call in self._round
                  if call.input is None and len(call.raw or "") > UNREAD_ARGUMENTS_KEPT}
        if not unread:
            return
        for message in reversed(self.messages):
            if message.get("role") != "assistant":
                continue
            for tool_call in message.get("tool_calls") or ():
                size = unread.get(tool_call.get("id"))
                if size is not None:
                    tool_call["function"] = dict(tool_call.get("function") or {}, arguments=(
                        json.dumps({"omitted": f"{size:,} characters of arguments that were "
                                               "not valid JSON (see the tool result)"})))
            return

    def _close_round(self, run: AgentRun, state: ToolResultState, text: str) -> None:
        """Give every unfinished call of an interrupted round a result, so the conversation
        stays valid (each assistant tool call answered) for the next prompt."""
        if not self._round:
            return
        for call in self._round:
            if call.state != CallState.FINISHED:
                self._finish(run, call, ToolResponse.error(text, state=state))
        self._write_round()


class _Progress:
    """What a call produced so far: the chunks streamed and the final response if it came."""

    def __init__(self) -> None:
        self.streamed = ToolResponse()
        self.response: ToolResponse | None = None

    def interrupted(self) -> ToolResponse:
        return self.response or ToolResponse.error(
            "The tool call was interrupted (the run was cancelled).",
            state=ToolResultState.INTERRUPTED)

    def overran(self, name: str, limit: float, default: float | None) -> ToolResponse:
        """The result of a call stopped at its time limit: its output so far, then why."""
        response = ToolResponse(list(self.streamed.content), metadata={"timed_out": True})
        which = ("the agent's tool_time_limit" if limit == default
                 else "its own time limit plus a grace period")
        note = f"{name} did not finish within {limit:g} s ({which}) and was stopped."
        if self.response is not None and self.response.metadata.get("thread_still_running"):
            note += " " + STUCK_MESSAGE
            response.metadata["thread_still_running"] = True
        sep = "\n" if response.text else ""
        response.append_chunk(ToolChunk.error(sep + note))
        response.state = ToolResultState.ERROR
        return response


def _copy_message(message: dict[str, Any]) -> dict[str, Any]:
    """A copy a model may not spoil the history through (cheaper than deepcopy: the history
    grows every turn)."""
    out = dict(message)
    if "tool_calls" in out:
        out["tool_calls"] = [dict(c, function=dict(c.get("function") or {}))
                             for c in out["tool_calls"]]
    return out


async def _gather(coros: list[Any]) -> None:
    """Run ``coros`` together; the first exception cancels the rest and is raised once all have
    finished their cleanup (a cancelled tool kills its process before we go on)."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    except asyncio.CancelledError:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    pending = [t for t in tasks if not t.done()]
    for t in pending:
        t.cancel()
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)
    for t in tasks:
        error = None if t.cancelled() else t.exception()
        if error is not None:
            raise error

