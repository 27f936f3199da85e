"""hook: one ``agenttools hook <agent>`` call end to end, as the agents run it (a subprocess).

What: Claude Code, Codex and Gemini CLI start ``agenttools hook …`` before EVERY tool call, with
the call as JSON on stdin. For each agent and for an allow, an ask and a deny answer (plus a
file-tool call), one fresh process runs the console script's code (``from
jupyter_agenttools.cli import main; sys.exit(main())``) in a project with a settings file, and
its answer is checked (a wrong answer is an error, never a figure). Measured per process: CPU
time (user+sys of the child, from ``getrusage``) and wall time. ``python -c pass`` and ``python
-S -c pass`` run in the same rounds: the floor (the interpreter, ``site`` and the ``.pth`` files
of this environment) is not our cost; ``own`` = the call's median CPU minus the floor's.

Trees: "before" is the package at commit BEFORE_COMMIT (from git), "after" the working tree;
both are clean copies in a temp folder and run in interleaved rounds, so the ratio holds even
when the machine is loaded (2 shared cores here: compare ratios, not absolute times).

Bytecode: "cached" (a private PYTHONPYCACHEPREFIX, warmed first: what a pip install gives) for
every case; "uncached" (PYTHONDONTWRITEBYTECODE=1 and no .pyc for our package: this sandbox's
setting, or a read-only checkout) for one case per agent.

Also printed: the modules a call imports beyond the floor (from ``-X importtime``: counts, the
heavy ones, the top imports by self time — wall µs, min of 3 runs) and an in-process split of
one call (CPU spent loading modules vs the rest, and the settings load, schema compile,
decision and audit append, each inclusive).

Repetitions: 5 rounds (median); quick: 1 round, one case per agent, no uncached mode.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

from _common import REPO, Skip

ABOUT = ("agenttools hook <agent>: one call end to end in a subprocess (CPU and wall), per "
         "agent and allow/ask/deny, before vs after, above the python -c pass floor")
BEFORE_COMMIT = "56e5b1c"  # main before the hook was made fast
ENTRY = "import sys; from jupyter_agenttools.cli import main; sys.exit(main())"
#: modules a hook call must not need (their presence is reported)
HEAVY = ("asyncio", "openai", "mcp", "jupyter_server", "jsonschema", "ipywidgets", "IPython",
         "traitlets", "pydantic", "httpx", "litellm", "jupyter_agenttools.builtin.notebook",
         "jupyter_agenttools.pycode", "jupyter_agenttools.backends.local",
         "jupyter_agenttools.agent")

SETTINGS = {"permissions": {
    "deny": ["Bash(git push:*)", "Write(secrets/**)", "Read(./.env)"],
    "allow": ["Bash(make test)", "mcp__github"],
}}


def _claude(tool: str, tool_input: dict[str, Any], project: str) -> dict[str, Any]:
    return {"session_id": "bench", "transcript_path": "/tmp/t.jsonl", "cwd": project,
            "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool,
            "tool_input": tool_input, "tool_use_id": "toolu_bench"}


def _codex(tool: str, tool_input: dict[str, Any], project: str) -> dict[str, Any]:
    return {"session_id": "bench", "turn_id": "t", "transcript_path": None, "cwd": project,
            "hook_event_name": "PreToolUse", "model": "gpt-5-codex",
            "permission_mode": "default", "tool_name": tool, "tool_input": tool_input,
            "tool_use_id": "call_bench"}


def _gemini(tool: str, tool_input: dict[str, Any], project: str) -> dict[str, Any]:
    return {"session_id": "bench", "transcript_path": "/tmp/g.json", "cwd": project,
            "hook_event_name": "BeforeTool", "timestamp": "2026-12-01T10:30:00Z",
            "tool_name": tool, "tool_input": tool_input}


def _claude_says(out: str, code: int) -> str:
    return json.loads(out)["hookSpecificOutput"]["permissionDecision"] if code == 0 else "?"


def _codex_says(out: str, code: int) -> str:
    if code != 0:
        return "?"
    if not out.strip():
        return "allow"  # Codex enforces only a denial: an allow is silent
    reason = json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"]
    return "ask" if "needs a person's approval" in reason else "deny"


def _gemini_says(out: str, code: int) -> str:
    if code != 0:
        return "?"
    answer = json.loads(out)
    if answer.get("decision") == "deny":
        return "ask" if "approval" in answer.get("reason", "") else "deny"
    return answer.get("decision", "none")


# (label, agent, payload builder, expected verdict, answer reader); quick uses the first of each
# agent. The ask of Codex and Gemini CLI is answered as a denial that says approval is needed.
CASES = [
    ("claude-code Bash allow", "claude-code",
     lambda p: _claude("Bash", {"command": "git status"}, p), "allow", _claude_says),
    ("claude-code Bash ask", "claude-code",
     lambda p: _claude("Bash", {"command": "rm -rf build"}, p), "ask", _claude_says),
    ("claude-code Bash deny", "claude-code",
     lambda p: _claude("Bash", {"command": "git push origin main"}, p), "deny", _claude_says),
    ("claude-code Read allow", "claude-code",
     lambda p: _claude("Read", {"file_path": f"{p}/src/a.py"}, p), "allow", _claude_says),
    ("claude-code Write deny", "claude-code",
     lambda p: _claude("Write", {"file_path": f"{p}/secrets/k", "content": "k"}, p), "deny",
     _claude_says),
    ("codex Bash allow", "codex",
     lambda p: _codex("Bash", {"command": "git status"}, p), "allow", _codex_says),
    ("codex Bash ask", "codex",
     lambda p: _codex("Bash", {"command": "rm -rf build"}, p), "ask", _codex_says),
    ("codex Bash deny", "codex",
     lambda p: _codex("Bash", {"command": "git push origin main"}, p), "deny", _codex_says),
    ("gemini-cli shell allow", "gemini-cli",
     lambda p: _gemini("run_shell_command", {"command": "ls -la"}, p), "allow", _gemini_says),
    ("gemini-cli shell ask", "gemini-cli",
     lambda p: _gemini("run_shell_command", {"command": "rm -rf build"}, p), "ask",
     _gemini_says),
    ("gemini-cli shell deny", "gemini-cli",
     lambda p: _gemini("run_shell_command", {"command": "git push"}, p), "deny", _gemini_says),
    ("gemini-cli read_file allow", "gemini-cli",
     lambda p: _gemini("read_file", {"file_path": f"{p}/src/a.py"}, p), "allow", _gemini_says),
]


# --- the trees and the project ------------------------------------------------------------------


def _copy_working_tree(target: str) -> None:
    shutil.copytree(os.path.join(REPO, "jupyter_agenttools"),
                    os.path.join(target, "jupyter_agenttools"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "labextension",
                                                  "node_modules"))


def _export_commit(commit: str, target: str) -> None:
    os.makedirs(target, exist_ok=True)
    archive = subprocess.run(["git", "-C", REPO, "archive", "--format=tar", commit,
                              "jupyter_agenttools"], capture_output=True, timeout=60)
    if archive.returncode != 0:
        raise Skip(f"git archive {commit} failed: {archive.stderr.decode()[:200]}")
    subprocess.run(["tar", "-x", "-C", target], input=archive.stdout, check=True, timeout=60)


def _project(root: str) -> str:
    project = os.path.join(root, "proj")
    os.makedirs(os.path.join(project, ".agenttools"))
    os.makedirs(os.path.join(project, "src"))
    with open(os.path.join(project, "src", "a.py"), "w") as f:
        f.write("x = 1\n")
    with open(os.path.join(project, ".agenttools", "settings.local.json"), "w") as f:
        json.dump(SETTINGS, f)
    return project


# --- running one process ------------------------------------------------------------------------


def _env(root: str, tree: str, cached: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "COVERAGE_", "AGENTTOOLS_"))}
    env["PYTHONPATH"] = tree
    env["AGENTTOOLS_USER_DIR"] = os.path.join(root, "user")
    env["AGENTTOOLS_MANAGED_SETTINGS"] = os.path.join(root, "managed.json")
    if cached:
        env["PYTHONPYCACHEPREFIX"] = os.path.join(root, "pyc")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _run(argv: list[str], env: dict[str, str], cwd: str, stdin: bytes = b""
         ) -> tuple[float, float, int, str, str]:
    """(cpu s, wall s, exit code, stdout, stderr) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, input=stdin, capture_output=True, env=env, cwd=cwd,
                          timeout=120)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def _hook_argv(agent: str) -> list[str]:
    return [sys.executable, "-c", ENTRY, "hook", agent]


