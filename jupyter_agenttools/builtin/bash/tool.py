"""Bash: run a shell command through the backend, streaming its output."""

from __future__ import annotations

import codecs
import contextlib
from typing import TYPE_CHECKING, Any, AsyncIterator, Mapping

from ...backends.base import ExecResult, describe_processes
from ...permission.effects import PathEffect
from ...permission.types import (
    PermissionBehavior,
    PermissionContext,
    PermissionDecision,
    PermissionRule,
)
from ...tools.base import Tool, ToolChunk
from ...tools.truncate import DEFAULT_BUDGET_CHARS, OutputSpool
from .._files import ToolBackend
from .decision import is_read_only
from .effects import path_effects as _path_effects
from .plan import plan_for
from .policy import (
    bash_check_permissions,
    bash_match_allow_rules,
    bash_match_rule,
    bash_suggest_rules,
)
from .sandboxed import sandboxed_reason

if TYPE_CHECKING:
    from ...backends.base import BackendBase
    from ...backends.sandbox import SandboxController

__all__ = ["Bash"]

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000

DESCRIPTION = """Run a command with /bin/bash -c and return its output (stdout and stderr
interleaved as they arrive) and exit code.

- Each call is a fresh non-interactive shell: no profile is loaded and `cd` or variables do not
  carry over to the next call. Commands start in the backend's working directory.
- stdin is closed: commands that wait for input get end-of-file.
- `timeout` is in milliseconds (default 120000 = 2 min, at most 600000 = 10 min). At the
  timeout the command and every process it started are killed. A background process whose
  output is redirected may outlive a command that completed; the result names it.
- Long output is cut for you: the start and the end are shown, and the full output is saved to
  a file whose path the result names (read it with Read, search it with Grep).
- Prefer the Read, Glob and Grep tools to cat/find/grep for reading and searching files."""


