"""The Bash tool's own check (SPEC §6), in order, on one plan:

0. **cannot be analysed** (parse error, hidden characters, not text, too long) → safety ASK,
   DENY in bypass (the protected tier cannot be checked on unknown effects);
   **too complex** (a budget exhausted) → safety ASK, DENY in bypass and dont_ask;
1. **read-only** → ALLOW: every command only reads, git runs only in the working
   directories, nothing read or printed is a secret;
2. **dangerous** (danger.py) → DENY or safety ASK;
3. **sed runs a shell command** → safety ASK;
4. **sensitive**: writes to sensitive paths, key or credential files read or handed to a
   program → safety ASK; other secrets read or printed → plain ASK;
5. **accept_edits**: every command is ``mkdir touch rm rmdir mv cp`` (or ``cd``, or
   read-only), understood, and every target is inside a working directory → ALLOW;
6. otherwise **PASSTHROUGH**: allow rules and the mode decide.
"""

from __future__ import annotations

import os

from ...permission.types import PermissionContext, PermissionDecision, PermissionMode
from ...shell.effects import DELETE, READ, WRITE
from ...shell.programs import program_name
from ...shell.syntax import Command
from ...shell.words import GLOB, Word
from .danger import DENY, danger
from .plan import RUNS, Plan, plan_for
from .rules import effective
from .secrets import all_secrets, key_handed_over, write_reason

__all__ = ["check", "read_only", "bash_check_permissions", "bash_is_read_only"]

_FILE_PROGRAMS = frozenset({"mkdir", "touch", "rm", "rmdir", "mv", "cp"})


def _inside(plan: Plan, path: str) -> bool:
    return plan.inside(path)


def read_only(plan: Plan) -> tuple[bool, str]:
    """(read-only?, why), computed once per plan."""
    found = plan.memo.get("read-only")
    if found is None:
        found = plan.memo["read-only"] = _read_only(plan)
    if found[1] is None:  # read-only: the reasons are joined when first asked for
        found = plan.memo["read-only"] = (True, _read_only_reasons(plan))
    return found  # type: ignore[return-value]


def is_read_only(plan: Plan) -> bool:
    """The verdict of :func:`read_only` without its reason (the engine's fast path reads only
    this: an ALLOW for a read-only call names no reason of the tool)."""
    found = plan.memo.get("read-only")
    if found is None:
        found = plan.memo["read-only"] = _read_only(plan)
    return found[0]


def _read_only_reasons(plan: Plan) -> str:
    reasons = sorted({c.effects.reason for c in plan.analysis.commands
                      if c.effects is not None})
    return "; ".join(reasons)[:300]


def _read_only(plan: Plan) -> tuple[bool, str | None]:
    """(False, why) or (True, None): the reasons of a read-only command are joined later."""
    a = plan.analysis
    if a.unanalyzable:
        return False, a.reasons[0] if a.reasons else "unanalyzable"
    if a.reasons:
        return False, a.reasons[0]
    if a.opaque:
        return False, "opaque"
    if a.too_complex:
        return False, "too complex"
    commands = a.commands
    if not commands:
        return False, "no command"
    for c in commands:
        if not c.read_only:
            return False, _why_not(plan, c)
    # git obeys the configuration of the repository it runs in (core.fsmonitor on `git
    # status` runs a program): that directory, symlinks resolved, must be ours
    for c, access in plan.config_reads:
        paths = plan.paths(access.word, c)
        if paths is None:
            return False, "git runs in a directory decided at run time"
        for p in paths:
            if not plan.inside(p):
                return False, f"git runs in {p}, outside the working directories"
            foreign = plan.foreign_repository(p)
            if foreign:
                return False, foreign
    secrets = all_secrets(plan)
    if secrets:
        return False, secrets[0][0]
    return True, None


def _why_not(plan: Plan, command: Command) -> str:
    records = plan.analysis.records
    todo = [command]
    seen = 0
    while todo and seen < 64:
        c = todo.pop(0)
        seen += 1
        if c.effects is not None and not c.effects.read_only:
            return c.effects.reason
        todo.extend(records[k] for k in c.children)
    e = command.effects
    return e.reason if e is not None and not e.read_only else "runs code that is not read-only"


