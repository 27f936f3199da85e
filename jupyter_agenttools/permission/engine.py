"""The permission engine: six steps, one skeleton, the mode table decides the differences.

1. deny rules   2. ask rules   3. read-only fast path   4. the tool's own check
5. allow rules  6. fallback

``decide`` is pure and synchronous: it reads the rules (re-reading changed settings files
first, a stat of four files), asks the tool's hooks, and returns a PermissionDecision with the
deciding step, the matched rule and its file, suggestions for a non-safety ASK, and a trace of
all six steps. A tool hook that raises gives the mode's error verdict (ASK, or DENY in
dont_ask) naming the error: never a silent allow, never a crash. DeveloperOrientedException
propagates.
"""

from __future__ import annotations

import copy
import os
import uuid
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from ..errors import DeveloperOrientedException, SettingsError
from .effects import (
    RULE_FAMILIES,
    checked_call,
    covering_allow_rules,
    effect_matches,
    effect_safety,
    effects_of,
    find_code_later,
    find_protected,
    is_family_rule,
)
from .lockdown import Lockdown, managed_lockdown
from .memo import current_memo, decision_scope
from .modes import MODE_TABLE, ModePolicy
from .paths import _printable
from .rules import (
    filter_suggestions,
    is_mcp_server_rule,
    load_rule,
    rule_matches,
    validate_examples,
)
from .types import (
    STEPS,
    PermissionBehavior,
    PermissionContext,
    PermissionDecision,
    PermissionMode,
    PermissionRule,
)

if TYPE_CHECKING:
    from ..tools.base import Tool
    from .audit import AuditLog
    from .settings import SettingsStore

__all__ = ["PermissionEngine", "Middleware", "ToolResolver"]

Next = Callable[["Tool", Mapping[str, Any], PermissionContext], PermissionDecision]
Middleware = Callable[["Tool", Mapping[str, Any], PermissionContext, Next], PermissionDecision]
ToolResolver = Callable[[str], "Tool | None"]

ALLOW, ASK, DENY = PermissionBehavior.ALLOW, PermissionBehavior.ASK, PermissionBehavior.DENY
PASSTHROUGH = PermissionBehavior.PASSTHROUGH
_STEP_NO = {name: i + 1 for i, name in enumerate(STEPS)}
#: the detail of the steps a decision did not reach
_DECIDED_AT = {name: f"decided at step {i + 1} ({name})" for i, name in enumerate(STEPS)}
#: one trace entry as the engine keeps it: (step, outcome, detail); TraceStep when read
_Step = tuple[str, str, str]


class _RuleIndex:
    """Rules grouped by behavior and tool name, so a call only looks at its own tool's rules."""

    def __init__(self, rules: Iterable[PermissionRule]):
        self._by: dict[PermissionBehavior, dict[str, list[PermissionRule]]] = {
            DENY: {}, ASK: {}, ALLOW: {}}
        self._servers: dict[PermissionBehavior, dict[str, list[PermissionRule]]] = {
            DENY: {}, ASK: {}, ALLOW: {}}
        self._memo: dict[tuple[PermissionBehavior, str], list[PermissionRule]] = {}
        self._families: dict[tuple[PermissionBehavior, str],
                             tuple[dict[str, list[PermissionRule]], int]] = {}
        self.count = {DENY: 0, ASK: 0, ALLOW: 0}
        for r in rules:
            self._by[r.behavior].setdefault(r.tool, []).append(r)
            if is_mcp_server_rule(r):
                self._servers[r.behavior].setdefault(r.tool, []).append(r)
            self.count[r.behavior] += 1

    def lookup(self, behavior: PermissionBehavior, name: str) -> list[PermissionRule]:
        key = (behavior, name)
        found = self._memo.get(key)
        if found is None:
            found = list(self._by[behavior].get(name, ()))
            if name.startswith("mcp__"):
                server = "mcp__" + name[5:].split("__", 1)[0]
                if server != name:
                    found.extend(self._servers[behavior].get(server, ()))
            self._memo[key] = found
        return found

    def families(self, behavior: PermissionBehavior, name: str
                 ) -> tuple[dict[str, list[PermissionRule]], int]:
        """The family rules (Read, Edit, Write) of ``behavior`` by family name, and how many of
        them are not ``name``'s own."""
        key = (behavior, name)
        found = self._families.get(key)
        if found is None:
            table = {family: self.lookup(behavior, family) for family in RULE_FAMILIES}
            others = sum(len(v) for family, v in table.items() if family != name)
            found = self._families[key] = (table, others)
        return found


