"""When the sandbox is a reason to allow (issue 16, SPEC §9 "Sandbox").

With the sandbox on and working (``backends/sandbox.py``), a command can only write in the
writable folders, sees no secret and reaches no network unless ``network`` is on. So a command
the Bash check would otherwise leave to the rules and the mode (PASSTHROUGH: "not read-only")
may run without asking when everything it is *seen* to do is confined:

- every write, delete or permission change it names lands in a working directory (a write
  outside them is a safety ASK of the Bash check before this step, SPEC §9 — also into a
  ``writable`` entry or the sandbox's private ``/tmp``, although the sandbox would confine it);
- it runs programs the analysis does not know (``python train.py``, ``make``, ``./run.sh``):
  the sandbox confines what they do;
- it talks to the network only when the sandbox has none (then it just fails).

Still asked, whatever the sandbox: network use when ``network`` is on, secrets read or printed,
machine-wide changes, shell text the analysis cannot read (``eval "$X"``, ``… | bash``: deny
rules could not see the commands in it), paths decided at run
time, a write outside the writable folders (the sandbox would refuse it: the question says so
before it fails), and everything the Bash check already asked about (secret reads, sensitive and
protected paths, dangerous commands) — this step only turns PASSTHROUGH into ALLOW. Deny and ask
rules come first in the engine, so they always apply.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ...shell.effects import CODE, DELETE, MODE, STDIN, WRITE
from ...shell.words import GLOB, Word
from .plan import Plan, below

if TYPE_CHECKING:
    from ...backends.sandbox_settings import SandboxPolicy

__all__ = ["sandboxed_reason"]


def _writable(plan: Plan, policy: "SandboxPolicy") -> tuple[str, ...]:
    found: dict[str, None] = {d: None for d in plan.working_directories()}
    for entry in policy.writable:
        value = entry
        if value == "~" or value.startswith("~/"):
            value = plan.home.rstrip("/") + value[1:]
        if value.startswith("/"):
            found.setdefault(plan.realpath(os.path.normpath(value)), None)
    return tuple(found)


def _targets(plan: Plan, word: Word, command: object) -> list[str] | None:
    if word.kind == GLOB and word.value is not None:
        # a pattern writes inside the folder it is in: check that folder
        head = word.value.rpartition("/")[0]
        if any(ch in head for ch in "*?["):
            return None
        word = Word(head or ".", head or ".", tilde=word.tilde)
    return plan.paths(word, command)  # type: ignore[arg-type]


def sandboxed_reason(plan: Plan, policy: "SandboxPolicy") -> str | None:
    """Why ``plan``'s command may run without asking because the sandbox confines it; None
    when it must still be asked (module docstring)."""
    a = plan.analysis
    if a.unanalyzable or a.too_complex or a.opaque or not a.records:
        return None
    writable = _writable(plan, policy)
    wrote = ran = offline = False
    for command in a.records:
        e = command.effects
        if e is None or e.problems or e.secret or e.system:
            return None
        if e.network:
            if policy.network:
                return None  # the sandbox lets it through: the person decides
            offline = True
        for run in e.runs:
            if run.language == "sh" and run.how in (CODE, STDIN):
                # shell text the analysis cannot read (eval "$X", … | bash): deny rules could
                # not see the commands in it, so a person looks first
                return None
        if e.runs or not e.read_only:
            ran = True
        for access in e.paths:
            if access.kind not in (WRITE, DELETE, MODE):
                continue
            targets = _targets(plan, access.word, command)
            if targets is None:
                return None  # decided at run time
            for path in targets:
                real = plan.realpath(path)
                if not any(below(real, d) for d in writable):
                    return None
            wrote = True
    parts = []
    if wrote:
        parts.append("writes only inside the writable folders")
    if ran:
        parts.append("what it runs stays inside the sandbox")
    if offline:
        parts.append("it has no network there")
    return "sandboxed: " + ("; ".join(parts) or "confined by the sandbox")
