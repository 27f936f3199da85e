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
from typing import Any

from ..errors import UsageError as CoreUsageError
from .config import AgentTools

__all__ = [
    "AgentSession",
    "current_session",
    "load_ipython_extension",
    "unload_ipython_extension",
    "wait_supported",
]

_SESSIONS: dict[int, "AgentSession"] = {}


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

    def __init__(self, shell: Any, config: AgentTools):
        from ..builtin import default_tools
        from ..permission.audit import AuditLog
        from ..permission.engine import PermissionEngine
        from ..permission.settings import SettingsStore
        from ..tools.toolkit import Toolkit

        self.shell = shell
        self.config = config
        self.project_dir = Path(config.project_dir or os.getcwd()).expanduser().resolve()
        from ..backends.sandbox import SandboxController

        self.backend = self._make_backend(config.backend)
        self.settings = SettingsStore(self.project_dir)
        # Bash's sandbox: the settings' "sandbox" key under this session's override
        self.sandbox = SandboxController(
            self.sandbox_policy, lambda: self.engine.context.all_working_directories,
            project_root=str(self.project_dir))
        self.toolkit = Toolkit()
        for tool in default_tools(self.backend):
            self._attach_sandbox(tool)
            self.toolkit.add_tool(tool)
        self.audit = AuditLog(self.project_dir / ".agenttools" / "audit.jsonl")
        self.engine = PermissionEngine(
            mode=config.mode or None, settings=self.settings, audit=self.audit,
            context=self._context(), tools=self.toolkit.find_tool,
        )
        self.model: Any = None  # set by `%agent model`; None → config.model
        self._agent: Any = None  # the agent whose conversation the next %%agent continues
        self._agent_key: tuple[Any, ...] | None = None
        self.runs: list[Any] = []  # every AgentRun started in this kernel, oldest first
        self.panels: dict[int, Any] = {}  # id(run) -> RunPanel
        self._tasks: set[asyncio.Task] = set()
        self.started_backends: list[Any] = []  # remote kernels this session started
        config.observe(self._mode_changed, names=["mode"])
        config.observe(self._backend_changed, names=["backend"])

    # -- construction helpers ----------------------------------------------------------------
    def _make_backend(self, name: str) -> Any:
        if name == "local":
            from ..backends.local import LocalBackend

            return LocalBackend(str(self.project_dir))
        from ..backends.kernel import KernelBackend

        return KernelBackend()

    def _context(self) -> Any:
        from ..permission.types import PermissionContext

        return PermissionContext(cwd=os.getcwd(), project_root=str(self.project_dir))

    def set_backend(self, backend: Any) -> None:
        """Run the built-in tools on ``backend`` from now on (replaces them in the toolkit)."""
        from ..builtin import default_tools

        for tool in default_tools(backend):
            if self.toolkit.find_tool(tool.name) is not None:
                self.toolkit.remove_tool(tool.name)
            self._attach_sandbox(tool)
            self.toolkit.add_tool(tool)
        self.backend = backend

    def _attach_sandbox(self, tool: Any) -> None:
        if hasattr(tool, "sandbox") and tool.name == "Bash":
            tool.sandbox = self.sandbox

    def sandbox_policy(self) -> Any:
        """The sandbox in force: the settings files' ``sandbox`` key (re-read when changed)
        under ``AgentTools.sandbox`` (``%agent sandbox on|off``), the managed layer on top."""
        from ..backends.sandbox_settings import policy_from_settings

        self.settings.reload_if_changed()
        return policy_from_settings(self.settings.merged, session=self.config.sandbox,
                                    project_root=str(self.project_dir),
                                    user_dir=str(self.settings.user_dir))

    def _mode_changed(self, change: dict) -> None:
        self.engine.mode = change["new"] or None  # None: the settings' mode

    def _backend_changed(self, change: dict) -> None:
        self.set_backend(self._make_backend(change["new"]))

    # -- models and agents -------------------------------------------------------------------
    def resolve_model(self, spec: Any = None) -> Any:
        """A model object from an object, a variable name in the user namespace, or a spec."""
        if spec is None:
            spec = self.model if self.model is not None else (self.config.model or None)
        if spec is None or spec == "":
            raise CoreUsageError(
                "no model configured: use `%agent model SPEC|VARIABLE`, `%%agent --model ...`, "
                "`%config AgentTools.model = 'openai:gpt-4.1-mini'` or env AGENTTOOLS_MODEL"
            )
        if not isinstance(spec, str):
            return spec
        ns = self.shell.user_ns if self.shell is not None else {}
        if spec.isidentifier() and spec in ns and not isinstance(ns[spec], str):
            return ns[spec]
        from ..agent.models import load_model

        try:
            return load_model(spec)
        except Exception as exc:
            raise CoreUsageError(f"cannot load model {spec!r}: {exc}") from None

    def agent_for(self, model: Any = None, mode: str | None = None) -> Any:
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
               self.config.system_prompt)
        agent = self._agent
        if agent is None or key != self._agent_key or agent.current_run is not None:
            agent = self.make_agent(raw, mode)
            self._agent, self._agent_key = agent, key
        return agent

    def make_agent(self, model: Any = None, mode: str | None = None) -> Any:
        from ..agent.loop import Agent

        engine = self.engine
        if mode and mode != engine.mode:
            engine = self._engine_for_mode(mode)
        kwargs: dict[str, Any] = dict(
            model=self.resolve_model(model), toolkit=self.toolkit, engine=engine,
            backend=self.backend, system_prompt=self.config.system_prompt or None,
            max_turns=self.config.max_turns,
        )
        if self.config.output_budget:
            kwargs["output_budget"] = self.config.output_budget
        return Agent(**kwargs)

    def _engine_for_mode(self, mode: str | None, *, audit: bool = True) -> Any:
        """An engine like the session's (same settings files, same session rules) in another
        mode; without ``audit`` its decisions are not logged (``%agent check`` is a dry run)."""
        from ..permission.engine import PermissionEngine

        session_rules = [r for r in self.engine.rules if (r.source or "session") == "session"]
        return PermissionEngine(mode=mode or str(self.engine.mode), rules=session_rules,
                                settings=self.settings, audit=self.audit if audit else None,
                                context=self._context(), tools=self.toolkit.find_tool,
                                session=self.engine.session)

    def dry_engine(self, mode: str | None = None) -> Any:
        """The session's engine for decisions that are only shown, not taken."""
        return self._engine_for_mode(mode, audit=False)

    # -- runs --------------------------------------------------------------------------------
    def start_run(self, prompt: str, *, model: Any = None, mode: str | None = None,
                  title: str = "agent") -> tuple[Any, Any]:
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
        run = agent.start(prompt)
        panel = RunPanel(title=title, on_cancel=run.cancel,
                         settings_file=self.display_path(self.settings.path("local")))
        panel.bind(run)
        self.runs.append(run)
        self.panels[id(run)] = panel
        return run, panel

    def refresh_context(self) -> None:
        """Follow the kernel's ``%cd`` for relative paths in permission checks."""
        if self.engine.context.cwd != os.getcwd():
            self.engine.context = self._context()

    def active_runs(self) -> list[Any]:
        return [r for r in self.runs if not _is_done(r)]

    def pending(self) -> list[Any]:
        out: list[Any] = []
        for run in self.runs:
            out.extend(getattr(run, "pending", ()) or ())
        return out

    def find_ask(self, ask_id: str) -> Any:
        for ask in self.pending():
            if str(ask.id) == str(ask_id):
                return ask
        ids = ", ".join(str(a.id) for a in self.pending()) or "none"
        raise CoreUsageError(f"no pending question with id {ask_id!r} (pending: {ids})")

    def spawn(self, coro: Any) -> asyncio.Task:
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
        closers = [self.toolkit.aclose()] + [b.close() for b in self.started_backends]
        self.started_backends.clear()
        try:
            asyncio.get_running_loop().create_task(_close_all(closers))
        except RuntimeError:  # no loop (plain IPython): run them to the end here
            asyncio.run(_close_all(closers))


async def _close_all(closers: list[Any]) -> None:
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


def unload_ipython_extension(ipython: Any) -> None:
    from .magics import remove_transformer

    session = _SESSIONS.pop(id(ipython), None)
    if session is None:
        return
    session.close()
    mm = ipython.magics_manager
    for kind in ("line", "cell"):
        mm.magics[kind].pop("agent", None)
    mm.registry.pop("AgentMagics", None)
    magics = getattr(session, "magics", None)
    for obj in (magics, session.config):
        while obj in ipython.configurables:
            ipython.configurables.remove(obj)
    if getattr(ipython.user_ns.get("agent_tool"), "_agenttools", False):
        del ipython.user_ns["agent_tool"]
    remove_transformer(ipython)
