"""Figures the fault-injection tests measure, kept for the closing note of issue 18.

Each test records what it saw (``record(test, **figures)``) into
``test-artifacts/faults/<area>.json``; the tests assert behaviour, never a timing bound
(timings are noisy on a shared machine: they are printed and kept, not asserted).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts" / "faults"


def record(area: str, test: str, **figures: Any) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{area}.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        data = {}
    data[test] = figures
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str) + "\n")
    os.replace(tmp, path)
    print(f"[{area}] {test}: {json.dumps(figures, default=str)}")
