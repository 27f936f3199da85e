"""Loading, validating and matching permission rules.

Parsing of the text form lives on ``PermissionRule.parse``; this module turns settings entries
into rules, checks a rule against its own examples, and decides whether a rule applies to a call.
How a specifier matches is the tool's business (``tool.match_rule``): Bash matches per
sub-command, the file tools match canonical paths. The engine only handles what is common to
every tool: the tool name, a rule without specifier, and ``mcp__server`` rules.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from ..errors import RuleExampleError, RuleSyntaxError
from .patterns import spellings
from .types import PermissionBehavior, PermissionContext, PermissionRule

if TYPE_CHECKING:
    from ..tools.base import Tool

__all__ = [
    "load_rule",
    "validate_examples",
    "rule_matches",
    "is_mcp_server_rule",
    "is_allow_everything",
    "example_input",
]

_ENTRY_KEYS = {"rule", "examples", "counter_examples"}

# Specifiers that would allow every call of a tool; never offered as a suggestion.
_EVERYTHING_SPECIFIERS = frozenset({"*", "**", "/**", "/*", "**/*", "./**", "~/**", ":*", "*:*"})


def load_rule(entry: Any, behavior: PermissionBehavior | str, source: str | None = None
              ) -> PermissionRule:
    """A rule from a settings entry: ``"Tool(spec)"`` or
    ``{"rule": "Tool(spec)", "examples": [...], "counter_examples": [...]}``."""
    if isinstance(entry, PermissionRule):
        return entry.with_(behavior=PermissionBehavior.parse(behavior), source=source)
    if isinstance(entry, str):
        return _checked_path(_parse_text(entry, PermissionBehavior.parse(behavior), source))
    if isinstance(entry, Mapping):
        unknown = set(entry) - _ENTRY_KEYS
        if unknown:
            raise RuleSyntaxError(dict(entry), f"unknown key(s) {sorted(unknown)}; expected "
                                               "'rule', 'examples', 'counter_examples'")
        if "rule" not in entry:
            raise RuleSyntaxError(dict(entry), "missing the 'rule' key")
        examples = entry.get("examples", [])
        counter = entry.get("counter_examples", [])
        for key, value in (("examples", examples), ("counter_examples", counter)):
            if not isinstance(value, list):
                raise RuleSyntaxError(dict(entry), f"{key!r} must be a list, "
                                                   f"got {type(value).__name__}")
            for ex in value:
                if not isinstance(ex, (str, dict)):
                    raise RuleSyntaxError(dict(entry), f"each of {key!r} is a string or an "
                                                       f"object, got {ex!r}")
        return _checked_path(PermissionRule.parse(entry["rule"], behavior, source, examples,
                                                  counter))
    raise RuleSyntaxError(entry, f"expected a rule string or an object with 'rule', "
                                 f"got {type(entry).__name__}")


_PATH_RULE_TOOLS = frozenset({"Read", "Edit", "Write"})


def _checked_path(rule: PermissionRule) -> PermissionRule:
    """A path pattern that cannot mean a path (``Read(!x)``) is a clear error when the rule
    loads, not a rule that silently matches nothing."""
    if rule.specifier is not None and rule.tool in _PATH_RULE_TOOLS:
        try:
            spellings(rule.specifier)
        except ValueError as exc:
            raise RuleSyntaxError(rule.text, str(exc)) from None
    return rule


@lru_cache(maxsize=8192)
def _parse_text(text: str, behavior: PermissionBehavior, source: str | None) -> PermissionRule:
    # settings files are re-read on every change: rules are immutable, parse each text once
    return PermissionRule.parse(text, behavior, source)


def is_mcp_server_rule(rule: PermissionRule) -> bool:
    """``mcp__server`` (no tool part, no specifier): matches every tool of that server."""
    return (rule.specifier is None and rule.tool.startswith("mcp__")
            and "__" not in rule.tool[5:] and len(rule.tool) > 5)


def rule_matches(rule: PermissionRule, tool: "Tool", tool_input: Mapping[str, Any],
                 context: PermissionContext) -> bool:
    """Does ``rule`` apply to this call of ``tool``?"""
    name = tool.name
    if rule.tool != name:
        return is_mcp_server_rule(rule) and name.startswith(rule.tool + "__")
    if rule.specifier is None:
        return True
    return bool(tool.match_rule(rule, tool_input, context))


def example_input(rule: PermissionRule, tool: "Tool", example: Any) -> Mapping[str, Any]:
    """An example as a tool input: a dict as-is, a string as the tool's ``rule_argument``."""
    if isinstance(example, Mapping):
        return example
    arg = getattr(tool, "rule_argument", None)
    if not arg:
        raise RuleExampleError(
            f"rule {rule.text!r} ({rule.source or 'no source'}): example {example!r} is a "
            f"string, but tool {tool.name!r} has no main argument; give the input as an object")
    return {arg: example}


def validate_examples(rule: PermissionRule, tool: "Tool",
                      context: PermissionContext | None = None) -> None:
    """Raise RuleExampleError unless every example matches and no counter-example does."""
    if not rule.examples and not rule.counter_examples:
        return
    ctx = context if context is not None else PermissionContext()
    for should, examples in ((True, rule.examples), (False, rule.counter_examples)):
        for ex in examples:
            got = rule_matches(rule, tool, example_input(rule, tool, ex), ctx)
            if got != should:
                where = f" in {rule.source}" if rule.source else ""
                expectation = "should match" if should else "should not match"
                kind = "example" if should else "counter-example"
                raise RuleExampleError(
                    f"{rule.behavior.value} rule {rule.text!r}{where} rejected: {kind} {ex!r} "
                    f"{expectation}, but it {'does' if got else 'does not'}")


def is_allow_everything(rule: PermissionRule) -> bool:
    """A rule a suggestion must never be: a whole tool that has a main argument is fine
    (``my_function``), but a specifier that matches everything is not."""
    if rule.specifier is None:
        return False
    return rule.specifier.strip() in _EVERYTHING_SPECIFIERS


def filter_suggestions(rules: Iterable[Any], tool: "Tool") -> list[PermissionRule]:
    """Keep well-formed, narrow allow suggestions, without duplicates.

    ``Tool`` (no specifier) is kept only for tools that have no main argument to narrow on
    (a FunctionTool, an MCP tool); for Bash or Read it would allow everything.
    """
    out: list[PermissionRule] = []
    seen: set[str] = set()
    narrowable = bool(getattr(tool, "rule_argument", None))
    for r in rules or ():
        if not isinstance(r, PermissionRule):
            continue
        if r.specifier is None and narrowable:
            continue
        if is_allow_everything(r) or r.text in seen:
            continue
        seen.add(r.text)
        if r.behavior is not PermissionBehavior.ALLOW or r.source != "suggested":
            r = r.with_(behavior=PermissionBehavior.ALLOW, source="suggested")
        out.append(r)
    return out
