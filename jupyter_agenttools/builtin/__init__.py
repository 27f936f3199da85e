"""The built-in tools: Bash, Read, Write, Edit, Glob, Grep (one module each).

Their permission hooks only delegate (Bash → ``builtin.bash.policy``, the file tools →
``permission.paths``); their execution goes through a backend (``backends``).

Each tool's module loads on first use of its name (``from jupyter_agenttools.builtin import
Read`` does not load the shell analysis Bash needs): ``agenttools hook`` runs before every call
of another agent and imports only the tool that call maps to."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._lazy import lazy_attributes

if TYPE_CHECKING:
    from ..backends.base import BackendBase
    from ..tools.base import Tool
    from .bash import Bash
    from .edit import Edit
    from .glob import Glob
    from .grep import Grep
    from .read import Read
    from .write import Write

__all__ = ["Bash", "Read", "Write", "Edit", "Glob", "Grep", "default_tools", "TOOL_MODULES"]

#: tool name → the module of this package that defines it (resolved by ``__getattr__``)
TOOL_MODULES = {"Bash": "bash", "Read": "read", "Write": "write", "Edit": "edit",
                "Glob": "glob", "Grep": "grep"}


_resolve, __dir__ = lazy_attributes(__name__, TOOL_MODULES, globals())


def __getattr__(name: str) -> Any:
    return _resolve(name)


def default_tools(backend: "BackendBase | None" = None) -> list["Tool"]:
    """One instance of each built-in tool, all on the same backend (None → a LocalBackend), so
    Read, Write and Edit share that backend's read-before-write state."""
    from ._files import default_backend

    b = default_backend(backend)
    return [__getattr__(name)(b) for name in TOOL_MODULES]
