"""process-tree: commands whose processes escape their group, per backend — wall time against
the timeout, and how many processes survive.

What: for LocalBackend, KernelBackend and JupyterKernelBackend (a real kernel), each scenario
runs with ``timeout=1.5`` s; its processes record their pids, so after the call the survivors
are counted exactly (alive 1 s later). Scenarios: ``setsid`` escapee, ``setpgid`` escapee,
double fork, a SIGTERM-ignoring grandchild in its own session, a leader that exits at once
while its escapees hold the output pipe, and 40 escapees forked from a new session. Every
escapee keeps the inherited stdout (it holds the pipe). Also: a cancellation of each backend's
command after the escapees started (survivors), and a SIGKILL of the kernel running a
JupyterKernelBackend command (survivors, no restart, no later call).

Repetitions: 3 per scenario and backend (quick: LocalBackend, 2 scenarios, 1 each).
"""

from __future__ import annotations

import asyncio
import os
import signal
import statistics
import sys
import tempfile
import time

ABOUT = "escapees (setsid/setpgid/double fork/TERM-ignoring/fork storm): wall vs timeout, survivors"

TIMEOUT = 1.5
PY = sys.executable
LIVE = "echo $$ >> {pids}; exec sleep 300"
WAIT = ("wait_for() { for _ in $(seq 200); do [ \"$(wc -l < {pids} 2>/dev/null || echo 0)\" "
        "-ge \"$1\" ] && return; sleep 0.02; done; }; ")
SCENARIOS = {
    "setsid": (f"setsid bash -c '{LIVE}' & wait_for 1; sleep 300", 1),
    "setpgid": (f"{PY} -c 'import os, time; os.setpgid(0, 0); "
                f"open(\"{{pids}}\", \"a\").write(\"%d\\n\" % os.getpid()); time.sleep(300)' & "
                f"wait_for 1; sleep 300", 1),
    "double_fork": (f"( bash -c '{LIVE}' & ) ; wait_for 1; sleep 300", 1),
    "term_ignoring": ("setsid bash -c 'trap \"\" TERM; echo $$ >> {pids}; "
                      "for i in $(seq 600); do sleep 0.5; done' & wait_for 1; sleep 300", 1),
    "leader_exits_escapees_hold_pipe": (
        f"setsid bash -c '{LIVE}' & ( bash -c '{LIVE}' & ) ; wait_for 2; exit 0", 2),
    "fork_storm_40": (
        "setsid bash -c 'echo $$ >> {pids}; for i in $(seq 40); do "
        "( setsid bash -c \"echo \\$\\$ >> {pids}; exec sleep 300\" & ); done; sleep 300' & "
        "wait_for 41; sleep 300", 41),
}


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError):
        return False


def _pids(path: str) -> list[int]:
    try:
        with open(path) as f:
            return [int(x) for x in f.read().split()]
    except FileNotFoundError:
        return []


def _survivors(pids: list[int]) -> int:
    time.sleep(1.0)
    alive = [p for p in pids if _alive(p)]
    for p in alive:  # leave the machine clean whatever happened
        os.kill(p, signal.SIGKILL)
    return len(alive)


async def _scenario(backend, name: str, tmp: str, reps: int) -> dict:
    walls, survivors, stopped, started = [], 0, [], []
    for i in range(reps):
        pidfile = os.path.join(tmp, f"{name}-{i}-{time.monotonic_ns()}")
        script, count = SCENARIOS[name]
        script = (WAIT + script).replace("{pids}", pidfile)
        t0 = time.perf_counter()
        r = await backend.exec_shell(["/bin/bash", "-c", script], timeout=TIMEOUT)
        walls.append(time.perf_counter() - t0)
        pids = _pids(pidfile)
        started.append(len(pids))
        survivors += _survivors(pids)
        stopped.append(r.stopped)
    return {"wall_s_median": round(statistics.median(walls), 2),
            "wall_s_max": round(max(walls), 2), "processes": max(started),
            "survivors": survivors, "reported_stopped": stopped}


