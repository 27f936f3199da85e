"""The one entry point of the benchmarks.

    python benchmarks/run.py [NAME ...] [--quick] [--jobs N]

Runs each named benchmark (all by default) in its own fresh Python process, so memory peaks,
imports and crashes stay apart, and prints one JSON line per benchmark as it finishes
(``{"name", "about", "reps", <figures>, "summary", "machine", "seconds"}``, or
``{"name", "skipped": reason}`` when the part it measures is missing, or ``{"name", "error"}``),
then a short human table. ``--quick`` uses tiny repetition counts (a smoke run, not a figure).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))

# name -> module in this folder; the order is the run order.
BENCHMARKS = {
    "bash-decisions": "bench_decisions",
    "pipeline": "bench_pipeline",
    "concurrency": "bench_concurrency",
    "load": "bench_load",
    "big-output": "bench_big_output",
    "backends": "bench_backends",
    "audit": "bench_audit",
    "sandbox": "bench_sandbox",
    "process-tree": "bench_process_tree",
    "hook": "bench_hook",
    "notebook-output": "bench_notebook_output",
}


def _child(name: str, quick: bool) -> int:
    """Run one benchmark in this process and print its JSON line."""
    sys.path[:0] = [os.path.dirname(HERE), HERE]  # the working tree, then our modules
    from _common import Skip, machine

    out: dict = {"name": name}
    start = time.perf_counter()
    try:
        mod = importlib.import_module(BENCHMARKS[name])
        out["about"] = mod.ABOUT
        figures = mod.run(quick)
        out.update(figures)
        out["summary"] = mod.summary(figures)
    except Skip as exc:
        out["skipped"] = str(exc)
    except ImportError as exc:  # the part it measures is not there (yet)
        out["skipped"] = f"part missing: {type(exc).__name__}: {exc}"
    except Exception as exc:
        traceback.print_exc()
        out["error"] = f"{type(exc).__name__}: {exc}"
    out["quick"] = quick
    out["seconds"] = round(time.perf_counter() - start, 2)
    out["machine"] = machine()
    sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    sys.stdout.flush()
    return 1 if "error" in out else 0


def _run_one(name: str, quick: bool, timeout: float) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--child", name]
    if quick:
        cmd.append("--quick")
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        return {"name": name, "error": f"timed out after {timeout:.0f} s",
                "stderr_tail": (exc.stderr or b"")[-2000:].decode("utf-8", "replace")
                if isinstance(exc.stderr, bytes) else (exc.stderr or "")[-2000:],
                "seconds": round(time.perf_counter() - start, 2)}
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("{"):
            try:
                result = json.loads(line)
            except json.JSONDecodeError:
                break
            if "error" in result and proc.stderr:
                result["stderr_tail"] = proc.stderr[-2000:]
            return result
    return {"name": name, "error": f"the benchmark process exited {proc.returncode} without "
                                   "a result line", "stderr_tail": proc.stderr[-2000:],
            "seconds": round(time.perf_counter() - start, 2)}


def _table(results: list[dict]) -> str:
    rows = [("benchmark", "result", "s")]
    for r in results:
        if "skipped" in r:
            text = f"skipped: {r['skipped']}"
        elif "error" in r:
            text = f"ERROR: {r['error']}"
        else:
            text = r.get("summary", "")
        rows.append((r["name"], text, f"{r.get('seconds', 0):.1f}"))
    w = max(len(r[0]) for r in rows)
    lines = []
    for n, (name, text, secs) in enumerate(rows):
        first, *rest = text.split("\n")
        lines.append(f"{name:<{w}}  {secs:>6}  {first}")
        lines += [f"{'':<{w}}  {'':>6}  {more}" for more in rest]
        if n == 0:
            lines.append("-" * min(100, w + 10 + max(len(x[1].split(chr(10))[0]) for x in rows)))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"benchmarks to run (default: all): {', '.join(BENCHMARKS)}")
    parser.add_argument("--quick", action="store_true",
                        help="tiny repetition counts: a smoke run, the figures mean nothing")
    parser.add_argument("--jobs", type=int, default=1, metavar="N",
                        help="run N benchmarks at once (for smoke runs only: they disturb "
                             "each other's figures)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds allowed per benchmark (default 60 quick, 240 full)")
    parser.add_argument("--child", metavar="NAME", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        if args.child not in BENCHMARKS:
            parser.error(f"unknown benchmark {args.child!r}")
        return _child(args.child, args.quick)
    unknown = [n for n in args.names if n not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}; "
                     f"choose from {', '.join(BENCHMARKS)}")
    names = args.names or list(BENCHMARKS)
    timeout = args.timeout or (60.0 if args.quick else 240.0)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    results = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for result in pool.map(lambda n: _run_one(n, args.quick, timeout), names):
            results.append(result)  # in the order asked for, each as soon as it is known
            print(json.dumps(result, ensure_ascii=False), flush=True)
    print()
    print(_table(results))
    return 1 if any("error" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
