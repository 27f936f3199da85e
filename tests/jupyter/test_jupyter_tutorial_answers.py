"""The tutorials survive a person's own answer: a newcomer clicks a button on the card before
the cell that answers for them. Each case runs a tutorial up to a cell that reads what the
answer did, with the answer cell changed to the person's choice; no cell may fail.

(Found by walking the tutorials in JupyterLab: "Allow once" on 03's card, the natural first
click, ended in a FileNotFoundError traceback two cells later.)
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(240)

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def _tutorial(name: str):
    """(the tutorial's cells, its notebook as make_tutorials builds it)."""
    sys.path.insert(0, str(NOTEBOOKS))
    sys.path.insert(0, str(NOTEBOOKS / "tutorials"))
    try:
        import make_tutorials

        cells = make_tutorials.tutorials()[name]
        return cells, make_tutorials.build(name, cells)
    finally:
        sys.path.remove(str(NOTEBOOKS))
        sys.path.remove(str(NOTEBOOKS / "tutorials"))


# (tutorial, its answer cell, the person's answer instead, the cell that reads the outcome)
CASES = [
    ("03_rules_and_settings", "%agent answer {ask.id} always", "%agent answer {ask.id} allow_once",
     "settings.local.json"),
    ("03_rules_and_settings", "%agent answer {ask.id} always", "%agent answer {ask.id} deny",
     "settings.local.json"),
]


@pytest.mark.parametrize("name,answer,instead,reader", CASES)
def test_a_tutorial_survives_another_answer(name, answer, instead, reader, tmp_path,
                                            monkeypatch):
    from nbclient import NotebookClient

    _, nb = _tutorial(name)
    sources = [c.source for c in nb.cells]
    assert answer in sources, "the tutorial changed: update this case"
    last = next(i for i, c in enumerate(nb.cells)
                if c.cell_type == "code" and reader in c.source and i > sources.index(answer))
    nb.cells = [c for c in nb.cells[:last + 1] if c.cell_type == "code"]
    for c in nb.cells:
        c.outputs = []
        if c.source == answer:
            c.source = instead
    root = Path(__file__).resolve().parents[2]
    monkeypatch.setenv("PYTHONPATH", str(root))
    monkeypatch.setenv("AGENTTOOLS_USER_DIR", str(tmp_path / "user"))
    monkeypatch.setenv("AGENTTOOLS_MANAGED_SETTINGS", str(tmp_path / "managed.json"))
    monkeypatch.delenv("AGENTTOOLS_MODEL", raising=False)
    NotebookClient(nb, timeout=60, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    errors = [o for c in nb.cells for o in c.outputs
              if o.output_type == "error" or o.get("name") == "stderr"]
    assert not errors, errors
    assert "no rule saved" in "".join(o.get("text", "") for o in nb.cells[-1].outputs)
