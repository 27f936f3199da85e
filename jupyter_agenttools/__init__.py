"""jupyter_agenttools: an agent tool system with a permission engine, for notebooks.

Importing the package is light: the heavy libraries (openai, mcp, ipywidgets, jupyter_server)
load only when the part that needs them is used.
"""

from __future__ import annotations

from typing import Any

from ._lazy import lazy_attributes
from ._version import __version__

# Public name -> module that defines it; resolved lazily so `import jupyter_agenttools` stays cheap.
_LAZY = {
    # errors
    "AgentOrientedException": "errors",
    "DeveloperOrientedException": "errors",
    # tools
    "Tool": "tools.base",
    "ToolChunk": "tools.base",
    "ToolResponse": "tools.base",
    "ToolResultState": "tools.base",
    "FunctionTool": "tools.function",
    "function_tool": "tools.function",
    "ToolGroup": "tools.toolkit",
    "Toolkit": "tools.toolkit",
    "Skill": "tools.skills",
    "MCPServer": "tools.mcp",
    # permission
    "PermissionMode": "permission.types",
    "PermissionBehavior": "permission.types",
    "PermissionRule": "permission.types",
    "PermissionDecision": "permission.types",
    "PermissionContext": "permission.types",
    "PermissionEngine": "permission.engine",
    "SettingsStore": "permission.settings",
    "AuditLog": "permission.audit",
    "check": "permission.check",
    # backends
    "BackendBase": "backends.base",
    "ExecResult": "backends.base",
    "LocalBackend": "backends.local",
    "KernelBackend": "backends.kernel",
    "JupyterKernelBackend": "backends.jupyter_kernel",
    # agent
    "Agent": "agent.loop",
    "AgentRun": "agent.run",
    "PendingAsk": "agent.run",
    "ScriptedModel": "agent.models",
    "OpenAIChatModel": "agent.models",
    "load_model": "agent.models",
}

__all__ = sorted(_LAZY) + ["__version__", "load_ipython_extension", "unload_ipython_extension"]


_resolve, __dir__ = lazy_attributes(__name__, _LAZY, globals())


def __getattr__(name: str) -> Any:
    return _resolve(name)


def load_ipython_extension(ipython: Any) -> None:
    from .jupyter.extension import load_ipython_extension as _load

    _load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    from .jupyter.extension import unload_ipython_extension as _unload

    _unload(ipython)


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "jupyter_agenttools.jupyter.server"}]


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    return [{"src": "labextension", "dest": "jupyter-agenttools"}]
