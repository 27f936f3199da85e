"""The tool protocol, and the chunks and responses a tool call produces.

A tool declares what it is (name, description, JSON schema, read-only and concurrency flags),
how the permission engine should see a call (``check_permissions``, ``match_rule``,
``suggest_rules``) and how to run it (``call``). ``call`` returns a ToolChunk, a ToolResponse, a
plain value, a sync generator or an async generator (possibly from a coroutine);
``Toolkit.call_tool`` turns all of that into one chunk stream that ends with one ToolResponse.

Content blocks are plain dicts, the shape the MCP SDK and the chat APIs use:
``{"type": "text", "text": …}``, ``{"type": "image", "data": <base64>, "mime_type": …}``,
``{"type": "resource", "uri": …, "text"|"blob": …, "mime_type": …}``.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, Mapping

from ..errors import ToolDefinitionError

if TYPE_CHECKING:
    from ..permission.types import PermissionContext, PermissionDecision, PermissionRule

__all__ = [
    "ToolResultState",
    "ToolChunk",
    "ToolResponse",
    "Tool",
    "text_block",
    "validate_tool_definition",
]

Block = dict[str, Any]

TOOL_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-.]{0,127}$")


def text_block(text: str) -> Block:
    return {"type": "text", "text": text}


class ToolResultState(str, Enum):
    RUNNING = "running"
    SUCCESS = "success"
    ERROR = "error"
    DENIED = "denied"
    INTERRUPTED = "interrupted"

    def __str__(self) -> str:
        return self.value


@dataclass
class ToolChunk:
    """A piece of streamed tool output. Text is a delta: the response concatenates it."""

    content: list[Block] = field(default_factory=list)
    state: ToolResultState = ToolResultState.RUNNING
    metadata: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def text(cls, text: str, **kw: Any) -> "ToolChunk":
        return cls([text_block(text)], **kw)

    @classmethod
    def error(cls, text: str, **kw: Any) -> "ToolChunk":
        return cls([text_block(text)], state=ToolResultState.ERROR, **kw)


@dataclass
class ToolResponse:
    """The one final result of a tool call, accumulated from its chunks.

    Adjacent text blocks are merged; ERROR is sticky; INTERRUPTED/DENIED apply unless ERROR;
    RUNNING chunks leave the state alone; metadata is merged, later keys win.
    """

    content: list[Block] = field(default_factory=list)
    state: ToolResultState = ToolResultState.SUCCESS
    metadata: dict[str, Any] = field(default_factory=dict)
    id: str | None = None
    name: str | None = None

    def append_chunk(self, chunk: "ToolChunk | ToolResponse") -> None:
        for block in chunk.content:
            block = copy.deepcopy(block)
            if (
                block.get("type") == "text"
                and self.content
                and self.content[-1].get("type") == "text"
            ):
                self.content[-1]["text"] = self.content[-1]["text"] + block.get("text", "")
            else:
                self.content.append(block)
        self._merge_state(chunk.state)
        self.metadata.update(chunk.metadata)

    def _merge_state(self, state: ToolResultState) -> None:
        if self.state is ToolResultState.ERROR:
            return
        if state in (ToolResultState.ERROR, ToolResultState.INTERRUPTED, ToolResultState.DENIED):
            self.state = state

    @property
    def text(self) -> str:
        return "".join(b.get("text", "") for b in self.content if b.get("type") == "text")

    @property
    def is_error(self) -> bool:
        return self.state is not ToolResultState.SUCCESS

    @classmethod
    def error(cls, message: str, state: ToolResultState = ToolResultState.ERROR,
              **kw: Any) -> "ToolResponse":
        return cls([text_block(message)], state=state, **kw)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "state": self.state.value,
                "content": copy.deepcopy(self.content), "metadata": dict(self.metadata)}


class Tool:
    """Base class for tools. Subclasses set the class attributes (or pass them to ``__init__``)
    and override ``call``; the permission hooks have safe defaults:

    - ``check_permissions`` → PASSTHROUGH (no opinion: the engine's rules and fallback decide);
    - ``match_rule`` → a rule with a specifier matches the main string argument
      (``rule_argument``) exactly or by ``fnmatch`` pattern, nothing else;
    - ``suggest_rules`` → one tool-wide rule (``Tool``), never anything broader.
    """

    name: str = ""
    description: str = ""
    input_schema: dict[str, Any] = {"type": "object", "properties": {}}
    read_only: bool = False
    concurrency_safe: bool = False
    #: the input key a rule specifier refers to, e.g. "command" for Bash, "file_path" for Read
    rule_argument: str | None = None
    #: where ``call`` runs: None = a plain (synchronous) ``call`` in a worker thread of its own,
    #: a coroutine / async-generator ``call`` on the event loop (see ``tools/worker.py``);
    #: False = always on the loop (a quick call that changes loop-owned state).
    call_in_thread: bool | None = None

    def own_time_limit(self, tool_input: Mapping[str, Any]) -> float | None:
        """Seconds after which this call stops *itself* (Bash: its ``timeout``), or None. The
        agent then waits that long plus a grace period instead of its default time limit."""
        return None

    def is_read_only(self, tool_input: Mapping[str, Any] | None = None) -> bool:
        """True when this call cannot change anything (step 3, the read-only fast path)."""
        return self.read_only

    def is_concurrency_safe(self, tool_input: Mapping[str, Any] | None = None) -> bool:
        return self.concurrency_safe

    def check_permissions(
        self, tool_input: Mapping[str, Any], context: "PermissionContext"
    ) -> "PermissionDecision":
        from ..permission.types import PermissionDecision

        return PermissionDecision.passthrough(f"{self.name} has no check of its own")

    def match_rule(
        self, rule: "PermissionRule", tool_input: Mapping[str, Any], context: "PermissionContext"
    ) -> bool:
        """Does ``rule`` (whose ``tool`` already names this tool) match this call?"""
        if rule.specifier is None:
            return True
        if self.rule_argument is None:
            return False
        value = tool_input.get(self.rule_argument)
        if not isinstance(value, str):
            return False
        import fnmatch

        return value == rule.specifier or fnmatch.fnmatchcase(value, rule.specifier)

    def suggest_rules(
        self, tool_input: Mapping[str, Any], context: "PermissionContext"
    ) -> list["PermissionRule"]:
        from ..permission.types import PermissionRule

        return [PermissionRule(self.name)]

    # `*args, **kwargs` typed Any is mypy's "any signature": each tool declares its own inputs
    # as keyword parameters (they are called with the validated input as keywords).
    def call(self, *args: Any, **tool_input: Any) -> Any:
        raise NotImplementedError(f"tool {self.name!r} does not implement call()")

    def schema(self) -> dict[str, Any]:
        """The neutral schema offered to models: name, description, input_schema."""
        return {"name": self.name, "description": self.description,
                "input_schema": copy.deepcopy(self.input_schema)}

    def input_summary(self, tool_input: Mapping[str, Any], limit: int = 200) -> str:
        """A one-line summary of a call for audit logs and UIs."""
        if self.rule_argument and isinstance(tool_input.get(self.rule_argument), str):
            s = tool_input[self.rule_argument]
        else:
            try:
                s = json.dumps(tool_input, ensure_ascii=False, sort_keys=True, default=str)
            except (TypeError, ValueError):
                s = repr(tool_input)
        s = s.replace("\n", "⏎")
        return s if len(s) <= limit else s[: limit - 1] + "…"

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def validate_tool_definition(tool: Any) -> None:
    """Refuse, with a clear ToolDefinitionError, a tool the pipeline could not use."""
    name = getattr(tool, "name", None)
    if not isinstance(name, str) or not TOOL_NAME_RE.match(name):
        raise ToolDefinitionError(
            f"tool name must match {TOOL_NAME_RE.pattern}, got {name!r} ({type(tool).__name__})"
        )
    schema = getattr(tool, "input_schema", None)
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise ToolDefinitionError(
            f"tool {name!r}: input_schema must be a JSON schema of type 'object', got {schema!r}"
        )
    props = schema.get("properties", {})
    if not isinstance(props, dict):
        raise ToolDefinitionError(
            f"tool {name!r}: input_schema 'properties' must be an object, got {props!r}"
        )
    for attr in ("call", "check_permissions", "match_rule", "suggest_rules",
                 "is_read_only", "is_concurrency_safe"):
        if not callable(getattr(tool, attr, None)):
            raise ToolDefinitionError(f"tool {name!r}: missing method {attr}()")
    if type(tool).__module__.startswith("jupyter_agenttools.builtin."):
        # The built-in tools' schemas are checked by their tests; importing jsonschema here
        # would cost %load_ext about a second (rfc3987-syntax builds a grammar on import).
        return
    try:
        from jsonschema.validators import validator_for

        validator_for(schema).check_schema(schema)
    except ImportError:  # pragma: no cover - jsonschema is a dependency
        pass
    except Exception as exc:  # jsonschema.SchemaError
        raise ToolDefinitionError(f"tool {name!r}: input_schema is not a valid JSON schema: "
                                  f"{getattr(exc, 'message', exc)}") from None
