"""What a kernel's agent session tells the JupyterLab panel: a small JSON file per kernel.

The panel shows every running kernel's project, effective mode (with a session override made
by ``%agent mode``), session rules, open questions and conversation. The kernel writes
``<jupyter runtime dir>/agenttools/kernel-<kernel id>.json`` whenever one of those changes
(atomically: temp file + rename); the server reads the files of the kernels it runs
(``GET /agenttools/kernels``). The kernel id is the one in the kernel's connection file name,
which is how jupyter-server names it. Outside a kernel started with a connection file (plain
IPython, tests) nothing is written.

Other parts may add fields: ``STATE_PROVIDERS`` holds callables ``session -> dict`` whose
results are merged in (e.g. token usage under ``"usage"``).
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any, Callable

from ..strict_json import loads as strict_loads
from .state_fields import check_state, warn_once
from .usage import usage_state

__all__ = ["STATE_PROVIDERS", "kernel_id", "state_dir", "state_path", "write_state",
           "remove_state", "read_states"]

STATE_PROVIDERS: list[Callable[[Any], dict[str, Any]]] = [usage_state]  # eco: tokens, cost

_KERNEL_FILE = re.compile(r"^kernel-(?P<id>[A-Za-z0-9._-]+)\.json$")


def state_dir() -> Path:
    from jupyter_core.paths import jupyter_runtime_dir

    return Path(jupyter_runtime_dir()) / "agenttools"


def kernel_id() -> str | None:
    """This kernel's id, from its connection file name (``kernel-<id>.json``), or None."""
    try:
        from ipykernel.connect import get_connection_file

        name = os.path.basename(get_connection_file())
    except Exception:  # not an ipykernel with a connection file
        return None
    m = _KERNEL_FILE.match(name)
    return m.group("id") if m else None


def state_path(kid: str) -> Path:
    return state_dir() / f"kernel-{kid}.json"


def write_state(kid: str, state: dict[str, Any]) -> Path:
    path = state_path(kid)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(state, default=str, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:  # a full disk: the last whole state stays, no temp file is left
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
    return path


def remove_state(kid: str) -> None:
    try:
        state_path(kid).unlink()
    except OSError:
        pass


def read_states(kernel_ids: list[str]) -> dict[str, dict[str, Any]]:
    """The state files of ``kernel_ids`` that exist, parse as strict JSON and name the kernel's
    settings files; each with only the fields ``state_fields`` knows, of the right type."""
    out: dict[str, dict[str, Any]] = {}
    for kid in kernel_ids:
        if not _KERNEL_FILE.match(f"kernel-{kid}.json"):
            continue
        path = state_path(kid)
        try:
            data = strict_loads(path.read_bytes())
        except FileNotFoundError:  # a kernel without the extension
            continue
        except (OSError, ValueError) as exc:  # unreadable, half-written, not JSON, NaN, too deep
            warn_once(kid, f"{path} skipped: {exc}")
            continue
        state = check_state(kid, data)
        if state is not None:
            out[kid] = state
    return out


def build_state(session: Any) -> dict[str, Any]:
    """The fields the panel shows, from a live AgentSession."""
    from .explain import plain_reason, question_title

    engine = session.engine
    try:
        mode = str(engine.mode)
    except Exception:  # a settings file it cannot read: the server adds settings_error
        mode = "unknown"
    settings_mode = None
    try:
        merged = session.settings.merged
        settings_mode = merged.mode.value if merged.mode is not None else None
    except Exception:  # a corrupt settings file: the panel shows the kernel's mode anyway
        pass
    pending = []
    for run in session.runs:
        if getattr(run, "done", False):
            # an ended run waits on nothing, even while its questions are being closed (the
            # loop emits run_cancelled/run_finished before it marks them closed)
            continue
        for ask in getattr(run, "pending", ()) or ():
            pending.append({
                "id": ask.id, "tool": ask.tool,
                "title": question_title(
                    ask.tool, ask.input if isinstance(ask.input, dict) else {}, ask.summary),
                "why": " ".join(part for part in (plain_reason(ask.decision, mode),
                                                   session.untrusted_hint(ask)) if part),
                "safety": bool(ask.safety),
                "run": session.run_name(run),
            })
    rules = [{"behavior": str(r.behavior), "rule": r.text}
             for r in engine.rules if (r.source or "session") == "session"]
    state: dict[str, Any] = {
        "pid": os.getpid(),
        "updated": time.time(),
        "project_dir": str(session.project_dir),
        # the kernel's own user and managed settings files, so the panel edits the same ones
        "user_dir": str(session.settings.user_dir),
        "managed_path": str(session.settings.path("managed")),
        "cwd": os.getcwd(),
        "mode": mode,
        "mode_source": session.mode_source(),
        "settings_mode": settings_mode or "default",
        "session_override": bool(session.config.mode),
        "model": session.model_label(),
        "conversation": {"prompts": session.conversation_length()},
        "session_rules": rules,
        "pending": pending,
        "runs": {"active": len(session.active_runs()), "total": len(session.runs)},
    }
    for provider in STATE_PROVIDERS:
        try:
            state.update(provider(session))
        except Exception:  # one broken provider must not hide the rest
            pass
    return state
