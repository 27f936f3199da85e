"""Where a Bash permission decision spends its time (cProfile; not part of run.py).

    python benchmarks/profile_decisions.py [--rounds N] [--top N]
    py-spy record -r 1000 -f raw -o spy.txt -- python benchmarks/profile_decisions.py --loop 20
    python benchmarks/profile_decisions.py --collapsed spy.txt

Decides every corpus command N times (as bench_decisions does) under cProfile and prints:
self time grouped by layer (tree-sitter parse, tree walk, program tables, shell policy,
engine, path/secret lookups, stdlib), how many parses / analyses / policy calls one decision
makes, the functions with the most self time, and the per-command cost by decision. cProfile
inflates many small calls, so the same can be had from py-spy samples: ``--loop N`` only
decides (for ``py-spy record``), ``--collapsed FILE`` summarises py-spy's raw output by layer
(leaf frame) and by stage (the innermost stage function on the stack).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]

from _common import REPO  # noqa: E402
from bench_decisions import BUILTIN, load_commands  # noqa: E402

LAYERS = [  # (layer, predicate on (file, function)); the first match wins
    ("tree-sitter parse (C)", lambda f, fn: "Parser" in fn and "parse" in fn),
    ("shell: fast path + tree walk",
     lambda f, fn: f.endswith(tuple(f"jupyter_agenttools/shell/{m}.py"
                                    for m in ("syntax", "fastpath", "words")))),
    ("shell: program table (programs/)",
     lambda f, fn: "jupyter_agenttools/shell/programs/" in f),
    ("shell: analysis + effects", lambda f, fn: "jupyter_agenttools/shell/" in f),
    ("paths + sensitive lookups", lambda f, fn: f.endswith(("permission/paths.py",
                                                             "permission/sensitive.py"))),
    ("engine (permission/engine, rules, types)", lambda f, fn: "/permission/" in f),
    ("builtin/bash (decision, secrets, danger, rules)", lambda f, fn: "builtin/bash" in f),
    ("tree-sitter node access (C)", lambda f, fn: "tree_sitter" in fn or "Node" in fn),
    ("os / posixpath (realpath, stat)", lambda f, fn: "posixpath" in f or "genericpath" in f
     or fn.startswith("<built-in method posix.")),
    ("re (regex)", lambda f, fn: "re." in fn or "sre" in f or "'re." in fn or "method match"
     in fn or "method search" in fn or "method sub" in fn or "method fullmatch" in fn),
]


def layer_of(file: str, func: str) -> str:
    for name, pred in LAYERS:
        if pred(file, func):
            return name
    return "other (builtins, dataclasses, enum, …)"


def _parse_lines() -> set[str]:
    """py-spy frame suffixes of the lines of shell/syntax.py that call the tree-sitter parser
    (py-spy shows no native frames: the C parse is self time of that Python line)."""
    path = os.path.join(REPO, "jupyter_agenttools", "shell", "syntax.py")
    try:
        with open(path, encoding="utf-8") as f:
            return {f"syntax.py:{n})" for n, line in enumerate(f, 1) if "PARSER.parse(" in line}
    except OSError:
        return set()


PARSE_LINES = _parse_lines()

# Stages for py-spy stacks: the innermost of these on a stack owns the sample.
STAGES = [
    ("tree-sitter parse", lambda fr: fr.endswith(tuple(PARSE_LINES)) if PARSE_LINES else False),
    ("analyze: walk + effects", lambda fr: fr.startswith(("analyze ", "_Walker.",
                                                           "plain_commands "))),
    ("suggestions (ASK only)", lambda fr: fr.startswith(("bash_suggest_rules ",
                                                         "suggest_rules "))),
    ("decision: read-only check", lambda fr: fr.startswith("bash_is_read_only ")),
    ("decision: check_permissions", lambda fr: fr.startswith("bash_check_permissions ")),
    ("engine", lambda fr: "permission/engine.py" in fr),
]


def collapsed(path: str) -> None:
    """Summarise py-spy ``-f raw`` output (``frame;frame;… count`` lines)."""
    by_stage: dict[str, int] = defaultdict(int)
    by_leaf: dict[str, int] = defaultdict(int)
    total = 0
    with open(path) as f:
        for line in f:
            stack, _, count = line.rstrip().rpartition(" ")
            if not count.isdigit() or "decide" not in stack:
                continue
            n = int(count)
            total += n
            frames = stack.split(";")
            stage = "other"
            for fr in reversed(frames):
                hit = next((name for name, pred in STAGES if pred(fr)), None)
                if hit:
                    stage = hit
                    break
            by_stage[stage] += n
            leaf = frames[-1]
            file = leaf[leaf.rfind("(") + 1:leaf.rfind(":")]
            parse = PARSE_LINES and leaf.endswith(tuple(PARSE_LINES))
            by_leaf["tree-sitter parse (C)" if parse else layer_of(file, leaf)] += n
    print(f"{total} samples inside engine.decide")
    print("by stage (innermost stage function on the stack):")
    for name, n in sorted(by_stage.items(), key=lambda kv: -kv[1]):
        print(f"  {n / total * 100:5.1f}%  {name}")
    print("by layer of the leaf frame (self time):")
    for name, n in sorted(by_leaf.items(), key=lambda kv: -kv[1]):
        print(f"  {n / total * 100:5.1f}%  {name}")


def stage_costs(engine, bash, commands: list[str], rounds: int) -> None:
    """Per-command best-of-rounds time of each stage the engine runs, summed over the corpus
    (no profiler): how the decision's cost splits between its parts."""
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    from jupyter_agenttools.builtin.bash import policy
    from jupyter_agenttools.permission.types import PermissionBehavior
    from jupyter_agenttools.shell.analysis import analyze

    ctx = engine.context
    parser = Parser(Language(tree_sitter_bash.language()))
    ask = {c for c in commands
           if engine.decide(bash, {"command": c}).behavior is PermissionBehavior.ASK}
    stages = {
        "tree-sitter parse": lambda c: parser.parse(c.encode()),
        "analyze (parse + walk, or fast path)": analyze,
        "bash_is_read_only(c, None) (no context)":
            lambda c: policy.bash_is_read_only(c, None),
        "bash_is_read_only(c, ctx)": lambda c: policy.bash_is_read_only(c, ctx),
        "bash_check_permissions(c, ctx)": lambda c: policy.bash_check_permissions(c, ctx),
        "bash_suggest_rules(c, ctx) [ASK only]":
            lambda c: policy.bash_suggest_rules(c, ctx) if c in ask else None,
        "engine.decide (all of it)": lambda c: engine.decide(bash, {"command": c}),
    }
    clock = time.perf_counter_ns
    print(f"stage cost, per command best of {rounds} rounds, mean over {len(commands)} "
          f"commands ({len(ask)} ASK):")
    for name, fn in stages.items():
        best = [1 << 62] * len(commands)
        for _ in range(rounds):  # rounds outer: no call follows one for the same command
            for k, c in enumerate(commands):
                t0 = clock()
                fn(c)
                t = clock() - t0
                if t < best[k]:
                    best[k] = t
        print(f"  {sum(best) / len(best) / 1e3:8.1f} us  {name}")
    print()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--loop", type=int, metavar="N", help="only decide N rounds (for py-spy)")
    ap.add_argument("--collapsed", metavar="FILE", help="summarise py-spy raw output")
    args = ap.parse_args()
    if args.collapsed:
        collapsed(args.collapsed)
        return

    from jupyter_agenttools.permission.check import prepare

    commands, source = load_commands()
    engine, bash = prepare("Bash", mode="default", cwd=REPO)
    inputs = [{"command": c} for c in commands]
    for c in BUILTIN:
        engine.decide(bash, {"command": c})
    if args.loop:
        for _ in range(args.loop):
            for i in inputs:
                engine.decide(bash, i)
        return

    stage_costs(engine, bash, commands, rounds=max(3, args.rounds))

    # Cost per decision kind, without the profiler.
    by_kind: dict[str, list[float]] = defaultdict(list)
    for i in inputs:
        t0 = time.perf_counter()
        d = engine.decide(bash, i)
        by_kind[d.behavior.value].append(time.perf_counter() - t0)

    prof = cProfile.Profile()
    prof.enable()
    for _ in range(args.rounds):
        for i in inputs:
            engine.decide(bash, i)
    prof.disable()
    n = args.rounds * len(inputs)
    st = pstats.Stats(prof)
    layers: dict[str, float] = defaultdict(float)
    calls: dict[str, int] = {}
    total = 0.0
    for (file, _line, func), (_cc, nc, tt, _ct, _callers) in st.stats.items():
        layers[layer_of(file, func)] += tt
        total += tt
        calls[f"{os.path.basename(file)}:{func}"] = nc
    print(f"{n} decisions over {len(inputs)} commands of {source}; profiled total "
          f"{total:.2f} s = {total / n * 1e6:.0f} us/decision (cProfile-inflated)\n")
    print("self time by layer:")
    for name, tt in sorted(layers.items(), key=lambda kv: -kv[1]):
        print(f"  {tt / total * 100:5.1f}%  {tt / n * 1e6:7.1f} us/decision  {name}")
    print("\ncalls per decision:")
    for key in ("analysis.py:analyze", "method 'parse' of 'tree_sitter.Parser'",
                "plan.py:_new_plan", "decision.py:_check", "suggestions.py:suggest_rules",
                "decision.py:bash_is_read_only", "posixpath>:realpath", "engine.py:_suggest"):
        hits = [v for k, v in calls.items() if key in k]
        print(f"  {sum(hits) / n:5.2f}  {key}")
    print("\ncost by decision (no profiler):")
    for kind, ts in sorted(by_kind.items()):
        ts.sort()
        print(f"  {kind:<6} n={len(ts):4d}  median {ts[len(ts) // 2] * 1e6:7.1f} us  "
              f"mean {sum(ts) / len(ts) * 1e6:7.1f} us")
    print()
    st.sort_stats("tottime").print_stats(args.top)
    st.sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