class Bash(Tool):
    name = "Bash"
    description = DESCRIPTION
    input_schema = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "minLength": 1, "description": "The command to run."},
            "timeout": {"type": "integer", "minimum": 1, "maximum": MAX_TIMEOUT_MS,
                        "description": "Time limit in milliseconds (default 120000, max "
                                       "600000)."},
            "description": {"type": "string",
                            "description": "What the command does, in 5-10 words."},
        },
        "required": ["command"],
        "additionalProperties": False,
    }
    read_only = False
    concurrency_safe = False
    rule_argument = "command"
    backend = ToolBackend()  # None: a LocalBackend made on first use

    def __init__(self, backend: "BackendBase | None" = None, *,
                 output_budget: int = DEFAULT_BUDGET_CHARS, offload_dir: str | None = None,
                 default_timeout_ms: int = DEFAULT_TIMEOUT_MS, shell: str = "/bin/bash",
                 sandbox: "SandboxController | None" = None):
        self.backend = backend
        #: the session's sandbox (backends/sandbox.py): when enabled, commands run in bubblewrap
        self.sandbox = sandbox
        self.output_budget = output_budget
        self.offload_dir = offload_dir
        self.default_timeout_ms = default_timeout_ms
        self.shell = shell

    # --- permission hooks: the shell analysis decides ------------------------------------------

    def is_read_only(self, tool_input: Mapping[str, Any] | None = None,
                     context: PermissionContext | None = None) -> bool:
        command = (tool_input or {}).get("command")
        if not isinstance(command, str):
            return False
        # The context's cwd matters: a relative path may be a symlink to a secret there.
        try:  # (bash_is_read_only without its frame: asked in every decision)
            return is_read_only(plan_for(command, context))
        except Exception:
            return False

    # the effects describe the files touched, not everything a command does: allow rules on
    # paths never approve a Bash call by themselves
    effects_complete = False

    def path_effects(self, tool_input: Mapping[str, Any],
                     context: PermissionContext | None = None) -> tuple[PathEffect, ...]:
        """Every read, search, write, delete and permission change the command makes, as the
        engine applies Read/Edit rules and the protected tier to them (effects.py)."""
        return _path_effects(tool_input, context)

    def check_permissions(self, tool_input: Mapping[str, Any],
                          context: PermissionContext) -> PermissionDecision:
        command = tool_input.get("command")
        if not isinstance(command, str):
            return PermissionDecision.ask(
                f"Bash: expected the command as a string, got {type(command).__name__}")
        decision = bash_check_permissions(command, context)
        if decision.behavior is PermissionBehavior.PASSTHROUGH and self.sandbox is not None:
            decision = self._sandboxed(command, context) or decision
        return decision

    def _sandboxed(self, command: str, context: PermissionContext
                   ) -> PermissionDecision | None:
        """ALLOW when the sandbox will confine this command (builtin/bash/sandboxed.py)."""
        try:
            status = self.sandbox.status(self.backend)  # type: ignore[union-attr]
            if not status.confining:
                return None
            reason = sandboxed_reason(plan_for(command, context), status.policy)
        except Exception:  # noqa: BLE001 - no sandbox verdict: the rules and the mode decide
            return None
        if reason is None:
            return None
        return PermissionDecision.allow(
            reason, message=f"Runs in the sandbox ({reason.removeprefix('sandboxed: ')})")

    def match_rule(self, rule: PermissionRule, tool_input: Mapping[str, Any],
                   context: PermissionContext) -> bool:
        command = tool_input.get("command")
        if not isinstance(command, str):
            return False
        return bool(bash_match_rule(rule, command, context))

    def match_allow_rules(self, rules: list[PermissionRule], tool_input: Mapping[str, Any],
                          context: PermissionContext) -> PermissionRule | None:
        """Several allow rules together: each command matched by one of them or read-only
        (the engine asks when no single rule covers the call)."""
        command = tool_input.get("command")
        if not isinstance(command, str):
            return None
        return bash_match_allow_rules(rules, command, context)

    def suggest_rules(self, tool_input: Mapping[str, Any],
                      context: PermissionContext) -> list[PermissionRule]:
        command = tool_input.get("command")
        if not isinstance(command, str):
            return []
        return list(bash_suggest_rules(command, context))

    # --- execution ----------------------------------------------------------------------------

    def own_time_limit(self, tool_input: Mapping[str, Any]) -> float | None:
        """Bash keeps its own limit (the ``timeout`` input, else the default): the agent's
        per-call time limit is only a backstop after it."""
        timeout = tool_input.get("timeout")
        try:
            ms = self.default_timeout_ms if timeout is None else int(timeout)
        except (TypeError, ValueError):
            ms = self.default_timeout_ms
        return max(1, min(ms, MAX_TIMEOUT_MS)) / 1000

    async def call(self, command: str, timeout: int | None = None,
                   description: str | None = None) -> AsyncIterator[ToolChunk]:
        timeout_ms = self.default_timeout_ms if timeout is None else int(timeout)
        timeout_ms = max(1, min(timeout_ms, MAX_TIMEOUT_MS))
        spool = OutputSpool(budget_chars=self.output_budget, offload_dir=self.offload_dir,
                            name="Bash")
        decoders = {s: codecs.getincrementaldecoder("utf-8")("replace")
                    for s in ("stdout", "stderr")}
        final: ExecResult | None = None
        shown_any = False
        extra: dict[str, Any] = {}
        if self.sandbox is not None:
            spec, refusal, note = await self.sandbox.prepare(self.backend)
            if refusal:
                yield ToolChunk.error(refusal, metadata={"sandbox": "refused"})
                return
            if spec is not None:
                extra["sandbox"] = spec
            if note:
                shown_any = True
                yield ToolChunk.text(note)
        stream = self.backend.exec_shell_stream([self.shell, "-c", command],
                                                timeout=timeout_ms / 1000, **extra)
        try:
            async with contextlib.aclosing(stream):
                async for item in stream:
                    if isinstance(item, ExecResult):
                        final = item
                        continue
                    name, data = item
                    text = decoders[name].decode(data)
                    shown = spool.feed(text)
                    if shown:
                        shown_any = True
                        yield ToolChunk.text(shown)
            tail = "".join(spool.feed(d.decode(b"", final=True)) for d in decoders.values())
            if tail:
                shown_any = True
                yield ToolChunk.text(tail)
        finally:
            closing = spool.finish()
        if closing:
            yield ToolChunk.text(closing)
        assert final is not None
        meta = {"exit_code": final.exit_code, "timed_out": final.timed_out,
                "truncated": spool.truncated, "offload_path": spool.path,
                "output_chars": spool.total_chars, "processes_stopped": final.stopped,
                "survivors": list(final.survivors), "left_running": list(final.left_running),
                "sandboxed": final.sandbox == "on"}
        if description:
            meta["description"] = description

        processes = describe_processes(final)
        if final.sandbox and final.sandbox != "on":
            yield ToolChunk.error(f"\n[The sandbox could not be set up ({final.sandbox}); the "
                                  f"command did not run.]", metadata=meta)
        elif final.timed_out:
            yield ToolChunk.error(
                f"\n[Command timed out after {_seconds(timeout_ms)}; {processes}.]",
                metadata=meta)
        elif final.exit_code != 0:
            note = f"; {processes}" if processes else ""
            yield ToolChunk.error(f"\n[Exit code {final.exit_code}{note}]", metadata=meta)
        elif processes:
            yield ToolChunk.text(f"\n[{processes[0].upper()}{processes[1:]}.]", metadata=meta)
        elif not shown_any:
            yield ToolChunk.text("[The command succeeded with no output.]", metadata=meta)
        else:
            yield ToolChunk(metadata=meta)


def _seconds(ms: int) -> str:
    return f"{ms / 1000:g} s"