def _call(case: tuple, root: str, tree: str, project: str, cached: bool
          ) -> tuple[float, float]:
    label, agent, payload, expected, says = case
    cpu, wall, code, out, err = _run(_hook_argv(agent), _env(root, tree, cached), project,
                                     json.dumps(payload(project)).encode())
    got = says(out, code)
    if got != expected:
        raise RuntimeError(f"{label}: answered {got!r}, expected {expected!r} "
                           f"(exit {code}, stdout {out[:200]!r}, stderr {err[-300:]!r})")
    return cpu, wall


# --- imports: which modules, and the top ones -------------------------------------------------

_IMPORT_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)\s*$")


def _imports(argv: list[str], env: dict[str, str], cwd: str, stdin: bytes
             ) -> dict[str, int]:
    """Module → self µs (wall) from ``-X importtime``."""
    proc = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], input=stdin,
                          capture_output=True, env=env, cwd=cwd, timeout=120)
    out: dict[str, int] = {}
    for line in proc.stderr.decode().splitlines():
        match = _IMPORT_LINE.match(line)
        if match:
            out[match.group(4)] = int(match.group(1))
    return out


def _import_figures(case: tuple, root: str, tree: str, project: str, floor: set[str],
                    runs: int) -> dict[str, Any]:
    label, agent, payload, *_ = case
    env = _env(root, tree, True)
    stdin = json.dumps(payload(project)).encode()
    samples = [_imports(_hook_argv(agent), env, project, stdin) for _ in range(runs)]
    modules = set(samples[0])
    extra = modules - floor
    ours = sorted(m for m in extra if m.startswith("jupyter_agenttools"))
    self_us = {m: min(s.get(m, 0) for s in samples) for m in extra}
    top = sorted(self_us.items(), key=lambda item: -item[1])[:12]
    return {"case": label, "modules_beyond_floor": len(extra), "ours": len(ours),
            "heavy": sorted(h for h in HEAVY if h in modules),
            "top_self_ms": {m: round(us / 1e3, 1) for m, us in top}}


