"""The ``agenttools`` command: ``check``, ``settings``, ``trust``, ``audit`` and ``hook``.

Errors are one clear line on stderr and exit status 2, never a traceback. ``check`` of one
call exits with the verdict: 0 ALLOW, 1 ASK, 3 DENY (2 stays a usage error: a bad option, an
input that does not fit the tool's schema, a mode the managed settings forbid). ``hook`` is
the exception to the exit-status rule: it follows each agent's documented hook contract
(``hooks/``), and always answers, fail-closed, whatever went wrong.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shlex
import sys
import time
from typing import TYPE_CHECKING, Any, Iterable, Iterator, TextIO

from . import __version__
from .errors import AgentToolsError
from .hooks import AGENTS as HOOK_AGENTS
from .permission.types import STEPS, PermissionDecision

if TYPE_CHECKING:
    from .permission.engine import PermissionEngine
    from .permission.settings import MergedSettings, SettingsStore

__all__ = ["main", "build_parser"]

_MODES = ("default", "accept_edits", "explore", "bypass", "dont_ask")
#: ``agenttools check`` exit status per verdict (2 is a usage error)
CHECK_EXIT = {"allow": 0, "ask": 1, "deny": 3}
_ERRORS = (AgentToolsError, ValueError, TypeError, OSError)


class CLIError(Exception):
    """A problem with the command line or its inputs: printed, exit status 2."""


# --- check -----------------------------------------------------------------------------------


def _check_one_input(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    if args.input is not None:
        if args.command:
            raise CLIError("give either --input JSON or -- COMMAND, not both")
        try:
            tool_input = json.loads(args.input)
        except json.JSONDecodeError as exc:
            raise CLIError(f"--input is not JSON: {exc.msg} (column {exc.colno})") from None
        if not isinstance(tool_input, dict):
            raise CLIError(f"--input must be a JSON object, got {type(tool_input).__name__}")
        return args.tool or "Bash", tool_input
    if not args.command:
        raise CLIError("nothing to check: give -- COMMAND (for Bash) or --tool T --input JSON")
    if args.tool not in (None, "Bash"):
        raise CLIError(f"-- COMMAND is for Bash; for {args.tool} give --input JSON")
    words = args.command
    command = words[0] if len(words) == 1 else shlex.join(words)
    return "Bash", {"command": command}


def _rules_from_args(args: argparse.Namespace) -> dict[str, list[str]]:
    return {"allow": list(args.allow or []), "ask": list(args.ask or []),
            "deny": list(args.deny or [])}


def _load_tool(spec: str) -> Any:  # a Tool, or a built-in tool's name (cli imports no tools)
    """A built-in tool name, or ``package.module:attr`` naming a Tool object or class."""
    if ":" not in spec:
        return spec
    import importlib

    module, _, attr = spec.partition(":")
    try:
        obj = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise CLIError(f"cannot load tool {spec!r}: {exc}") from None
    return obj() if isinstance(obj, type) else obj


def _merge_rules(*sources: dict[str, Any] | None) -> dict[str, list[Any]]:
    merged: dict[str, list[Any]] = {"allow": [], "ask": [], "deny": []}
    for rules in sources:
        for key, entries in (rules or {}).items():
            if key not in merged:
                raise ValueError(f"unknown rule list {key!r}; expected allow, ask or deny")
            if not isinstance(entries, list):
                raise ValueError(f"rules {key!r} must be a list, got {type(entries).__name__}")
            merged[key].extend(entries)
    return merged


def _prepare(tool: Any, *, mode: Any, rules: Any, cwd: Any, working_directories: Any,
             project: str | None) -> "tuple[PermissionEngine, Any]":
    from .permission.check import prepare

    if isinstance(tool, str):
        tool = _load_tool(tool)
    engine, t = prepare(tool, mode=mode or None, rules=rules, cwd=cwd,
                        working_directories=working_directories or ())
    if project is not None:
        from .permission.settings import SettingsStore

        engine.settings = SettingsStore(project)
        engine.context = engine.context.with_(project_root=str(engine.settings.project_root))
        if mode is None:  # no --mode: the project's settings decide
            engine.mode = None
    return engine, t


def _print_human(tool_name: str, tool_input: dict[str, Any], mode: str,
                 d: PermissionDecision, out: TextIO) -> None:
    arg = tool_input.get("command") if tool_name == "Bash" else None
    shown = arg if isinstance(arg, str) else json.dumps(tool_input, ensure_ascii=False)
    step_no = STEPS.index(d.step) + 1 if d.step in STEPS else "?"
    kind = " (safety: allow rules cannot silence it)" if d.is_safety_ask else ""
    print(f"{tool_name}: {shown}", file=out)
    print(f"mode: {mode}", file=out)
    print(f"decision: {d.behavior.value.upper()}{kind} at step {step_no} ({d.step})", file=out)
    if d.message:
        print(f"message: {d.message}", file=out)
    if d.reason and d.reason != d.message:
        print(f"reason: {d.reason}", file=out)
    if d.rule is not None:
        print(f"rule: {d.rule.behavior.value} {d.rule.text}  (from {d.rule_source})", file=out)
    print("trace:", file=out)
    width = max(len(s) for s in STEPS)
    for i, t in enumerate(d.trace, 1):
        print(f"  {i} {t.step:<{width}}  {t.outcome:<13} {t.detail}".rstrip(), file=out)
    if d.suggestions:
        print("suggestions (allow rules that would allow this call):", file=out)
        for r in d.suggestions:
            print(f"  {r.text}", file=out)


def _cmd_check(args: argparse.Namespace) -> int:
    if args.jsonl is not None:
        return _check_jsonl(args)
    if args.bench is not None:
        raise CLIError("--bench needs --jsonl FILE")
    tool, tool_input = _check_one_input(args)
    engine, t = _prepare(tool, mode=args.mode, rules=_rules_from_args(args), cwd=args.cwd,
                         working_directories=args.working_dir, project=args.project)
    from .gates.arguments import validate_input

    validate_input(t, tool_input)  # gate 2 first: a call that cannot run is not judged
    d = engine.decide(t, tool_input)
    if args.json:
        out = {"tool": t.name, "input": tool_input, "mode": engine.mode.value, **d.to_dict()}
        print(json.dumps(out, ensure_ascii=False))
    else:
        _print_human(t.name, tool_input, engine.mode.value, d, sys.stdout)
    return CHECK_EXIT.get(d.behavior.value, 1)  # (PASSTHROUGH never leaves the engine)


def _read_lines(source: str) -> Iterator[str]:
    if source == "-":
        yield from sys.stdin
        return
    try:
        with open(source, encoding="utf-8") as f:
            yield from f
    except OSError as exc:
        raise CLIError(f"cannot read {source}: {exc.strerror or exc}") from None


def _parse_line(raw: str) -> tuple[Any, dict[str, Any]]:
    """The id (if any) and the validated object of one JSONL input line."""
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(obj, dict):
        raise ValueError(f"expected a JSON object, got {type(obj).__name__}")
    line_id = obj.get("id")
    # Other keys (a corpus's "label", "family", notes) are annotations: carried, not read.
    if not isinstance(obj.get("tool"), str):
        raise _LineError(line_id, "'tool' must be a tool name such as \"Bash\"")
    if not isinstance(obj.get("input"), dict):
        raise _LineError(line_id, "'input' must be an object (the tool's arguments)")
    rules = obj.get("rules")
    if rules is not None and not isinstance(rules, dict):
        raise _LineError(line_id, "'rules' must be an object {\"allow\": [], \"ask\": [], "
                                  "\"deny\": []}")
    if obj.get("cwd") is not None and not isinstance(obj["cwd"], str):
        raise _LineError(line_id, "'cwd' must be a directory path")
    wd = obj.get("working_directories", [])
    if not isinstance(wd, list) or not all(isinstance(d, str) for d in wd):
        raise _LineError(line_id, "'working_directories' must be a list of paths")
    return line_id, obj


class _LineError(ValueError):
    def __init__(self, line_id: Any, message: str):
        super().__init__(message)
        self.line_id = line_id


def _prepare_lines(args: argparse.Namespace) -> Iterable[tuple[Any, Any, Any, Any, str | None]]:
    """(id, engine, tool, input, error) per non-blank input line, in order."""
    for n, raw in enumerate(_read_lines(args.jsonl), 1):
        if not raw.strip():
            continue
        line_id = None
        try:
            line_id, obj = _parse_line(raw)
            engine, tool = _prepare(obj["tool"], mode=obj.get("mode") or args.mode,
                                    rules=_merge_rules(obj.get("rules"),
                                                       _rules_from_args(args)),
                                    cwd=obj.get("cwd") or args.cwd,
                                    working_directories=obj.get("working_directories")
                                    or args.working_dir, project=args.project)
        except _LineError as exc:
            yield exc.line_id, None, None, None, f"line {n}: {exc}"
        except Exception as exc:  # one bad line never stops the run
            yield line_id, None, None, None, f"line {n}: {exc}"
        else:
            yield line_id, engine, tool, obj["input"], None


def _check_jsonl(args: argparse.Namespace) -> int:
    if args.bench is not None:
        return _bench(args)
    failed = False
    out = sys.stdout
    for line_id, engine, tool, tool_input, error in _prepare_lines(args):
        if error is None:
            try:
                d = engine.decide(tool, tool_input)
            except Exception as exc:
                error = f"{type(exc).__name__}: {exc}" if not isinstance(exc, _ERRORS) \
                    else str(exc)
        if error is not None:
            failed = True
            result: dict[str, Any] = {"id": line_id, "error": error}
        else:
            result = {"id": line_id, "behavior": d.behavior.value,
                      "bypass_immune": d.bypass_immune, "step": d.step, "reason": d.reason,
                      "rule": d.rule.text if d.rule is not None else None,
                      "suggestions": [r.text for r in d.suggestions]}
        out.write(json.dumps(result, ensure_ascii=False) + "\n")
        out.flush()
    return 2 if failed else 0


def _bench(args: argparse.Namespace) -> int:
    if args.bench < 1:
        raise CLIError(f"--bench expects a positive number of rounds, got {args.bench}")
    cases, failed = [], 0
    for line_id, engine, tool, tool_input, error in _prepare_lines(args):
        if error is None:
            try:
                engine.decide(tool, tool_input)  # warm-up (imports, first parse of rules)
            except Exception as exc:
                error = str(exc)
        if error is not None:
            failed += 1
            print(f"agenttools: skipped id={line_id!r}: {error}", file=sys.stderr)
            continue
        cases.append((engine.decide, tool, tool_input))
    if not cases:
        raise CLIError("no valid input line to benchmark")
    samples: list[int] = []
    clock = time.perf_counter_ns
    start = clock()
    for _ in range(args.bench):
        for decide, tool, tool_input in cases:
            t0 = clock()
            decide(tool, tool_input)
            samples.append(clock() - t0)
    total = clock() - start
    samples.sort()

    def pct(p: float) -> float:
        return round(samples[min(len(samples) - 1, int(p * len(samples)))] / 1000, 1)

    print(json.dumps({"decisions": len(samples),
                      "decisions_per_s": round(len(samples) / (total / 1e9), 1),
                      "p50_us": pct(0.50), "p99_us": pct(0.99),
                      "max_us": round(samples[-1] / 1000, 1)}))
    return 2 if failed else 0


# --- settings --------------------------------------------------------------------------------


def _store(args: argparse.Namespace) -> "SettingsStore":
    from .permission.settings import SettingsStore

    return SettingsStore(args.project or os.getcwd(), user_dir=args.user_dir,
                         managed_path=args.managed)


def _cmd_settings(args: argparse.Namespace) -> int:
    store = _store(args)
    action = args.action or "show"
    if action == "show":
        merged = store.load()
        if args.json:
            print(json.dumps(merged.to_dict(), ensure_ascii=False, indent=2))
            return 0
        print(f"mode: {merged.mode.value if merged.mode else 'default (not set)'}"
              + (f"  (from {merged.mode_source})" if merged.mode_source else ""))
        print("files:")
        for layer, ls in merged.by_layer.items():
            print(f"  {layer:<8} {ls.path}{'' if ls.exists else '  (missing)'}")
        for behavior in ("deny", "ask", "allow"):
            rules = [r for r in merged.rules if r.behavior.value == behavior]
            print(f"{behavior}:" + ("" if rules else " (none)"))
            for r in rules:
                extra = f"  [{len(r.examples)} example(s), {len(r.counter_examples)} counter]" \
                    if r.examples or r.counter_examples else ""
                print(f"  {r.text:<40} {r.source}{extra}")
        if merged.additional_directories:
            print("additional directories:")
            for d in merged.additional_directories:
                print(f"  {d}")
        _print_held_back(merged, sys.stdout)
        return 0
    if action == "add":
        entry: Any = args.rule
        if args.example or args.counter_example:
            entry = {"rule": args.rule, "examples": list(args.example or []),
                     "counter_examples": list(args.counter_example or [])}
        from .permission.check import builtin_tool
        from .permission.rules import load_rule, validate_examples

        rule = load_rule(entry, args.behavior, str(store.path(args.layer)))
        tool = builtin_tool(rule.tool) if (rule.examples or rule.counter_examples) else None
        if tool is not None:
            validate_examples(rule, tool)
        elif rule.examples or rule.counter_examples:
            print(f"agenttools: note: {rule.tool} is not a built-in tool; its examples are "
                  f"checked when an engine that knows it loads the rule", file=sys.stderr)
        store.add_rule(args.layer, args.behavior, entry)
        print(f"added {args.behavior} {rule.text} to {store.path(args.layer)}")
        return 0
    if action == "remove":
        if not store.remove_rule(args.layer, args.behavior, args.rule):
            raise CLIError(f"no {args.behavior} rule {args.rule!r} in {store.path(args.layer)}")
        print(f"removed {args.behavior} {args.rule} from {store.path(args.layer)}")
        return 0
    if action == "mode":
        mode = None if args.mode in ("none", "unset") else args.mode
        store.set_mode(args.layer, mode)
        print(f"mode {'cleared' if mode is None else 'set to ' + mode} in "
              f"{store.path(args.layer)}")
        return 0
    raise CLIError(f"unknown settings action {action!r}")  # pragma: no cover - argparse checks


def _print_held_back(merged: "MergedSettings", out: TextIO) -> None:
    """Trust, lock-down and whatever the files say that does not count (never silently)."""
    trust, lock = merged.trust, merged.lockdown
    if trust is not None and trust.needed:
        state = "trusted" if trust.trusted else ("CHANGED since trusted" if trust.changed
                                                 else "NOT trusted")
        print(f"project trust: {state} ({trust.project})", file=out)
    if lock.active:
        parts = [k for k, on in (("bypass disabled", lock.disable_bypass),
                                 ("managed rules only", lock.managed_rules_only)) if on]
        if lock.allowed_modes is not None:
            parts.append("modes: " + ", ".join(m.value for m in lock.allowed_modes))
        print(f"managed lock-down: {'; '.join(parts)}  (from {lock.source})", file=out)
    if merged.ignored:
        print("ignored (not in force):", file=out)
        for item in merged.ignored:
            value = item["value"] if isinstance(item["value"], str) else json.dumps(item["value"])
            print(f"  {item['layer']:<8} {item['key']}: {value}  -- {item['why']}", file=out)


# --- trust -----------------------------------------------------------------------------------


def _cmd_trust(args: argparse.Namespace) -> int:
    from .permission.settings import SettingsStore

    store = SettingsStore(args.dir or os.getcwd(), user_dir=args.user_dir,
                          managed_path=args.managed)
    if args.revoke:
        state = store.set_trust(False)
        verb = "no longer trusted"
    elif args.show:
        state = store.current_trust()
        verb = "trusted" if state.trusted else "not trusted"
    else:
        before = store.load()
        held = [i for i in before.ignored if i["layer"] in ("project", "local")]
        state = store.set_trust(True)
        verb = "trusted"
        if not args.json:
            for item in held:
                if "trust" in item["why"]:
                    print(f"now in force: {item['layer']} {item['key']}: {item['value']}")
    if args.json:
        print(json.dumps(state.to_dict(), ensure_ascii=False))
    else:
        print(f"{state.project}: {verb} — {state.explain()}")
        if args.show and state.changed:  # what a re-trust would take on
            changes = state.changes()
            if changes is None:
                print("changed: not known (trusted without a copy of the settings)")
            for change in changes or ():
                print(f"changed: {change['text']} ({change['file']})")
    return 0


# --- audit -----------------------------------------------------------------------------------


def _audit_line(e: dict[str, Any]) -> str:
    """One record as a line of text: time, verdict (or answer, or outcome), who, what."""
    kind = e.get("kind")
    if kind == "answer":
        label = f"answer={e.get('answer')}"
    elif kind == "outcome":
        code = e.get("exit_code")
        label = f"{e.get('state')}" + (f" exit={code}" if code is not None else "")
    else:
        label = str(e.get("behavior")).upper()
    who = f"{e.get('user') or '?'}@{e.get('agent') or '?'}"
    rule = e.get("rule") or e.get("rule_chosen")
    extra = f"  step={e.get('step')}" if kind != "outcome" else \
        f"  {e.get('duration_s')} s" if e.get("duration_s") is not None else ""
    extra += f"  rule={rule}" if rule else ""
    return (f"{e.get('time')}  {label:<14} {e.get('mode') or '-':<12} {who:<24} "
            f"{e.get('tool')}: {e.get('input')}{extra}")


def _cmd_audit(args: argparse.Namespace) -> int:
    from .permission.audit import AuditLog

    if args.file:
        path = args.file
    else:
        path = os.path.join(args.project or os.getcwd(), ".agenttools", "audit.jsonl")
    if args.limit is not None and args.limit < 0:
        raise CLIError(f"--limit expects 0 or more, got {args.limit}")
    if args.offset < 0:
        raise CLIError(f"--offset expects 0 or more, got {args.offset}")
    log = AuditLog(path)
    entries = log.read(limit=args.limit, tool=args.tool, behavior=args.behavior,
                       since=args.since, kind=args.kind, newest_first=not args.oldest_first,
                       offset=args.offset, user=args.user, outcome=args.outcome,
                       agent=args.agent)
    for e in entries:
        print(json.dumps(e, ensure_ascii=False) if args.json else _audit_line(e))
    if log.skipped:
        print(f"agenttools: {log.skipped} corrupt line(s) skipped in {path}", file=sys.stderr)
    return 0


# --- hook ------------------------------------------------------------------------------------


def _cmd_hook(args: argparse.Namespace) -> int:
    """Answer one hook call; fail closed (each agent's way) on any problem, never a traceback.

    The agent starts one process per tool call, and this call is its whole life: the cyclic
    garbage collector only costs time here (its passes over the modules being imported, and the
    collections at interpreter exit, which skip frozen objects): about a fifth of the call's own
    CPU time. In a longer-lived caller the objects alive now are only never collected."""
    gc.disable()
    try:
        return _answer_hook(args)
    finally:
        gc.freeze()
        gc.enable()


def _answer_hook(args: argparse.Namespace) -> int:
    from .hooks import agent_module
    from .hooks.common import HookAnswer, decide, read_payload, record_refusal

    module = agent_module(args.agent)
    request = None
    try:
        payload = read_payload()
        request = module.parse(payload)
        if request is None:  # another event than the pre-tool one: nothing to decide
            event = payload.get("hook_event_name")
            print(f"agenttools hook {args.agent}: the {event!r} event is not decided here "
                  f"(configure this hook for {module.EVENT})", file=sys.stderr)
            answer = HookAnswer(None, "not a pre-tool event")
        else:
            answer = decide(request, project=args.project, mode=args.mode)
        if args.agent == "claude-code":
            out, code = module.render(answer)
        else:
            out, code = module.render(answer, on_ask=args.on_ask)
    except Exception as exc:  # bad input, corrupt settings, a bug: the answer stays fail-closed
        message = str(exc) if isinstance(exc, (ValueError, AgentToolsError, OSError)) \
            else f"{type(exc).__name__}: {exc}"
        print(f"agenttools could not decide this call: {message} (hook format: "
              f"{module.DOCS})", file=sys.stderr)
        out, code, behavior = module.render_bad_input(message)
        record_refusal(request, args.project, behavior, message, agent=module.AGENT)
    if out:
        sys.stdout.write(out + "\n")
        sys.stdout.flush()
    return code


# --- parser ----------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="agenttools",
                                description="Inspect and configure the agenttools permission "
                                            "engine.")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="{check,settings,audit,hook}")

    c = sub.add_parser("check", help="decide a tool call and show why",
                       description="Decide one call (a Bash command after --, or --tool/--input)"
                                   " or every line of a JSONL file. One argument after -- is a "
                                   "shell command line; several are an argv (quoted for you). "
                                   "Exit status of one call: 0 ALLOW, 1 ASK, 3 DENY, 2 a usage "
                                   "error (bad option or input, a mode the managed settings "
                                   "forbid). --project DIR applies that project's settings as "
                                   "they are trusted (see agenttools trust).")
    c.add_argument("--mode", choices=_MODES,
                   help="default: the project's mode with --project, else default")
    c.add_argument("--allow", action="append", metavar="RULE")
    c.add_argument("--ask", action="append", metavar="RULE")
    c.add_argument("--deny", action="append", metavar="RULE")
    c.add_argument("--cwd", metavar="DIR", help="where relative paths resolve")
    c.add_argument("--working-dir", action="append", metavar="DIR",
                   help="an extra working directory (repeatable)")
    c.add_argument("--project", metavar="DIR",
                   help="also apply that project's settings layers")
    c.add_argument("--tool", help="a built-in tool name (default Bash) or module:attr")
    c.add_argument("--input", metavar="JSON", help="the tool input as a JSON object")
    c.add_argument("--json", action="store_true", help="one JSON object instead of text")
    c.add_argument("--jsonl", metavar="FILE", help="one input per line; - for stdin")
    c.add_argument("--bench", type=int, metavar="N",
                   help="with --jsonl: time every line N times, print the figures")
    c.add_argument("command", nargs="*", help="the Bash command (after --)")
    c.set_defaults(func=_cmd_check)

    s = sub.add_parser("settings", help="show or change the layered settings")
    s.add_argument("--project", metavar="DIR", help="project root (default: current directory)")
    s.add_argument("--user-dir", metavar="DIR", help="user settings folder")
    s.add_argument("--managed", metavar="FILE", help="managed settings file")
    s.add_argument("--json", action="store_true")
    ssub = s.add_subparsers(dest="action", metavar="{show,add,remove,mode}")
    ssub.add_parser("show", help="merged settings, each rule with its file")
    for name in ("add", "remove"):
        a = ssub.add_parser(name, help=f"{name} a rule in a layer")
        a.add_argument("--layer", required=True, choices=("local", "project", "user"))
        a.add_argument("--behavior", required=True, choices=("allow", "ask", "deny"))
        a.add_argument("rule", help='e.g. "Bash(git status:*)"')
        if name == "add":
            a.add_argument("--example", action="append", metavar="INPUT",
                           help="an input the rule must match (repeatable)")
            a.add_argument("--counter-example", action="append", metavar="INPUT",
                           help="an input the rule must not match (repeatable)")
    m = ssub.add_parser("mode", help="set a layer's mode (none clears it)")
    m.add_argument("--layer", required=True, choices=("local", "project", "user"))
    m.add_argument("mode", choices=(*_MODES, "none"))
    s.set_defaults(func=_cmd_settings)

    t = sub.add_parser("trust", help="trust a project's settings (its allow rules, mode and "
                                     "additional directories count only then)",
                       description="A project's .agenttools/settings.json and settings.local."
                                   "json may always add deny and ask rules; their allow rules, "
                                   "mode and additional_directories take effect once you trust "
                                   "the folder. Trust is recorded in your user settings with a "
                                   "hash: a changed file asks again.")
    t.add_argument("dir", nargs="?", help="the project folder (default: current directory)")
    t.add_argument("--revoke", action="store_true", help="forget the trust")
    t.add_argument("--show", action="store_true", help="show the trust, change nothing")
    t.add_argument("--user-dir", metavar="DIR", help="user settings folder")
    t.add_argument("--managed", metavar="FILE", help="managed settings file")
    t.add_argument("--json", action="store_true")
    t.set_defaults(func=_cmd_trust)

    a = sub.add_parser("audit", help="show the audit log, newest first")
    a.add_argument("--project", metavar="DIR", help="project root (default: current directory)")
    a.add_argument("--file", metavar="FILE", help="an audit.jsonl file")
    a.add_argument("--tool")
    a.add_argument("--behavior", choices=("allow", "ask", "deny"))
    a.add_argument("--kind", choices=("decision", "answer", "outcome"))
    a.add_argument("--user", help="records of this user (JUPYTERHUB_USER or OS user)")
    a.add_argument("--agent", help="records from this agent: agenttools, claude-code, codex, "
                                   "gemini-cli")
    a.add_argument("--outcome", choices=("success", "error", "interrupted", "denied"),
                   help="outcome records (after execution) in this state")
    a.add_argument("--since", metavar="TIME", help="ISO 8601, e.g. 2026-01-31T12:00:00Z")
    a.add_argument("--limit", type=int, default=20, metavar="N",
                   help="at most N records, the newest (default 20)")
    a.add_argument("--offset", type=int, default=0, metavar="N",
                   help="skip the N newest matching records")
    a.add_argument("--oldest-first", action="store_true")
    a.add_argument("--json", action="store_true", help="JSON lines")
    a.set_defaults(func=_cmd_audit)

    h = sub.add_parser(
        "hook", help="answer another agent's pre-tool hook (JSON on stdin)",
        description="Decide a tool call of Claude Code (PreToolUse), Codex (PreToolUse) or "
                    "Gemini CLI (BeforeTool) with this project's rules and modes, answer in "
                    "the agent's documented format, and write the decision to the audit log.")
    h.add_argument("agent", choices=sorted(HOOK_AGENTS))
    h.add_argument("--project", metavar="DIR",
                   help="whose settings decide (default: the nearest folder at or above the "
                        "call's cwd that has .agenttools/, else .git, else the cwd)")
    h.add_argument("--mode", choices=_MODES, help="default: the project's mode")
    h.add_argument("--on-ask", choices=("deny", "defer"), default="deny",
                   help="codex and gemini-cli cannot ask from their hook: deny (default) or "
                        "leave the call to the agent's own approval policy")
    h.set_defaults(func=_cmd_hook)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except CLIError as exc:
        print(f"agenttools: error: {exc}", file=sys.stderr)
    except BrokenPipeError:  # `agenttools audit | head`
        return 0
    except _ERRORS as exc:
        print(f"agenttools: error: {exc}", file=sys.stderr)
    except KeyboardInterrupt:
        print("agenttools: interrupted", file=sys.stderr)
        return 130
    return 2


if __name__ == "__main__":
    sys.exit(main())
