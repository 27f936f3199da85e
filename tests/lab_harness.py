"""A real JupyterLab for the browser tests: loopback, a token, throwaway settings."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Iterator

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = REPO / "test-artifacts"


def write_notebook(path: Path, cells: list[str]) -> None:
    nb = {
        "cells": [{"cell_type": "code", "execution_count": None, "id": f"c{i}",
                   "metadata": {}, "outputs": [], "source": src}
                  for i, src in enumerate(cells)],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                    "name": "python3"}},
        "nbformat": 4, "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb, indent=1))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_lab(tmp_path: Path, root: Path, token: str) -> Iterator[tuple[str, Path]]:
    """Start ``jupyter lab`` on ``root``; yield (base URL, log path); stop its process group.

    News checks are off (they would prompt), agenttools' user and managed settings point into
    ``tmp_path``, and the server and its kernels import this checkout."""
    settings = tmp_path / "lab-settings"
    (settings / "@jupyterlab" / "apputils-extension").mkdir(parents=True)
    (settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
     ).write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    env = dict(os.environ)
    env.update(JUPYTERLAB_SETTINGS_DIR=str(settings),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "lab-workspaces"),
               AGENTTOOLS_USER_DIR=str(tmp_path / "user-settings"),
               AGENTTOOLS_MANAGED_SETTINGS=str(tmp_path / "managed.json"))
    env.pop("AGENTTOOLS_MODEL", None)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    port = _free_port()
    log_path = tmp_path / "lab.log"
    log = open(log_path, "wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}",
         "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}",
         "--ServerApp.port_retries=0", f"--ServerApp.root_dir={root}", "--allow-root",
         "--LabApp.expose_app_in_browser=True"],
        cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except OSError as exc:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError("jupyter lab did not start:\n"
                                         + log_path.read_text()[-3000:]) from exc
                time.sleep(0.3)
        yield base, log_path
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # only the server's own process group
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()