# --- in-process split of one call ---------------------------------------------------------------

_PROBE = r'''
import json, os, sys, time
import _frozen_importlib as fi

T = time.process_time
state = {"depth": 0, "imports": 0.0}
PROBES = {
    "jupyter_agenttools.permission.settings": [("SettingsStore", "load", "settings load")],
    "fastjsonschema": [(None, "compile", "schema compile")],
    "jupyter_agenttools.permission.engine": [("PermissionEngine", "decide", "decide")],
    "jupyter_agenttools.permission.audit": [("AuditLog", "record", "audit append")],
}
figures = {}

def wrap(owner, attr, label):
    inner = getattr(owner, attr)
    def probe(*args, **kwargs):
        start, imports = T(), state["imports"]
        try:
            return inner(*args, **kwargs)
        finally:
            entry = figures.setdefault(label, {"calls": 0, "cpu_ms": 0.0, "imports_ms": 0.0})
            entry["calls"] += 1
            entry["cpu_ms"] += (T() - start) * 1e3
            entry["imports_ms"] += (state["imports"] - imports) * 1e3
    setattr(owner, attr, probe)

original = fi._load_unlocked
def load(spec):
    state["depth"] += 1
    start = T() if state["depth"] == 1 else None
    try:
        module = original(spec)
    finally:
        state["depth"] -= 1
        if start is not None:
            state["imports"] += T() - start
    for owner, attr, label in PROBES.get(spec.name, ()):
        target = module if owner is None else getattr(module, owner, None)
        if target is not None and hasattr(target, attr):
            wrap(target, attr, label)
    return module
fi._load_unlocked = load

start = T()
from jupyter_agenttools.cli import main
sys.argv = ["agenttools", "hook", sys.argv[1]]
try:
    code = main()
except SystemExit as exc:
    code = exc.code
total = T() - start
report = {"total_ms": total * 1e3, "imports_ms": state["imports"] * 1e3,
          "rest_ms": (total - state["imports"]) * 1e3, "probes": figures}
os.write(2, ("\nPROBE " + json.dumps(report) + "\n").encode())
'''


