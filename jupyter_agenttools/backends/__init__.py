"""Where tools run: BackendBase and its Local, Kernel and JupyterKernel implementations.

Names resolve lazily so importing this package stays cheap."""

from __future__ import annotations

from typing import Any

_LAZY = {
    "BackendBase": "base",
    "ExecResult": "base",
    "FileStat": "base",
    "DirEntry": "base",
    "LocalBackend": "local",
    "KernelBackend": "kernel",
    "JupyterKernelBackend": "jupyter_kernel",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
