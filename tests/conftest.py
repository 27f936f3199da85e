import contextlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

# Shared test helpers (tests/lab_harness.py) importable from every test folder.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from lab_harness import require_chromium, running_lab, write_notebook  # noqa: E402


@dataclass
class Lab:
    """A running JupyterLab of a browser test: its URL, root folder, log and the test's
    temporary folder (which holds the throwaway user settings, ``user-settings/``)."""

    base: str
    root: Path
    log_path: Path
    tmp_path: Path


@pytest.fixture
def lab_server(tmp_path: Path):
    """``lab_server(token, {"path.ipynb": [cell sources]}, root="lab", prepare=None)``: write
    the notebooks (``prepare(root)`` adds other files first), start ``jupyter lab`` on that
    root (tests/lab_harness.py) and return a ``Lab``; stopped after the test. Skips without
    Debian's Chromium (``require=False`` starts the server anyway)."""
    with contextlib.ExitStack() as stack:
        def start(token: str, notebooks: dict[str, list[str]], root: str = "lab",
                  prepare: Callable[[Path], None] | None = None, require: bool = True) -> Lab:
            if require:
                require_chromium()
            folder = tmp_path / root
            folder.mkdir()
            if prepare is not None:
                prepare(folder)
            for name, cells in notebooks.items():
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                write_notebook(folder / name, cells)
            base, log_path = stack.enter_context(running_lab(tmp_path, folder, token))
            return Lab(base, folder, log_path, tmp_path)

        yield start
