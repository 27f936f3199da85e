"""``%agent`` (line, with sub-commands) and ``%%agent`` (cell: the body is the prompt).

Each sub-command has its own ``magic_arguments`` parser (the ``_sub_*`` functions below); the
``%agent?`` help is assembled from their generated usage. Misuse raises IPython's UsageError,
which IPython shows without a traceback.
"""

from __future__ import annotations

import html
import json
import re
import shlex
from typing import Any, Callable

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments
from IPython.display import display

from ..errors import AgentToolsError
from ..errors import UsageError as CoreUsageError
from .config import MODES

__all__ = [
    "AgentMagics",
    "DecisionReport",
    "Table",
    "make_agent_tool",
    "install_transformer",
    "remove_transformer",
]

LAYERS = ("local", "project", "user")


# --- the sub-command parsers (their docstrings become the help) ------------------------------


@magic_arguments("agent mode")
@argument("mode", nargs="?", help=f"new mode: {', '.join(MODES)}; omit to show the current one")
def _sub_mode(line):
    """Show or set the permission mode of this kernel."""


@magic_arguments("agent rule")
@argument("behavior", choices=("allow", "ask", "deny"))
@argument("rule", help='rule text, e.g. "Bash(git status:*)" (quote it)')
@argument("--layer", choices=LAYERS, default=None,
          help="settings file to write it to; omitted: this kernel only")
@argument("--remove", action="store_true", help="remove the rule instead of adding it")
def _sub_rule(line):
    """Add a rule."""


@magic_arguments("agent rules")
def _sub_rules(line):
    """Every rule in force, with the file it comes from."""


@magic_arguments("agent tool")
@argument("name", help="a function in the user namespace")
@argument("--group", default="basic")
@argument("--read-only", action="store_true", help="never changes anything (no question)")
@argument("--concurrency-safe", action="store_true", help="may run alongside other calls")
def _sub_tool(line):
    """Register a function."""


@magic_arguments("agent group")
@argument("name")
@argument("--description", required=True)
@argument("--instructions", default=None)
@argument("--active", action="store_true", help="active from the start")
def _sub_group(line):
    """Add a group."""


@magic_arguments("agent skill")
@argument("path", help="a skill folder (with SKILL.md) or a folder of skills")
@argument("--scan", action="store_true", help="load every skill in the sub-folders")
def _sub_skill(line):
    """Add skills."""


@magic_arguments("agent mcp")
@argument("name")
@argument("--url", default=None, help="streamable-HTTP server URL")
@argument("--group", default="basic")
@argument("command", nargs="*", help="after --: the stdio server's command and arguments")
def _sub_mcp(line):
    """COMMAND ARGS... | %agent mcp NAME --url URL -- connect an MCP server."""


@magic_arguments("agent model")
@argument("spec", nargs="?", help="a spec such as openai:gpt-4.1-mini, or a variable name")
def _sub_model(line):
    """Show or set the model of the next runs."""


@magic_arguments("agent backend")
@argument("kind", nargs="?", choices=("local", "kernel", "remote"))
@argument("--kernel-name", default="python3", help="remote: kernelspec to start")
@argument("--url", default=None, help="remote: Jupyter Server URL")
@argument("--token", default=None, help="remote: Jupyter Server token")
def _sub_backend(line):
    """%agent backend [local|kernel|remote [--kernel-name K] [--url URL --token T]]."""


@magic_arguments("agent check")
@argument("--tool", default="Bash")
@argument("--mode", default=None, choices=MODES)
@argument("command", nargs="*", help="the command (or the tool's main argument, or JSON)")
def _sub_check(line):
    """The decision with its six-step trace."""


@magic_arguments("agent pending")
def _sub_pending(line):
    """Open questions of every run."""


@magic_arguments("agent answer")
@argument("id")
@argument("choice", choices=("allow_once", "always", "deny"))
@argument("--rule", default=None, help="always: the rule to save (default: first suggestion)")
@argument("--message", default=None, help="deny: a message to the model")
def _sub_answer(line):
    """%agent answer ID allow_once|always|deny [--rule R] [--message M]."""


