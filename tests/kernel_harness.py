"""A real ipykernel driven over ZMQ, for the kernel tests of every folder.

``KernelDriver`` keeps a mirror of every widget model the kernel announces on iopub
(``comm_open`` with the full state, then ``comm_msg`` updates), so a test can find a Button by
its description or CSS class and click it exactly as JupyterLab does: a ``comm_msg`` with
``{"method": "custom", "content": {"event": "click"}}`` on the shell channel.
"""

from __future__ import annotations

import os
import queue
import time
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]


def isolated_env(root: Path) -> dict[str, str]:
    """Environment for a kernel whose user and managed settings live under ``root``."""
    env = dict(os.environ)
    env["AGENTTOOLS_USER_DIR"] = str(root / "user-settings")
    env["AGENTTOOLS_MANAGED_SETTINGS"] = str(root / "managed" / "managed-settings.json")
    env.pop("AGENTTOOLS_MODEL", None)
    env["PYTHONUNBUFFERED"] = "1"
    # the kernel imports this checkout even when the package is not pip-installed
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    return env


class KernelDriver:
    def __init__(self, cwd: Path, env: dict[str, str]):
        from jupyter_client.manager import start_new_kernel

        self.km, self.kc = start_new_kernel(kernel_name="python3", cwd=str(cwd), env=env,
                                            startup_timeout=60)
        self.models: dict[str, dict[str, Any]] = {}
        self.streams: dict[str, str] = {}  # parent msg_id -> stdout text
        self.idle: set[str] = set()  # parent msg_ids whose busy/idle cycle has ended

    # -- iopub -------------------------------------------------------------------------------
    def _handle(self, msg: dict[str, Any]) -> None:
        mtype = msg["header"]["msg_type"]
        content = msg["content"]
        parent = msg.get("parent_header", {}).get("msg_id", "")
        if mtype == "comm_open":
            state = dict(content.get("data", {}).get("state", {}))
            self.models[content["comm_id"]] = state
        elif mtype == "comm_msg":
            data = content.get("data", {})
            if data.get("method") in ("update", "echo_update"):
                self.models.setdefault(content["comm_id"], {}).update(data.get("state", {}))
        elif mtype == "stream" and content.get("name") == "stdout":
            self.streams[parent] = self.streams.get(parent, "") + content["text"]
        elif mtype == "status" and content.get("execution_state") == "idle":
            self.idle.add(parent)

    def pump(self, timeout: float = 0.2) -> bool:
        """Handle iopub messages until none arrives for ``timeout`` seconds."""
        got = False
        while True:
            try:
                msg = self.kc.get_iopub_msg(timeout=timeout)
            except queue.Empty:
                return got
            got = True
            self._handle(msg)

    def wait_for(self, predicate: Callable[[], Any], timeout: float = 30, what: str = "") -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what or predicate}")
            try:
                self._handle(self.kc.get_iopub_msg(timeout=0.2))
            except queue.Empty:
                pass

    # -- shell -------------------------------------------------------------------------------
    def send(self, code: str) -> str:
        return self.kc.execute(code)

    def reply(self, msg_id: str, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                msg = self.kc.get_shell_msg(timeout=0.2)
            except queue.Empty:
                self.pump(0.05)
                continue
            if msg["parent_header"].get("msg_id") == msg_id:
                self.wait_for(lambda: msg_id in self.idle, 30, "idle after the reply")
                return msg["content"]
        raise AssertionError(f"no execute_reply for {msg_id} in {timeout} s")

    def run(self, code: str, timeout: float = 60) -> str:
        """Execute a cell, fail on an error, return its stdout."""
        msg_id = self.send(code)
        content = self.reply(msg_id, timeout)
        if content["status"] != "ok":
            raise AssertionError(f"cell failed: {content.get('ename')}: {content.get('evalue')}\n"
                                 + "\n".join(content.get("traceback", [])))
        return self.streams.get(msg_id, "")

    def run_error(self, code: str) -> dict[str, Any]:
        msg_id = self.send(code)
        return self.reply(msg_id)

    # -- widgets -----------------------------------------------------------------------------
    def buttons(self, css: str | None = None, description: str | None = None,
                enabled: bool | None = None) -> list[str]:
        out = []
        for comm_id, state in self.models.items():
            if state.get("_model_name") != "ButtonModel":
                continue
            if css and css not in state.get("_dom_classes", ()):
                continue
            if description and not state.get("description", "").startswith(description):
                continue
            if enabled is not None and bool(state.get("disabled")) == enabled:
                continue
            out.append(comm_id)
        return out

    def wait_button(self, css: str, timeout: float = 30) -> str:
        ids = self.wait_for(lambda: self.buttons(css=css, enabled=True), timeout,
                            f"an enabled button .{css}")
        return ids[-1]

    def comm_msg(self, comm_id: str, data: dict[str, Any]) -> str:
        msg = self.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        self.kc.shell_channel.send(msg)
        return msg["header"]["msg_id"]

    def click(self, comm_id: str) -> None:
        """What JupyterLab sends when a person clicks the button."""
        self.comm_msg(comm_id, {"method": "custom", "content": {"event": "click"}})

    def set_value(self, comm_id: str, state: dict[str, Any]) -> None:
        """What JupyterLab sends when a person types into a widget."""
        self.comm_msg(comm_id, {"method": "update", "state": state, "buffer_paths": []})

    def html_values(self) -> list[str]:
        return [s.get("value", "") for s in self.models.values()
                if s.get("_model_name") == "HTMLModel"]

    def stop(self) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)
