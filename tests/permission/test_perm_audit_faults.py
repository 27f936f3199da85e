"""Fault injection on the audit log: ``kill -9`` in the middle of large appends.

A writer killed during an 8 MB append leaves a partial line. Before the fix the next record was
glued onto it and lost with it (15 of 30 kills); now every record starts on a fresh line, so
only the cut record is lost. Bounded: 30 kills, one fresh file each (a few 8 MB lines).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

from jupyter_agenttools.permission.audit import AuditLog

KILLS = 30
LINE_MB = 8

WRITER = r"""
import json, sys
from jupyter_agenttools.permission.audit import AuditLog

log = AuditLog(sys.argv[1], max_line_bytes=4 * 8 * 1024 * 1024, max_bytes=None)
record = {"time": "2026-01-01T00:00:00.000+00:00", "kind": "decision", "tool": "Bash",
          "input": "k" * (int(sys.argv[2]) * 1024 * 1024)}
data = (json.dumps(record) + "\n").encode()
print("ready", flush=True)
while True:  # the append path of record(): lock, fresh-line check, one write
    log._append(data, locked=True)
"""


def _kill_during_appends(path: str, rng: random.Random) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    child = subprocess.Popen([sys.executable, "-c", WRITER, path, str(LINE_MB)],
                             stdout=subprocess.PIPE, env=env)
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == b"ready\n"
        time.sleep(rng.uniform(0.0, 0.04))
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        if child.stdout is not None:
            child.stdout.close()


def test_a_cut_append_never_swallows_the_next_record(tmp_path):
    rng = random.Random(1234)
    cuts = lost = 0
    for n in range(KILLS):
        path = tmp_path / f"audit-{n}.jsonl"
        log = AuditLog(path)
        log.record(kind="marker", input=f"before-{n}")
        _kill_during_appends(str(path), rng)
        with open(path, "rb") as f:
            f.seek(-1, os.SEEK_END)
            cut = f.read(1) != b"\n"
        cuts += cut
        log.record(kind="marker", input=f"after-{n}")
        # an unfiltered read parses every line, so `skipped` counts the cut one
        markers = [e["input"] for e in log.read() if e.get("kind") == "marker"]
        if markers != [f"after-{n}", f"before-{n}"]:
            lost += 1
        assert log.skipped == int(cut), f"kill {n}: one cut record expected, {log.skipped} skipped"
        path.unlink()
    print(f"\nkill -9 during {LINE_MB} MB appends: {cuts} of {KILLS} kills cut a record, "
          f"{lost} following records lost")
    assert lost == 0
    # the premise: kills do land in the middle of writes (15 of 30 in the run)
    assert cuts >= 1