@magic_arguments("agent audit")
@argument("n", nargs="?", type=int, default=10)
def _sub_audit(line):
    """The last N audit records."""


@magic_arguments("agent cancel")
@argument("name", nargs="?", help="variable holding the run; omitted: every running run")
def _sub_cancel(line):
    """Cancel runs."""


@magic_arguments("agent sandbox")
@argument("state", nargs="?", choices=("on", "off", "status"), default="status")
@argument("--network", choices=("on", "off"), default=None,
          help="let sandboxed commands reach the network (off: a namespace with loopback only)")
def _sub_sandbox(line):
    """Run Bash in bubblewrap (on), not (off), or show what is in force (status)."""


@magic_arguments("%agent")
@argument("--mode", default=None, choices=MODES, help="mode for this run only")
@argument("--model", default=None, help="model spec or variable for this run")
@argument("--as", dest="name", default=None, help="variable to bind the run to")
@argument("--wait", action="store_true", help="the cell waits for the end (ipykernel >= 7.4)")
def _sub_cell(line):
    """The cell body is the prompt."""


SUBCOMMANDS: dict[str, Callable] = {
    "mode": _sub_mode, "rule": _sub_rule, "rules": _sub_rules, "tool": _sub_tool,
    "group": _sub_group, "skill": _sub_skill, "mcp": _sub_mcp, "model": _sub_model,
    "backend": _sub_backend, "check": _sub_check, "pending": _sub_pending,
    "answer": _sub_answer, "audit": _sub_audit, "cancel": _sub_cancel,
    "sandbox": _sub_sandbox,
}


def _parse(func: Callable, line: str) -> Any:
    # shell-like quoting: `"Bash(git status:*)"` arrives without its quotes (IPython's own
    # parse_argstring keeps them)
    try:
        argv = shlex.split(line)
    except ValueError as exc:
        raise UsageError(f"cannot split the arguments ({exc}): {line!r}") from None
    return func.parser.parse_args(argv)


# --- plain displayable results ----------------------------------------------------------------


class Table:
    """Rows shown as an HTML table and as aligned text (the form nbval compares)."""

    def __init__(self, headers: list[str], rows: list[list[Any]], title: str = ""):
        self.headers = headers
        self.rows = [["" if c is None else str(c) for c in r] for r in rows]
        self.title = title

    def __len__(self) -> int:
        return len(self.rows)

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(h)}</th>" for h in self.headers)
        body = "".join("<tr>" + "".join(f"<td><code>{html.escape(c)}</code></td>" for c in r)
                       + "</tr>" for r in self.rows)
        cap = f"<caption>{html.escape(self.title)}</caption>" if self.title else ""
        return f'<table class="agenttools-table">{cap}<tr>{head}</tr>{body}</table>'

    def __repr__(self) -> str:
        if not self.rows:
            return (self.title + ": " if self.title else "") + "(none)"
        widths = [max(len(h), *(len(r[i]) for r in self.rows)) for i, h in enumerate(self.headers)]
        lines = [self.title] if self.title else []
        lines.append("  ".join(h.ljust(w) for h, w in zip(self.headers, widths)).rstrip())
        for r in self.rows:
            lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        return "\n".join(lines)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(repr(self))


