"""Every exception of jupyter_agenttools, in two families.

Agent-oriented exceptions are refusals the *model* should act on: the pipeline turns them into
an error tool result whose text is the exception message. Developer-oriented exceptions are
programming or configuration mistakes: they propagate to the person who wrote the code.

    AgentToolsError
    ├── AgentOrientedException            message fed back to the model as an error result
    │   ├── ToolNotFound                  no tool of that name
    │   ├── ToolGroupInactive             tool exists, its group is off (names the reset_tools call)
    │   ├── ToolArgumentsError            arguments are not JSON / do not fit the schema
    │   ├── ToolPermissionDenied          the permission engine or the user said no
    │   ├── ToolExecutionError            the tool ran and failed (timeout, non-zero exit, …)
    │   │   ├── BackendError              the backend could not do it (kernel died, I/O error)
    │   │   └── PathChangedError          the file opened is not the one the check resolved
    │   ├── SkillNotFound                 the Skill tool was asked for an unknown skill
    │   └── MCPCallError                  an MCP server failed or died during a call
    ├── DeveloperOrientedException        raised to the developer, never swallowed
    │   ├── ToolDefinitionError           a tool without an object schema, a bad name, …
    │   ├── ToolkitError                  duplicate/unknown group, misconfigured toolkit
    │   ├── ToolReturnTypeError           a tool returned something that is not a chunk stream
    │   ├── SkillError                    a SKILL.md without name/description, unreadable skill
    │   ├── MCPConnectionError            an MCP server failed to start or to initialise
    │   ├── RuleSyntaxError               a rule text that does not parse (quotes the text)
    │   ├── RuleExampleError              a rule that fails its own examples/counter_examples
    │   ├── SettingsError                 a corrupt or invalid settings file (names file and line)
    │   ├── AuditLogError                 the audit log is not a regular file (also an OSError)
    │   ├── ModelError                    a model that cannot be reached or answers garbage
    │   └── AnswerError                   an invalid answer to a pending question
    ├── PathFactsMissing                  a decision needed a file fact not fetched from the
    │                                     backend (the engine asks instead of guessing)
    ├── UsageError                        misuse of a magic / CLI (IPython: no traceback)
    │   └── ModeUnavailable               a mode the managed settings do not allow
    ├── JSONInputError                    JSON text outside what we accept (duplicate keys, NaN,
    │                                     too deep, lone surrogates; names line and key path)
    └── RunInterrupted                    a person interrupted a waiting run (one line, no trace)

Outside the tree, ``ToolCallStopped`` (a BaseException, so that a tool's ``except Exception``
does not swallow it) is raised inside the worker thread of a synchronous tool call that is
cancelled or overran its time limit (``tools/worker.py``).

``UsageError`` is our own class so the core stays free of IPython; the Jupyter layer re-raises it
as ``IPython.core.error.UsageError``. Messages follow "expected X, got Y" where that fits.
"""

from __future__ import annotations

__all__ = [
    "AgentToolsError",
    "AgentOrientedException",
    "ToolNotFound",
    "ToolGroupInactive",
    "ToolArgumentsError",
    "ToolPermissionDenied",
    "ToolExecutionError",
    "BackendError",
    "PathChangedError",
    "SkillNotFound",
    "MCPCallError",
    "DeveloperOrientedException",
    "ToolDefinitionError",
    "ToolkitError",
    "ToolReturnTypeError",
    "SkillError",
    "MCPConnectionError",
    "RuleSyntaxError",
    "RuleExampleError",
    "SettingsError",
    "AuditLogError",
    "ModelError",
    "AnswerError",
    "UsageError",
    "ModeUnavailable",
    "PathFactsMissing",
    "JSONInputError",
    "RunInterrupted",
    "ToolCallStopped",
]


class AgentToolsError(Exception):
    """Base of every exception raised by jupyter_agenttools."""


# --- fed back to the model -------------------------------------------------------------------


class AgentOrientedException(AgentToolsError):
    """A refusal or failure the model should see as an error tool result and act on."""


class ToolNotFound(AgentOrientedException):
    def __init__(self, name: str, available: list[str] | None = None):
        self.name = name
        hint = ""
        if available:
            hint = " Available tools: " + ", ".join(sorted(available)) + "."
        super().__init__(f"Tool {name!r} does not exist.{hint}")


class ToolGroupInactive(AgentOrientedException):
    def __init__(self, name: str, group: str):
        self.name = name
        self.group = group
        super().__init__(
            f"Tool {name!r} belongs to the inactive group {group!r}. Activate the group first by "
            f'calling reset_tools with {{"{group}": true}} (plus true for every other group you '
            f"still need: the booleans are the final state), then call {name!r} again."
        )


