"""The engine as a pre-tool hook of other agents: ``agenttools hook claude-code|codex|gemini-cli``.

``AGENTS`` maps each agent's name to its module (``parse(payload) -> HookRequest | None``,
``render(answer) -> (stdout, exit code)``, ``render_bad_input(message)``, ``DOCS``: the page its
format comes from). Modules load on first use.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["AGENTS", "agent_module"]

AGENTS = {"claude-code": "claude_code", "codex": "codex", "gemini-cli": "gemini_cli"}


def agent_module(agent: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{AGENTS[agent]}")