class DecisionReport:
    """A PermissionDecision with its six-step trace, as HTML and as text."""

    def __init__(self, tool_name: str, summary: str, mode: str, decision: Any):
        self.tool_name = tool_name
        self.summary = summary
        self.mode = mode
        self.decision = decision

    @property
    def behavior(self) -> str:
        return str(self.decision.behavior)

    def _verdict(self) -> str:
        d = self.decision
        v = str(d.behavior).upper()
        if getattr(d, "bypass_immune", False):
            v += " (safety: allow rules cannot silence this)"
        return v

    def _facts(self) -> list[tuple[str, str]]:
        d = self.decision
        facts = [("reason", d.reason or d.message or "")]
        if d.step:
            facts.append(("decided by", d.step))
        if d.rule is not None:
            facts.append(("rule", f"{d.rule.text} ({d.rule_source or d.rule.source or 'session'})"))
        if d.suggestions:
            facts.append(("suggestions", ", ".join(r.text for r in d.suggestions)))
        return facts

    def __repr__(self) -> str:
        lines = [f"{self.tool_name}: {self.summary}", f"mode {self.mode} -> {self._verdict()}"]
        lines += [f"{k}: {v}" for k, v in self._facts() if v]
        trace = list(self.decision.trace or ())
        if trace:
            w = max(len(t.step) for t in trace)
            ow = max(len(str(t.outcome)) for t in trace)
            for i, t in enumerate(trace, 1):
                lines.append(f"  {i} {t.step.ljust(w)}  {str(t.outcome).ljust(ow)}  {t.detail}"
                             .rstrip())
        return "\n".join(lines)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(repr(self))

    def _repr_html_(self) -> str:
        e = html.escape
        colour = {"allow": "green", "deny": "#c00"}.get(self.behavior, "#b60")
        out = [f'<div class="agenttools-decision"><div><b>{e(self.tool_name)}</b>: '
               f"<code>{e(self.summary)}</code></div>",
               f'<div>mode <code>{e(self.mode)}</code> → '
               f'<b style="color:{colour}">{e(self._verdict())}</b></div>']
        out += [f"<div>{e(k)}: {e(v)}</div>" for k, v in self._facts() if v]
        rows = "".join(f"<tr><td>{i}</td><td>{e(t.step)}</td><td>{e(str(t.outcome))}</td>"
                       f"<td>{e(t.detail)}</td></tr>"
                       for i, t in enumerate(self.decision.trace or (), 1))
        if rows:
            out.append("<table><tr><th>#</th><th>step</th><th>outcome</th><th>detail</th></tr>"
                       f"{rows}</table>")
        out.append("</div>")
        return "".join(out)


# --- @agent_tool ---------------------------------------------------------------------------------


def make_agent_tool(session: Any) -> Callable:
    """The ``@agent_tool`` decorator bound to a session: bare or with arguments; it registers
    the function in the kernel's toolkit and returns the function unchanged."""

    def agent_tool(func: Callable | None = None, *, name: str | None = None,
                   description: str | None = None, group: str = "basic",
                   read_only: bool = False, concurrency_safe: bool = True) -> Any:
        def register(f: Callable) -> Callable:
            from ..tools.function import FunctionTool

            tool = FunctionTool(f, name=name, description=description, read_only=read_only,
                                concurrency_safe=concurrency_safe)
            if session.toolkit.find_tool(tool.name) is not None:
                session.toolkit.remove_tool(tool.name)  # re-running the cell redefines it
            session.toolkit.add_tool(tool, group=group)
            return f

        if func is not None:
            return register(func)
        return register

    agent_tool._agenttools = True  # type: ignore[attr-defined]
    return agent_tool


# --- the magics -----------------------------------------------------------------------------------


