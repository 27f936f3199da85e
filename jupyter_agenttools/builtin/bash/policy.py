"""What the Bash tool's permission hooks call: the public names, one line each.

``bash_is_read_only``, ``bash_check_permissions`` (decision.py), ``bash_match_rule``,
``bash_match_allow_rules`` (rules.py) and ``bash_suggest_rules`` (suggestions.py) all work on
one plan per engine decision (plan.py); ``explain`` shows what the analysis found.
"""

from __future__ import annotations

from ...permission.types import (
    PermissionBehavior,
    PermissionContext,
    PermissionDecision,
    PermissionRule,
)
from ...shell.environment import HARMLESS_ENV
from .decision import bash_check_permissions, bash_is_read_only, check, read_only
from .plan import plan_for
from .rules import match_allow_rules, match_rule
from .suggestions import suggest_rules

__all__ = ["bash_is_read_only", "bash_check_permissions", "bash_match_rule",
           "bash_match_allow_rules", "bash_suggest_rules", "HARMLESS_ENV", "explain"]


def bash_match_rule(rule: PermissionRule, command: object,
                    context: PermissionContext | None = None) -> bool:
    """Does ``rule`` match ``command``? Allow: every command; deny/ask: any (rules.py)."""
    try:
        return match_rule(rule, command, context)
    except Exception:
        return rule.behavior is not PermissionBehavior.ALLOW


def bash_match_allow_rules(rules, command: object,
                           context: PermissionContext | None = None) -> PermissionRule | None:
    """Several allow rules together; the first rule used, or None (rules.py)."""
    return match_allow_rules(rules, command, context)


def bash_suggest_rules(command: object,
                       context: PermissionContext | None = None) -> list[PermissionRule]:
    """Allow rules to offer for an ASK (suggestions.py); never raises."""
    try:
        plan = plan_for(command, context)
        decision: PermissionDecision = check(plan, command)
        return suggest_rules(command, context, decision.behavior, decision.is_safety_ask)
    except Exception:
        return []


def explain(command: object, context: PermissionContext | None = None) -> dict:
    """A debugging view: commands, reasons and each step's finding."""
    plan = plan_for(command, context)
    a = plan.analysis
    return {
        "reasons": list(a.reasons),
        "unanalyzable": a.unanalyzable,
        "opaque": a.opaque,
        "too_complex": a.too_complex,
        "commands": [{"argv": [w.value if w.value is not None else f"<{w.text}>"
                               for w in c.argv],
                      "virtual": c.virtual, "read_only": c.read_only,
                      "why": c.effects.reason if c.effects is not None else "",
                      "effects": [f"{x.kind} {x.word.text}" for x in c.effects.paths]
                      if c.effects is not None else []}
                     for c in a.records],
        "read_only": read_only(plan),
        "decision": bash_check_permissions(command, context).to_dict(),
    }
