"""Estimate the gain of each proposed fix by monkeypatching (scratch; never edits the package)."""
import sys, time, functools
sys.path[:0] = ["/work/main", "/work/main/benchmarks"]
from bench_decisions import load_commands, BUILTIN
from jupyter_agenttools.permission.check import prepare
from jupyter_agenttools.shell import policy
from jupyter_agenttools.builtin import bash as bash_mod
from jupyter_agenttools.permission import engine as engine_mod

cmds, _ = load_commands()
engine, bash = prepare("Bash", mode="default", cwd="/work/main")
inputs = [{"command": c} for c in cmds]
for c in BUILTIN: engine.decide(bash, {"command": c})
clock = time.perf_counter_ns
R = int(sys.argv[1]) if len(sys.argv) > 1 else 3

def cost():
    # rounds outer: consecutive decisions are for different commands (a 1-entry memo of the
    # current command's plan must not carry over between decisions)
    best = [10**12] * len(inputs)
    for _ in range(R):
        for k, i in enumerate(inputs):
            t0 = clock(); engine.decide(bash, i); t = clock() - t0
            if t < best[k]: best[k] = t
    return sum(best) / len(best) / 1e3

def p99():
    pass

results = []
base = cost(); results.append(("baseline (working tree)", base))

# A: Bash.is_read_only receives the engine's context (no PermissionContext() per call) and the
#    policy functions are bound once (no function-level import per call)
from jupyter_agenttools.permission.types import PermissionDecision
_ro, _cp, _sg = policy.bash_is_read_only, policy.bash_check_permissions, policy.bash_suggest_rules
def is_read_only(self, tool_input=None, context=None):
    c = (tool_input or {}).get("command")
    return isinstance(c, str) and bool(_ro(c, context))
def check_permissions(self, tool_input, context):
    c = tool_input.get("command")
    if not isinstance(c, str):
        return PermissionDecision.ask("bad")
    return _cp(c, context)
def suggest_rules(self, tool_input, context):
    c = tool_input.get("command")
    return list(_sg(c, context)) if isinstance(c, str) else []
bash_mod.Bash.is_read_only = is_read_only
bash_mod.Bash.check_permissions = check_permissions
bash_mod.Bash.suggest_rules = suggest_rules
engine_mod._CONTEXT_AWARE.clear()
a = cost(); results.append(("A: context to is_read_only + imports hoisted", a))

# B: one plan per decision (1-entry memo of _plan keyed by command and context)
orig_plan = policy._plan
last = [None]
def plan(command, context):
    k = last[0]
    if k is not None and k[0] == command and k[1] is context:
        return k[2]
    p = orig_plan(command, context)
    last[0] = (command, context, p)
    return p
policy._plan = plan
b = cost(); results.append(("A+B: one _plan per decision", b))

# C: realpath memoised (as paths.canonicalize already is)
import os
real = functools.lru_cache(maxsize=4096)(os.path.realpath)
class _P: pass
orig_os_path_realpath = os.path.realpath
os.path.realpath = real
c = cost(); results.append(("A+B+C: realpath memoised", c))
os.path.realpath = orig_os_path_realpath

# D: no suggestions (what eager suggestions cost; lazy ones would only be built when shown)
orig_s = engine_mod.PermissionEngine._suggest
engine_mod.PermissionEngine._suggest = lambda self, *a, **k: []
d = cost(); results.append(("A+B+D: suggestions not built", d))
engine_mod.PermissionEngine._suggest = orig_s

from tree_sitter import Language, Parser
import tree_sitter_bash
parser = Parser(Language(tree_sitter_bash.language()))
best = []
for cmd in cmds:
    e = cmd.encode(); t = []
    for _ in range(R):
        t0 = clock(); parser.parse(e); t.append(clock() - t0)
    best.append(min(t))
pc = sum(best) / len(best) / 1e3
print(f"parse {pc:.1f} us/command (best of {R})")
for name, v in results:
    print(f"{v:7.1f} us  {v / pc:5.1f} parses  x{base / v:4.2f}  {name}")
