"""Token usage and cost of the kernel's runs, for ``%agent status`` and the panel.

``AgentRun.usage`` (``agent/models.py`` ``Usage``) adds up what every model call of a run
reported; models that report nothing (the scripted one) leave it at zero calls.
"""

from __future__ import annotations

from typing import Any

__all__ = ["usage_rows", "usage_state", "session_usage"]


def session_usage(session: Any) -> tuple[Any, Any]:
    """(usage of the last run or None, total over the session's runs)."""
    from ..agent.models import Usage

    total = Usage()
    last = None
    for run in getattr(session, "runs", ()):
        usage = getattr(run, "usage", None)
        if usage is None:
            continue
        total.add(usage)
        last = usage
    return last, total


def usage_rows(session: Any) -> list[tuple[str, str]]:
    """``%agent status`` rows: the last run's tokens and cost, and the session's."""
    last, total = session_usage(session)
    if not total.model_calls:
        return [("usage", "no tokens reported yet")]
    return [("usage (last run)", str(last)), ("usage (all runs)", str(total))]


def usage_state(session: Any) -> dict[str, Any]:
    """The panel's ``usage`` field: ``{"last_run": {...} | None, "total": {...}}``."""
    last, total = session_usage(session)
    return {"usage": {"last_run": None if last is None else last.to_dict(),
                      "total": total.to_dict()}}
