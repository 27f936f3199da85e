"""Cost grows linearly with the size of a command, for every shape of benchmarks/stress.py.

For each shape the decision's CPU time (``time.thread_time``, the best of a few runs, so other
processes on the machine count little) and its peak memory (tracemalloc) are measured at two
sizes ten times apart; a linear analysis costs about ten times more, a quadratic one a hundred.
The bound is a ratio, not a wall-clock threshold: a machine twice as slow passes the same way.
Every shape is also decided at the largest size the analysis accepts (100 kB) without error.
"""

from __future__ import annotations

import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from jupyter_agenttools.permission.check import prepare
from jupyter_agenttools.permission.types import PermissionBehavior

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
from stress import MAX_SIZE, RULES, shapes  # noqa: E402

SHAPES = shapes()
SMALL, LARGE = 2_500, 25_000
TIME_BOUND = 10 * 2.5  # size ratio x 2.5 (noise); a quadratic cost gives 100
MEMORY_BOUND = 10 * 2


@pytest.fixture(scope="module")
def decide(tmp_path_factory):
    engine, bash = prepare("Bash", mode="default", rules=RULES,
                           cwd=str(tmp_path_factory.mktemp("linear")))
    engine.decide(bash, {"command": "ls"})  # imports, tables
    return lambda command: engine.decide(bash, {"command": command})


def _cpu(decide, command: str, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        t0 = time.thread_time()
        decide(command)
        best = min(best, time.thread_time() - t0)
    return max(best, 1e-4)  # below the clock's resolution a ratio means nothing


def _peak(decide, command: str) -> int:
    tracemalloc.start()
    try:
        decide(command)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("shape", list(SHAPES))
def test_cost_grows_linearly(decide, shape: str) -> None:
    small, large = SHAPES[shape](SMALL), SHAPES[shape](LARGE)
    assert len(large) > 8 * len(small)
    ratio = _cpu(decide, large) / _cpu(decide, small)
    if ratio > TIME_BOUND:  # one slow run under load: measure once more
        ratio = min(ratio, _cpu(decide, large, 5) / _cpu(decide, small, 5))
    assert ratio <= TIME_BOUND, f"{shape}: {ratio:.1f}x the time for 10x the size"
    memory = _peak(decide, large) / max(_peak(decide, small), 1)
    assert memory <= MEMORY_BOUND, f"{shape}: {memory:.1f}x the memory for 10x the size"


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_largest_command_is_decided(decide, shape: str) -> None:
    command = SHAPES[shape](MAX_SIZE)
    assert len(command) <= MAX_SIZE
    d = decide(command)
    assert d.behavior in (PermissionBehavior.ALLOW, PermissionBehavior.ASK,
                          PermissionBehavior.DENY)