class ToolArgumentsError(AgentOrientedException):
    """Arguments that are not JSON, or do not validate against the tool's schema."""


class ToolPermissionDenied(AgentOrientedException):
    """The permission engine or the user refused the call."""


class ToolExecutionError(AgentOrientedException):
    """The tool ran and failed; the message says how."""


class BackendError(ToolExecutionError):
    """The backend could not carry out a primitive (kernel died, I/O error, …)."""


class PathChangedError(ToolExecutionError):
    """A file tool's path now opens another file than the one its permission check resolved
    (a symbolic link swapped in between): nothing was read or written."""


class SkillNotFound(AgentOrientedException):
    def __init__(self, name: str, available: list[str] | None = None):
        self.name = name
        hint = f" Available skills: {', '.join(sorted(available))}." if available else ""
        super().__init__(f"Skill {name!r} not found.{hint}")


class MCPCallError(AgentOrientedException):
    """An MCP server failed, or died, while a tool call was in flight."""


# --- raised to the developer -----------------------------------------------------------------


class DeveloperOrientedException(AgentToolsError):
    """A programming or configuration mistake; always propagates."""


class ToolDefinitionError(DeveloperOrientedException):
    """A tool that cannot be registered: no object schema, bad name, bad flags."""


class ToolkitError(DeveloperOrientedException):
    """A misconfigured toolkit: duplicate or unknown group, and the like."""


class ToolReturnTypeError(DeveloperOrientedException):
    """A tool's ``call`` returned something that is not a chunk, a response or a generator."""


class SkillError(DeveloperOrientedException):
    """A skill folder that cannot be loaded (missing SKILL.md fields, unreadable file)."""


class MCPConnectionError(DeveloperOrientedException):
    """An MCP server that failed to start, connect or initialise."""


class RuleSyntaxError(DeveloperOrientedException, ValueError):
    def __init__(self, text: object, problem: str):
        self.text = text
        self.problem = problem
        super().__init__(f"invalid permission rule {text!r}: {problem}")


class RuleExampleError(DeveloperOrientedException, ValueError):
    """A rule whose own examples / counter_examples do not hold."""


class SettingsError(DeveloperOrientedException):
    """``key``: the dotted path of the offending key (``permissions.deny[2]``) when known."""

    def __init__(self, path: object, problem: str, line: int | None = None,
                 key: str | None = None):
        self.path = str(path)
        self.line = line
        self.problem = problem
        self.key = key
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"settings file {where}: {problem}")


class AuditLogError(DeveloperOrientedException, OSError):
    """The audit log cannot be used: a FIFO, a device, a symlink where a plain file belongs.

    An OSError too, so a writer that treats the log as a record, not a gate (the engine),
    warns and decides on."""


class ModelError(DeveloperOrientedException):
    """The model could not be reached, or answered something unusable."""


class AnswerError(DeveloperOrientedException, ValueError):
    """An invalid answer to a pending question (unknown choice, always-allow of a safety ASK…)."""


class UsageError(AgentToolsError, ValueError):
    """Misuse of a magic or of the CLI; shown to the person without a traceback."""


class RunInterrupted(AgentToolsError):
    """A person interrupted a cell that waited for a run (Kernel ▸ Interrupt): the run was
    cancelled and its tool processes stopped. IPython shows the one line of
    ``_render_traceback_`` instead of a traceback; the cell still ends in an error, so Run All
    stops there."""

    def __init__(self, message: str = "the agent run was cancelled"):
        super().__init__(message)

    def _render_traceback_(self) -> list[str]:
        return [f"Interrupted: {self}"]


class ModeUnavailable(UsageError):
    """A permission mode the managed settings do not allow (``disable_bypass_mode``,
    ``allowed_modes``): a clear refusal wherever the mode is chosen."""


class PathFactsMissing(AgentToolsError, LookupError):
    """A permission decision needed a file-system fact that was not prefetched from the
    backend; the engine turns it into an ASK (never a guess from the wrong machine)."""


class JSONInputError(AgentToolsError, ValueError):
    """JSON text that parses but is refused: a key twice in one object, NaN or Infinity, nesting
    beyond the bound, a lone surrogate. ``line``/``column`` (1-based) and ``key`` (dotted path)
    say where, when known."""

    def __init__(self, problem: str, line: int | None = None, column: int | None = None,
                 key: str | None = None):
        self.problem = problem
        self.line = line
        self.column = column
        self.key = key
        where = f"line {line}: " if line is not None else ""
        super().__init__(f"{where}{problem}")


class ToolCallStopped(BaseException):
    """Raised in a synchronous tool's worker thread to stop a cancelled or overrunning call.
    A BaseException, like KeyboardInterrupt: ``except Exception`` in a tool lets it through."""