@magics_class
class AgentMagics(Magics):
    def __init__(self, shell: Any = None, session: Any = None, **kwargs: Any):
        super().__init__(shell, **kwargs)
        self.session = session

    @line_cell_magic
    def agent(self, line: str, cell: str | None = None) -> Any:
        try:
            if cell is None:
                return self._line(line)
            return self._cell(line, cell)
        except CoreUsageError as exc:
            raise UsageError(str(exc)) from None

    # -- line form -------------------------------------------------------------------------
    def _line(self, line: str) -> Any:
        word, _, rest = line.strip().partition(" ")
        if not word:
            raise UsageError("expected a sub-command (" + ", ".join(SUBCOMMANDS)
                             + "); see %agent? — the prompt goes in a %%agent cell")
        if word not in SUBCOMMANDS:
            raise UsageError(f"unknown sub-command {word!r}; expected one of: "
                             + ", ".join(SUBCOMMANDS) + " (see %agent?)")
        return getattr(self, f"_do_{word}")(rest.strip())

    def _do_mode(self, rest: str) -> Any:
        args = _parse(_sub_mode, rest)
        s = self.session
        if args.mode:
            try:
                from ..permission.types import PermissionMode

                mode = PermissionMode.parse(args.mode).value
            except ValueError as exc:
                raise UsageError(str(exc)) from None
            s.config.mode = mode  # the observer sets the engine's mode
            s.engine.mode = mode
        print(f"mode: {s.engine.mode}")

    def _do_rule(self, rest: str) -> None:
        args = _parse(_sub_rule, rest)
        from ..permission.types import PermissionRule

        try:
            rule = PermissionRule.parse(args.rule, args.behavior,
                                        source=None if args.layer else "session")
        except AgentToolsError as exc:
            raise UsageError(str(exc)) from None
        engine = self.session.engine
        try:
            if args.remove:
                engine.remove_rule(rule, layer=args.layer)
            else:
                engine.add_rule(rule, layer=args.layer)
        except AgentToolsError as exc:
            raise UsageError(str(exc)) from None
        where = (self.session.display_path(self.session.settings.path(args.layer))
                 if args.layer else "this kernel only")
        verb = "removed" if args.remove else "added"
        print(f"{verb} {args.behavior} rule {rule.text} ({where})")

    def _do_rules(self, rest: str) -> Table:
        _parse(_sub_rules, rest)
        s = self.session
        order = {"deny": 0, "ask": 1, "allow": 2}
        rules = sorted(s.engine.rules, key=lambda r: order.get(str(r.behavior), 3))
        rows = [[str(r.behavior), r.text, _source(s, r.source)] for r in rules]
        return Table(["behavior", "rule", "source"], rows, title=f"rules (mode {s.engine.mode})")

    def _do_tool(self, rest: str) -> None:
        args = _parse(_sub_tool, rest)
        func = self.shell.user_ns.get(args.name)
        if func is None or not callable(func):
            raise UsageError(f"expected the name of a function in the notebook, got {args.name!r}")
        try:
            make_agent_tool(self.session)(
                func, group=args.group, read_only=args.read_only,
                concurrency_safe=args.concurrency_safe)
        except AgentToolsError as exc:
            raise UsageError(str(exc)) from None
        print(f"tool {getattr(func, '__name__', args.name)} registered (group {args.group})")

    def _do_group(self, rest: str) -> None:
        args = _parse(_sub_group, rest)
        from ..tools.toolkit import ToolGroup

        try:
            self.session.toolkit.add_group(ToolGroup(args.name, args.description,
                                                     instructions=args.instructions,
                                                     active=args.active))
        except AgentToolsError as exc:
            raise UsageError(str(exc)) from None
        print(f"group {args.name} added ({'active' if args.active else 'inactive'})")

    def _do_skill(self, rest: str) -> None:
        args = _parse(_sub_skill, rest)
        try:
            skills = self.session.toolkit.add_skill(args.path, scan_subfolders=args.scan)
        except (AgentToolsError, OSError) as exc:
            raise UsageError(str(exc)) from None
        names = [getattr(k, "name", str(k)) for k in (skills or [])]
        print("skills added: " + (", ".join(names) if names else args.path))

    def _do_mcp(self, rest: str) -> Any:
        args = _parse(_sub_mcp, rest)
        if bool(args.url) == bool(args.command):
            raise UsageError("expected either `%agent mcp NAME -- COMMAND ARGS...` or "
                             "`%agent mcp NAME --url URL`")
        from ..tools.mcp import MCPServer

        command = args.command[0] if args.command else None
        server = MCPServer(args.name, command=command, args=tuple(args.command[1:]),
                           url=args.url)
        from .widgets import StatusLine

        status = StatusLine(f"MCP {html.escape(args.name)}: connecting…")
        display(status)

        async def connect() -> None:
            try:
                tools = await self.session.toolkit.add_mcp(server, group=args.group)
            except Exception as exc:
                status.value = f"MCP {html.escape(args.name)}: failed: {html.escape(str(exc))}"
                raise
            names = [t.name for t in tools or ()]
            status.value = (f"MCP {html.escape(args.name)}: connected, "
                            f"{len(names)} tools: {html.escape(', '.join(names))}")

        self.session.spawn(connect())

    def _do_model(self, rest: str) -> None:
        args = _parse(_sub_model, rest)
        s = self.session
        if args.spec:
            model = s.resolve_model(args.spec)
            s.model = model
        current = s.model if s.model is not None else (s.config.model or None)
        print(f"model: {_model_name(current)}")

    def _do_backend(self, rest: str) -> None:
        args = _parse(_sub_backend, rest)
        s = self.session
        if args.kind in ("local", "kernel"):
            if s.config.backend != args.kind:
                s.config.backend = args.kind  # the observer swaps the built-in tools
            else:
                s.set_backend(s._make_backend(args.kind))
        elif args.kind == "remote":
            self._start_remote(args)
            return
        print(f"backend: {type(s.backend).__name__}")

    def _do_sandbox(self, rest: str) -> Table:
        args = _parse(_sub_sandbox, rest)
        s = self.session
        override = dict(s.config.sandbox)
        if args.state in ("on", "off"):
            override["enabled"] = args.state == "on"
        if args.network:
            override["network"] = args.network == "on"
        if override != s.config.sandbox:
            previous = s.config.sandbox
            s.config.sandbox = override
            policy = s.sandbox_policy()
            for key in ("enabled", "network"):
                wanted = override.get(key)
                if wanted is not None and getattr(policy, key) != wanted:
                    s.config.sandbox = previous
                    raise UsageError(
                        f"sandbox {key} stays {str(getattr(policy, key)).lower()}: the "
                        f"{policy.sources.get(key, 'managed')} settings decide it")
        policy = s.sandbox_policy()
        status = s.sandbox.status(s.backend)
        if status.enabled and status.available is None:
            available = "checked before the first command (another kernel)"
        elif status.enabled:
            available = "yes" if status.available else f"NO: {status.reason}"
        else:
            available = "-"
        rows = [
            ["enabled", _yes(policy.enabled), policy.sources.get("enabled", "default")],
            ["available", available, type(s.backend).__name__],
            ["network", _yes(policy.network), policy.sources.get("network", "default")],
            ["required", _yes(policy.required), policy.sources.get("required", "default")],
            ["writable", ", ".join(s.sandbox.working_directories() + policy.writable),
             "working directories + settings"],
            ["hidden", ", ".join(policy.hidden) or "-", "besides ~/.ssh, ~/.aws, .env… "
                                                       "(permission/sensitive.py)"],
            ["env_allow", ", ".join(policy.env_allow) or "-", "besides PATH, HOME, LANG…"],
        ]
        return Table(["sandbox", "value", "from"], rows, title="Bash sandbox")

    def _start_remote(self, args: Any) -> None:
        """Start (or reach) the other kernel in the background; the status line says when the
        built-in tools run there (``await current_session().ready()`` waits for it)."""
        from ..backends.jupyter_kernel import JupyterKernelBackend
        from .widgets import StatusLine

        s = self.session
        where = args.url or f"a new {args.kernel_name} kernel"
        status = StatusLine(f"backend: starting {html.escape(where)}…")
        display(status)

        async def connect() -> None:
            try:
                if args.url:
                    backend = await JupyterKernelBackend.connect(
                        args.url, token=args.token, kernel_name=args.kernel_name)
                else:
                    backend = await JupyterKernelBackend.start(kernel_name=args.kernel_name)
            except Exception as exc:
                status.value = f"backend: failed: {html.escape(str(exc))}"
                raise
            s.started_backends.append(backend)
            s.set_backend(backend)
            status.value = f"backend: {type(backend).__name__} ({html.escape(where)})"

        s.spawn(connect())

    def _do_check(self, rest: str) -> DecisionReport:
        opts, command = _split_check(rest)
        args = _parse(_sub_check, opts)
        if not command:
            raise UsageError("expected a command to check: %agent check [--tool T] [--mode M] "
                             "COMMAND")
        s = self.session
        tool = s.toolkit.find_tool(args.tool)
        if tool is None:
            names = ", ".join(sorted(t.name for t in s.toolkit.tools))
            raise UsageError(f"unknown tool {args.tool!r}; tools: {names}")
        tool_input = _check_input(tool, command)
        mode = args.mode or str(s.engine.mode)
        decision = s.dry_engine(mode).decide(tool, tool_input)
        return DecisionReport(tool.name, command, mode, decision)

    def _do_pending(self, rest: str) -> Table:
        _parse(_sub_pending, rest)
        rows = []
        for ask in self.session.pending():
            d = ask.decision
            rows.append([ask.id, getattr(ask.tool, "name", ask.tool), _summary(ask),
                         "safety" if getattr(d, "bypass_immune", False) else "",
                         getattr(d, "reason", "")])
        return Table(["id", "tool", "input", "kind", "reason"], rows, title="pending questions")

    def _do_answer(self, rest: str) -> None:
        args = _parse(_sub_answer, rest)
        ask = self.session.find_ask(args.id)
        kw: dict[str, Any] = {}
        if args.rule:
            from ..permission.types import PermissionRule

            try:
                kw["rule"] = PermissionRule.parse(args.rule)
            except AgentToolsError as exc:
                raise UsageError(str(exc)) from None
        if args.message:
            kw["message"] = args.message
        try:
            ask.answer(args.choice, **kw)
        except AgentToolsError as exc:
            raise UsageError(str(exc)) from None
        panel = self._panel_of(ask)
        if panel is not None:
            panel.refresh_cards()
        print(f"answered {args.id}: {args.choice}")

    def _panel_of(self, ask: Any) -> Any:
        for run in self.session.runs:
            if ask in (getattr(run, "pending", None) or ()) or any(
                    c.ask is ask for c in getattr(self.session.panels.get(id(run)), "cards", [])):
                return self.session.panels.get(id(run))
        return None

    def _do_audit(self, rest: str) -> Table:
        args = _parse(_sub_audit, rest)
        if args.n < 1:
            raise UsageError(f"expected a positive number of records, got {args.n}")
        records = self.session.audit.read(limit=args.n)
        rows = [[r.get("time", ""), r.get("tool", ""), r.get("input", r.get("input_summary", "")),
                 r.get("mode", ""), r.get("step", ""), r.get("behavior", r.get("verdict", "")),
                 r.get("answer", "") or ""] for r in records]
        return Table(["time", "tool", "input", "mode", "step", "verdict", "answer"], rows,
                     title=f"audit (last {args.n})")

    def _do_cancel(self, rest: str) -> None:
        args = _parse(_sub_cancel, rest)
        s = self.session
        if args.name:
            run = self.shell.user_ns.get(args.name)
            if run is None or run not in s.runs:
                raise UsageError(f"{args.name!r} is not a run started by %%agent")
            runs = [run]
        else:
            runs = s.active_runs()
        for run in runs:
            run.cancel()
        print(f"cancelled {len(runs)} run(s)")

    # -- cell form -------------------------------------------------------------------------
    def _cell(self, line: str, cell: str, *, waiting: bool = False) -> Any:
        args = _parse(_sub_cell, line)
        prompt = cell.strip()
        if not prompt:
            raise UsageError("the %%agent cell is empty: write the prompt below the magic line")
        name = args.name or self.session.config.run_name
        if not name.isidentifier():
            raise UsageError(f"--as expects a variable name, got {name!r}")
        wait = args.wait or self.session.config.wait
        if wait and not waiting:
            from .extension import wait_supported

            ok, version = wait_supported()
            # Only reached when the transformer did not rewrite the cell into an await.
            print(f"--wait needs ipykernel >= 7.4 (this kernel: {version}); the run goes on in "
                  f"the background: `await {name}.wait_done()` in a later cell waits for it."
                  if not ok else "--wait: the run goes on in the background.")
        run, panel = self.session.start_run(prompt, model=args.model, mode=args.mode,
                                            title=name)
        self.shell.user_ns[name] = run
        display(panel)
        return run if waiting else None


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def _source(session: Any, source: str | None) -> str:
    if not source or source == "session":
        return "session (this kernel)"
    if "/" in source or source.endswith(".json"):
        return session.display_path(source)
    return source