def _sed_runs(plan: Plan) -> str | None:
    if not plan.bits & RUNS:
        return None
    for c in plan.analysis.records:
        if c.effects is not None and c.effects.runs and c.argv and \
                program_name(c.argv[0]) in ("sed", "gsed"):
            return "sed runs a shell command (e, s///e)"
    return None


# writing these names no file
_NO_FILE = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/1",
                      "/dev/fd/2"})


def _sensitive(plan: Plan) -> tuple[str, bool] | None:
    """(reason, safety) for the first sensitive write, write outside the working directories,
    secret read or key handed to a program, or other secret."""
    home = plan.home
    outside: str | None = None
    realpath = plan.realpath
    for c, access in plan.changes:  # every write, delete and mode change, in order
        word = access.word
        if word.value is None:
            if word.text.startswith((">(", "<(")):
                continue  # a pipe to a command, analysed on its own
            directory = _brace_directory(word)
            if directory is None:
                # `npm test > "$LOG"`, `cp a $DEST`: an allow rule for the program must not
                # approve a write that may land anywhere (SPEC §9: outside the working
                # directories is a safety ASK whatever the rules)
                outside = outside or f"{access.kind} of {word.text[:40]!r}, a path decided " \
                                     "at run time that may be outside the working directories"
                continue
            word = directory
        elif word.kind == GLOB:
            head = word.value.rpartition("/")[0]
            if any(ch in head for ch in "*?["):
                outside = outside or f"{access.kind} of {word.value!r}, a glob over " \
                                     "directories that may reach outside the working " \
                                     "directories"
                continue
            word = Word(head or ".", head or ".", tilde=word.tilde)
        paths = plan.paths(word, c)
        if paths is None:
            outside = outside or f"{access.kind} of {word.value!r} in a directory " \
                                 "decided at run time"
            continue
        for p in paths:
            if p in _NO_FILE:
                continue
            real = realpath(p)
            # the path as written first, then where it leads (the reason names the first)
            for q in (p,) if real == p else (p, real):
                why = write_reason(q, home)
                if why:
                    return (f"writes {q}: {why}", True)
            if outside is None and not plan.inside(p):
                outside = f"{'writes' if access.kind == WRITE else access.kind + 's'} " \
                          f"{real}, outside the working directories"
    if outside is not None:
        return (outside, True)
    secrets = all_secrets(plan)
    for reason, safety in secrets:
        if safety:
            return (f"reads a secret: {reason}", True)
    handed = key_handed_over(plan)
    if handed:
        return handed
    if secrets:
        return (f"{secrets[0][0]}" if secrets[0][0].startswith(("prints", "shows"))
                else f"reads a secret: {secrets[0][0]}", False)
    return None


def _brace_directory(word: Word) -> Word | None:
    """The directory every name of a brace expansion is in (``build/{a,b}`` → ``build``,
    ``f{1..3}.txt`` → ``.``) when the word holds nothing decided at run time and no ``/``
    after its first ``{``: each name is then an entry of that directory, as a glob's are.
    None for any other word without a value."""
    text = word.text
    brace = text.find("{")
    if brace < 0 or len(text) >= 500 or "/" in text[brace:] or \
            any(ch in text for ch in "$`()~\\'\""):
        return None
    head = text[:brace].rpartition("/")[0] if "/" in text[:brace] else "."
    return Word(head or "/", head or "/")


