"""The agent loop: models, runs, events. Nothing heavy is imported here (openai loads only
when an OpenAIChatModel first talks to its server)."""

from __future__ import annotations

from typing import Any

_LAZY = {
    "Agent": "loop",
    "AgentRun": "run",
    "PendingAsk": "run",
    "ScriptedModel": "models",
    "OpenAIChatModel": "models",
    "load_model": "models",
    "ModelTurn": "models",
    "ToolCallRequest": "models",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