def _model_name(model: Any) -> str:
    if model is None:
        return "(none)"
    if isinstance(model, str):
        return model
    return getattr(model, "name", None) or type(model).__name__


def _summary(ask: Any) -> str:
    summary = getattr(ask, "summary", None)
    if isinstance(summary, str):
        return summary
    return json.dumps(ask.input, default=str, ensure_ascii=False)


_CHECK_OPT = re.compile(r"^\s*(--(?:tool|mode)(?:=|\s+)(?:\"[^\"]*\"|'[^']*'|\S+))")


def _split_check(rest: str) -> tuple[str, str]:
    """Leading ``--tool``/``--mode`` options, then the command kept verbatim (quotes and all)."""
    opts: list[str] = []
    while True:
        m = _CHECK_OPT.match(rest)
        if not m:
            break
        opts.append(m.group(1))
        rest = rest[m.end():]
    command = rest.strip()
    # A command given as one quoted word: unquote it.
    if len(command) >= 2 and command[0] == command[-1] and command[0] in "'\"":
        try:
            parts = shlex.split(command)
        except ValueError:
            parts = []
        if len(parts) == 1:
            command = parts[0]
    return " ".join(opts), command


def _check_input(tool: Any, command: str) -> dict[str, Any]:
    if command.startswith("{"):
        try:
            value = json.loads(command)
        except ValueError as exc:
            raise UsageError(f"the tool input looks like JSON but is not: {exc}") from None
        if isinstance(value, dict):
            return value
    key = getattr(tool, "rule_argument", None)
    if not key:
        raise UsageError(f"tool {tool.name!r} takes a JSON object as input, e.g. "
                         f"%agent check --tool {tool.name} {{\"x\": 1}}")
    return {key: command}


