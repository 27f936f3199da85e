"""Write and execute the tutorial notebooks with nbclient, outputs included.

    python notebooks/make_tutorials.py            # all of them
    python notebooks/make_tutorials.py 03 05      # some
    python notebooks/make_tutorials.py --list     # what there is

Each tutorial's content lives in its own file, ``notebooks/tutorials/NN_name.py`` (a list
``CELLS`` of ``("md", text)`` / ``("code", source)`` pairs; the shared set-up cell and helpers are
in ``notebooks/tutorials/_tutorial.py``). A new tutorial is a new file there: this script finds
it by its name and writes ``notebooks/NN_name.ipynb``.

nbval compares a fresh run against the outputs stored here, so every cell prints plain,
deterministic data; paths and times that still vary are masked by notebooks/sanitize.cfg.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import nbformat
from jupyter_core.utils import ensure_async
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionComplete

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SOURCES = HERE / "tutorials"
_NAME = re.compile(r"^\d\d_[a-z0-9_]+$")

#: output messages a background run may send after its cell ended (JupyterLab shows them under
#: that cell; nbclient alone would drop them)
_LATE_OUTPUT = {"stream", "display_data", "update_display_data", "execute_result", "error"}


def tutorials() -> dict[str, list[tuple[str, str]]]:
    """Every ``NN_name.py`` of ``notebooks/tutorials``, in order: name -> cells."""
    sys.path.insert(0, str(SOURCES))
    try:
        out = {}
        for path in sorted(SOURCES.glob("[0-9][0-9]_*.py")):
            if not _NAME.match(path.stem):
                raise SystemExit(f"{path}: expected a name like 08_notebook_tools.py")
            spec = importlib.util.spec_from_file_location(f"tutorial_{path.stem}", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            cells = getattr(module, "CELLS", None)
            if not isinstance(cells, list) or not all(
                    isinstance(c, tuple) and len(c) == 2 and c[0] in ("md", "code") for c in cells):
                raise SystemExit(f"{path}: CELLS must be a list of ('md'|'code', text) pairs")
            out[path.stem] = cells
        return out
    finally:
        sys.path.remove(str(SOURCES))


def build(name: str, cells: list[tuple[str, str]]) -> nbformat.NotebookNode:
    from _tutorial import SHOW  # type: ignore[import-not-found]

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python",
                                 "name": "python3"}
    nb.metadata["language_info"] = {"name": "python"}
    out = []
    for i, (kind, src) in enumerate(cells):
        if kind == "md":
            cell = nbformat.v4.new_markdown_cell(src)
        else:
            cell = nbformat.v4.new_code_cell(src)
            if src.lstrip().startswith("%%agent"):
                # The run's panel is a live widget and its plain transcript arrives when the
                # run ends, after the cell itself finished: nbval (which reads a cell's own
                # messages only) cannot compare it. Later cells print what the run did.
                cell.metadata["tags"] = ["nbval-ignore-output"]
        cell["id"] = f"{name[:2]}-{i:02d}"
        out.append(cell)
    # the show() helper goes right after the set-up cell
    helper = nbformat.v4.new_code_cell(SHOW)
    helper["id"] = f"{name[:2]}-show"
    out.insert(2, helper)
    nb.cells = out
    return nb


class TutorialClient(NotebookClient):
    """nbclient that, like JupyterLab, keeps every executed cell listening for output.

    An ``%%agent`` run goes on in the background after its cell ended; what it shows later
    (its final answer and transcript) is parented to the cell that started it. Plain nbclient
    only collects the messages of the cell running now, so those outputs would be missing from
    the stored tutorial."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._started: dict[str, tuple[Any, int]] = {}  # request msg_id -> (cell, index)

    async def _async_poll_output_msg(self, parent_msg_id: str, cell: Any,
                                     cell_index: int) -> None:
        assert self.kc is not None
        self._started[parent_msg_id] = (cell, cell_index)
        while True:
            msg = await ensure_async(self.kc.iopub_channel.get_msg(timeout=None))
            parent = msg["parent_header"].get("msg_id")
            if parent == parent_msg_id:
                try:
                    self.process_message(msg, cell, cell_index)
                except CellExecutionComplete:
                    return
            elif parent in self._started and msg["header"]["msg_type"] in _LATE_OUTPUT:
                earlier, index = self._started[parent]
                self.process_message(msg, earlier, index)


def main(argv: list[str]) -> None:
    found = tutorials()
    if "--list" in argv:
        print("\n".join(found))
        return
    selected = [a for a in argv if not a.startswith("-")]
    unknown = [s for s in selected if not any(name.startswith(s) for name in found)]
    if unknown:
        raise SystemExit(f"no tutorial named {', '.join(unknown)}; there are: "
                         + ", ".join(found))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)
    os.environ.pop("AGENTTOOLS_MODEL", None)
    sys.path.insert(0, str(SOURCES))
    for name, cells in found.items():
        if selected and not any(name.startswith(s) for s in selected):
            continue
        nb = build(name, cells)
        start = time.monotonic()
        TutorialClient(nb, timeout=60, kernel_name="python3",
                       resources={"metadata": {"path": str(HERE)}}).execute()
        # widget state saved by nbclient misses what the background runs changed later
        # (jupyter-feasibility §5): keep the files small and their diffs about text
        nb.metadata.pop("widgets", None)
        path = HERE / f"{name}.ipynb"
        nbformat.write(nb, str(path))
        print(f"{path.name}: {time.monotonic() - start:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
