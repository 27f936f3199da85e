"""The agent loop: models, runs, events. Nothing heavy is imported here (openai loads only
when an OpenAIChatModel first talks to its server)."""

from __future__ import annotations

from typing import Any

from .._lazy import lazy_attributes

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


_resolve, __dir__ = lazy_attributes(__name__, _LAZY, globals())


def __getattr__(name: str) -> Any:
    return _resolve(name)