def _realpath(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


def _accept_edits(plan: Plan) -> str | None:
    """Why the accept_edits auto-allow applies (None if it does not)."""
    a = plan.analysis
    if not a.simple or a.opaque or a.too_complex or not a.written:
        return None
    targets = 0
    for c in a.commands:
        inner = effective(plan, c)
        name = program_name(inner.argv[0]) if inner.argv else None
        if name not in _FILE_PROGRAMS or c.assignments or inner.assignments or \
                c.kind != "command":
            if name == "cd" or (c.read_only and not c.assignments):
                continue  # read-only companions such as `ls` or `cd build` are fine
            return None
        if inner.argv[0].value != name:
            return None  # a path to the program (/tmp/rm)
        e = inner.effects
        outer = c.effects
        if e is None or outer is None or e.problems:
            return None
        if any(x.kind == WRITE for x in outer.paths) and c is not inner:
            return None
        if any(r.is_output and not r.is_duplication and r.target is not None and
               r.target.value not in ("/dev/null",) for r in c.redirects):
            return None
        for access in e.paths:
            word = access.word
            value = word.value
            if value is None:
                return None
            if word.kind == GLOB:
                head, _, segment = value.rpartition("/")
                if any(ch in head for ch in "*?[") or segment.startswith("."):
                    return None
                word = Word(head or ".", head or ".", tilde=word.tilde)
            paths = plan.paths(word, inner)
            if paths is None:
                return None
            for p in paths:
                if not _inside(plan, p):
                    return None
            if access.kind in (WRITE, DELETE, READ):
                targets += 1
    if not targets:
        return None
    return "accept_edits: file commands with every target inside a working directory"


def _summary(command: object) -> str:
    text = command if isinstance(command, str) else repr(command)
    text = text.replace("\n", "⏎ ")
    return text if len(text) <= 120 else text[:117] + "…"


def check(plan: Plan, command: object) -> PermissionDecision:
    """The decision for this plan, made once (suggestions and the read-only question reuse
    it)."""
    decision = plan.memo.get("decision")
    if decision is None:
        decision = plan.memo["decision"] = _check(plan, command)
    return decision


def _check(plan: Plan, command: object) -> PermissionDecision:
    a = plan.analysis
    shown = _summary(command)
    mode = plan.context.mode
    if a.unanalyzable:
        why = a.reasons[0] if a.reasons else "the command cannot be analyzed"
        if mode is PermissionMode.BYPASS:
            # its effects are unknown, so the protected tier (which no mode lifts) cannot be
            # checked: padding `rm -rf ~` past the length limit must not pass in bypass
            return PermissionDecision.deny(
                f"Safety check: {why}", bypass_immune=True,
                message=f"Refused: {why}; its effects cannot be checked, so it is never run "
                        f"unattended: {shown}")
        return PermissionDecision.ask(
            f"Safety check: {why}", safety=True,
            message=f"Permission required: {why}. It cannot be checked statically: {shown}")
    if a.too_complex:
        why = next((r for r in a.reasons if "too complex" in r), "too complex to analyse")
        if mode in (PermissionMode.BYPASS, PermissionMode.DONT_ASK):
            return PermissionDecision.deny(
                f"Safety check: {why}", bypass_immune=True,
                message=f"Refused: {why}; it is never run unattended: {shown}")
        return PermissionDecision.ask(
            f"Safety check: {why}", safety=True,
            message=f"Permission required: {why}. No rule can approve it: {shown}")
    ok, why = read_only(plan)
    if ok:
        return PermissionDecision.allow(f"read-only command ({why})",
                                        message="Permission granted for a read-only command")
    found = danger(plan)
    if found is not None:
        level, reason = found
        if level == DENY:
            return PermissionDecision.deny(
                f"Dangerous: {reason}", bypass_immune=True,
                message=f"Refused: {reason}. This command is never run: {shown}")
        return PermissionDecision.ask(
            f"Safety check: {reason}", safety=True,
            message=f"Permission required: {reason} (allow rules cannot approve this): {shown}")
    sed = _sed_runs(plan)
    if sed:
        return PermissionDecision.ask(f"Safety check: {sed}", safety=True,
                                      message=f"Permission required: {sed}: {shown}")
    sensitive = _sensitive(plan)
    if sensitive is not None:
        reason, safety = sensitive
        label = "Safety check" if safety else "Secret"
        return PermissionDecision.ask(f"{label}: {reason}", safety=safety,
                                      message=f"Permission required: {reason}: {shown}")
    if mode is PermissionMode.ACCEPT_EDITS:
        edit = _accept_edits(plan)
        if edit:
            return PermissionDecision.allow(edit)
    return PermissionDecision.passthrough(
        f"not read-only: {why}", message=f"Execute bash command: {shown}")


def bash_check_permissions(command: object,
                           context: PermissionContext | None = None) -> PermissionDecision:
    """The Bash tool's own check (module docstring). Never raises."""
    try:
        return check(plan_for(command, context), command)
    except Exception as exc:  # a defect must never become an allow
        return PermissionDecision.ask(
            f"Bash: the command could not be checked ({type(exc).__name__}: {exc})",
            safety=True)


def bash_is_read_only(command: object, context: PermissionContext | None = None) -> bool:
    """True only when the command provably only reads, and reads no secret."""
    try:
        return is_read_only(plan_for(command, context))
    except Exception:
        return False