def _split(case: tuple, root: str, tree: str, project: str) -> dict[str, Any]:
    label, agent, payload, *_ = case
    proc = subprocess.run([sys.executable, "-c", _PROBE, agent], capture_output=True,
                          env=_env(root, tree, True), cwd=project, timeout=120,
                          input=json.dumps(payload(project)).encode())
    for line in reversed(proc.stderr.decode().splitlines()):
        if line.startswith("PROBE "):
            data = json.loads(line[len("PROBE "):])
            rounded = {k: round(v, 1) for k, v in data.items() if k != "probes"}
            rounded["probes"] = {k: {f: round(x, 1) if isinstance(x, float) else x
                                     for f, x in v.items()}
                                 for k, v in data["probes"].items()}
            return {"case": label, **rounded}
    raise RuntimeError(f"the probe of {label} printed no figures: {proc.stderr.decode()[-500:]}")


# --- the run -----------------------------------------------------------------------------------


def _pth_files() -> list[str]:
    """The .pth files of this interpreter that run code at start-up (not ours to change)."""
    import site

    found = []
    for folder in [*site.getsitepackages(), site.getusersitepackages()]:
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if name.endswith(".pth"):
                with open(os.path.join(folder, name), errors="replace") as f:
                    if any(line.startswith(("import ", "import\t")) for line in f):
                        found.append(name)
    return found


def _median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1e3, 1)


