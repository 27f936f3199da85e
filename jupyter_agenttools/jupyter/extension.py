"""``%load_ext jupyter_agenttools``: the kernel-resident session and its load/unload.

Loading creates one :class:`AgentSession` per shell: a Toolkit with the built-in tools on a
KernelBackend (the kernel's cwd and environment), a PermissionEngine over the settings layers
of the project directory (the kernel's cwd at load time, or ``AgentTools.project_dir``), an
audit log, and the factory that builds an Agent for each ``%%agent`` cell. Unloading cancels
running runs, removes the magics, the config object, the ``@agent_tool`` name and the input
transformer, so ``%reload_ext`` starts clean.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Coroutine

from ..errors import SettingsError
from ..errors import UsageError as CoreUsageError
from .config import AgentTools
from .usage import usage_rows

if TYPE_CHECKING:
    from ..agent.loop import Agent
    from ..agent.run import AgentRun, PendingAsk
    from ..backends.base import BackendBase
    from ..backends.sandbox import SandboxPolicy
    from ..permission.engine import PermissionEngine
    from ..permission.types import PermissionContext
    from ..tools.base import Tool
    from ..tools.toolkit import Toolkit
    from .magics import AgentMagics
    from .widgets import RunPanel

__all__ = [
    "AgentSession",
    "NO_MODEL_NOTEBOOK",
    "STATUS_PROVIDERS",
    "current_session",
    "load_ipython_extension",
    "unload_ipython_extension",
    "wait_supported",
]

_SESSIONS: dict[int, "AgentSession"] = {}

#: run events after which the panel's view of this kernel changes
_STATE_EVENTS = frozenset({"ask", "ask_answered", "run_finished", "run_failed", "run_cancelled"})

#: callables ``session -> list[(what, value)]`` adding rows to ``%agent status``
STATUS_PROVIDERS: list[Any] = [usage_rows]  # eco: tokens and cost of the runs

NO_MODEL_NOTEBOOK = """\
**No model is set up yet**, so the agent stops here without doing anything.

Choose one in a cell, then run this cell again:

```
%agent model openai:gpt-4.1-mini                                   # OpenAI (reads OPENAI_API_KEY)
%agent model openai:llama3.1 --base-url http://localhost:11434/v1  # Ollama on this machine
```

