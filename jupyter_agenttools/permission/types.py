"""The values the permission engine works with: modes, behaviors, rules, decisions, context.

Everything here is plain data, importable without any optional dependency.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, Callable, ClassVar

from ..errors import RuleSyntaxError

__all__ = [
    "PermissionMode",
    "PermissionBehavior",
    "PermissionRule",
    "PermissionDecision",
    "PermissionContext",
    "TraceStep",
    "STEPS",
]


class PermissionMode(str, Enum):
    DEFAULT = "default"
    ACCEPT_EDITS = "accept_edits"
    EXPLORE = "explore"
    BYPASS = "bypass"
    DONT_ASK = "dont_ask"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, value: object) -> "PermissionMode":
        if isinstance(value, cls):
            return value
        try:
            return cls(str(value).strip().lower().replace("-", "_"))
        except ValueError:
            names = ", ".join(m.value for m in cls)
            raise ValueError(f"expected a permission mode ({names}), got {value!r}") from None


class PermissionBehavior(str, Enum):
    """A verdict. Ordered so that the strictest of several is ``max()``:
    passthrough < allow < ask < deny."""

    PASSTHROUGH = "passthrough"
    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"

    def __str__(self) -> str:
        return self.value

    @property
    def rank(self) -> int:
        return _RANK[self]

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, PermissionBehavior):
            return NotImplemented
        return _RANK[self] < _RANK[other]

    def __le__(self, other: object) -> bool:
        if not isinstance(other, PermissionBehavior):
            return NotImplemented
        return _RANK[self] <= _RANK[other]

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, PermissionBehavior):
            return NotImplemented
        return _RANK[self] > _RANK[other]

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, PermissionBehavior):
            return NotImplemented
        return _RANK[self] >= _RANK[other]

    __hash__ = str.__hash__

    @classmethod
    def parse(cls, value: object) -> "PermissionBehavior":
        if isinstance(value, cls):
            return value
        try:
            return cls(str(value).strip().lower())
        except ValueError:
            raise ValueError(f"expected allow, ask, deny or passthrough, got {value!r}") from None


_RANK = {
    PermissionBehavior.PASSTHROUGH: 0,
    PermissionBehavior.ALLOW: 1,
    PermissionBehavior.ASK: 2,
    PermissionBehavior.DENY: 3,
}

# Names of the six engine steps, in order (SPEC §5.2); decisions and traces use these.
STEPS = ("deny_rules", "ask_rules", "read_only", "tool_check", "allow_rules", "fallback")

_TOOL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")


@dataclass(frozen=True)
class PermissionRule:
    """``Tool`` or ``Tool(specifier)`` with a behavior; ``source`` is the file it came from
    (or a label such as ``"session"``). ``examples`` must match, ``counter_examples`` must not:
    they are inputs (a dict, or a string for the tool's main argument) checked at load."""

    tool: str
    specifier: str | None = None
    behavior: PermissionBehavior = PermissionBehavior.ALLOW
    source: str | None = None
    examples: tuple[Any, ...] = ()
    counter_examples: tuple[Any, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "behavior", PermissionBehavior.parse(self.behavior))
        if self.behavior is PermissionBehavior.PASSTHROUGH:
            raise RuleSyntaxError(self.text, "a rule's behavior is allow, ask or deny")
        object.__setattr__(self, "examples", tuple(self.examples))
        object.__setattr__(self, "counter_examples", tuple(self.counter_examples))

    @classmethod
    def parse(
        cls,
        text: object,
        behavior: PermissionBehavior | str = PermissionBehavior.ALLOW,
        source: str | None = None,
        examples: tuple[Any, ...] | list[Any] = (),
        counter_examples: tuple[Any, ...] | list[Any] = (),
    ) -> "PermissionRule":
        """Parse ``Tool`` or ``Tool(spec)``; a clear RuleSyntaxError quotes the text otherwise."""
        if not isinstance(text, str):
            raise RuleSyntaxError(text, f"expected a string, got {type(text).__name__}")
        stripped = text.strip()
        if not stripped:
            raise RuleSyntaxError(text, "the rule is empty")
        if any(ord(c) < 32 for c in stripped):
            raise RuleSyntaxError(text, "control characters are not allowed in a rule")
        m = _TOOL_NAME.match(stripped)
        if not m:
            raise RuleSyntaxError(text, "a rule starts with a tool name such as Bash or Read")
        tool = m.group(0)
        rest = stripped[m.end():]
        spec: str | None
        if rest == "":
            spec = None
        elif rest.startswith("("):
            if not rest.endswith(")"):
                raise RuleSyntaxError(text, "missing the closing ')' at the end")
            spec = rest[1:-1]
            if spec.strip() == "":
                raise RuleSyntaxError(text, f"empty specifier; write {tool} to match every call")
            if spec.strip() == "*":
                spec = None  # Tool(*) means the whole tool, like Tool
        else:
            raise RuleSyntaxError(
                text, f"unexpected {rest[:20]!r} after the tool name; expected Tool or Tool(spec)"
            )
        return cls(tool, spec, PermissionBehavior.parse(behavior), source,
                   tuple(examples), tuple(counter_examples))

    @property
    def text(self) -> str:
        return self.tool if self.specifier is None else f"{self.tool}({self.specifier})"

    def __str__(self) -> str:
        return self.text

    def with_(self, **changes: Any) -> "PermissionRule":
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"rule": self.text, "behavior": self.behavior.value,
                             "source": self.source}
        if self.examples:
            d["examples"] = list(self.examples)
        if self.counter_examples:
            d["counter_examples"] = list(self.counter_examples)
        return d


