"""Gate 3: may this call run? A middleware onion around ``engine.decide``.

A permission middleware is a callable ``(tool, tool_input, context, next) -> PermissionDecision``
(or an object with a ``check_permission`` method of that shape); the first one is outermost.
It may call ``next(tool, tool_input, context)``, replace the decision, or answer without
delegating. Middlewares see a deep copy of the input: they cannot change what executes.
PASSTHROUGH from a middleware counts as ASK — nothing is ever silently allowed.

Before the (synchronous) decision, :func:`decision_context` gathers the file-system facts the
decision will need from the backend the tool runs on: nothing for a local backend (``os.*`` is
asked lazily), one round trip for a remote one (the effects' paths, the working directories and
the rules' directories, resolved over there by the one resolver).
"""

from __future__ import annotations

import copy
from typing import Any, Callable, Sequence

from ..errors import AgentOrientedException, DeveloperOrientedException, ToolExecutionError
from ..permission.effects import checked_scope, effects_of, is_family_rule
from ..permission.facts import PrefetchedFacts, facts_request
from ..permission.patterns import prefix_words
from ..permission.protected import location_words
from ..permission.types import PermissionBehavior, PermissionContext, PermissionDecision

__all__ = ["check_permission", "needs_answer", "decision_context", "checked_scope"]

Next = Callable[[Any, dict, Any], PermissionDecision]


def _as_callable(middleware: Any) -> Callable[..., Any] | None:
    hook = getattr(middleware, "check_permission", None)
    if callable(hook):
        return hook
    if callable(middleware) and not hasattr(middleware, "execute"):
        return middleware
    return None


def check_permission(engine: Any, tool: Any, tool_input: dict[str, Any], *,
                     middlewares: Sequence[Any] = (), context: Any = None) -> PermissionDecision:
    """Run the middlewares and the engine; always returns a decision.

    A tool whose own check blows up gets an ERROR (raised as ToolExecutionError, so the model
    sees it); a DeveloperOrientedException propagates."""

    def core(t: Any, i: dict[str, Any], ctx: Any) -> PermissionDecision:
        return engine.decide(t, i, context=ctx)

    chain: Next = core
    for mw in reversed(list(middlewares)):
        hook = _as_callable(mw)
        if hook is None:
            continue

        def layer(t: Any, i: dict[str, Any], ctx: Any, _hook: Any = hook,
                  _next: Next = chain) -> PermissionDecision:
            return _hook(t, i, ctx, _next)

        chain = layer
    try:
        decision = chain(tool, copy.deepcopy(tool_input), context)
    except (AgentOrientedException, DeveloperOrientedException):
        raise
    except Exception as exc:  # a faulty check never lets a call through
        raise ToolExecutionError(
            f"The permission check of {getattr(tool, 'name', '?')!r} failed "
            f"({type(exc).__name__}: {exc}); the call was not run."
        ) from exc
    if not isinstance(decision, PermissionDecision):
        raise DeveloperOrientedException(
            f"a permission middleware or engine returned {decision!r}, expected a "
            "PermissionDecision"
        )
    return decision


def needs_answer(decision: PermissionDecision) -> bool:
    """ASK, or PASSTHROUGH (no one decided: ask rather than allow)."""
    return decision.behavior in (PermissionBehavior.ASK, PermissionBehavior.PASSTHROUGH)


async def decision_context(engine: Any, tool: Any, tool_input: dict[str, Any]
                           ) -> PermissionContext | None:
    """The context to decide ``tool``'s call in, with the facts of the tool's backend: None
    (the engine's own context) when the tool has no backend or reports no effects; local facts
    for the backend's cwd when it runs in this process; else one ``backend.path_facts`` round
    trip for everything the decision will ask (a question left out becomes an ASK, never an
    answer from this machine)."""
    backend = getattr(tool, "backend", None)
    context = getattr(engine, "context", None)
    if backend is None or not isinstance(context, PermissionContext):
        return None
    local = getattr(backend, "local_facts", None)
    facts = local() if callable(local) else None
    if facts is not None:
        return context.with_(facts=facts)
    fetch = getattr(backend, "path_facts", None)
    if fetch is None:
        return None
    try:
        effects = effects_of(tool, tool_input, context)
    except Exception:  # the decision itself reports an input it cannot describe
        effects = ()
    if effects is None:
        return None
    directories = [d for d in (context.cwd, context.project_root, *context.working_directories)
                   if d]
    directories += ["~", *location_words(context)]  # the protected tier's places
    for rule in getattr(engine, "rules", ()):
        if is_family_rule(rule):
            directories.extend(prefix_words(rule.specifier, context))
    answer = await fetch(**facts_request(effects, directories))
    return context.with_(facts=PrefetchedFacts(answer, source=type(backend).__name__))
