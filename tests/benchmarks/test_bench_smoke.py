"""Smoke test of the benchmark entry point: every benchmark runs (tiny repetitions) and prints
one valid JSON line. No timing is asserted — figures live in benchmarks/RESULTS.md."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(REPO, "benchmarks", "run.py")
NAMES = ["bash-decisions", "pipeline", "concurrency", "load", "big-output", "backends", "audit",
         "sandbox", "process-tree", "hook", "notebook-output"]


@pytest.fixture(scope="module")
def quick_run() -> tuple[subprocess.CompletedProcess, list[dict]]:
    env = dict(os.environ)
    env.pop("AGENTSCOPE_PYTHON", None)  # the optional comparison must skip cleanly
    # --jobs 3: the smoke run only checks that everything runs; its figures mean nothing
    proc = subprocess.run([sys.executable, RUN, "--quick", "--jobs", "3"], capture_output=True,
                          text=True, cwd=REPO, env=env, timeout=280)
    lines = [x for x in proc.stdout.splitlines() if x.startswith("{")]
    return proc, [json.loads(x) for x in lines]  # a line that is not JSON fails here


def test_every_benchmark_prints_one_json_line(quick_run):
    proc, results = quick_run
    assert [r["name"] for r in results] == NAMES, proc.stdout + proc.stderr
    errors = {r["name"]: (r["error"], r.get("stderr_tail", "")) for r in results if "error" in r}
    assert not errors, errors
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("name", NAMES)
def test_result_line_has_figures_and_machine(quick_run, name):
    _, results = quick_run
    r = next(r for r in results if r["name"] == name)
    assert r["quick"] is True
    assert r["machine"]["cores"] >= 1 and r["machine"]["python"].count(".") == 2
    if "skipped" in r:  # a missing part is reported, never a crash
        assert r["skipped"].strip()
        return
    assert r["about"] and r["reps"] and r["summary"]


def test_bash_decisions_figures_are_consistent(quick_run):
    _, results = quick_run
    r = next(r for r in results if r["name"] == "bash-decisions")
    e = r["engine"]
    assert e["decisions"] == r["commands"] * r["rounds"] > 0
    assert 0 < e["p50_us"] <= e["p99_us"] <= e["max_us"]
    assert sum(r["behaviors"].values()) == r["commands"]
    assert r["decision_cost_in_parses"] > 0
    assert "skipped" in r["agentscope"]  # AGENTSCOPE_PYTHON unset: skipped with a reason


def test_human_table_closes_the_output(quick_run):
    proc, _ = quick_run
    tail = proc.stdout.rstrip().split("\n\n")[-1]
    assert tail.startswith("benchmark")
    for name in NAMES:
        assert f"\n{name} " in tail


def test_unknown_benchmark_is_a_clear_error():
    proc = subprocess.run([sys.executable, RUN, "nope"], capture_output=True, text=True,
                          cwd=REPO, timeout=60)
    assert proc.returncode == 2
    assert "unknown benchmark(s) nope" in proc.stderr