@dataclass(frozen=True)
class TraceStep:
    """One evaluated engine step: its name, what it concluded, and why."""

    step: str
    outcome: str  # a behavior value, or "skipped" / "no match" / "not consulted"
    detail: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"step": self.step, "outcome": self.outcome, "detail": self.detail}


@dataclass(init=False)
class PermissionDecision:
    """What a tool check or the engine concluded.

    ``bypass_immune`` marks a *safety* ASK: allow rules cannot silence it, bypass ignores it
    (but for a write of a file that runs code later: ``modes.py``, ``code_later``),
    dont_ask turns it into DENY, and the UI never offers "Always allow" for it.
    """

    behavior: PermissionBehavior
    message: str = ""
    reason: str = ""
    bypass_immune: bool = False
    step: str | None = None
    rule: PermissionRule | None = None
    rule_source: str | None = None
    suggestions: list[PermissionRule] = field(default_factory=list)
    trace: list[TraceStep] = field(default_factory=list)
    #: what the engine checked for a file tool's call (``effects.CheckedCall``), which the call
    #: is held to when it runs; None otherwise (not a field: not compared, not serialised)
    checked: ClassVar[Any] = None

    def __init__(self, behavior: PermissionBehavior, message: str = "", reason: str = "",
                 bypass_immune: bool = False, step: str | None = None,
                 rule: PermissionRule | None = None, rule_source: str | None = None,
                 suggestions: list[PermissionRule] | None = None,
                 trace: list[TraceStep] | None = None):
        # what the generated __init__ did (the fields, a new list for each list not given),
        # written straight to the instance: suggestions and trace are properties (built when
        # first read) and a decision is made several times per engine decision
        state = self.__dict__
        state["behavior"] = behavior
        state["message"] = message
        state["reason"] = reason
        state["bypass_immune"] = bypass_immune
        state["step"] = step
        state["rule"] = rule
        state["rule_source"] = rule_source
        state["_suggestions"] = [] if suggestions is None else suggestions
        state["_trace"] = [] if trace is None else trace

    @property
    def is_safety_ask(self) -> bool:
        return self.behavior is PermissionBehavior.ASK and self.bypass_immune

    @classmethod
    def allow(cls, reason: str = "", **kw: Any) -> "PermissionDecision":
        return cls(PermissionBehavior.ALLOW, reason=reason, message=kw.pop("message", reason), **kw)

    @classmethod
    def ask(cls, reason: str = "", *, safety: bool = False, **kw: Any) -> "PermissionDecision":
        return cls(PermissionBehavior.ASK, reason=reason, message=kw.pop("message", reason),
                   bypass_immune=safety, **kw)

    @classmethod
    def deny(cls, reason: str = "", **kw: Any) -> "PermissionDecision":
        return cls(PermissionBehavior.DENY, reason=reason, message=kw.pop("message", reason), **kw)

    @classmethod
    def passthrough(cls, reason: str = "", **kw: Any) -> "PermissionDecision":
        return cls(PermissionBehavior.PASSTHROUGH, reason=reason,
                   message=kw.pop("message", reason), **kw)

    def to_dict(self) -> dict[str, Any]:
        return {
            "behavior": self.behavior.value,
            "message": self.message,
            "reason": self.reason,
            "bypass_immune": self.bypass_immune,
            "step": self.step,
            "rule": self.rule.text if self.rule else None,
            "rule_source": self.rule_source,
            "suggestions": [r.text for r in self.suggestions],
            "trace": [t.to_dict() for t in self.trace],
        }

    def suggest_later(self, compute: Callable[[], list[PermissionRule]]) -> None:
        """Build ``suggestions`` only when first read: most decisions are never shown to a
        person, and suggesting (e.g. Bash's rule per sub-command) costs as much as deciding."""
        self.__dict__["_suggest_later"] = compute

    def trace_later(self, steps: list[tuple[str, str, str]], skipped: str) -> None:
        """Build ``trace`` only when first read, from ``(step, outcome, detail)`` tuples; the
        steps not reached are filled in as "skipped" with the detail ``skipped``. The engine
        decides far more often than anyone reads a trace (six TraceStep objects a decision)."""
        self.__dict__["_trace_later"] = (steps, skipped)


