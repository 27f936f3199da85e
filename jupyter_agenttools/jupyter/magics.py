"""``%agent`` (line, with sub-commands) and ``%%agent`` (cell: the body is the prompt).

The sub-commands are the table of :mod:`.commands`; the built-in ones are registered below
with ``@subcommand`` (their one-line summary and examples make ``%agent help``). Misuse raises
IPython's UsageError, which IPython shows as one line, without a traceback.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import shlex
from typing import TYPE_CHECKING, Any, Callable

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.core.magic_arguments import magic_arguments
from IPython.display import display

from ..errors import AgentToolsError, SettingsError
from ..errors import UsageError as CoreUsageError
from . import sandbox_command  # noqa: F401  (registers %agent sandbox)
from .commands import (
    SUBCOMMANDS,
    argument,
    help_for,
    help_overview,
    parse,
    subcommand,
    unknown_subcommand,
)
from .config import MODES
from .display import DecisionReport, Table

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from .extension import AgentSession

__all__ = [
    "AgentMagics",
    "DecisionReport",
    "Table",
    "cell_parser",
    "make_agent_tool",
    "install_transformer",
    "remove_transformer",
]

LAYERS = ("local", "project", "user")


# --- the built-in sub-commands, in the order %agent help lists them --------------------------


@subcommand("status", "this kernel's mode, model, project, runs and open questions",
            examples=["%agent status"])
def _status(magics: "AgentMagics", args: Any) -> Table:
    s = magics.session
    return Table(["what", "value"], [list(r) for r in s.status_rows()], title="agent status")


@subcommand("mode", "show or set the permission mode of this kernel",
            examples=["%agent mode accept_edits", "%agent mode"],
            details="Modes: default (asks before changes), accept_edits (file edits in the "
                    "project go through), explore (read-only), bypass (everything not denied "
                    "runs, but a write of a file that runs code later is still asked), "
                    "dont_ask (unattended: questions become denials).")
@argument("mode", nargs="?", help=f"new mode: {', '.join(MODES)}; omit to show the current one")
def _mode(magics: "AgentMagics", args: Any) -> None:
    s = magics.session
    if args.mode:
        from ..permission.types import PermissionMode

        try:
            mode = PermissionMode.parse(args.mode).value
        except ValueError as exc:
            from .commands import suggest

            guess = suggest(args.mode, list(MODES))
            hint = f"; did you mean {guess!r}?" if guess else ""
            raise UsageError(f"{exc}{hint}") from None
        try:
            s.engine.check_mode(mode)  # the managed lock-down (disable_bypass_mode, …)
        except AgentToolsError as exc:
            raise UsageError(str(exc)) from None
        s.config.mode = mode  # the observer sets the engine's mode
        s.engine.mode = mode
    print(f"mode: {s.engine.mode} ({s.mode_source()})")


@subcommand("model", "show or set the model of the next runs",
            examples=["%agent model openai:gpt-4.1-mini",
                      "%agent model openai:llama3.1 --base-url http://localhost:11434/v1",
                      "%agent model openai:my-deployment --base-url "
                      "https://RESOURCE.openai.azure.com/openai/v1/ --api-key-env "
                      "AZURE_OPENAI_API_KEY",
                      "%agent model litellm:anthropic/claude-sonnet-4-5",
                      "%agent model my_model_variable"],
            details="openai:NAME works with every OpenAI-compatible server. Without "
                    "--base-url it calls api.openai.com with OPENAI_API_KEY (or "
                    "OPENAI_BASE_URL if set); a local server (vLLM, Ollama, LM Studio) needs no "
                    "key. litellm:PROVIDER/MODEL reaches any LiteLLM model (pip install "
                    "'jupyter-agenttools[litellm]'; keys from the provider's variable, e.g. "
                    "ANTHROPIC_API_KEY). The same settings as traits: %config AgentTools.model, "
                    "AgentTools.base_url, AgentTools.api_key_env.")
@argument("spec", nargs="?",
          help="openai:NAME, litellm:PROVIDER/MODEL, 'scripted', or the name of a variable "
               "holding a model object")
@argument("--base-url", default=None, help="the server's OpenAI-compatible URL (…/v1)")
@argument("--api-key-env", default=None,
          help="environment variable holding the API key (default OPENAI_API_KEY)")
def _model(magics: "AgentMagics", args: Any) -> None:
    s = magics.session
    if args.spec:
        s.set_model(args.spec, base_url=args.base_url, api_key_env=args.api_key_env)
    elif args.base_url or args.api_key_env:
        raise UsageError("--base-url and --api-key-env go with a model: "
                         "%agent model openai:NAME --base-url URL")
    print(f"model: {s.model_label()}")


@subcommand("rule", "add or remove an allow / ask / deny rule",
            examples=['%agent rule allow "Bash(git status:*)"',
                      '%agent rule deny "Bash(git push:*)" --layer project',
                      '%agent rule allow "Read(src/**)" --remove'])
@argument("behavior", choices=("allow", "ask", "deny"))
@argument("rule", help='rule text, e.g. "Bash(git status:*)" (quote it)')
@argument("--layer", choices=LAYERS, default=None,
          help="settings file to write it to; omitted: this kernel only")
@argument("--remove", action="store_true", help="remove the rule instead of adding it")
def _rule(magics: "AgentMagics", args: Any) -> None:
    from ..permission.types import PermissionRule

    try:
        rule = PermissionRule.parse(args.rule, args.behavior,
                                    source=None if args.layer else "session")
    except AgentToolsError as exc:
        raise UsageError(str(exc)) from None
    session = magics.session
    engine = session.engine
    try:
        if args.remove:
            engine.remove_rule(rule, layer=args.layer)
        else:
            engine.add_rule(rule, layer=args.layer)
    except AgentToolsError as exc:
        raise UsageError(str(exc)) from None
    where = (session.display_path(session.settings.path(args.layer))
             if args.layer else "this kernel only")
    verb = "removed" if args.remove else "added"
    session.publish_state()
    print(f"{verb} {args.behavior} rule {rule.text} ({where})")


@subcommand("rules", "every rule in force, with the file it comes from",
            examples=["%agent rules"])
def _rules(magics: "AgentMagics", args: Any) -> Table:
    s = magics.session
    order = {"deny": 0, "ask": 1, "allow": 2}
    rules = sorted(s.engine.rules, key=lambda r: order.get(str(r.behavior), 3))
    rows = [[str(r.behavior), r.text, _source(s, r.source)] for r in rules]
    merged = s.settings.merged
    for item in merged.ignored:  # held back (untrusted project, lock-down): shown, not hidden
        value = item["value"] if isinstance(item["value"], str) else json.dumps(item["value"])
        rows.append([f"{item['key']} (ignored)", value,
                     f"{_source(s, item['file'])}: {item['why']}"])
    title = f"rules (mode {s.engine.mode})"
    if merged.trust is not None and merged.trust.needed and not merged.trust.trusted:
        title += " — project settings not trusted: %agent trust"
    return Table(["behavior", "rule", "source"], rows, title=title)


@subcommand("trust", "trust this project's settings files (their allow rules, mode and "
                     "directories count only then)",
            examples=["%agent trust", "%agent trust --show", "%agent trust --revoke"],
            details="A project's .agenttools/settings.json and settings.local.json may always "
                    "add deny and ask rules; their allow rules, mode and "
                    "additional_directories take effect once you trust the folder. The trust "
                    "is kept in your user settings with a hash of those parts: a change asks "
                    "again (your own 'Always allow' answers keep it).")
@argument("--show", action="store_true", help="show the trust, change nothing")
@argument("--revoke", action="store_true", help="forget the trust of this project")
def _trust(magics: "AgentMagics", args: Any) -> Table:
    s = magics.session
    before = s.settings.load()
    held = [i for i in before.ignored if i["layer"] in ("project", "local")
            and "trust" in i["why"]]
    if args.revoke:
        state = s.settings.set_trust(False)
    elif args.show:
        state = s.settings.current_trust()
    else:
        state = s.settings.set_trust(True)
    s.settings.reload_if_changed()
    s.publish_state()
    verb = "shown" if args.show else ("no longer trusted" if args.revoke else "trusted")
    rows = [["project", state.project], ["trusted", "yes" if state.trusted else "no"],
            ["why", state.explain()]]
    if not args.show and not args.revoke:
        rows += [["now in force", f"{i['layer']} {i['key']}: {i['value']}"] for i in held]
    elif not state.trusted:
        changes = state.changes()
        if changes is None:
            rows.append(["changed", "what changed is not known (trusted without a copy of "
                                    "the settings, by an earlier version)"])
        rows += [["changed", f"{c['text']} ({c['file']})"] for c in changes or ()]
        rows += [["ignored", f"{i['layer']} {i['key']}: {i['value']}"] for i in held]
    return Table(["what", "value"], rows, title=f"project trust ({verb})")


@subcommand("check", "what the engine would decide, with its six-step trace (runs nothing)",
            raw=True, usage="%agent check [--tool TOOL] [--mode MODE] COMMAND",
            examples=["%agent check git push origin main",
                      "%agent check --tool Read ~/.ssh/id_rsa",
                      "%agent check --mode dont_ask pip install requests"])
def _check(magics: "AgentMagics", rest: str) -> DecisionReport:
    opts, command = _split_check(rest)
    args = _check_parser().parse_args(shlex.split(opts))
    if not command:
        raise UsageError("expected a command to check: %agent check [--tool T] [--mode M] "
                         "COMMAND")
    s = magics.session
    tool = s.toolkit.find_tool(args.tool)
    if tool is None:
        from .commands import suggest

        names = sorted(t.name for t in s.toolkit.tools)
        guess = suggest(args.tool, names)
        hint = f"did you mean {guess}? " if guess else ""
        raise UsageError(f"unknown tool {args.tool!r}; {hint}tools: {', '.join(names)}")
    tool_input = _check_input(tool, command)
    mode = args.mode or str(s.engine.mode)
    decision = s.dry_engine(mode).decide(tool, tool_input)
    return DecisionReport(tool.name, command, mode, decision)


@subcommand("pending", "open questions of every run", examples=["%agent pending"])
def _pending(magics: "AgentMagics", args: Any) -> Table:
    from .explain import plain_reason

    rows = []
    for ask in magics.session.pending():
        d = ask.decision
        rows.append([ask.id, getattr(ask.tool, "name", ask.tool), _summary(ask),
                     "safety" if getattr(d, "bypass_immune", False) else "",
                     " ".join(part for part in (plain_reason(d, str(magics.session.engine.mode)),
                                                magics.session.untrusted_hint(ask)) if part)])
    return Table(["id", "tool", "input", "kind", "why"], rows, title="pending questions")


@subcommand("answer", "answer a question from code, as its card's buttons do",
            examples=["%agent answer ask-1 allow_once", "%agent answer ask-2 always",
                      '%agent answer ask-3 deny --message "use the tests folder"'])
@argument("id")
@argument("choice", choices=("allow_once", "allow_session", "always", "deny"))
@argument("--rule", default=None,
          help="allow_session/always: the rule to keep (default: the first suggestion)")
@argument("--message", default=None, help="deny: a message to the model")
def _answer(magics: "AgentMagics", args: Any) -> None:
    session = magics.session
    ask = session.find_ask(args.id)
    if getattr(ask, "answered", False) or getattr(ask, "closed", False):
        state = f"answered: {ask.choice}" if ask.answered else "closed (its run ended)"
        print(f"{args.id} was already {state}; nothing changed")
        return
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
    panel = session.panel_of(ask)
    if panel is not None:
        panel.refresh_cards()
    print(f"answered {args.id}: {args.choice}")


@subcommand("cancel", "stop runs (their tool processes are killed)",
            examples=["%agent cancel", "%agent cancel agent_run"])
@argument("name", nargs="?", help="variable holding the run; omitted: every running run")
def _cancel(magics: "AgentMagics", args: Any) -> None:
    s = magics.session
    if args.name:
        run = magics.shell.user_ns.get(args.name)
        if run is None or run not in s.runs:
            raise UsageError(f"{args.name!r} is not a run started by %%agent")
        runs = [run]
    else:
        runs = s.active_runs()
    for run in runs:
        run.cancel()
    print(f"cancelled {len(runs)} run(s)")


@subcommand("reset", "start a fresh conversation (the next %%agent forgets the earlier ones)",
            examples=["%agent reset"])
def _reset(magics: "AgentMagics", args: Any) -> None:
    forgotten = magics.session.reset_conversation()
    print(f"fresh conversation: {forgotten} earlier prompt(s) forgotten" if forgotten else
          "fresh conversation (there was none to forget)")


@subcommand("audit", "the last N permission decisions and answers",
            examples=["%agent audit", "%agent audit 30"])
@argument("n", nargs="?", type=int, default=10)
def _audit(magics: "AgentMagics", args: Any) -> Table:
    if args.n < 1:
        raise UsageError(f"expected a positive number of records, got {args.n}")
    records = magics.session.audit.read(limit=args.n)
    rows = [[r.get("time", ""), r.get("tool", ""), r.get("input", r.get("input_summary", "")),
             _audit_verdict(r), r.get("answer", "") or "", r.get("mode", ""),
             r.get("rule") or r.get("step", ""), r.get("agent", "")] for r in records]
    return Table(["time", "tool", "input", "verdict", "answer", "mode", "by", "agent"], rows,
                 title=f"audit (last {args.n})",
                 html_short={"time": lambda t: t[11:19] or t})  # time of day, UTC


def _audit_verdict(record: dict[str, Any]) -> str:
    """A decision's or answer's verdict, or what came of the call (``kind`` outcome)."""
    if record.get("kind") == "outcome":
        code = record.get("exit_code")
        return f"ran: {record.get('state', '?')}" + (f" (exit {code})" if code else "")
    return str(record.get("behavior") or record.get("verdict") or "")


@subcommand("tool", "make a notebook function a tool (or use @agent_tool)",
            examples=["%agent tool my_function --read-only"])
@argument("name", help="a function in the user namespace")
@argument("--group", default="basic")
@argument("--read-only", action="store_true", help="never changes anything (no question)")
@argument("--concurrency-safe", action="store_true", help="may run alongside other calls")
def _tool(magics: "AgentMagics", args: Any) -> None:
    func = magics.shell.user_ns.get(args.name)
    if func is None or not callable(func):
        raise UsageError(f"expected the name of a function in the notebook, got {args.name!r}")
    try:
        make_agent_tool(magics.session)(
            func, group=args.group, read_only=args.read_only,
            concurrency_safe=args.concurrency_safe)
    except AgentToolsError as exc:
        raise UsageError(str(exc)) from None
    print(f"tool {getattr(func, '__name__', args.name)} registered (group {args.group})")


@subcommand("group", "add a tool group (inactive until the model switches it on)",
            examples=['%agent group data --description "Tools for tables"'])
@argument("name")
@argument("--description", required=True)
@argument("--instructions", default=None)
@argument("--active", action="store_true", help="active from the start")
def _group(magics: "AgentMagics", args: Any) -> None:
    from ..tools.toolkit import ToolGroup

    try:
        magics.session.toolkit.add_group(ToolGroup(args.name, args.description,
                                                   instructions=args.instructions,
                                                   active=args.active))
    except AgentToolsError as exc:
        raise UsageError(str(exc)) from None
    print(f"group {args.name} added ({'active' if args.active else 'inactive'})")


@subcommand("skill", "add skills (folders with a SKILL.md)",
            examples=["%agent skill skills --scan"])
@argument("path", help="a skill folder (with SKILL.md) or a folder of skills")
@argument("--scan", action="store_true", help="load every skill in the sub-folders")
def _skill(magics: "AgentMagics", args: Any) -> None:
    try:
        skills = magics.session.toolkit.add_skill(args.path, scan_subfolders=args.scan)
    except (AgentToolsError, OSError) as exc:
        raise UsageError(str(exc)) from None
    names = [getattr(k, "name", str(k)) for k in (skills or [])]
    print("skills added: " + (", ".join(names) if names else args.path))


@subcommand("mcp", "connect an MCP server (stdio command or URL)",
            examples=["%agent mcp files -- npx -y @modelcontextprotocol/server-filesystem .",
                      "%agent mcp docs --url http://localhost:8000/mcp"])
@argument("name")
@argument("--url", default=None, help="streamable-HTTP server URL")
@argument("--group", default="basic")
@argument("command", nargs="*", help="after --: the stdio server's command and arguments")
def _mcp(magics: "AgentMagics", args: Any) -> None:
    if bool(args.url) == bool(args.command):
        raise UsageError("expected either `%agent mcp NAME -- COMMAND ARGS...` or "
                         "`%agent mcp NAME --url URL`")
    from ..tools.mcp import MCPServer
    from .widgets import StatusLine

    command = args.command[0] if args.command else None
    server = MCPServer(args.name, command=command, args=tuple(args.command[1:]), url=args.url)
    status = StatusLine(f"MCP {html.escape(args.name)}: connecting…")
    display(status)
    session = magics.session

    async def connect() -> None:
        try:
            tools = await session.toolkit.add_mcp(server, group=args.group)
        except Exception as exc:
            status.value = f"MCP {html.escape(args.name)}: failed: {html.escape(str(exc))}"
            raise
        names = [t.name for t in tools or ()]
        status.value = (f"MCP {html.escape(args.name)}: connected, "
                        f"{len(names)} tools: {html.escape(', '.join(names))}")

    session.spawn(connect())


@subcommand("backend", "where the built-in tools run: this kernel, subprocesses, another kernel",
            examples=["%agent backend remote", "%agent backend kernel"])
@argument("kind", nargs="?", choices=("local", "kernel", "remote"))
@argument("--kernel-name", default="python3", help="remote: kernelspec to start")
@argument("--url", default=None, help="remote: Jupyter Server URL")
@argument("--token", default=None, help="remote: Jupyter Server token")
def _backend(magics: "AgentMagics", args: Any) -> None:
    s = magics.session
    if args.kind in ("local", "kernel"):
        if s.config.backend != args.kind:
            s.config.backend = args.kind  # the observer swaps the built-in tools
        else:
            s.set_backend(s._make_backend(args.kind))
    elif args.kind == "remote":
        _start_remote(s, args)
        return
    print(f"backend: {type(s.backend).__name__}")


@subcommand("help", "this overview; %agent help NAME for one sub-command",
            examples=["%agent help", "%agent help rule"])
@argument("name", nargs="?", help="a sub-command")
def _help(magics: "AgentMagics", args: Any) -> Any:
    return help_for(args.name) if args.name else help_overview()


def _start_remote(s: Any, args: Any) -> None:
    """Start (or reach) the other kernel in the background; the status line says when the
    built-in tools run there (``await current_session().ready()`` waits for it)."""
    from ..backends.jupyter_kernel import JupyterKernelBackend
    from .widgets import StatusLine

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


# --- the cell form --------------------------------------------------------------------------------


@magic_arguments("%agent")
@argument("--mode", default=None, choices=MODES, help="mode for this run only")
@argument("--model", default=None, help="model spec or variable for this run")
@argument("--as", dest="name", default=None, help="variable to bind the run to")
@argument("--wait", action="store_true", help="the cell waits for the end (ipykernel >= 7.4)")
def _sub_cell(line):
    """The rest of the cell is the prompt."""


def cell_parser() -> Any:
    parser = _sub_cell.parser
    parser.prog, parser.formatter_class = "%%agent", argparse.HelpFormatter
    return parser


def _check_parser() -> Any:
    return _check_options.parser


@magic_arguments("agent check")
@argument("--tool", default="Bash")
@argument("--mode", default=None, choices=MODES)
def _check_options(line):
    """Options of %agent check (the command follows them, verbatim)."""


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
    shell: InteractiveShell

    def __init__(self, shell: InteractiveShell, session: AgentSession, **kwargs: Any):
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
        except SettingsError as exc:  # one line naming the file, not a traceback
            raise UsageError(f"{exc}\nFix that file: until then the agent decides nothing "
                             "(%agent status shows what it reads).") from None

    def _line(self, line: str) -> Any:
        word, _, rest = line.strip().partition(" ")
        if not word:
            return help_overview()
        sub = SUBCOMMANDS.get(word)
        if sub is None:
            raise unknown_subcommand(word)
        rest = rest.strip()
        if rest in ("-h", "--help") or (not sub.raw and rest.endswith((" -h", " --help"))):
            return help_for(word)
        if sub.raw:
            return sub.handler(self, rest)
        return sub.handler(self, parse(sub, rest))

    def _cell(self, line: str, cell: str, *, waiting: bool = False) -> Any:
        args = _sub_cell.parser.parse_args(_split(line))
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
        panel.show()
        return run if waiting else None


def _split(line: str) -> list[str]:
    # shell-like quoting: `"Bash(git status:*)"` arrives without its quotes (IPython's own
    # parse_argstring keeps them)
    try:
        return shlex.split(line)
    except ValueError as exc:
        raise UsageError(f"cannot split the arguments ({exc}): {line!r}") from None


def _source(session: Any, source: str | None) -> str:
    if not source or source == "session":
        return "session (this kernel)"
    if "/" in source or source.endswith(".json"):
        return session.display_path(source)
    return source


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


def _docstring() -> str:
    """``%agent?``: the short overview, not every option of every sub-command."""
    return repr(help_overview())


AgentMagics.agent.__doc__ = _docstring()


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
    """The body of a rewritten ``%%agent --wait`` cell: start the run, await its end.

    Kernel ▸ Interrupt cancels this cell's coroutine (ipykernel 7); the run is then cancelled
    too (its tool processes killed) and the cell ends with one line instead of a traceback."""
    import asyncio

    from .extension import current_session

    session = current_session()
    if session.magics is None:  # loaded by load_ipython_extension, which registers them
        raise UsageError("jupyter_agenttools is not loaded: run %load_ext jupyter_agenttools")
    try:
        run = session.magics._cell(line, body, waiting=True)
    except CoreUsageError as exc:
        raise UsageError(str(exc)) from None
    try:
        await run.wait_done()
    except (asyncio.CancelledError, KeyboardInterrupt):
        from ..errors import RunInterrupted

        stopped = await session.stop_run(run, "interrupted (Kernel ▸ Interrupt)")
        raise RunInterrupted(stopped) from None


def install_transformer(shell: Any) -> None:
    if _rewrite_wait not in shell.input_transformers_cleanup:
        shell.input_transformers_cleanup.append(_rewrite_wait)


def remove_transformer(shell: Any) -> None:
    while _rewrite_wait in shell.input_transformers_cleanup:
        shell.input_transformers_cleanup.remove(_rewrite_wait)
