"""What the panel shows about the running notebooks, for ``GET <base_url>/agenttools/kernels``
(``KernelsHandler`` in ``handlers.py``), and the settings of a kernel's project
(``?project=<dir>`` on the settings routes).

Every kernel the server runs, with its notebook (from the session manager) and, when it
loaded the extension, the state its agent session keeps in its state file (``state.py``):
project, effective mode and where it comes from, model, session rules, open questions,
conversation length. Kernels without the extension have ``"agent": null``, and so does a
kernel whose state file was left by an earlier process of it: a kernel that died or was killed
(its exit handler never ran) is restarted by the server under the same id, and its dead run's
questions used to stay open in the panel, the status-bar badge and a notification that never
went away.
"""

from __future__ import annotations

import os
from typing import Any, Awaitable, Callable

__all__ = ["kernel_project_store", "kernels_view", "project_state"]


def kernel_project_store(app_settings: dict[str, Any], state: dict[str, Any]) -> Any:
    """The SettingsStore of a kernel's project as that kernel sees it (its own user and managed
    files: a notebook may point them elsewhere), one per project, kept by the server."""
    from ..permission.settings import SettingsStore

    stores = app_settings.setdefault("agenttools_stores", {})
    key = (state.get("project_dir"), state.get("user_dir"), state.get("managed_path"))
    if key not in stores:
        stores[key] = SettingsStore(str(state.get("project_dir")),
                                    user_dir=state.get("user_dir") or None,
                                    managed_path=state.get("managed_path") or None)
    return stores[key]


def project_state(kernel_ids: list[str], project: str) -> dict[str, Any] | None:
    """The state of a running kernel working in ``project``, or None."""
    from .state import read_states

    return next((s for s in read_states(kernel_ids).values()
                 if s.get("project_dir") == project), None)


def _settings_mode(app_settings: dict[str, Any], state: dict[str, Any]) -> None:
    """A kernel writes its state when something happens in it; a settings file edited meanwhile
    (in the panel, an editor) or a trust given (the panel's button, ``agenttools trust``)
    changes the mode of a kernel without a session override at once: read it here, and whether
    the project's settings wait for trust (``trust_pending``; ``trust_changed`` when they
    were trusted and changed since)."""
    if not state.get("project_dir"):
        return
    store = kernel_project_store(app_settings, state)
    try:
        store.reload_if_changed()
        merged = store.merged
    except Exception as exc:  # a corrupt file: the kernel's own view, and why
        state["settings_error"] = str(exc)
        return
    trust = merged.trust
    state["trust_pending"] = bool(trust is not None and trust.needed and not trust.trusted)
    # trusted once, changed since: the card says so rather than "not trusted yet"
    state["trust_changed"] = bool(state["trust_pending"] and trust is not None and trust.changed)
    if state.get("session_override"):
        return
    mode = merged.mode.value if merged.mode is not None else "default"
    state["mode"] = state["settings_mode"] = mode
    source = str(merged.mode_source or "")
    prefix = str(state["project_dir"]).rstrip("/") + "/"
    state["mode_source"] = f"from {source.removeprefix(prefix)}" if source else \
        "built-in default"


async def kernels_view(app_settings: dict[str, Any], kernel_manager: Any, session_manager: Any,
                       run: Callable[..., Awaitable[Any]]) -> dict[str, Any]:
    """``GET kernels``; ``run(func, *args)`` runs file I/O off the server's loop."""
    from .state import read_states

    ids = list(kernel_manager.list_kernel_ids())
    notebooks: dict[str, str] = {}
    try:
        for session in await session_manager.list_sessions():
            kernel = session.get("kernel") or {}
            if kernel.get("id"):
                notebooks[kernel["id"]] = session.get("path") or session.get("name") or ""
    except Exception:  # no session manager (a bare server): kernels without notebooks
        pass
    states = await run(read_states, ids)
    for state in states.values():
        await run(_settings_mode, app_settings, state)
    kernels: list[dict[str, Any]] = []
    for kid in ids:
        try:
            model = kernel_manager.get_kernel(kid)
        except KeyError:  # shut down meanwhile
            continue
        if kid in states and _left_by_a_dead_process(states[kid], model):
            del states[kid]  # not removed: the kernel's new process may be writing it now
        kernels.append({"id": kid, "name": getattr(model, "kernel_name", ""),
                        "execution_state": getattr(model, "execution_state", ""),
                        "notebook": notebooks.get(kid), "agent": states.get(kid)})
    return {"server_project": str(app_settings["agenttools_store"].project_root),
            "kernels": kernels}


def _left_by_a_dead_process(state: dict[str, Any], kernel: Any) -> bool:
    """Was the state file written by a process of this kernel that is gone? Only said of a
    kernel this server launched on this machine (its provisioner knows the pid): a kernel run
    elsewhere, or a state without a pid, is taken as it is."""
    current = getattr(getattr(kernel, "provisioner", None), "pid", None)
    pid = state.get("pid")
    if not isinstance(current, int) or not isinstance(pid, int) or pid <= 0 or pid == current:
        return False
    try:
        os.kill(pid, 0)  # signal 0: is there such a process? (sends nothing)
    except ProcessLookupError:
        return True
    except OSError:  # there is one, another user's
        return False
    return False
