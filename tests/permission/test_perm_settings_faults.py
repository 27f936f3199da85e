"""Fault injection, settings (issue 18): concurrent writers killed with SIGKILL at random
moments while readers load. A bounded number of kills; every rule a writer saw written is kept,
the deny rule written first is never lost, readers never see a partial file, and the temp files
the kills left are gone after the next write."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from fault_figures import record

from jupyter_agenttools.permission.settings import SettingsStore

REPO = Path(__file__).resolve().parents[2]
KILLS = 12
WRITERS = 3

WRITER = textwrap.dedent("""
    import sys
    from jupyter_agenttools.permission.settings import SettingsStore
    root, user, tag = sys.argv[1], sys.argv[2], sys.argv[3]
    store = SettingsStore(root, user_dir=user, managed_path=user + "/managed.json")
    i = 0
    while True:
        store.add_rule("local", "allow", f"Bash(cmd-{tag}-{i})")
        print(i, flush=True)  # after add_rule returned: this rule must survive
        i += 1
""")

READER = textwrap.dedent("""
    import os, sys, time
    from jupyter_agenttools.errors import SettingsError
    from jupyter_agenttools.permission.settings import SettingsStore
    root, user, stop = sys.argv[1], sys.argv[2], sys.argv[3]
    store = SettingsStore(root, user_dir=user, managed_path=user + "/managed.json")
    loads = errors = missing_deny = 0
    end = time.monotonic() + 200  # a bound, should the test die first
    while time.monotonic() < end and not os.path.exists(stop):
        try:
            merged = store.load()
            loads += 1
            if not any(r.text == "Bash(rm:*)" and r.behavior.value == "deny"
                       for r in merged.rules):
                missing_deny += 1
        except SettingsError as exc:
            errors += 1
            print("ERROR", exc, file=sys.stderr, flush=True)
    print(loads, errors, missing_deny, flush=True)
""")


class Writer:
    def __init__(self, store: SettingsStore, user: Path, tag: str, env: dict):
        self.tag = tag
        self.proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(store.project_root), str(user), tag],
            env=env, stdout=subprocess.PIPE, text=True)
        os.set_blocking(self.proc.stdout.fileno(), False)
        self.acked = -1
        self._buffer = ""

    def read_acks(self) -> None:
        try:
            data = self.proc.stdout.read()
        except (BlockingIOError, TypeError):
            data = None
        if data:
            self._buffer += data
            *lines, self._buffer = self._buffer.split("\n")
            for line in lines:
                self.acked = int(line)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.read_acks()  # what it printed before dying was acknowledged

    def rules(self) -> set[str]:
        return {f"Bash(cmd-{self.tag}-{i})" for i in range(self.acked + 1)}


@pytest.mark.timeout(240)
def test_concurrent_writers_killed_at_random_keep_every_acknowledged_rule(tmp_path):
    user = tmp_path / "user"
    store = SettingsStore(tmp_path / "proj", user_dir=user, managed_path=user / "managed.json")
    store.add_rule("local", "deny", "Bash(rm:*)")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    rng = random.Random(18)
    stop = tmp_path / "stop-reading"
    reader = subprocess.Popen([sys.executable, "-c", READER, str(store.project_root),
                               str(user), str(stop)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    writers = [Writer(store, user, f"w{n}g0", env) for n in range(WRITERS)]
    done: list[Writer] = []
    temps_seen = 0
    try:
        deadline = time.monotonic() + 90  # let them import and start writing (a busy machine)
        while time.monotonic() < deadline:
            for w in writers:
                w.read_acks()
            if all(w.acked >= 0 for w in writers):
                break
            time.sleep(0.1)
        for kill in range(KILLS):
            time.sleep(rng.uniform(0.05, 0.4))
            n = rng.randrange(WRITERS)
            victim = writers[n]
            victim.read_acks()
            victim.kill()
            done.append(victim)
            folder = store.path("local").parent
            temps_seen = max(temps_seen, sum(1 for p in folder.iterdir() if p.suffix == ".tmp"))
            writers[n] = Writer(store, user, f"w{n}g{kill + 1}", env)
        time.sleep(0.5)
    finally:
        for w in writers:
            w.read_acks()
            w.kill()
            done.append(w)
        stop.touch()
    out, err = reader.communicate(timeout=120)
    loads, errors, missing_deny = map(int, out.split())
    folder = store.path("local").parent
    temps_left = sorted(p.name for p in folder.iterdir() if p.suffix == ".tmp")

    merged = store.load()
    kept = {r.text for r in merged.rules if r.behavior.value == "allow"}
    acked: set[str] = set().union(*(w.rules() for w in done))
    raw = json.loads(store.path("local").read_text())["permissions"].get("allow", [])

    store.add_rule("local", "allow", "Bash(after)")  # the next write cleans the temp files
    temps_after = [p.name for p in folder.iterdir() if p.suffix == ".tmp"]
    record("settings", "writers_killed_at_random", kills=KILLS, writers=WRITERS,
           acknowledged=len(acked), kept=len(kept), lost=len(acked - kept),
           duplicates=len(raw) - len(set(raw)), reader_loads=loads, reader_errors=errors,
           reader_loads_without_the_deny_rule=missing_deny,
           temp_files_after_kills=len(temps_left), max_temp_files_seen=temps_seen,
           temp_files_after_next_write=len(temps_after))
    assert acked and acked <= kept, sorted(acked - kept)[:5]
    assert len(raw) == len(set(raw))
    assert any(r.text == "Bash(rm:*)" and r.behavior.value == "deny" for r in merged.rules)
    assert (errors, missing_deny) == (0, 0), err[-2000:]
    assert loads > 0
    assert temps_after == []