vLLM, LM Studio, Azure and any other OpenAI-compatible server work the same way:
`%agent help model` shows how. Without a model, a `ScriptedModel` plays a fixed script
(tutorial 01 shows one)."""


def wait_supported() -> tuple[bool, str]:
    """Can a cell await a click? Only ipykernel >= 7.4 handles comm messages meanwhile."""
    try:
        import ipykernel
    except ImportError:  # pragma: no cover - ipykernel is a dependency
        return False, "not running in ipykernel"
    version = tuple(int(p) for p in ipykernel.version_info[:2] if isinstance(p, int))
    if version >= (7, 4):
        return True, ipykernel.__version__
    return False, ipykernel.__version__


def current_session(shell: Any = None) -> "AgentSession":
    """The session of this kernel (after ``%load_ext jupyter_agenttools``)."""
    if shell is None:
        from IPython import get_ipython

        shell = get_ipython()
    session = _SESSIONS.get(id(shell)) if shell is not None else None
    if session is None:
        raise CoreUsageError("jupyter_agenttools is not loaded: run %load_ext jupyter_agenttools")
    return session


class AgentSession:
    """Everything one kernel's agent needs: toolkit, backend, engine, settings, audit, runs."""

    engine: PermissionEngine
    #: the registered ``%agent`` magics and the SIGINT handler's undo, set by
    #: load_ipython_extension
    magics: AgentMagics | None = None
    restore_interrupt: Callable[[], None] | None = None
    #: the task that closes MCP servers and started kernels, set by close() on a running loop
    closing: asyncio.Task[None] | None = None

    def __init__(self, shell: Any, config: AgentTools):
        from ..permission.audit import AuditLog
        from ..permission.engine import PermissionEngine
        from ..permission.settings import SettingsStore

        self.shell = shell
        self.config = config
        self.project_dir = Path(config.project_dir or os.getcwd()).expanduser().resolve()
        from ..backends.sandbox import SandboxController

        self.backend = self._make_backend(config.backend)
        self.settings = SettingsStore(self.project_dir)
        # Bash's sandbox: the settings' "sandbox" key under this session's override
        self.sandbox = SandboxController(
            self.sandbox_policy, lambda: self.engine.context.all_working_directories,
            project_root=str(self.project_dir),
            extra_protect=(str(self.settings.user_dir), str(self.settings.path("managed"))))
        # the toolkit is built on first use (see `toolkit`): the built-in tools pull in the
        # shell and Python analyses (tree-sitter, the program tables), ~0.2 s that
        # `%load_ext` should not wait for
        self._toolkit: Toolkit | None = None
        self.audit = AuditLog(self.project_dir / ".agenttools" / "audit.jsonl")
        self.engine = PermissionEngine(
            mode=config.mode or None, settings=self.settings, audit=self.audit,
            context=self._context(), tools=self._find_tool,
        )
        self.model: Any = None  # set by `%agent model`; None → config.model
        self._agent: Agent | None = None  # the agent whose conversation the next %%agent continues
        self._agent_key: tuple[Any, ...] | None = None
        self.runs: list[AgentRun] = []  # every AgentRun started in this kernel, oldest first
        self.panels: dict[int, RunPanel] = {}  # id(run) -> RunPanel
        self._tasks: set[asyncio.Task[Any]] = set()
        self.started_backends: list[BackendBase] = []  # remote kernels this session started
        from .state import kernel_id

        self._kernel_id = kernel_id() if shell is not None and hasattr(shell, "kernel") else None
        if self._kernel_id is not None:  # no stale state file after the kernel exits
            import atexit

            from .state import remove_state

            atexit.register(remove_state, self._kernel_id)
        config.observe(self._mode_changed, names=["mode"])
        config.observe(self._backend_changed, names=["backend"])

    # -- construction helpers ----------------------------------------------------------------
    @property
    def toolkit(self) -> Toolkit:
        """The kernel's Toolkit: the built-in tools on the session's backend and the group
        ``notebook`` (NotebookRead/Edit, RunCode, Inspect), made when first needed."""
        if self._toolkit is None:
            from ..builtin import default_tools
            from ..tools.toolkit import Toolkit
            from .notebook_host import install_notebook_tools

            self._toolkit = Toolkit()
            for tool in default_tools(self.backend):
                self._attach_sandbox(tool)
                self._toolkit.add_tool(tool)
            install_notebook_tools(self)
        return self._toolkit

    def _find_tool(self, name: str) -> Tool | None:
        return self.toolkit.find_tool(name)

    def _make_backend(self, name: str) -> BackendBase:
        if name == "local":
            from ..backends.local import LocalBackend

            return LocalBackend(str(self.project_dir))
        from ..backends.kernel import KernelBackend

        return KernelBackend()

    def _context(self) -> PermissionContext:
        from ..permission.types import PermissionContext

        return PermissionContext(cwd=os.getcwd(), project_root=str(self.project_dir))

    def set_backend(self, backend: BackendBase) -> None:
        """Run the built-in tools on ``backend`` from now on (replaces them in the toolkit)."""
        self.backend = backend
        if self._toolkit is None:  # not made yet: it will be made on this backend
            return
        from ..builtin import default_tools

        for tool in default_tools(backend):
            if self.toolkit.find_tool(tool.name) is not None:
                self.toolkit.remove_tool(tool.name)
            self._attach_sandbox(tool)
            self.toolkit.add_tool(tool)

    def _attach_sandbox(self, tool: Tool) -> None:
        if hasattr(tool, "sandbox") and tool.name == "Bash":
            tool.sandbox = self.sandbox

    def sandbox_policy(self) -> SandboxPolicy:
        """The sandbox in force: the settings files' ``sandbox`` key (re-read when changed)
        under ``AgentTools.sandbox`` (``%agent sandbox on|off``), the managed layer on top."""
        from ..backends.sandbox_settings import policy_from_settings

        self.settings.reload_if_changed()
        return policy_from_settings(self.settings.merged, session=self.config.sandbox,
                                    project_root=str(self.project_dir),
                                    user_dir=str(self.settings.user_dir))

    def _mode_changed(self, change: dict) -> None:
        self.engine.mode = change["new"] or None  # None: the settings' mode
        self.publish_state()

    def _backend_changed(self, change: dict) -> None:
        self.set_backend(self._make_backend(change["new"]))

    # -- models and agents -------------------------------------------------------------------
    def resolve_model(self, spec: Any = None, *, base_url: str | None = None,
                      api_key_env: str | None = None) -> Any:
        """A model object from an object, a variable name in the user namespace, or a spec.

        No model at all (and the bare ``scripted`` spec) is an empty ScriptedModel whose one
        answer says how to set a real model. ``openai:NAME`` specs take ``base_url`` and the
        key from the environment variable ``api_key_env`` (default: the traits of the same
        names, else OPENAI_BASE_URL / OPENAI_API_KEY)."""
        if spec is None:
            spec = self.model if self.model is not None else (self.config.model or None)
        if spec is None or (isinstance(spec, str) and spec.strip().lower() in ("", "scripted")):
            from ..agent.models import ScriptedModel

            return ScriptedModel([], end_message=NO_MODEL_NOTEBOOK)
        if not isinstance(spec, str):
            return spec
        ns = self.shell.user_ns if self.shell is not None else {}
        if spec.isidentifier() and spec in ns and not isinstance(ns[spec], str):
            return ns[spec]
        from ..agent.models import load_model

        kwargs: dict[str, Any] = {}
        if spec.strip().lower().startswith(("openai:", "litellm:")):
            url = base_url or self.config.base_url or None
            if url:
                kwargs["base_url"] = url
            var = api_key_env or self.config.api_key_env or None
            if var:
                key = os.environ.get(var)
                if not key:
                    raise CoreUsageError(
                        f"the environment variable {var} is not set: `%env {var}=...` in a "
                        "cell, or export it in the shell that starts Jupyter")
                kwargs["api_key"] = key
        elif base_url or api_key_env:
            raise CoreUsageError(f"--base-url and --api-key-env go with an openai:NAME model "
                                 f"(or litellm:PROVIDER/MODEL), not with {spec!r}")
        try:
            return load_model(spec, **kwargs)
        except Exception as exc:
            raise CoreUsageError(f"cannot load model {spec!r}: {exc}") from None

    def set_model(self, spec: str, *, base_url: str | None = None,
                  api_key_env: str | None = None) -> Any:
        """``%agent model``: the model of the next runs (checked now, so a typo shows here)."""
        model = self.resolve_model(spec, base_url=base_url, api_key_env=api_key_env)
        self.model = model
        self.publish_state()
        return model

    def model_label(self) -> str:
        """The model as a person reads it: "openai:gpt-4.1-mini at http://…", "none yet"."""
        current = self.model if self.model is not None else (self.config.model or None)
        if current is None or (isinstance(current, str) and not current.strip()):
            return "none yet"
        if isinstance(current, str):
            text = current
            if current.lower().startswith("openai:") and self.config.base_url:
                text += f" at {self.config.base_url}"
            return text
        from ..agent.models import OpenAIChatModel, ScriptedModel

        if isinstance(current, OpenAIChatModel):
            return f"openai:{current.model} at {current._where()}"
        if isinstance(current, ScriptedModel):
            return "scripted (offline)" if current.remaining or current._source else \
                "scripted, empty (no real model)"
        return getattr(current, "name", None) or type(current).__name__

    def mode_source(self) -> str:
        """Where the engine's mode comes from, in words."""
        if self.config.mode:
            return "set in this kernel"
        try:
            self.settings.reload_if_changed()
            merged = self.settings.merged
        except Exception as exc:  # a corrupt settings file
            return f"settings unreadable: {exc}"
        if merged.mode is not None and merged.mode_source:
            return f"from {self.display_path(merged.mode_source)}"
        return "built-in default"

    def mode_label(self) -> str:
        """The engine's mode, or that it has none: a settings file it cannot read stops it
        (``mode_source`` says which file and why). ``%load_ext`` and ``%agent status`` must
        still answer then: they are how a person finds what to fix."""
        try:
            return str(self.engine.mode)
        except SettingsError:
            return "none, nothing is decided until the settings file is fixed"

    def status_rows(self) -> list[tuple[str, str]]:
        """``%agent status``: what a person asks first. Other parts may add rows through
        ``STATUS_PROVIDERS`` (callables ``session -> list of (what, value)``)."""
        pending = self.pending()
        rows = [
            ("mode", f"{self.mode_label()} ({self.mode_source()})"),
            ("model", self.model_label()),
            ("project", self.display_project()),
            ("backend", type(self.backend).__name__),
            ("conversation", f"{self.conversation_length()} earlier prompt(s); %agent reset "
                             "starts afresh" if self.conversation_length() else "fresh"),
            ("runs", f"{len(self.active_runs())} running, {len(self.runs)} in all"),
            ("open questions", ", ".join(a.id for a in pending) or "none"),
        ]
        for provider in STATUS_PROVIDERS:
            try:
                rows.extend(provider(self))
            except Exception as exc:  # a broken provider shows itself, the rest stays
                rows.append((getattr(provider, "__name__", "status"), f"error: {exc}"))
        return rows

    def status_line(self) -> str:
        """The one line ``%load_ext`` prints."""
        model = self.model_label()
        if model in ("none yet", "scripted, empty (no real model)", "scripted"):
            model = "none yet (%agent model openai:NAME)"
        source = self.mode_source()
        mode = self.mode_label() + ("" if source == "built-in default" else f" ({source})")
        trust = " · project settings not trusted (%agent trust)" if self.trust_pending() \
            else ""
        return (f"jupyter_agenttools: mode {mode} · "
                f"model {model} · project {self.display_project()}{trust} · %agent help")

    def trust_pending(self) -> bool:
        """Does the project hold settings that count only once the user trusts it?"""
        try:
            trust = self.settings.merged.trust
        except Exception:  # a corrupt settings file: said elsewhere
            return False
        return trust is not None and trust.needed and not trust.trusted

    def trust_changed(self) -> bool:
        """Does the project wait for trust because its settings changed since it was trusted?"""
        if not self.trust_pending():
            return False
        trust = self.settings.merged.trust
        return trust is not None and bool(trust.changed)

    def untrusted_hint(self, ask: Any) -> str:
        """For a question: the project's held-back allow rule that would approve this call, in
        words ('' when there is none). Only a hint for the person: the decision is the
        engine's, and an untrusted rule never allows anything."""
        if not self.trust_pending():
            return ""
        from ..permission.rules import load_rule, rule_matches
        from ..permission.trust import changes_summary

        tool = getattr(ask, "tool_obj", None)
        tool_input = ask.input if isinstance(getattr(ask, "input", None), dict) else None
        if tool is None or tool_input is None or getattr(ask.decision, "bypass_immune", False):
            return ""
        for item in self.settings.merged.ignored:
            if item["key"] != "allow" or item["layer"] not in ("project", "local"):
                continue
            try:
                rule = load_rule(item["value"], "allow", item["file"])
                if not rule_matches(rule, tool, tool_input, self.engine.context):
                    continue
            except Exception:  # a rule this tool cannot read: no hint from it
                continue
            trust = self.settings.merged.trust
            if trust is not None and trust.changed:
                changed = changes_summary(trust.changes())
                return (f"The project's rule {rule.text} "
                        f"({self.display_path(item['file'])}) would allow it, but this "
                        "folder's settings changed since you trusted them"
                        + (f" ({changed})" if changed else "")
                        + ": review them in the agent panel (Trust again), or %agent trust.")
            return (f"The project's rule {rule.text} "
                    f"({self.display_path(item['file'])}) would allow it, but this folder is "
                    "not trusted yet: %agent trust, or Trust this folder in the agent panel.")
        return ""

    def display_project(self) -> str:
        home = Path.home()
        try:
            return "~/" + str(self.project_dir.relative_to(home.resolve()))
        except ValueError:
            return str(self.project_dir)

    def agent_for(self, model: Any = None, mode: str | None = None) -> Agent:
        """The agent for the next run: the previous one (its conversation goes on) when the
        model and mode are the same and it is idle, else a new one."""
        raw = model
        if raw is None:
            raw = self.model if self.model is not None else (self.config.model or None)
        ns = self.shell.user_ns if self.shell is not None else {}
        spec_only = isinstance(raw, str) and not (raw.isidentifier() and raw in ns)
        # a spec string names the same model every time; an object is itself
        which = ("spec", raw) if spec_only else ("object", id(self.resolve_model(raw)))
        key = (which, mode or None, self.config.max_turns, self.config.output_budget,
               self.config.tool_time_limit, self.config.system_prompt, self.config.base_url,
               self.config.api_key_env)
        agent = self._agent
        if agent is None or key != self._agent_key or agent.current_run is not None:
            agent = self.make_agent(raw, mode)
            self._agent, self._agent_key = agent, key
        return agent

    def make_agent(self, model: Any = None, mode: str | None = None) -> Agent:
        from ..agent.loop import Agent

        engine = self.engine
        if mode and mode != engine.mode:
            engine = self._engine_for_mode(mode)
        kwargs: dict[str, Any] = dict(
            model=self.resolve_model(model), toolkit=self.toolkit, engine=engine,
            backend=self.backend, system_prompt=self.config.system_prompt or None,
            max_turns=self.config.max_turns,
            tool_time_limit=self.config.tool_time_limit or None,
        )
        if self.config.output_budget:
            kwargs["output_budget"] = self.config.output_budget
        return Agent(**kwargs)

    def conversation_length(self) -> int:
        """How many finished prompts the next %%agent continues (0: a fresh conversation)."""
        agent = self._agent
        if agent is None:
            return 0
        return sum(1 for run in agent.runs if run.done)

    def reset_conversation(self) -> int:
        """``%agent reset``: the next run starts a fresh conversation; returns how many
        prompts were forgotten."""
        agent = self._agent
        if agent is not None and agent.current_run is not None:
            raise CoreUsageError("a run is in progress: cancel it first (%agent cancel), "
                                 "then %agent reset")
        forgotten = self.conversation_length()
        self._agent, self._agent_key = None, None
        self.publish_state()
        return forgotten

    def run_name(self, run: AgentRun) -> str:
        panel = self.panels.get(id(run))
        return getattr(panel, "_title", "") or "agent_run"

    def _engine_for_mode(self, mode: str | None, *, audit: bool = True) -> PermissionEngine:
        """An engine like the session's (same settings files, same session rules) in another
        mode; without ``audit`` its decisions are not logged (``%agent check`` is a dry run)."""
        from ..permission.engine import PermissionEngine

        session_rules = [r for r in self.engine.rules if (r.source or "session") == "session"]
        return PermissionEngine(mode=mode or str(self.engine.mode), rules=session_rules,
                                settings=self.settings, audit=self.audit if audit else None,
                                context=self._context(), tools=self._find_tool,
                                session=self.engine.session)

    def dry_engine(self, mode: str | None = None) -> PermissionEngine:
        """The session's engine for decisions that are only shown, not taken."""
        return self._engine_for_mode(mode, audit=False)

    # -- runs --------------------------------------------------------------------------------
    def start_run(self, prompt: str, *, model: Any = None, mode: str | None = None,
                  title: str = "agent") -> tuple[AgentRun, RunPanel]:
        """Start a run as a task on the kernel's loop; returns (run, panel) at once."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            raise CoreUsageError(
                "%%agent needs a running asyncio loop: run it in a Jupyter kernel (ipykernel)"
            ) from None
        from .widgets import RunPanel

        self.refresh_context()
        agent = self.agent_for(model, mode)
        earlier = sum(1 for m in agent.messages if m.get("role") == "user")
        run = agent.start(prompt)
        note = (f"continues the conversation ({earlier} earlier prompt"
                f"{'s' if earlier != 1 else ''}); %agent reset starts a fresh one"
                if earlier else "")
        panel = RunPanel(title=title, on_cancel=run.cancel,
                         settings_file=self.display_path(self.settings.path("local")),
                         mode=str(agent.engine.mode), cwd=os.getcwd(), note=note,
                         hint=self.untrusted_hint, untrusted=self.trust_pending,
                         trust_changed=self.trust_changed)
        self.runs.append(run)
        self.panels[id(run)] = panel
        panel.bind(run)
        run.add_listener(self._run_event, replay=False)
        self.publish_state()
        return run, panel

    def _run_event(self, event: Any) -> None:
        if getattr(event, "kind", "") in _STATE_EVENTS:
            self.publish_state()

    def panel_of(self, ask: PendingAsk) -> RunPanel | None:
        for run in self.runs:
            panel = self.panels.get(id(run))
            if ask in (getattr(run, "asks", None) or ()) or any(
                    c.ask is ask for c in getattr(panel, "cards", [])):
                return panel
        return None

    async def stop_run(self, run: AgentRun, reason: str) -> str:
        """Cancel ``run`` and wait (a few seconds at most) until its tool calls have stopped;
        returns one line saying so."""
        run.cancel(reason)
        try:
            await run.wait_done(timeout=10)
        except Exception:  # still stopping, or it failed on its way out: say what we know
            pass
        name = self.run_name(run)
        if getattr(run, "state", "") == "cancelled":
            return f"{name} was cancelled; its tool processes were stopped"
        return f"{name} is still stopping ({getattr(run, 'state', '?')})"

    def interrupted(self) -> None:
        """Kernel ▸ Interrupt while no cell runs: cancel every run (thread-safe)."""
        for run in self.active_runs():
            run.cancel("interrupted (Kernel ▸ Interrupt)")

    def publish_state(self) -> None:
        """Tell the JupyterLab panel (through the kernel's state file) what changed."""
        if self._kernel_id is None:
            return
        from .state import build_state, write_state

        try:
            write_state(self._kernel_id, build_state(self))
        except Exception:  # the panel is a view: it must never break the notebook
            pass

    def refresh_context(self) -> None:
        """Follow the kernel's ``%cd`` for relative paths in permission checks."""
        if self.engine.context.cwd != os.getcwd():
            self.engine.context = self._context()

    def active_runs(self) -> list[AgentRun]:
        return [r for r in self.runs if not _is_done(r)]

    def pending(self) -> list[PendingAsk]:
        out: list[PendingAsk] = []
        for run in self.runs:
            out.extend(getattr(run, "pending", ()) or ())
        return out

    def find_ask(self, ask_id: str) -> PendingAsk:
        """The question ``ask_id`` of any run, open or already answered."""
        for run in reversed(self.runs):
            for ask in getattr(run, "asks", None) or getattr(run, "pending", ()) or ():
                if str(ask.id) == str(ask_id):
                    return ask
        ids = ", ".join(str(a.id) for a in self.pending()) or "none"
        raise CoreUsageError(f"no question with id {ask_id!r} (open ones: {ids})")

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Keep a strong reference to a background task until it ends."""
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def ready(self) -> None:
        """Wait for background set-up (MCP connections) started by magics."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def display_path(self, path: Any) -> str:
        """A path as shown to people: relative to the project, or with ``~``."""
        p = Path(str(path))
        try:
            return str(p.resolve().relative_to(self.project_dir))
        except (ValueError, OSError):
            pass
        home = Path.home()
        try:
            return "~/" + str(p.resolve().relative_to(home.resolve()))
        except (ValueError, OSError):
            return str(p)

    def close(self) -> None:
        """Cancel runs and background tasks; nothing of this session keeps running."""
        for run in self.runs:
            if not _is_done(run):
                try:
                    run.cancel()
                except Exception:
                    pass
        for task in list(self._tasks):
            task.cancel()
        self._tasks.clear()
        # MCP server processes and kernels started by `%agent backend remote` end with us.
        closers = [self._toolkit.aclose()] if self._toolkit is not None else []
        closers += [b.close() for b in self.started_backends]
        self.started_backends.clear()
        if self._kernel_id is not None:
            from .state import remove_state

            remove_state(self._kernel_id)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (plain IPython): run them to the end here
            asyncio.run(_close_all(closers))
            return
        # The loop keeps only a weak reference to a task: one waiting on a future that only
        # it holds (a process's exit, a socket's close) could be collected half-way, leaving
        # an MCP server or a kernel running. The module keeps it until it ends (the session
        # itself is being dropped), and ``closing`` lets a caller wait for it.
        self.closing = loop.create_task(_close_all(closers))
        _CLOSING.add(self.closing)
        self.closing.add_done_callback(_CLOSING.discard)


#: Closing tasks of sessions already dropped, kept until they end (see AgentSession.close).
_CLOSING: set[asyncio.Task[None]] = set()


async def _close_all(closers: list[Coroutine[Any, Any, Any]]) -> None:
    for closer in closers:
        try:
            await closer
        except Exception:  # one that fails must not keep the others open
            pass


def _is_done(run: Any) -> bool:
    done = getattr(run, "done", None)
    if callable(done):
        return bool(done())
    if done is not None:
        return bool(done)
    task = getattr(run, "task", None)
    return task is None or task.done()


# -- load / unload ---------------------------------------------------------------------------


def load_ipython_extension(ipython: Any) -> None:
    from .interrupt import install_interrupt_handler
    from .magics import AgentMagics, install_transformer, make_agent_tool

    if id(ipython) in _SESSIONS:
        return
    config = AgentTools(parent=ipython)
    if config not in ipython.configurables:
        ipython.configurables.append(config)
    session = AgentSession(ipython, config)
    _SESSIONS[id(ipython)] = session
    magics = AgentMagics(ipython, session=session)
    ipython.register_magics(magics)
    session.magics = magics
    ipython.user_ns["agent_tool"] = make_agent_tool(session)
    install_transformer(ipython)
    session.restore_interrupt = install_interrupt_handler(ipython, session.interrupted)
    session.publish_state()
    print(session.status_line())


def unload_ipython_extension(ipython: Any) -> None:
    from .magics import remove_transformer

    session = _SESSIONS.pop(id(ipython), None)
    if session is None:
        return
    if session.restore_interrupt is not None:
        session.restore_interrupt()
    session.close()
    mm = ipython.magics_manager
    for kind in ("line", "cell"):
        mm.magics[kind].pop("agent", None)
    mm.registry.pop("AgentMagics", None)
    for obj in (session.magics, session.config):
        while obj in ipython.configurables:
            ipython.configurables.remove(obj)
    if getattr(ipython.user_ns.get("agent_tool"), "_agenttools", False):
        del ipython.user_ns["agent_tool"]
    remove_transformer(ipython)