def _build_help() -> str:
    parts = ["Drive the agent of this kernel.\n",
             "%%agent cell: the cell body is the prompt; the run's panel shows in the cell.",
             "%agent SUB-COMMAND ...: one of the forms below.",
             "@agent_tool (bare or with name=, description=, group=, read_only=,",
             "concurrency_safe=) registers a notebook function as a tool.",
             "Settings: %config AgentTools (mode, model, max_turns, output_budget, backend,",
             "project_dir, run_name, system_prompt, wait).\n"]
    for func in [_sub_cell, *SUBCOMMANDS.values()]:
        parts.append((func.__doc__ or "").strip())
        parts.append("")
    return "\n".join(parts)


AgentMagics.agent.__doc__ = _build_help()


# --- %%agent --wait: rewrite the cell into a top-level await --------------------------------------

_WAIT_CELL = re.compile(r"\A\s*%%agent\b(?P<line>[^\n]*)\n(?P<body>.*)\Z", re.S)


def _rewrite_wait(lines: list[str]) -> list[str]:
    """Turn a ``%%agent --wait`` cell into ``await ...`` so the cell awaits the run's end.

    Only on ipykernel >= 7.4, whose shell handles widget clicks while a cell awaits; elsewhere
    the cell is left alone and the magic explains the fallback."""
    text = "".join(lines)
    m = _WAIT_CELL.match(text)
    if not m:
        return lines
    line = m.group("line")
    try:
        words = shlex.split(line)
    except ValueError:
        return lines
    from .extension import current_session, wait_supported

    try:
        wait_default = current_session().config.wait
    except Exception:
        return lines
    if "--wait" not in words and not wait_default:
        return lines
    if not wait_supported()[0]:
        return lines
    call = (f"await __import__('jupyter_agenttools.jupyter.magics', fromlist=['_'])"
            f"._agent_wait({line!r}, {m.group('body')!r})\n")
    return [call]


async def _agent_wait(line: str, body: str) -> None:
    """The body of a rewritten ``%%agent --wait`` cell: start the run, await its end."""
    from .extension import current_session

    session = current_session()
    try:
        run = session.magics._cell(line, body, waiting=True)
    except CoreUsageError as exc:
        raise UsageError(str(exc)) from None
    await run.wait_done()


def install_transformer(shell: Any) -> None:
    if _rewrite_wait not in shell.input_transformers_cleanup:
        shell.input_transformers_cleanup.append(_rewrite_wait)


def remove_transformer(shell: Any) -> None:
    while _rewrite_wait in shell.input_transformers_cleanup:
        shell.input_transformers_cleanup.remove(_rewrite_wait)
