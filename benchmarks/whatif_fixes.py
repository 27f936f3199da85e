"""What the proposed analyzer fixes would buy, estimated by monkeypatching (never edits the
package; not part of run.py).

    python benchmarks/whatif_fixes.py [ROUNDS]

Decides every corpus command, ROUNDS rounds (rounds outer, so no decision follows one for the
same command), per command the fastest round, mean over the corpus, for cumulative variants:

A. ``Bash.is_read_only`` receives the engine's context (today it passes None and the policy
   builds a fresh ``PermissionContext()`` — getcwd, expanduser — per call) and the Bash hooks
   call the policy functions without a function-level import each time;
B. one ``shell.policy._plan`` per decision (a one-entry memo keyed by the command and the
   context object: is_read_only, check_permissions and suggest_rules share it);
C. ``os.path.realpath`` memoised (as ``permission.paths.canonicalize`` already is);
D. instead of C, no suggestions at all (the most lazy suggestions could save).
"""

from __future__ import annotations

import functools
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]

from _common import REPO  # noqa: E402
from bench_decisions import BUILTIN, load_commands  # noqa: E402

from jupyter_agenttools.builtin import bash as bash_mod  # noqa: E402
from jupyter_agenttools.permission import engine as engine_mod  # noqa: E402
from jupyter_agenttools.permission.check import prepare  # noqa: E402
from jupyter_agenttools.permission.types import PermissionDecision  # noqa: E402
from jupyter_agenttools.shell import policy  # noqa: E402


def main(rounds: int) -> None:
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    commands, _ = load_commands()
    engine, bash = prepare("Bash", mode="default", cwd=REPO)
    inputs = [{"command": c} for c in commands]
    for c in BUILTIN:
        engine.decide(bash, {"command": c})
    clock = time.perf_counter_ns

    def best_mean(fn, args) -> float:
        best = [1 << 62] * len(args)
        for _ in range(rounds):
            for k, a in enumerate(args):
                t0 = clock()
                fn(a)
                t = clock() - t0
                if t < best[k]:
                    best[k] = t
        return sum(best) / len(best) / 1e3

    def decide(i):
        return engine.decide(bash, i)

    results = [("baseline (working tree)", best_mean(decide, inputs))]

    ro, cp, sg = policy.bash_is_read_only, policy.bash_check_permissions, policy.bash_suggest_rules

    def is_read_only(self, tool_input=None, context=None):
        c = (tool_input or {}).get("command")
        return isinstance(c, str) and bool(ro(c, context))

    def check_permissions(self, tool_input, context):
        c = tool_input.get("command")
        if not isinstance(c, str):
            return PermissionDecision.ask("Bash: expected the command as a string")
        return cp(c, context)

    def suggest_rules(self, tool_input, context):
        c = tool_input.get("command")
        return list(sg(c, context)) if isinstance(c, str) else []

    bash_mod.Bash.is_read_only = is_read_only
    bash_mod.Bash.check_permissions = check_permissions
    bash_mod.Bash.suggest_rules = suggest_rules
    engine_mod._CONTEXT_AWARE.clear()  # the engine caches whether is_read_only takes context
    results.append(("A: context to is_read_only, no per-call imports", best_mean(decide, inputs)))

    orig_plan = policy._plan
    last: list = [None]

    def plan(command, context):
        hit = last[0]
        if hit is not None and hit[0] == command and hit[1] is context:
            return hit[2]
        p = orig_plan(command, context)
        last[0] = (command, context, p)
        return p

    policy._plan = plan
    results.append(("A+B: one _plan per decision", best_mean(decide, inputs)))

    realpath = os.path.realpath
    os.path.realpath = functools.lru_cache(maxsize=4096)(realpath)
    results.append(("A+B+C: realpath memoised", best_mean(decide, inputs)))
    os.path.realpath = realpath

    suggest = engine_mod.PermissionEngine._suggest
    engine_mod.PermissionEngine._suggest = lambda self, *a, **k: []
    results.append(("A+B+D: no suggestions built", best_mean(decide, inputs)))
    engine_mod.PermissionEngine._suggest = suggest
    policy._plan = orig_plan

    parser = Parser(Language(tree_sitter_bash.language()))
    parse = best_mean(parser.parse, [c.encode() for c in commands])
    base = results[0][1]
    print(f"{len(commands)} commands, best of {rounds} rounds; tree-sitter parse "
          f"{parse:.1f} us/command")
    for name, v in results:
        print(f"{v:7.1f} us  {v / parse:5.1f} parses  x{base / v:4.2f}  {name}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
