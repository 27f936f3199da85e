"""sandbox: what a sandboxed command costs next to an unsandboxed one.

What: ``await LocalBackend.exec_shell(["true"])`` three ways, interleaved round by round so the
machine's load hits them alike — a bare asyncio subprocess in its own process group (what a
command cost before the supervisor), the supervised command (every command now: a child
subreaper that tracks the whole tree), and the sandboxed command (bubblewrap, with the secret
walk of the working folder). The sandboxed run is measured in a small project (20 files) and
in a larger one (2,000 files, the walk's cost). Ratios are of medians of the same run.

Repetitions: 30 rounds after 3 warm-up (quick: 3 rounds, 1 warm-up).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time

from _common import Skip

ABOUT = "exec_shell(['true']): bare subprocess vs supervised vs bubblewrap sandbox (ratios)"


def _project(root: str, files: int) -> str:
    os.makedirs(root)
    for i in range(files):
        sub = os.path.join(root, f"pkg{i % 20}")
        os.makedirs(sub, exist_ok=True)
        with open(os.path.join(sub, f"m{i}.py"), "w") as f:
            f.write("x = 1\n")
    with open(os.path.join(root, ".env"), "w") as f:
        f.write("KEY=secret\n")
    os.makedirs(os.path.join(root, ".git", "hooks"))
    return root


async def _bare(cwd: str) -> None:
    proc = await asyncio.create_subprocess_exec(
        "true", cwd=cwd, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, start_new_session=True)
    await proc.communicate()


async def _all(quick: bool) -> dict:
    from jupyter_agenttools.backends.local import LocalBackend
    from jupyter_agenttools.backends.sandbox import SandboxPolicy, build_spec, probe_local

    available, why = probe_local()
    if not available:
        raise Skip(f"bubblewrap unavailable: {why}")
    rounds, warm = (3, 1) if quick else (30, 3)
    with tempfile.TemporaryDirectory(dir="/var/tmp" if os.path.isdir("/var/tmp") else None
                                     ) as tmp:
        small = _project(os.path.join(tmp, "small"), 20)
        large = _project(os.path.join(tmp, "large"), 2000)
        policy = SandboxPolicy(enabled=True)
        ways = {
            "bare": lambda: _bare(small),
            "supervised": lambda: LocalBackend(small).exec_shell(["true"]),
            "sandboxed": lambda: LocalBackend(small).exec_shell(
                ["true"], sandbox=build_spec(policy, [small])),
            "sandboxed_2000_files": lambda: LocalBackend(large).exec_shell(
                ["true"], sandbox=build_spec(policy, [large])),
        }
        samples: dict[str, list[float]] = {k: [] for k in ways}
        for i in range(warm + rounds):
            for name, make in ways.items():
                t0 = time.perf_counter()
                result = await make()
                elapsed = time.perf_counter() - t0
                if result is not None and (result.exit_code != 0 or
                                           (name.startswith("sandboxed") and
                                            result.sandbox != "on")):
                    raise RuntimeError(f"{name}: {result}")
                if i >= warm:
                    samples[name].append(elapsed)
    med = {k: statistics.median(v) * 1000 for k, v in samples.items()}
    return {
        "reps": f"{rounds} interleaved rounds (+{warm} warm-up)",
        "median_ms": {k: round(v, 2) for k, v in med.items()},
        "p90_ms": {k: round(sorted(v)[int(0.9 * (len(v) - 1))] * 1000, 2)
                   for k, v in samples.items()},
        "ratio_sandboxed_vs_supervised": round(med["sandboxed"] / med["supervised"], 2),
        "ratio_sandboxed_vs_bare": round(med["sandboxed"] / med["bare"], 2),
        "ratio_supervised_vs_bare": round(med["supervised"] / med["bare"], 2),
        "ratio_walk_2000_files": round(med["sandboxed_2000_files"] / med["sandboxed"], 2),
    }


def run(quick: bool) -> dict:
    return asyncio.run(_all(quick))


def summary(f: dict) -> str:
    m = f["median_ms"]
    return (f"true: bare {m['bare']} ms, supervised {m['supervised']} ms, sandboxed "
            f"{m['sandboxed']} ms (x{f['ratio_sandboxed_vs_supervised']} vs unsandboxed), "
            f"sandboxed in 2,000 files {m['sandboxed_2000_files']} ms")