def run(quick: bool = False) -> dict:
    rounds = 1 if quick else 5
    cases = CASES
    if quick:
        seen: set[str] = set()
        cases = [c for c in CASES if not (c[1] in seen or seen.add(c[1]))]  # type: ignore
    uncached_cases = [] if quick else [c for c in cases if c[0] in (
        "claude-code Bash allow", "codex Bash allow", "gemini-cli read_file allow")]
    root = tempfile.mkdtemp(prefix="bench-hook-")
    try:
        trees = {"before": os.path.join(root, "before"), "after": os.path.join(root, "after")}
        _export_commit(BEFORE_COMMIT, trees["before"])
        _copy_working_tree(trees["after"])
        project = _project(root)
        floors = {"python -c pass": [sys.executable, "-c", "pass"],
                  "python -S -c pass": [sys.executable, "-S", "-c", "pass"]}
        # warm-up: fills the private bytecode cache (stdlib included) and checks every answer
        for tree in trees.values():
            for case in cases:
                _call(case, root, tree, project, True)
            for argv in floors.values():
                _run(argv, _env(root, tree, True), project)
        cpu: dict[tuple[str, str, str], list[float]] = {}
        wall: dict[tuple[str, str, str], list[float]] = {}
        for _ in range(rounds):
            for mode, mode_cases in (("cached", cases), ("uncached", uncached_cases)):
                if not mode_cases:
                    continue
                for name, argv in floors.items():
                    c, w, *_ = _run(argv, _env(root, trees["after"], mode == "cached"),
                                    project)
                    cpu.setdefault((mode, "floor", name), []).append(c)
                    wall.setdefault((mode, "floor", name), []).append(w)
                for case in mode_cases:
                    for tree_name, tree in trees.items():
                        c, w = _call(case, root, tree, project, mode == "cached")
                        cpu.setdefault((mode, tree_name, case[0]), []).append(c)
                        wall.setdefault((mode, tree_name, case[0]), []).append(w)
        figures: dict[str, Any] = {"reps": rounds, "before_commit": BEFORE_COMMIT,
                                   "pth_files_running_code": _pth_files()}
        for mode, mode_cases in (("cached", cases), ("uncached", uncached_cases)):
            if not mode_cases:
                continue
            floor_cpu = _median_ms(cpu[(mode, "floor", "python -c pass")])
            table: dict[str, Any] = {
                "floor_cpu_ms": floor_cpu,
                "floor_wall_ms": _median_ms(wall[(mode, "floor", "python -c pass")]),
                "no_site_cpu_ms": _median_ms(cpu[(mode, "floor", "python -S -c pass")]),
                "cases": {}}
            for case in mode_cases:
                row: dict[str, Any] = {}
                for tree_name in trees:
                    key = (mode, tree_name, case[0])
                    row[f"{tree_name}_cpu_ms"] = _median_ms(cpu[key])
                    row[f"{tree_name}_wall_ms"] = _median_ms(wall[key])
                    row[f"{tree_name}_own_cpu_ms"] = round(_median_ms(cpu[key]) - floor_cpu, 1)
                own_after = max(row["after_own_cpu_ms"], 0.1)
                row["own_cpu_ratio"] = round(row["before_own_cpu_ms"] / own_after, 1)
                row["cpu_ratio"] = round(row["before_cpu_ms"] / row["after_cpu_ms"], 2)
                row["wall_ratio"] = round(row["before_wall_ms"] / row["after_wall_ms"], 2)
                table["cases"][case[0]] = row
            figures[mode] = table
        floor_modules = set(_imports([sys.executable, "-c", "pass"],
                                     _env(root, trees["after"], True), project, b""))
        first = cases[0]
        import_runs = 1 if quick else 3
        figures["imports"] = {
            tree_name: [_import_figures(case, root, tree, project, floor_modules,
                                        import_runs if case is first else 1)
                        for case in (cases if not quick else cases[:1])]
            for tree_name, tree in trees.items()}
        for entries in figures["imports"].values():
            for entry in entries[1:]:
                entry.pop("top_self_ms")  # wall µs of one run: only the first case's are kept
        figures["split"] = {tree_name: [_split(case, root, tree, project)
                                        for case in (cases[:1] if quick else
                                                     [cases[0], cases[3]])]
                            for tree_name, tree in trees.items()}
        return figures
    finally:
        shutil.rmtree(root, ignore_errors=True)


def summary(figures: dict) -> str:
    lines = []
    for mode in ("cached", "uncached"):
        table = figures.get(mode)
        if not table:
            continue
        lines.append(f"{mode} bytecode: floor python -c pass {table['floor_cpu_ms']} ms CPU "
                     f"(-S: {table['no_site_cpu_ms']}); own CPU above it, before → after:")
        for label, row in table["cases"].items():
            lines.append(f"  {label:<27} {row['before_own_cpu_ms']:>6.1f} → "
                         f"{row['after_own_cpu_ms']:>5.1f} ms  (x{row['own_cpu_ratio']}; "
                         f"wall {row['before_wall_ms']:.0f} → {row['after_wall_ms']:.0f} ms, "
                         f"x{row['wall_ratio']})")
    imports = figures.get("imports", {})
    for tree_name, entries in imports.items():
        if entries:
            e = entries[0]
            lines.append(f"{tree_name}: {e['case']} imports {e['modules_beyond_floor']} modules "
                         f"beyond the floor ({e['ours']} ours); heavy: "
                         f"{', '.join(e['heavy']) or 'none'}")
            top = list(e.get("top_self_ms", {}).items())[:6]
            if top:
                lines.append("  top self ms (-X importtime): "
                             + ", ".join(f"{m} {ms}" for m, ms in top))
    return "\n".join(lines)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    result = run(args.quick)
    print(json.dumps(result, indent=1))
    print(summary(result))
