"""What every benchmark module shares: machine info, percentiles, the Skip signal."""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import time
from importlib import metadata
from typing import Callable, Sequence

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
CORPUS = os.path.join(REPO, "tests", "shell", "corpus.jsonl")


class Skip(Exception):
    """The part a benchmark measures is missing or unusable here: reported, never a crash."""


def pct(sorted_samples: Sequence[float], p: float) -> float:
    """Nearest-rank percentile of already sorted samples (p in 0..1)."""
    if not sorted_samples:
        return float("nan")
    i = min(len(sorted_samples) - 1, max(0, int(round(p * len(sorted_samples) + 0.5)) - 1))
    return sorted_samples[i]


def dist_us(samples_ns: list[int]) -> dict[str, float]:
    """p50 / p99 / max in microseconds of per-call samples in nanoseconds."""
    s = sorted(samples_ns)
    return {"p50_us": round(pct(s, 0.50) / 1e3, 2), "p99_us": round(pct(s, 0.99) / 1e3, 2),
            "max_us": round(s[-1] / 1e3, 2)}


def per_item_min(samples: list[int], items: int) -> list[int]:
    """The fastest of the rounds for each item (samples are rounds of ``items`` in order): the
    cost of the code itself, with most of the other processes' preemptions filtered out."""
    return [min(samples[i::items]) for i in range(items)]


def median_s(call: Callable[[], object], reps: int) -> float:
    """The median wall time of ``reps`` calls, in seconds."""
    samples = []
    for _ in range(reps):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _commit() -> str | None:
    try:
        out = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=5)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def machine() -> dict[str, object]:
    """CPU, cores, load and the versions that matter, attached to every JSON line."""
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = None
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    versions = {d: _version(d) for d in (
        "jupyter_agenttools", "tree-sitter", "tree-sitter-bash", "ipykernel", "jupyter_client")}
    return {"cpu": _cpu_model(), "cores": os.cpu_count(), "usable_cores": usable,
            "load_avg": load, "python": platform.python_version(),
            "platform": platform.platform(terse=True), "commit": _commit(),
            "versions": versions, "executable": sys.executable}
