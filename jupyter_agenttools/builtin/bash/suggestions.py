"""Rules to offer when a Bash command asks (SPEC §5.3, issue 13), built from the same plan.

- One command not yet approved: ``Bash(prefix:*)`` (a two-word prefix when the second word is
  a sub-command, ``python -m mod``, ``python script.py``) — but for a command that writes or
  deletes files itself (``rm``, ``cp``, ``sed -i`` …) the exact command, never a bare program
  prefix: ``Bash(rm:*)`` offered for ``rm -rf build`` would later allow ``rm -rf ~/projects``.
- Several commands not yet approved: one rule covering them all, the exact whole command
  (one answer must be enough; rules already accepted keep covering their own parts).
- None for a safety ASK, a DENY, multi-line commands, here-documents, or commands no rule
  could approve (opaque, over budget, non-harmless assignments, inline interpreter code).
"""

from __future__ import annotations

import os
import shlex

from ...permission.types import PermissionBehavior, PermissionContext, PermissionRule
from ...shell.effects import DELETE, MODE, WRITE
from ...shell.environment import harmless_assignment
from ...shell.programs import INTERPRETERS, secret_printer
from ...shell.syntax import Command
from ...shell.words import LITERAL
from .plan import Plan, plan_for
from .rules import effective, normal_text

__all__ = ["suggest_rules"]

_SUBCOMMAND_PROGRAMS = frozenset({
    "git", "npm", "pnpm", "yarn", "bun", "pip", "pip3", "uv", "cargo", "go", "docker",
    "kubectl", "gh", "make", "poetry", "conda", "mamba", "brew", "apt", "apt-get", "systemctl",
    "terraform", "helm", "dotnet", "mvn", "gradle", "rustup", "jupyter", "npx", "deno",
    "hatch", "tox", "nox", "pixi", "pre-commit", "ruff", "mypy", "podman", "gcloud", "aws",
    "az", "heroku", "flask", "django-admin", "rails", "bundle", "composer", "just", "task",
})
_PATH_PROGRAMS = frozenset({"rm", "cp", "mv", "mkdir", "touch", "rmdir", "chmod", "chown",
                            "ln", "cat", "tar", "zip", "unzip", "cd", "bash", "sh", "zsh",
                            "node", "ruby", "perl", "source", "."})
_RULE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                        "_.+/@%=,-")


def _rule_word(value: str | None) -> bool:
    return bool(value) and all(c in _RULE_CHARS for c in value)  # type: ignore[union-attr]


def _subcommand(value: str | None) -> bool:
    """``commit``, ``run-script``, ``db:migrate``: lower-case words joined by - _ :."""
    if not value or not value[0].islower():
        return False
    for part in value.replace("-", " ").replace("_", " ").replace(":", " ").split(" "):
        if not part or not all(c.islower() or c.isdigit() for c in part):
            return False
    return True


def _strip_version(name: str) -> str:
    return name.rstrip("0123456789.")


def suggest_rules(command: object, context: PermissionContext | None,
                  decision_behavior: PermissionBehavior | None = None,
                  safety: bool = False) -> list[PermissionRule]:
    plan = plan_for(command, context)
    a = plan.analysis
    if a.unanalyzable or a.multiline or a.heredocs or a.opaque or a.too_complex:
        return []
    if safety or decision_behavior in (PermissionBehavior.DENY, PermissionBehavior.ALLOW):
        return []
    specs = _specs(plan)
    if specs is None:
        return []
    # built directly (the specifier is made of rule-safe words), with the engine's source label
    return [PermissionRule("Bash", s, PermissionBehavior.ALLOW, "suggested") for s in specs]


def _writes_files(plan: Plan, command: Command) -> bool:
    """Does the command (or what it runs) itself write, delete or change files? (Its output
    redirections are judged apart: outside the working directories they are safety ASKs.)"""
    records = plan.analysis.records
    todo = [command]
    seen = 0
    while todo and seen < 64:
        c = todo.pop()
        seen += 1
        e = c.effects
        if e is not None:
            redirected = {id(r.target) for r in c.redirects}
            if any(a.kind in (WRITE, DELETE, MODE) and id(a.word) not in redirected
                   for a in e.paths):
                return True
        todo.extend(records[k] for k in c.children)
    return False


def _quoted(values: list[str]) -> str:
    return " ".join(v if v and all(ch in _RULE_CHARS for ch in v) else shlex.quote(v)
                    for v in values)


# what a Bash(…) rule can name: a command, and a declaration builtin (`export`, `unset` …: a
# rule for it approves one whose assignments are harmless, as it does a command's prefixes)
_RULED_KINDS = frozenset({"command", "declaration", "unset"})


def _specs(plan: Plan) -> list[str] | None:
    out: list[str] = []
    unapproved = 0
    for c in plan.analysis.commands:
        if c.kind == "assignment":
            continue
        if c.read_only and not secret_printer(c.argv):
            continue
        if c.kind not in _RULED_KINDS or not c.argv:
            return None
        inner = effective(plan, c)
        if not all(harmless_assignment(n) for n, _ in c.assignments):
            return None
        values = [w.value if w.kind == LITERAL else None for w in inner.argv]
        program = values[0]
        if program is None or not _rule_word(program):
            return None
        unapproved += 1
        base = program.rsplit("/", 1)[-1]
        second = values[1] if len(values) > 1 else None
        if _writes_files(plan, c):
            if any(v is None for v in values):
                return None
            spec = _quoted(values)  # type: ignore[arg-type]
        elif base in INTERPRETERS and _strip_version(base) in ("python", "pypy"):
            if second == "-m" and len(values) > 2 and _rule_word(values[2]):
                spec = f"{program} -m {values[2]}:*"
            elif second and not second.startswith("-") and _rule_word(second):
                spec = f"{program} {second}:*"
            else:
                return None
        elif base in INTERPRETERS and second in ("-c", "-e", "--eval"):
            return None
        elif second is not None and _subcommand(second) and base not in _PATH_PROGRAMS \
                and (base in _SUBCOMMAND_PROGRAMS or not os.path.exists(
                    os.path.join(plan.cwd, second))):
            spec = f"{program} {second}:*"
        else:
            spec = f"{program}:*"
        if spec not in out:
            out.append(spec)
    if unapproved > 1:
        # one answer covers the whole command: the command itself, exactly
        text = normal_text(plan.analysis.command)
        if not text or len(text) > 500 or any(ch in text for ch in "()") and \
                not text.count("(") == text.count(")"):
            return None
        return [text]
    return out
