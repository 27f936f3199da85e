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
from typing import Any, Iterator

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


# --- the browser side: one Chromium page on a running lab, and the moves every test makes ---

#: Debian's Chromium in a container: no sandbox (no user namespaces), no GPU, nothing fetched.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

#: true once the current notebook's kernel is connected and idle
KERNEL_IDLE = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  const kernel = w && w.sessionContext && w.sessionContext.session &&
                 w.sessionContext.session.kernel;
  return !!kernel && kernel.status === 'idle';
}"""


def require_chromium() -> None:
    """Skip the test when Debian's Chromium is not installed (CI installs it)."""
    import pytest

    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (Debian package 'chromium'; CI installs it)")


@contextlib.contextmanager
def chromium_page(width: int = 1280, height: int = 900) -> Iterator[tuple[Any, list[str]]]:
    """``(page, errors)``: a page of a headless Chromium (closed on exit); ``errors`` collects
    the page's uncaught JavaScript errors (tests assert it stays empty)."""
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            yield page, errors
        finally:
            browser.close()


def open_notebook(page: Any, base: str, token: str, path: str, *, reset: bool = True,
                  wait_app: bool = True) -> None:
    """Open ``path`` (relative to the server's root) in JupyterLab; wait for its first cell
    (and, with ``wait_app``, for ``window.jupyterapp``, which the tests drive commands
    through). ``reset`` starts from an empty workspace."""
    page.goto(f"{base}/lab/tree/{path}?token={token}" + ("&reset" if reset else ""))
    page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=60_000)
    if wait_app:
        page.wait_for_function("() => window.jupyterapp !== undefined", timeout=30_000)


def screenshot(target: Any, name: str) -> Path:
    """A screenshot of a page or a locator into test-artifacts/NAME.png."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    target.screenshot(path=str(path))
    return path


@contextlib.contextmanager
def failure_screenshot(page: Any, name: str, log_path: Path | None = None) -> Iterator[None]:
    """On any failure inside: a screenshot test-artifacts/NAME.png (and the server log's end
    printed, when given), then the failure goes on."""
    try:
        yield
    except BaseException:
        try:
            screenshot(page, name)
        finally:
            if log_path is not None:
                print(log_path.read_text()[-4000:])
        raise


def cell(page: Any, index: int) -> Any:
    return page.locator(".jp-Notebook .jp-Cell").nth(index)


def accept_dialogs(page: Any, timeout: int = 1500,
                   selector: str = ".jp-Dialog button.jp-mod-accept, "
                                   ".jp-Dialog button.jp-mod-warn") -> bool:
    """Take the dialog's main button (a kernel choice, "Restart", "Shut Down") if one shows
    within ``timeout`` ms; True when one was taken."""
    accept = page.locator(selector)
    try:
        accept.first.wait_for(timeout=timeout)
    except Exception:
        return False
    accept.first.click()
    return True


def wait_kernel(page: Any, timeout: int = 90_000) -> None:
    """Accept a kernel dialog if one shows, then wait for the kernel to be idle."""
    accept_dialogs(page)
    page.wait_for_function(KERNEL_IDLE, timeout=timeout)


def settle(page: Any, quiet: float = 3.0, timeout: float = 90) -> None:
    """Wait until the notebook's kernel is idle and no dialog has shown for ``quiet`` seconds.

    JupyterLab may ask which kernel to start (its session start can race with the page
    load); the preferred one (Python 3) is accepted."""
    deadline = time.monotonic() + timeout
    calm_since = time.monotonic()
    while time.monotonic() < deadline:
        accept = page.locator(".jp-Dialog .jp-mod-accept")
        if accept.count() and accept.first.is_visible():
            accept.first.click()
            calm_since = time.monotonic()
        elif not page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").count():
            calm_since = time.monotonic()
        elif time.monotonic() - calm_since >= quiet:
            return
        page.wait_for_timeout(200)
    raise AssertionError("the notebook's kernel never settled")


def run_all_cells(page: Any, attempts: int = 4) -> None:
    """Run every cell; again if none started (a command issued while the kernel connection
    was still being set up is dropped, like the lost first Shift+Enter; jupyter-feasibility
    §6: by command rather than by key press)."""
    prompts = page.locator(".jp-Notebook .jp-Cell .jp-InputPrompt")
    for _ in range(attempts):
        page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if prompts.first.inner_text().strip() not in ("[ ]:", ""):
                return
            page.wait_for_timeout(250)
        settle(page, quiet=1.0)
    raise AssertionError("the notebook's cells never started")


def run_from(page: Any, command: str, active: int, first: int = 0, attempts: int = 3) -> None:
    """Make cell ``active`` the active one and execute the notebook ``command`` (e.g.
    ``notebook:run-all-above``, ``notebook:run-all-below``) once the kernel is idle; again
    until cell ``first``'s prompt shows it started."""
    for _ in range(attempts):
        accept = page.locator(".jp-Dialog button.jp-mod-accept")
        if accept.count():
            accept.first.click()
        page.wait_for_function(KERNEL_IDLE, timeout=90_000)
        page.evaluate(f"""() => {{
            window.jupyterapp.shell.currentWidget.content.activeCellIndex = {active};
            window.jupyterapp.commands.execute('{command}');
        }}""")
        prompt = cell(page, first).locator(".jp-InputPrompt")
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if prompt.inner_text().strip() not in ("[ ]:", ""):
                return
            page.wait_for_timeout(250)
    raise AssertionError("the cells never ran")


def run_cell(page: Any, index: int) -> None:
    """Run cell ``index`` and wait until the kernel is idle again (by command: a key press
    right after start-up is sometimes lost)."""
    wait_kernel(page)
    prompt = cell(page, index).locator(".jp-InputPrompt")
    before = prompt.inner_text().strip()
    for _ in range(3):
        page.evaluate(f"""() => {{
            const nb = window.jupyterapp.shell.currentWidget.content;
            nb.activeCellIndex = {index};
            window.jupyterapp.commands.execute('notebook:run-cell');
        }}""")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            now = prompt.inner_text().strip()
            if now != before and now not in ("[ ]:", ""):
                break
            page.wait_for_timeout(200)
        else:
            accept_dialogs(page)
            continue
        break
    page.wait_for_function(KERNEL_IDLE, timeout=90_000)


def run_all_when_idle(page: Any) -> None:
    """Run every cell once the kernel is really there and idle (not awaited: the command's
    promise settles only when every cell has run); again while a kernel dialog interrupts."""
    for _ in range(3):
        accept_dialogs(page, 1_000, ".jp-Dialog .jp-mod-accept")
        page.wait_for_function(KERNEL_IDLE, timeout=60_000)
        page.evaluate(
            "() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
        if not accept_dialogs(page, 2_000, ".jp-Dialog .jp-mod-accept"):
            return


def open_agent_panel(page: Any) -> Any:
    """Open the agent panel from the left sidebar (a real click on its tab); its locator."""
    page.locator(".jp-SideBar.jp-mod-left [data-id='agenttools-permissions']").click()
    return page.locator("#agenttools-permissions")
