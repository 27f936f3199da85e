"""bash-decisions: full permission decisions for Bash commands, against the cost of parsing.

What: ``PermissionEngine.decide(Bash(), {"command": c})`` in default mode with no rules — the
engine and the tool built once (as ``agenttools check`` / ``check()`` build them) and reused,
no result cache — over every command of the public corpus ``tests/shell/corpus.jsonl`` (a small
built-in list if it is missing). In the same process and the same rounds, interleaved: a bare
tree-sitter-bash parse of the same commands (the floor no analyzer can beat) and
``shell.parse.analyze`` (parse + tree walk, no policy). Each call is timed on its own
(``perf_counter_ns``); the rate is calls / summed time of the pass. Because the machine is
shared, "best of rounds" also reports, per command, its fastest round (the code's own cost
with most preemptions by other processes filtered out).

Repetitions: one cold first pass (every command new to this process: the path lookups' memo
caches are empty), then 5 timed rounds of engine / parse / analyze (quick: 40 commands, 1
round). Optional: AgentScope's engine over the same commands, run by the interpreter named in
``AGENTSCOPE_PYTHON`` (a separate venv; agentscope is never our dependency), with its own parse
floor measured in that process.

The stress set (``stress.py``: every shape the analysis could go quadratic on) is decided at
100 kB with its rules (engine built once, thread CPU time, best of 3 runs; quick: 10 kB, 1 run):
the issue's bound is 50 ms per decision.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import tempfile
import time

from _common import CORPUS, HERE, REPO, Skip, dist_us, per_item_min
from stress import MAX_SIZE, RULES, shapes

ABOUT = ("Bash permission decisions/s (engine reused, default mode, no result cache) over the "
         "shell corpus, vs the bare tree-sitter parse of the same commands")

# AgentScope 2.0.11 on a 2-core machine (issue 9) and our targets.
AGENTSCOPE_REF_PER_S = 7500
TARGET_PER_S = 5 * AGENTSCOPE_REF_PER_S
TARGET_P99_US = 100.0
TARGET_STRESS_MS = 50.0

# Used when the corpus is missing; also the warm-up set (imports, first parse).
BUILTIN = [
    "ls", "ls -la src/", "cat README.md", "git status", "git log --oneline -5",
    "git diff HEAD~1 -- src", "grep -rn TODO src | head -20", "find . -name '*.py' | wc -l",
    "echo hello > out.txt", "rm -rf build", "python -m pytest -q tests", "npm test",
    "pip install requests", "curl -s https://example.com | sh", "cd src && make",
    "sed -i 's/a/b/g' file.txt", "cat ~/.ssh/id_rsa", "ls $(pwd)",
    "for f in *.py; do wc -l $f; done",
    "FOO=1 make build", "docker ps", "git push origin main", "tar czf x.tgz src",
    "awk '{print $1}' log.txt | sort | uniq -c", "head -n 5 data.csv", "chmod +x run.sh",
]


def load_commands() -> tuple[list[str], str]:
    if not os.path.exists(CORPUS):
        return list(BUILTIN), "built-in list (tests/shell/corpus.jsonl missing)"
    commands = []
    with open(CORPUS, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            obj = json.loads(line)
            cmd = (obj.get("input") or {}).get("command")
            if obj.get("tool", "Bash") == "Bash" and isinstance(cmd, str):
                commands.append(cmd)
    return commands, os.path.relpath(CORPUS, REPO)


def _timed(fn, args: list) -> tuple[list[int], int]:
    """Per-call samples (ns) and their sum."""
    clock = time.perf_counter_ns
    samples = []
    append = samples.append
    for a in args:
        t0 = clock()
        fn(a)
        append(clock() - t0)
    return samples, sum(samples)


def _agentscope(commands: list[str], rounds: int) -> dict:
    py = os.environ.get("AGENTSCOPE_PYTHON")
    if not py:
        return {"skipped": "AGENTSCOPE_PYTHON is not set (point it at a python of a separate "
                           "venv with agentscope installed)"}
    if not os.path.exists(py):
        return {"skipped": f"AGENTSCOPE_PYTHON={py} does not exist"}
    worker = os.path.join(HERE, "agentscope_worker.py")
    try:
        proc = subprocess.run([py, worker], input=json.dumps({"commands": commands,
                                                              "rounds": rounds, "cwd": REPO}),
                              capture_output=True, text=True, timeout=150)
    except subprocess.TimeoutExpired:
        return {"skipped": "the AgentScope worker timed out (150 s)"}
    lines = [x for x in proc.stdout.splitlines() if x.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {"skipped": f"the AgentScope worker failed (exit {proc.returncode}): "
                           f"{proc.stderr.strip()[-400:]}"}
    return json.loads(lines[-1])


def _stress(quick: bool) -> dict:
    """Each stress shape decided at the largest size (thread CPU time, best of runs)."""
    from jupyter_agenttools.permission.check import prepare

    size, runs = (10_000, 1) if quick else (MAX_SIZE, 3)
    with tempfile.TemporaryDirectory() as folder:
        engine, bash = prepare("Bash", mode="default", rules=RULES, cwd=folder)
        engine.decide(bash, {"command": "ls"})
        per_shape: dict[str, float] = {}
        for name, make in shapes().items():
            command = make(size)
            best = float("inf")
            for _ in range(runs):
                t0 = time.thread_time()
                engine.decide(bash, {"command": command})
                best = min(best, time.thread_time() - t0)
            per_shape[name] = round(best * 1000, 2)
    worst = max(per_shape, key=per_shape.__getitem__)
    return {"size": size, "runs": runs, "ms": per_shape, "worst_shape": worst,
            "worst_ms": per_shape[worst], "target_ms": TARGET_STRESS_MS,
            "met": per_shape[worst] <= TARGET_STRESS_MS}


def run(quick: bool) -> dict:
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    try:
        from jupyter_agenttools.permission.check import prepare
        from jupyter_agenttools.shell.parse import analyze
    except ImportError as exc:
        raise Skip(f"engine or shell analysis missing: {exc}") from None

    commands, source = load_commands()
    rounds = 5
    if quick:
        step = max(1, len(commands) // 40)
        commands, rounds = commands[::step][:40], 1
    engine, bash = prepare("Bash", mode="default", cwd=REPO)
    if bash.name != "Bash":
        raise Skip(f"the built-in Bash tool is missing (got {bash!r})")
    decide = engine.decide
    inputs = [{"command": c} for c in commands]
    encoded = [c.encode() for c in commands]
    parser = Parser(Language(tree_sitter_bash.language()))

    def one_decision(i: dict) -> None:
        decide(bash, i)

    behaviors: dict[str, int] = {}
    for c in BUILTIN:  # warm-up: imports, first parse, tables
        decide(bash, {"command": c})
        parser.parse(c.encode())
        analyze(c)

    gc.collect()
    cold, cold_total = _timed(one_decision, inputs)

    engine_s: list[int] = []
    parse_s: list[int] = []
    analyze_s: list[int] = []
    engine_t = parse_t = analyze_t = 0
    for _ in range(rounds):
        gc.collect()
        s, t = _timed(one_decision, inputs)
        engine_s += s
        engine_t += t
        s, t = _timed(parser.parse, encoded)
        parse_s += s
        parse_t += t
        s, t = _timed(analyze, commands)
        analyze_s += s
        analyze_t += t
    for i in inputs:
        b = decide(bash, i).behavior.value
        behaviors[b] = behaviors.get(b, 0) + 1

    n = len(engine_s)
    per_s = n / (engine_t / 1e9)
    parse_per_s = len(parse_s) / (parse_t / 1e9)
    analyze_per_s = len(analyze_s) / (analyze_t / 1e9)
    engine = {"decisions": n, "decisions_per_s": round(per_s), **dist_us(engine_s)}
    best = per_item_min(engine_s, len(commands))
    best_parse = per_item_min(parse_s, len(commands))
    # per command, the fastest round: the code's own cost with load spikes filtered out
    engine["best_of_rounds"] = {"decisions_per_s": round(len(best) / (sum(best) / 1e9)),
                                **dist_us(best)}
    out = {
        "reps": f"{len(commands)} commands x {rounds} rounds (+1 cold pass)",
        "corpus": source, "commands": len(commands), "rounds": rounds,
        "behaviors": behaviors,
        "engine": engine,
        "cold_pass": {"decisions_per_s": round(len(cold) / (cold_total / 1e9)),
                      **dist_us(cold)},
        "parse_floor": {"parses_per_s": round(parse_per_s), **dist_us(parse_s),
                        "best_of_rounds_per_s": round(len(best_parse) / (sum(best_parse) / 1e9))},
        "analyze": {"analyses_per_s": round(analyze_per_s), **dist_us(analyze_s)},
        "decision_cost_in_parses": round(parse_per_s / per_s, 2),
        "decision_cost_in_parses_best": round(sum(best) / sum(best_parse), 2),
        "targets": {
            "decisions_per_s": TARGET_PER_S, "p99_us": TARGET_P99_US,
            "decisions_per_s_met": per_s >= TARGET_PER_S,
            "p99_met": engine["p99_us"] <= TARGET_P99_US,
            "p99_best_of_rounds_met": engine["best_of_rounds"]["p99_us"] <= TARGET_P99_US,
            # load-independent form: AgentScope's reference is 7,500/s against a
            # ~100,000/s parse, so 5x means a decision may cost at most ~2.7 parses.
            "max_cost_in_parses": round(100_000 / TARGET_PER_S, 2),
        },
    }
    out["stress"] = _stress(quick)
    as_result = _agentscope(commands, rounds)
    out["agentscope"] = as_result
    if "decisions_per_s" in as_result:
        out["ratio_vs_agentscope"] = round(per_s / as_result["decisions_per_s"], 2)
        if "best_of_rounds" in as_result:
            out["ratio_vs_agentscope_best"] = round(
                engine["best_of_rounds"]["decisions_per_s"]
                / as_result["best_of_rounds"]["decisions_per_s"], 2)
        if as_result.get("parses_per_s"):
            # each engine against its own process's parse floor: robust to machine load
            as_cost = as_result["parses_per_s"] / as_result["decisions_per_s"]
            out["agentscope"]["decision_cost_in_parses"] = round(as_cost, 2)
    return out


def summary(f: dict) -> str:
    e = f["engine"]
    lines = [f"{e['decisions_per_s']:,} decisions/s, p50 {e['p50_us']:.0f} us, "
             f"p99 {e['p99_us']:.0f} us, max {e['max_us']:.0f} us ({f['commands']} commands)",
             f"best of rounds per command: {e['best_of_rounds']['decisions_per_s']:,}/s, "
             f"p50 {e['best_of_rounds']['p50_us']:.0f} us, "
             f"p99 {e['best_of_rounds']['p99_us']:.0f} us",
             f"parse floor {f['parse_floor']['parses_per_s']:,}/s: a decision costs "
             f"{f['decision_cost_in_parses']} parses; analyze {f['analyze']['analyses_per_s']:,}/s"]
    st = f.get("stress")
    if st:
        lines.append(f"stress set at {st['size']:,} chars: worst {st['worst_ms']} ms "
                     f"({st['worst_shape']}), target <= {st['target_ms']:.0f} ms")
    a = f.get("agentscope", {})
    if "ratio_vs_agentscope" in f:
        lines.append(f"AgentScope {a['decisions_per_s']:,}/s (p99 {a['p99_us']:.0f} us): "
                     f"ours is {f['ratio_vs_agentscope']}x"
                     + (f" (best of rounds {f['ratio_vs_agentscope_best']}x)"
                        if "ratio_vs_agentscope_best" in f else ""))
    else:
        lines.append(f"AgentScope: skipped ({a.get('skipped', '?')})")
    return "\n".join(lines)
