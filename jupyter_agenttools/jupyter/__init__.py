"""How a person drives the agent from a notebook: ``%load_ext jupyter_agenttools``.

``extension`` (load/unload, the kernel's AgentSession), ``magics`` (``%agent``/``%%agent``),
``widgets`` (the run panel and question cards), ``config`` (the ``AgentTools`` traits),
``server`` (the jupyter-server extension). Importing this package imports IPython only when a
name below is used.
"""

from __future__ import annotations

from typing import Any

__all__ = ["current_session", "load_ipython_extension", "unload_ipython_extension"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import extension

        return getattr(extension, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