def _get_suggestions(self: PermissionDecision) -> list[PermissionRule]:
    compute = self.__dict__.pop("_suggest_later", None)
    if compute is not None:
        self.__dict__["_suggestions"] = compute()
    return self.__dict__["_suggestions"]


def _set_suggestions(self: PermissionDecision, value: list[PermissionRule]) -> None:
    self.__dict__.pop("_suggest_later", None)
    self.__dict__["_suggestions"] = value


def _get_trace(self: PermissionDecision) -> list[TraceStep]:
    state = self.__dict__
    later = state.get("_trace_later")
    if later is not None:  # built, then published, then the recipe dropped: thread-safe
        steps, skipped = later
        trace = [TraceStep(step, outcome, detail) for step, outcome, detail in steps]
        trace.extend(TraceStep(step, "skipped", skipped) for step in STEPS[len(trace):])
        state["_trace"] = trace
        state.pop("_trace_later", None)
    return state["_trace"]


def _set_trace(self: PermissionDecision, value: list[TraceStep]) -> None:
    self.__dict__.pop("_trace_later", None)
    self.__dict__["_trace"] = value


# properties over the dataclass fields: __init__, replace(), ==, repr and to_dict() all go
# through them, so a lazily built list looks exactly like one given at construction
PermissionDecision.suggestions = property(  # type: ignore[assignment]
    _get_suggestions, _set_suggestions)
PermissionDecision.trace = property(_get_trace, _set_trace)  # type: ignore[assignment]


@dataclass(frozen=True)
class PermissionContext:
    """What a tool's permission check may know about its surroundings.

    ``cwd`` is where relative paths resolve (the backend's current directory);
    ``working_directories`` are the extra directories edits/reads are allowed in
    (``additional_directories`` of the settings); ``cwd`` and ``project_root`` always count.
    ``facts``: where file-system questions are answered (``permission/facts.py``): None means
    this machine, asked lazily during each decision; a remote backend's prefetched facts
    otherwise (its cwd and home then win over ``cwd``/``home`` for resolving words).
    """

    mode: PermissionMode = PermissionMode.DEFAULT
    cwd: str = field(default_factory=os.getcwd)
    working_directories: tuple[str, ...] = ()
    project_root: str | None = None
    home: str = field(default_factory=lambda: os.path.expanduser("~"))
    facts: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "mode", PermissionMode.parse(self.mode))
        object.__setattr__(self, "working_directories", tuple(self.working_directories))

    @property
    def all_working_directories(self) -> tuple[str, ...]:
        dirs: list[str] = [self.cwd]
        if self.project_root:
            dirs.append(self.project_root)
        dirs.extend(self.working_directories)
        seen: dict[str, None] = {}
        for d in dirs:
            seen.setdefault(os.path.realpath(os.path.expanduser(d)), None)
        return tuple(seen)

    def with_(self, **changes: Any) -> "PermissionContext":
        return replace(self, **changes)
