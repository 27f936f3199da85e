"""KernelBackend: the notebook's own environment.

Commands and relative paths follow the kernel process *at call time*: its current directory
(IPython's ``%cd`` calls ``os.chdir``), its environment (``%env`` writes ``os.environ``) and its
interpreter (``sys.executable``'s folder goes first on PATH, so ``python`` and ``pip`` are the
kernel's). Reading the process state keeps this usable without IPython.
"""

from __future__ import annotations

import os
import sys
from typing import Mapping

from .local import LocalBackend

__all__ = ["KernelBackend"]


class KernelBackend(LocalBackend):
    def __init__(self, *, env: Mapping[str, str] | None = None, memory_cap: int | None = None,
                 spool_dir: str | None = None):
        super().__init__(None, env=env, memory_cap=memory_cap, spool_dir=spool_dir)

    def _current_cwd(self) -> str:
        return os.getcwd()

    def _base_env(self) -> dict[str, str]:
        env = super()._base_env()
        bindir = os.path.dirname(sys.executable)
        parts = [p for p in env.get("PATH", "").split(os.pathsep) if p]
        if not parts or parts[0] != bindir:
            env["PATH"] = os.pathsep.join([bindir] + [p for p in parts if p != bindir])
        return env
