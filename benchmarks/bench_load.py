"""load: what a user waits for before the first agent cell.

What: (a) ``import jupyter_agenttools`` in a fresh ``python -c`` process, timed inside that
process (the process wall time and a bare ``python -c pass`` are reported beside it);
(b) ``%load_ext jupyter_agenttools`` in a fresh IPython kernel started with jupyter_client:
the execute round trip of the magic, minus the round trip of an empty cell in the same
kernel; (c) in the full run, a fresh ``import jsonschema`` (gate 2 imports it on the first
call that parses arguments).

Repetitions: 7 interpreter starts of each kind, 5 fresh kernels, 3 jsonschema imports; the
median is reported (quick: 2, 1, none). Bytecode as an installed package has it: the
processes may write ``__pycache__`` (``PYTHONDONTWRITEBYTECODE`` is dropped: with it every
start compiles ~90 modules from source, ~0.2 s that no pip-installed copy pays) and one
unmeasured kernel loads the extension first. The user's settings file, if any, is read as
in real use.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

from _common import REPO, Skip

ABOUT = ("import jupyter_agenttools (fresh process) and %load_ext jupyter_agenttools (fresh "
         "kernel), median of several")


def _env() -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _python_c(code: str) -> tuple[float, float]:
    """(process wall time, time of ``code`` itself measured inside the process)."""
    env = _env()
    timed = f"import time as _t; _s = _t.perf_counter(); {code}; print(_t.perf_counter() - _s)"
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", timed], capture_output=True, text=True,
                          env=env, timeout=120)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"python -c {code!r} failed: {proc.stderr.strip()[-300:]}")
    return wall, float(proc.stdout.strip().splitlines()[-1])


def _execute(kc, code: str, timeout: float = 60) -> float:
    start = time.perf_counter()
    reply = kc.execute_interactive(code, timeout=timeout, output_hook=lambda msg: None)
    wall = time.perf_counter() - start
    content = reply["content"]
    if content.get("status") != "ok":
        raise RuntimeError(f"{code!r} failed in the kernel: {content.get('ename')}: "
                           f"{content.get('evalue')}")
    return wall


def _load_ext_once() -> tuple[float, float, float]:
    """(kernel start to ready, %load_ext round trip, empty-cell round trip) in seconds."""
    from jupyter_client.manager import KernelManager

    env = _env()
    km = KernelManager(kernel_name="python3")
    start = time.perf_counter()
    km.start_kernel(env=env, cwd=REPO)
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=120)
        ready = time.perf_counter() - start
        empty = _execute(kc, "pass")
        load = _execute(kc, "%load_ext jupyter_agenttools")
        _execute(kc, "import sys; assert 'jupyter_agenttools' in sys.modules")
        return ready, load, empty
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def run(quick: bool) -> dict:
    starts, kernels, schema = (2, 1, 0) if quick else (7, 5, 3)
    try:
        import jupyter_client  # noqa: F401
    except ImportError:
        raise Skip("jupyter_client is not installed") from None
    _python_c("import jupyter_agenttools")  # writes the bytecode; not counted
    bare = [_python_c("pass")[0] for _ in range(starts)]
    imp = [_python_c("import jupyter_agenttools") for _ in range(starts)]
    out: dict = {
        "reps": f"{starts} fresh processes each, {kernels} fresh kernel(s)"
                + (f", {schema} jsonschema imports" if schema else ""),
        "python_start_s": round(statistics.median(bare), 4),
        "import_process_wall_s": round(statistics.median(w for w, _ in imp), 4),
        "import_s": round(statistics.median(t for _, t in imp), 4),
    }
    _load_ext_once()  # writes the bytecode; not counted
    runs = [_load_ext_once() for _ in range(kernels)]
    out["kernel_ready_s"] = round(statistics.median(r[0] for r in runs), 3)
    out["load_ext_s"] = round(statistics.median(r[1] for r in runs), 4)
    out["empty_cell_s"] = round(statistics.median(r[2] for r in runs), 4)
    out["load_ext_net_s"] = round(out["load_ext_s"] - out["empty_cell_s"], 4)
    # load-independent-ish: how many bare interpreter starts %load_ext costs on this machine now
    out["load_ext_in_python_starts"] = round(out["load_ext_net_s"] / out["python_start_s"], 2)
    if schema:
        js = [_python_c("import jsonschema")[1] for _ in range(schema)]
        out["import_jsonschema_s"] = round(statistics.median(js), 3)
    return out


def summary(f: dict) -> str:
    text = (f"import {f['import_s'] * 1000:.0f} ms (+{f['python_start_s'] * 1000:.0f} ms "
            f"interpreter start), %load_ext {f['load_ext_net_s'] * 1000:.0f} ms (kernel ready in "
            f"{f['kernel_ready_s']:.1f} s; = {f['load_ext_in_python_starts']:.1f} bare "
            f"interpreter starts)")
    if "import_jsonschema_s" in f:
        text += f"\nimport jsonschema (first toolkit/gate-2 use): {f['import_jsonschema_s']:.2f} s"
    return text