async def _cancel(backend, tmp: str) -> int:
    pidfile = os.path.join(tmp, f"cancel-{time.monotonic_ns()}")
    script, count = SCENARIOS["fork_storm_40"]
    task = asyncio.ensure_future(backend.exec_shell(
        ["/bin/bash", "-c", (WAIT + script).replace("{pids}", pidfile)], timeout=60))
    for _ in range(300):
        if len(_pids(pidfile)) >= count:
            break
        await asyncio.sleep(0.05)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    return _survivors(_pids(pidfile))


async def _kernel_kill(tmp: str) -> dict:
    from jupyter_agenttools.backends.jupyter_kernel import JupyterKernelBackend

    backend = await JupyterKernelBackend.start("python3", cwd=tmp)
    try:
        pidfile = os.path.join(tmp, "kernel-kill")
        script, count = SCENARIOS["fork_storm_40"]
        call = asyncio.ensure_future(backend.exec_shell(
            ["/bin/bash", "-c", (WAIT + script).replace("{pids}", pidfile)], timeout=120))
        for _ in range(300):
            if len(_pids(pidfile)) >= count:
                break
            await asyncio.sleep(0.05)
        pids = _pids(pidfile)
        os.kill(backend.kernel_pid, signal.SIGKILL)
        try:
            await call
        except Exception:  # noqa: BLE001 - the call fails: the kernel died
            pass
        return {"processes": len(pids), "survivors": _survivors(pids)}
    finally:
        await backend.close()


async def _all(quick: bool) -> dict:
    from jupyter_agenttools.backends.jupyter_kernel import JupyterKernelBackend
    from jupyter_agenttools.backends.kernel import KernelBackend
    from jupyter_agenttools.backends.local import LocalBackend

    reps = 1 if quick else 3
    names = ["setsid", "leader_exits_escapees_hold_pipe"] if quick else list(SCENARIOS)
    out: dict = {"reps": f"{reps} per scenario and backend, timeout {TIMEOUT} s",
                 "timeout_s": TIMEOUT}
    with tempfile.TemporaryDirectory() as tmp:
        backends = {"local": LocalBackend(tmp), "kernel": KernelBackend()}
        remote = None
        if not quick:
            remote = await JupyterKernelBackend.start("python3", cwd=tmp)
            backends["jupyter_kernel"] = remote
        try:
            for kind, backend in backends.items():
                out[kind] = {name: await _scenario(backend, name, tmp, reps) for name in names}
                if not quick:
                    out[kind]["cancel_fork_storm_survivors"] = await _cancel(backend, tmp)
        finally:
            if remote is not None:
                await remote.close()
        if not quick:
            out["jupyter_kernel_sigkill"] = await _kernel_kill(tmp)
    walls = [s["wall_s_max"] for k in ("local", "kernel", "jupyter_kernel") if k in out
             for s in out[k].values() if isinstance(s, dict)]
    out["worst_wall_s"] = max(walls)
    out["total_survivors"] = sum(
        s["survivors"] for k in ("local", "kernel", "jupyter_kernel") if k in out
        for s in out[k].values() if isinstance(s, dict)) + sum(
        out[k].get("cancel_fork_storm_survivors", 0) for k in ("local", "kernel",
                                                               "jupyter_kernel") if k in out) \
        + out.get("jupyter_kernel_sigkill", {}).get("survivors", 0)
    return out


def run(quick: bool) -> dict:
    return asyncio.run(_all(quick))


def summary(f: dict) -> str:
    lines = [f"timeout {f['timeout_s']} s: worst wall {f['worst_wall_s']} s, survivors "
             f"{f['total_survivors']} in total"]
    for kind in ("local", "kernel", "jupyter_kernel"):
        if kind in f:
            parts = [f"{n} {s['wall_s_median']} s/{s['survivors']}"
                     for n, s in f[kind].items() if isinstance(s, dict)]
            lines.append(f"{kind}: " + ", ".join(parts))
    if "jupyter_kernel_sigkill" in f:
        k = f["jupyter_kernel_sigkill"]
        lines.append(f"kernel SIGKILL: {k['survivors']} of {k['processes']} survived")
    return "\n".join(lines)
