"""The built-in tools: Bash, Read, Write, Edit, Glob, Grep (one module each).

Their permission hooks only delegate (Bash → ``builtin.bash.policy``, the file tools →
``permission.paths``); their execution goes through a backend (``backends``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .bash import Bash
from .edit import Edit
from .glob import Glob
from .grep import Grep
from .read import Read
from .write import Write

if TYPE_CHECKING:
    from ..backends.base import BackendBase
    from ..tools.base import Tool

__all__ = ["Bash", "Read", "Write", "Edit", "Glob", "Grep", "default_tools"]


def default_tools(backend: "BackendBase | None" = None) -> list["Tool"]:
    """One instance of each built-in tool, all on the same backend (None → a LocalBackend), so
    Read, Write and Edit share that backend's read-before-write state."""
    from ._files import default_backend

    b = default_backend(backend)
    return [Bash(b), Read(b), Write(b), Edit(b), Glob(b), Grep(b)]