_CONTEXT_AWARE: dict[type, bool] = {}


def _read_only_takes_context(tool: "Tool") -> bool:
    """Does ``tool.is_read_only`` accept ``context`` (``is_read_only(tool_input, context)``)?

    The protocol's hook gets only the input; a file tool needs the working directories to know
    whether a read is harmless, so the engine passes the context to hooks that take it."""
    cls = type(tool)
    known = _CONTEXT_AWARE.get(cls)
    if known is None:
        import inspect

        try:
            params = inspect.signature(tool.is_read_only).parameters.values()
        except (TypeError, ValueError):
            known = False
        else:
            known = any(p.name == "context" or p.kind is p.VAR_KEYWORD for p in params)
        _CONTEXT_AWARE[cls] = known
    return known


def _rule_key(rule: PermissionRule) -> tuple[Any, ...]:
    return (rule.behavior, rule.text, rule.source, repr(rule.examples),
            repr(rule.counter_examples))


def _resolver(tools: Any) -> ToolResolver | None:
    if tools is None:
        return None
    if callable(tools) and not isinstance(tools, Mapping):
        return tools
    if isinstance(tools, Mapping):
        table = dict(tools)
    else:
        table = {t.name: t for t in tools}
    return table.get


class PermissionEngine:
    """Decides whether a tool call may run.

    ``mode``: None follows the settings' mode (else default); setting ``engine.mode`` fixes it
    for this session. ``rules``: session rules (PermissionRule objects or ``{"allow": [...],
    "ask": [...], "deny": [...]}``), merged with the settings' rules. ``tools``: Tool objects,
    a ``{name: tool}`` mapping or a ``name -> tool | None`` resolver used to check rule
    examples at load; a rule whose tool is unknown is checked the first time that tool is seen.
    """

    def __init__(self, *, mode: PermissionMode | str | None = None,
                 rules: Iterable[PermissionRule] | Mapping[str, Iterable[Any]] = (),
                 settings: "SettingsStore | str | os.PathLike[str] | None" = None,
                 context: PermissionContext | None = None,
                 middlewares: Iterable[Middleware] = (),
                 audit: "AuditLog | str | os.PathLike[str] | None" = None,
                 tools: Any = None, session: str | None = None):
        if settings is not None and not hasattr(settings, "reload_if_changed"):
            from .settings import SettingsStore

            settings = SettingsStore(settings)
        self.settings: SettingsStore | None = settings  # type: ignore[assignment]
        if audit is not None and not hasattr(audit, "record"):
            from .audit import AuditLog

            audit = AuditLog(audit)
        self.audit: AuditLog | None = audit  # type: ignore[assignment]
        self._audit_failed = False
        self.session = session or uuid.uuid4().hex[:12]
        self._lock: Lockdown | None = None
        self._mode: PermissionMode | None = None
        if mode is not None:  # through the managed lock-down
            try:
                lock = self.lockdown
            except SettingsError:  # a broken project file is reported at the first decision
                lock = managed_lockdown(self.settings.path("managed")) \
                    if self.settings is not None else managed_lockdown()
            self._mode = lock.check_mode(mode)
        if context is None:
            root = str(self.settings.project_root) if self.settings is not None else None
            context = PermissionContext(cwd=os.getcwd(), project_root=root)
        self._base_context = context
        self._context_cache: tuple[Any, PermissionContext] | None = None
        self._resolve = _resolver(tools)
        self._session_rules: list[PermissionRule] = []
        self._index: _RuleIndex | None = None
        self._validated: set[tuple[Any, ...]] = set()
        self._pending: dict[str, list[PermissionRule]] = {}
        self._middlewares: list[Middleware] = []
        self._chain: Next = self._evaluate
        for r in self._coerce_rules(rules):
            self._check_known(r)
            self._session_rules.append(r)
        for mw in middlewares:
            self.add_middleware(mw)

    @classmethod
    def for_project(cls, project: "str | os.PathLike[str] | None" = None, *,
                    mode: PermissionMode | str | None = None, tools: Any = None,
                    audit: bool = True, **kw: Any) -> "PermissionEngine":
        """The engine of a project folder (default: the current directory), as the notebook
        builds it: its four settings layers (trust and the managed lock-down included), its
        ``.agenttools/audit.jsonl`` (``audit=False``: none), the cwd and the project root as
        working directories. "Always allow" answers persist to its
        ``.agenttools/settings.local.json``."""
        from .settings import SettingsStore

        store = SettingsStore(os.fspath(project) if project is not None else os.getcwd())
        log = store.audit_path if audit else None
        context = kw.pop("context", None) or PermissionContext(
            cwd=os.getcwd(), project_root=str(store.project_root))
        return cls(mode=mode, settings=store, audit=log, context=context, tools=tools, **kw)

    # --- configuration ---------------------------------------------------------------------

    @staticmethod
    def _coerce_rules(rules: Any) -> list[PermissionRule]:
        if isinstance(rules, Mapping):
            unknown = set(rules) - {"allow", "ask", "deny"}
            if unknown:
                raise ValueError(f"expected rule lists under 'allow', 'ask', 'deny', "
                                 f"got {sorted(unknown)}")
            out: list[PermissionRule] = []
            for behavior in ("deny", "ask", "allow"):
                entries = rules.get(behavior) or []
                if isinstance(entries, (str, bytes)) or not isinstance(entries, Iterable):
                    raise ValueError(f"expected a list of rules under {behavior!r}, "
                                     f"got {type(entries).__name__}")
                out.extend(load_rule(e, behavior, "session") for e in entries)
            return out
        out = []
        for r in rules:
            if isinstance(r, str):
                r = PermissionRule.parse(r, source="session")
            elif not isinstance(r, PermissionRule):
                raise TypeError(f"expected a PermissionRule or a rule string, got {r!r}")
            out.append(r if r.source else r.with_(source="session"))
        return out

    @property
    def mode(self) -> PermissionMode:
        """The session's mode if set, else the settings' (re-read if changed), else default."""
        self._refresh_settings()
        return self._current_mode()

    @mode.setter
    def mode(self, value: PermissionMode | str | None) -> None:
        """Set this session's mode (None: follow the settings). A mode the managed settings
        forbid raises ModeUnavailable: a session never overrides the managed layer."""
        if value is not None and self.settings is not None:
            self._refresh_settings()  # the managed file as it is now
        self._mode = None if value is None else self.lockdown.check_mode(value)

    def _current_mode(self, lock: Lockdown | None = None) -> PermissionMode:
        if lock is None:
            lock = self.lockdown
        if self._mode is not None and lock.allows(self._mode):
            return self._mode  # (a session mode the managed file forbade since is dropped)
        if self.settings is not None:
            m = self.settings.merged.mode  # lower layers' forbidden modes are held back
            if m is not None:
                return m
        return lock.fallback_mode()

    @property
    def lockdown(self) -> Lockdown:
        """The managed lock-down in force (the settings' managed layer, else the managed file)."""
        if self.settings is not None:
            return self.settings.merged.lockdown
        return managed_lockdown()

    def check_mode(self, mode: PermissionMode | str) -> PermissionMode:
        """``mode`` parsed, or ModeUnavailable when the managed settings forbid it."""
        self._refresh_settings()
        return self.lockdown.check_mode(mode)

    @property
    def context(self) -> PermissionContext:
        """The base context with the current mode and the settings' additional directories."""
        return self._context_in(self._current_mode())

    @context.setter
    def context(self, value: PermissionContext) -> None:
        self._base_context = value
        self._context_cache = None

    def _context_in(self, mode: PermissionMode) -> PermissionContext:
        extra = self.settings.merged.additional_directories if self.settings is not None else ()
        key = (mode, extra)
        cached = self._context_cache
        if cached is not None and cached[0] == key:
            return cached[1]
        ctx = self._with_extra(self._base_context, extra)
        if ctx.mode is not key[0]:
            ctx = ctx.with_(mode=key[0])
        self._context_cache = (key, ctx)
        return ctx

    @staticmethod
    def _with_extra(ctx: PermissionContext, extra: tuple[str, ...]) -> PermissionContext:
        missing = [d for d in extra if d not in ctx.working_directories]
        if not missing:
            return ctx
        return ctx.with_(working_directories=ctx.working_directories + tuple(missing))

    @property
    def middlewares(self) -> list[Middleware]:
        return list(self._middlewares)

    def add_middleware(self, middleware: Middleware) -> None:
        """Add a middleware inside the ones already there (the first added is outermost)."""
        if not callable(middleware):
            raise TypeError(f"a middleware is a callable (tool, input, context, next), "
                            f"got {middleware!r}")
        self._middlewares.append(middleware)
        chain: Next = self._evaluate
        for mw in reversed(self._middlewares):
            chain = self._wrap(mw, chain)
        self._chain = chain

    @staticmethod
    def _wrap(mw: Middleware, nxt: Next) -> Next:
        def call(tool: "Tool", tool_input: Mapping[str, Any], context: PermissionContext
                 ) -> PermissionDecision:
            decision = mw(tool, tool_input, context, nxt)
            if not isinstance(decision, PermissionDecision):
                raise DeveloperOrientedException(
                    f"permission middleware {getattr(mw, '__name__', mw)!r} returned "
                    f"{type(decision).__name__}, expected a PermissionDecision")
            return decision

        return call

    @property
    def rules(self) -> list[PermissionRule]:
        """Every rule in force: session rules, then managed, local, project, user."""
        self._refresh_settings()
        return self._all_rules()

    def _all_rules(self) -> list[PermissionRule]:
        settings_rules = self.settings.merged.rules if self.settings is not None else []
        # managed_rules_only holds back the session's allow rules too
        return [*self.lockdown.filter_rules(self._session_rules), *settings_rules]

    def add_rule(self, rule: PermissionRule | str, layer: str | None = None) -> PermissionRule:
        """Add a rule to session memory (``layer=None``) or write it to a settings layer
        ("local", "project", "user"). Its examples are checked first when its tool is known."""
        if isinstance(rule, str):
            rule = PermissionRule.parse(rule)
        if layer is None:
            if rule.source != "session":  # e.g. "suggested": now it is this session's rule
                rule = rule.with_(source="session")
            self._check_known(rule)
            if all(_rule_key(rule) != _rule_key(r) for r in self._session_rules):
                self._session_rules.append(rule)
            self._index = None
            return rule
        if self.settings is None:
            raise SettingsError(layer, "this engine has no settings store to write rules to")
        self._check_known(rule.with_(source=str(self.settings.path(layer))))
        stored = self.settings.add_rule(layer, rule.behavior, rule)
        self._index = None
        return stored

    def remove_rule(self, rule: PermissionRule | str, layer: str | None = None) -> bool:
        """Remove a rule (by text and behavior) from session memory or a settings layer."""
        if isinstance(rule, str):
            rule = PermissionRule.parse(rule)
        if layer is None:
            before = len(self._session_rules)
            self._session_rules = [r for r in self._session_rules
                                   if not (r.text == rule.text and r.behavior is rule.behavior)]
            self._index = None
            return len(self._session_rules) != before
        if self.settings is None:
            raise SettingsError(layer, "this engine has no settings store")
        removed = self.settings.remove_rule(layer, rule.behavior, rule.text)
        self._index = None
        return removed

    # --- rule loading and examples ---------------------------------------------------------

    def _check_known(self, rule: PermissionRule) -> None:
        """Validate a rule's examples now when its tool is known (raises RuleExampleError)."""
        if not (rule.examples or rule.counter_examples):
            return
        tool = self._resolve(rule.tool) if self._resolve is not None else None
        if tool is not None:
            validate_examples(rule, tool, self._base_context)
            self._validated.add(_rule_key(rule))

    def _refresh_settings(self) -> Lockdown:
        """Re-read changed settings files; the lock-down in force now (one stat of the managed
        file per call)."""
        if self.settings is not None and self.settings.reload_if_changed():
            self._index = None
        lock = self.lockdown
        if lock is not self._lock:  # a changed managed file: rebuild what it filters
            self._lock = lock
            self._index = None
        return lock

    def _build_index(self) -> _RuleIndex:
        rules = self._all_rules()
        pending: dict[str, list[PermissionRule]] = {}
        for r in rules:
            if not (r.examples or r.counter_examples) or _rule_key(r) in self._validated:
                continue
            tool = self._resolve(r.tool) if self._resolve is not None else None
            if tool is None:
                pending.setdefault(r.tool, []).append(r)
                continue
            validate_examples(r, tool, self._base_context)
            self._validated.add(_rule_key(r))
        self._pending = pending
        return _RuleIndex(rules)

    def _validate_pending(self, tool: "Tool", context: PermissionContext) -> None:
        rules = self._pending.get(tool.name, [])
        while rules:
            validate_examples(rules[0], tool, context)  # raises: the rule stays pending
            self._validated.add(_rule_key(rules.pop(0)))
        self._pending.pop(tool.name, None)

    # --- deciding --------------------------------------------------------------------------

    def decide(self, tool: "Tool", tool_input: Mapping[str, Any], *,
               context: PermissionContext | None = None,
               mode: PermissionMode | str | None = None) -> PermissionDecision:
        """The decision for one call. ``mode`` (else ``engine.mode``) overrides the mode of
        ``context`` (else ``engine.context``)."""
        lock = self._refresh_settings()
        if self._index is None:
            self._index = self._build_index()
        if mode is not None:
            mode = lock.check_mode(mode)
        if context is None:
            ctx = self._context_in(self._current_mode(lock))
            if mode is not None:
                m = PermissionMode.parse(mode)
                if m is not ctx.mode:
                    ctx = ctx.with_(mode=m)
        else:
            if self.settings is not None:
                context = self._with_extra(context, self.settings.merged.additional_directories)
            m = PermissionMode.parse(mode) if mode is not None else self._current_mode(lock)
            ctx = context if context.mode is m else context.with_(mode=m)
        if self._pending and tool.name in self._pending:
            self._validate_pending(tool, ctx)
        try:
            with decision_scope():
                decision = self._chain(tool, tool_input, ctx)
                if decision.behavior is not PermissionBehavior.DENY \
                        and getattr(tool, "effects_complete", False):
                    decision = self._held(decision, tool, tool_input, ctx)
        except DeveloperOrientedException:
            raise
        except Exception as exc:  # a middleware that broke: never a silent allow
            decision = self._error(MODE_TABLE[ctx.mode], "middleware", exc, [], tool)
        if self.audit is not None:
            self._record(tool, tool_input, decision, ctx.mode)
        return decision

    def _held(self, decision: PermissionDecision, tool: "Tool", tool_input: Mapping[str, Any],
              context: PermissionContext) -> PermissionDecision:
        """The decision with what it checked (``effects.CheckedCall``): the paths the call must
        still resolve to when it runs, the names a search must skip. Only for tools whose
        effects describe the whole call (the file tools); on the decision's memo and facts."""
        try:
            effects = effects_of(tool, tool_input, context)
            if not effects:
                return decision
            checked = checked_call(effects, self._all_rules(), context)
        except Exception:  # (an input the tool cannot describe was decided on already)
            return decision
        held = copy.copy(decision)
        held.__dict__["checked"] = checked
        return held

    def _record(self, tool: "Tool", tool_input: Mapping[str, Any],
                decision: PermissionDecision, mode: PermissionMode) -> None:
        try:
            summary = tool.input_summary(tool_input)
        except Exception:
            summary = repr(tool_input)[:200]
        if self.audit is None:
            return
        try:
            self.audit.record_decision(tool=tool.name, input_summary=summary,
                                       decision=decision, mode=mode, session=self.session)
        except OSError as exc:  # the log is a record, not a gate: warn once, decide on
            if not self._audit_failed:
                self._audit_failed = True
                # lazy: logging (with traceback, textwrap) loads only to warn; the engine
                # decides every call of another agent's hook (``agenttools hook``)
                import logging

                logging.getLogger(__name__).warning(
                    "cannot write the permission audit log %s: %s",
                    getattr(self.audit, "path", "?"), exc)

    def record_answer(self, tool: "Tool", tool_input: Mapping[str, Any],
                      decision: PermissionDecision, answer: str,
                      rule: PermissionRule | None = None) -> None:
        """Log a person's answer to an ASK (``allow_once``, ``always_allow``, ``deny`` …)."""
        if self.audit is None:
            return
        try:
            summary = tool.input_summary(tool_input)
        except Exception:
            summary = repr(tool_input)[:200]
        self.audit.record_answer(tool=tool.name, input_summary=summary, decision=decision,
                                 answer=answer, rule=rule, mode=self._current_mode(),
                                 session=self.session)

    def _evaluate(self, tool: "Tool", tool_input: Mapping[str, Any],
                  context: PermissionContext) -> PermissionDecision:
        policy = MODE_TABLE[context.mode]
        trace: list[_Step] = []  # (step, outcome, detail): TraceSteps only when read
        try:
            return self._steps(tool, tool_input, context, policy, trace)
        except DeveloperOrientedException:
            raise
        except Exception as exc:
            step = STEPS[min(len(trace), len(STEPS) - 1)]
            return self._error(policy, step, exc, trace, tool)

    def _first_match(self, behavior: PermissionBehavior, tool: "Tool",
                     tool_input: Mapping[str, Any], context: PermissionContext,
                     effects: tuple[Any, ...] | None = None
                     ) -> tuple[PermissionRule | None, int, str]:
        """The first rule of ``behavior`` that applies: the tool's own rules, and, for a tool
        that reports effects, the family rules (Read / Edit / Write with a path) of every
        effect — any effect for deny and ask, every effect for allow (and only when the tool's
        effects describe the whole call). Returns (rule, rules looked at, what matched)."""
        index = self._index
        assert index is not None
        if not index.count[behavior]:
            return None, 0, ""  # no rule of this behavior anywhere (the usual deny/ask case)
        own = index.lookup(behavior, tool.name)
        count = len(own)
        for r in own:
            if effects is not None and is_family_rule(r):
                continue  # applied by effect below, like every other tool's
            if rule_matches(r, tool, tool_input, context):
                return r, count, f"matched {r.text}"
        together = getattr(tool, "match_allow_rules", None) if behavior is ALLOW else None
        if together is not None and len(own) > 1:
            # several allow rules may cover a compound call together (Bash: `git add:*` and
            # `git commit:*` for `git add . && git commit -m x`)
            first = together([r for r in own if not is_family_rule(r)], tool_input, context)
            if first is not None:
                return first, count, f"matched {first.text} with the other allow rules"
        if not effects:
            return None, count, ""
        families, others = index.families(behavior, tool.name)
        count += others
        if behavior is ALLOW:
            if not getattr(tool, "effects_complete", False):
                return None, count, ""
            rules = [r for v in families.values() for r in v]
            covering = covering_allow_rules(rules, effects, context)
            if not covering:
                return None, count, ""
            return covering[0], count, "matched " + " + ".join(r.text for r in covering) \
                + " (every file the call touches)"
        for effect in effects:
            for name, kinds in RULE_FAMILIES.items():
                if effect.kind not in kinds:
                    continue
                for r in families[name]:
                    if effect_matches(r, effect, context):
                        return r, count, f"matched {r.text} on the {effect.kind} of " \
                                         f"{effect.path!r}"
        return None, count, ""

    def _steps(self, tool: "Tool", tool_input: Mapping[str, Any], context: PermissionContext,
               policy: ModePolicy, trace: list[_Step]) -> PermissionDecision:
        name = tool.name
        mode = policy.mode._value_  # (the enum's .value is a slow descriptor)

        effects = effects_of(tool, tool_input, context)

        # 1. the protected tier (no mode lifts it), then the deny rules: from any layer
        hit = find_protected(effects, context) if effects else None
        if hit is not None:
            effect, target, why = hit
            verdict = policy.protected
            trace.append(("deny_rules", verdict._value_,
                          f"protected: {why} ({effect.kind} of {target.physical})"))
            return self._done(verdict, "deny_rules", trace, tool, f"protected: {why}",
                              f"Permission to use {name} was denied: {why}. No mode or rule "
                              f"allows this.", bypass_immune=True)
        rule, n, matched = self._first_match(DENY, tool, tool_input, context, effects)
        if rule is not None:
            trace.append(("deny_rules", "deny", matched))
            return self._done(DENY, "deny_rules", trace, tool,
                              f"denied by rule {rule.text}",
                              f"Permission to use {name} was denied by rule {rule.text}.",
                              rule=rule)
        trace.append(("deny_rules", "no match", f"{n} deny rule(s) for {name}"))

        # 2. ask rules
        rule, n, matched = self._first_match(ASK, tool, tool_input, context, effects)
        if rule is not None:
            verdict = policy.ask_rule
            if verdict is ASK:
                trace.append(("ask_rules", "ask", matched))
                return self._done(ASK, "ask_rules", trace, tool, f"ask rule {rule.text}",
                                  f"Permission required for {name} (rule {rule.text}).",
                                  rule=rule, tool_input=tool_input, context=context)
            trace.append(("ask_rules", verdict._value_,
                          f"{matched}; {mode} turns ASK into {verdict._value_}"))
            return self._done(verdict, "ask_rules", trace, tool,
                              f"ask rule {rule.text}; {mode} mode: no one to answer",
                              f"Permission to use {name} was denied: rule {rule.text} requires "
                              f"asking, and no one can answer in {mode} mode.", rule=rule)
        trace.append(("ask_rules", "no match", f"{n} ask rule(s) for {name}"))

        # a file that runs code later: the safety ASK a mode that ignores safety ASKs keeps
        code_later = policy.code_later
        if code_later is not None and effects:
            hit = find_code_later(effects, context)
            if hit is not None:
                effect, target, why = hit
                shown = _printable(target.physical)  # (a name with a newline or escape)
                trace.append(("tool_check", code_later._value_,
                              f"{effect.kind} of {shown} runs code later: {why} (a safety ASK "
                              f"in {mode} mode too)"))
                return self._done(code_later, "tool_check", trace, tool,
                                  f"Safety check: {effect.kind} of {shown}, a file that runs "
                                  f"code later: {why} ({mode} mode asks about this too)",
                                  f"Permission required for {name}: {effect.kind} of {shown} "
                                  f"runs code later ({why}); {mode} mode asks about this too.",
                                  bypass_immune=True)

        # what the effects alone require: a safety ASK (a secret read, a write outside the
        # working directories, a file that runs code later) that no tool check may lift
        safety = effect_safety(effects, context, name) if effects else None

        # 3. read-only fast path
        is_read_only: Any = tool.is_read_only  # the protocol's hook, or one taking the context
        if safety is None and (
                is_read_only(tool_input, context=context) if _read_only_takes_context(tool)
                else is_read_only(tool_input)):
            trace.append(("read_only", "allow", "the call cannot change anything"))
            return self._done(ALLOW, "read_only", trace, tool, "read-only call",
                              f"Permission granted for {name} (read-only).")
        trace.append(("read_only", "no", "not a read-only call"))

        # 4. the tool's own check
        remembered: tuple[PermissionDecision, PermissionBehavior] | None = None
        if not policy.tool_check:
            trace.append(("tool_check", "skipped", f"not called in {mode} mode"))
        else:
            d = tool.check_permissions(tool_input, context)
            if not isinstance(d, PermissionDecision):
                raise TypeError(f"{name}.check_permissions returned {type(d).__name__}, "
                                f"expected a PermissionDecision")
            if safety is not None and d.behavior is not DENY and not d.is_safety_ask:
                d = safety  # the tool may not lift what its effects require
            b = d.behavior
            if b is ALLOW or b is DENY:
                trace.append(("tool_check", b._value_, d.reason or d.message))
                return self._done(b, "tool_check", trace, tool, d.reason or d.message,
                                  d.message or d.reason, bypass_immune=d.bypass_immune)
            if b is ASK:
                ask_verdict = policy.safety_ask if d.bypass_immune else policy.plain_ask
                kind = "safety ASK" if d.bypass_immune else "ASK"
                if ask_verdict is None:
                    trace.append(("tool_check", "ignored",
                                  f"{kind} ignored in {mode} mode: {d.reason}"))
                elif d.bypass_immune:
                    trace.append(("tool_check", ask_verdict._value_,
                                  f"safety ASK (allow rules cannot silence it): "
                                  f"{d.reason}"))
                    if ask_verdict is ASK:
                        return self._done(ASK, "tool_check", trace, tool, d.reason,
                                          d.message or d.reason, bypass_immune=True)
                    return self._done(ask_verdict, "tool_check", trace, tool,
                                      f"{d.reason}; {mode} mode: no one to answer",
                                      f"Permission to use {name} was denied: "
                                      f"{d.message or d.reason} (no one can answer in {mode} "
                                      f"mode).", bypass_immune=True)
                else:
                    trace.append(("tool_check", "ask",
                                  f"{d.reason}; an allow rule may still allow it"))
                    remembered = (d, ask_verdict)
            else:
                trace.append(("tool_check", "passthrough", d.reason or "no opinion"))

        # 5. allow rules
        if not policy.allow_rules:
            trace.append(("allow_rules", "not consulted", f"{mode} mode"))
        else:
            rule, n, matched = self._first_match(ALLOW, tool, tool_input, context, effects)
            if rule is not None:
                trace.append(("allow_rules", "allow", matched))
                return self._done(ALLOW, "allow_rules", trace, tool,
                                  f"allowed by rule {rule.text}",
                                  f"Permission granted for {name} by rule {rule.text}.",
                                  rule=rule)
            trace.append(("allow_rules", "no match", f"{n} allow rule(s) for {name}"))

        if remembered is not None:  # the tool's plain ASK stands
            d, verdict = remembered
            if verdict is ASK:
                return self._done(ASK, "tool_check", trace, tool, d.reason,
                                  d.message or d.reason, tool_input=tool_input, context=context,
                                  offered=d)
            return self._done(verdict, "tool_check", trace, tool,
                              f"{d.reason}; {mode} mode: no one to answer",
                              f"Permission to use {name} was denied: {d.message or d.reason} "
                              f"(no one can answer in {mode} mode).",
                              tool_input=tool_input, context=context, offered=d)

        # 6. fallback
        fb = policy.fallback
        trace.append(("fallback", fb._value_, policy.fallback_reason))
        if fb is ALLOW:
            message = f"Permission granted for {name} ({mode} mode)."
        elif fb is ASK:
            message = f"Permission required for {name}."
        else:
            message = f"Permission to use {name} was denied: {policy.fallback_reason}."
        # suggestions only where an allow rule could have changed the outcome
        useful = fb is ASK or (fb is DENY and policy.allow_rules)
        return self._done(fb, "fallback", trace, tool, policy.fallback_reason, message,
                          tool_input=tool_input if useful else None, context=context)

    def _done(self, behavior: PermissionBehavior, step: str, trace: list[_Step],
              tool: "Tool", reason: str, message: str, *, rule: PermissionRule | None = None,
              bypass_immune: bool = False, tool_input: Mapping[str, Any] | None = None,
              context: PermissionContext | None = None,
              offered: PermissionDecision | None = None) -> PermissionDecision:
        """Finish a decision: the trace (the steps not reached are filled in when it is read),
        suggestions when a rule could change the outcome (a non-safety ASK, or dont_ask's DENY
        of one)."""
        decision = PermissionDecision(behavior, message, reason, bypass_immune, step, rule,
                                      rule.source if rule is not None else None)
        decision.trace_later(trace, _DECIDED_AT[step])
        if tool_input is not None and not bypass_immune and context is not None:
            # built when first read, with this decision's memo (the tool's analysis is reused)
            # and the rules in force at the decision
            memo, index = current_memo(), self._index
            decision.suggest_later(
                lambda: self._suggest(tool, tool_input, context, offered, memo, index))
        return decision

    @staticmethod
    def _suggest(tool: "Tool", tool_input: Mapping[str, Any], context: PermissionContext,
                 offered: PermissionDecision | None, memo: dict[Any, Any] | None = None,
                 index: _RuleIndex | None = None) -> list[PermissionRule]:
        try:
            with decision_scope(memo):
                # the tool check's own suggestions (built when first read, like these), else
                # the tool's
                raw = list(offered.suggestions) if offered is not None else []
                if not raw:
                    raw = tool.suggest_rules(tool_input, context)
        except DeveloperOrientedException:
            raise
        except Exception:  # no suggestion is better than no decision
            return []
        suggestions = filter_suggestions(raw, tool)
        if suggestions and index is not None:
            # a rule already in force (e.g. for one part of a chain) is no news to the person
            have = {r.text for r in index.lookup(ALLOW, tool.name)}
            suggestions = [r for r in suggestions if r.text not in have]
        return suggestions

    @staticmethod
    def _error(policy: ModePolicy, step: str, exc: Exception, trace: list[_Step],
               tool: "Tool") -> PermissionDecision:
        what = f"{type(exc).__name__}: {exc}"
        verdict = policy.on_error
        trace = list(trace[: _STEP_NO.get(step, len(STEPS)) - 1])
        if step in _STEP_NO:
            trace.append((step, verdict.value, f"error: {what}"))
            n = _STEP_NO[step]
        else:
            n = len(trace)
        name = getattr(tool, "name", "?")
        decision = PermissionDecision(
            verdict, reason=f"the permission check failed at {step}: {what}",
            message=f"Permission for {name} could not be checked ({what}); "
                    + ("asking instead." if verdict is ASK else "denied."),
            bypass_immune=True, step=step if n else None)
        decision.trace_later(trace, f"stopped by an error at {step}")
        return decision
