"""audit: what ``GET /agenttools/audit?limit=1`` costs on a big audit log, before and after.

What: a 246 MB ``audit.jsonl`` (the size in issue 18; 1 KB decision lines) in a temp folder,
then ``AuditLog.read(limit=1)`` — what the REST handler and ``agenttools audit`` call — timed
with the current code ("after": reads from the end, ``scanned_bytes`` says how much) and with
the implementation before the change ("before": commit b3d82cb, loaded from git; it parsed
every line). Also ``read(limit=20, offset=100)`` and a filter that matches only the oldest
line (the worst case after the change: a full scan, still without keeping the lines).

Repetitions: 3 each, median; quick: a 8 MB log, 1 repetition.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import tempfile

from _common import REPO, median_s

ABOUT = "audit read(limit=1) on a 246 MB log: before (full scan) vs after (from the end)"
BEFORE_COMMIT = "b3d82cb"


def _fill(path: str, megabytes: int) -> int:
    first = {"time": "2026-01-01T00:00:00.000+00:00", "kind": "decision", "tool": "Oldest",
             "behavior": "ask", "input": "first"}
    line = json.dumps({"time": "2026-01-01T00:00:01.000+00:00", "kind": "decision",
                       "tool": "Bash", "behavior": "allow", "user": "u", "agent": "agenttools",
                       "input": "git status " + "o" * 900}) + "\n"
    block = (line * 1024).encode()
    with open(path, "wb") as f:
        f.write((json.dumps(first) + "\n").encode())
        for _ in range(megabytes * 1000 * 1000 // len(block)):
            f.write(block)
    return os.path.getsize(path)


def _old_module():
    try:
        source = subprocess.run(["git", "-C", REPO, "show",
                                 f"{BEFORE_COMMIT}:jupyter_agenttools/permission/audit.py"],
                                capture_output=True, text=True, check=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    source = source.replace("from .settings import", "from jupyter_agenttools.permission."
                                                      "settings import")
    folder = tempfile.mkdtemp(prefix="audit-before-")
    path = os.path.join(folder, "audit_before.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location("audit_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(quick: bool) -> dict:
    from jupyter_agenttools.permission.audit import AuditLog

    megabytes, reps = (8, 1) if quick else (246, 3)
    with tempfile.TemporaryDirectory(prefix="bench-audit-") as folder:
        path = os.path.join(folder, "audit.jsonl")
        size = _fill(path, megabytes)
        log = AuditLog(path, max_bytes=None)
        after = median_s(lambda: log.read(limit=1), reps)
        scanned_limit_1 = log.scanned_bytes
        page = median_s(lambda: log.read(limit=20, offset=100), reps)
        scanned_page = log.scanned_bytes
        oldest = median_s(lambda: log.read(limit=1, tool="Oldest"), 1)
        if log.read(limit=1, tool="Oldest")[0]["input"] != "first":
            raise RuntimeError("the filtered full scan did not find the oldest line")
        old = _old_module()
        before = None
        if old is not None:
            old_log = old.AuditLog(path)
            before = median_s(lambda: old_log.read(limit=1), reps)
    out = {
        "reps": f"{reps} read(s) each, median; log {size / 1e6:.0f} MB",
        "log_mb": round(size / 1e6, 1),
        "before_limit_1_s": None if before is None else round(before, 4),
        "after_limit_1_s": round(after, 6),
        "after_limit_1_scanned_kb": round(scanned_limit_1 / 1024, 1),
        "after_page_20_offset_100_s": round(page, 6),
        "after_page_scanned_kb": round(scanned_page / 1024, 1),
        "after_full_scan_filter_s": round(oldest, 3),
    }
    out["speedup_limit_1"] = None if before is None else round(before / after, 1)
    return out


def summary(f: dict) -> str:
    before = "n/a (no git)" if f["before_limit_1_s"] is None else f"{f['before_limit_1_s']:.3f} s"
    return (f"read(limit=1) on {f['log_mb']:.0f} MB: before {before}, after "
            f"{f['after_limit_1_s'] * 1000:.2f} ms ({f['after_limit_1_scanned_kb']} KB read); "
            f"a filter matching only the oldest line scans it all in "
            f"{f['after_full_scan_filter_s']:.2f} s")
