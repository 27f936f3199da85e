"""The one table of per-mode differences (SPEC §5.2).

Every mode runs the same six-step skeleton in ``engine.py``; this table is the only place
where modes differ. ``None`` in a column means "ignored: the engine goes on to the next step".

| step                 | default | accept_edits | explore      | bypass   | dont_ask |
|----------------------|---------|--------------|--------------|----------|----------|
| 1 protected tier     | DENY    | DENY         | DENY         | DENY     | DENY     |
| 2 ask rules          | ASK     | ASK          | ASK          | ASK      | DENY     |
| 4 tool check runs    | yes     | yes          | no           | yes      | yes      |
| 4 safety ASK         | ASK     | ASK          | —            | ignored  | DENY     |
| 4 code-later write   | ASK     | ASK          | —            | ASK      | DENY     |
| 4 plain ASK          | ASK*    | ASK*         | —            | ignored  | DENY*    |
| 5 allow rules        | yes     | yes          | no           | yes      | yes      |
| 6 fallback           | ASK     | ASK          | DENY         | ALLOW    | DENY     |

(*) a plain ASK from the tool is remembered; a matching allow rule (step 5) still allows the
call, otherwise the remembered verdict is the result. accept_edits' "in-working-dir edits are
ALLOW" is the file tools' own check (they see ``context.mode``), not an engine rule.

The protected tier (``protected.py``: the agent's own settings, disk devices, wholesale
destruction of ``/``, the home, system folders, working directories' parents) is checked on the
effects of every tool before the deny rules; no mode lifts it. A safety ASK also comes from the
effects themselves (a secret read, a write outside the working directories, a file that runs
code later), whatever the tool's own check says: allow rules never silence it.

A write of a file that runs code later (``sensitive.runs_code_later_reason``: shell start-up
files, ``.git`` hooks and config, IDE run configurations, IPython/Jupyter start-up and config,
kernel specs, ``.pth`` files, a virtual environment's interpreter and activate script) is the
one safety ASK bypass keeps (``code_later``): SPEC §9 lists these files next to the tier no mode
lifts, and a bypass session is trusted with what it does now — not with code that runs after
it, in the user's next shell, kernel or ``git commit``, where no one reviews it (Claude Code
also keeps asking for ``.git``, ``.vscode`` and ``.idea`` in bypass). The other modes ask (or,
in dont_ask, deny) through the ordinary safety ASK; explore denies every write anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

from .types import PermissionBehavior, PermissionMode

__all__ = ["ModePolicy", "MODE_TABLE", "policy_for"]

ALLOW, ASK, DENY = PermissionBehavior.ALLOW, PermissionBehavior.ASK, PermissionBehavior.DENY


@dataclass(frozen=True)
class ModePolicy:
    mode: PermissionMode
    #: what a matching ask rule gives (step 2)
    ask_rule: PermissionBehavior
    #: whether the tool's own check runs (step 4)
    tool_check: bool
    #: what a safety ASK (bypass_immune) from the tool becomes; None: ignored
    safety_ask: PermissionBehavior | None
    #: what a plain ASK from the tool becomes when no allow rule matches; None: ignored
    plain_ask: PermissionBehavior | None
    #: whether allow rules are consulted (step 5)
    allow_rules: bool
    #: the verdict when nothing else decided (step 6)
    fallback: PermissionBehavior
    #: why the fallback says what it says
    fallback_reason: str
    #: what an engine error (a tool hook that raised) becomes: never a silent allow
    on_error: PermissionBehavior
    #: what a write to the protected tier becomes (step 1, before the deny rules)
    protected: PermissionBehavior
    #: what a write of a file that runs code later becomes before the tool check, in a mode
    #: that would otherwise ignore the safety ASK; None: left to ``safety_ask``
    code_later: PermissionBehavior | None = None


MODE_TABLE: dict[PermissionMode, ModePolicy] = {
    p.mode: p
    for p in (
        ModePolicy(PermissionMode.DEFAULT, ask_rule=ASK, tool_check=True, safety_ask=ASK,
                   plain_ask=ASK, allow_rules=True, fallback=ASK,
                   fallback_reason="default mode asks for anything not allowed by a rule",
                   on_error=ASK, protected=DENY),
        ModePolicy(PermissionMode.ACCEPT_EDITS, ask_rule=ASK, tool_check=True, safety_ask=ASK,
                   plain_ask=ASK, allow_rules=True, fallback=ASK,
                   fallback_reason="accept_edits mode asks for anything but in-project edits "
                                   "not allowed by a rule",
                   on_error=ASK, protected=DENY),
        ModePolicy(PermissionMode.EXPLORE, ask_rule=ASK, tool_check=False, safety_ask=None,
                   plain_ask=None, allow_rules=False, fallback=DENY,
                   fallback_reason="explore mode is read-only",
                   on_error=ASK, protected=DENY),
        ModePolicy(PermissionMode.BYPASS, ask_rule=ASK, tool_check=True, safety_ask=None,
                   plain_ask=None, allow_rules=True, fallback=ALLOW,
                   fallback_reason="bypass mode allows anything not denied",
                   on_error=ASK, protected=DENY, code_later=ASK),
        ModePolicy(PermissionMode.DONT_ASK, ask_rule=DENY, tool_check=True, safety_ask=DENY,
                   plain_ask=DENY, allow_rules=True, fallback=DENY,
                   fallback_reason="dont_ask mode denies anything not allowed by a rule "
                                   "(no one is there to answer)",
                   on_error=DENY, protected=DENY),
    )
}


def policy_for(mode: PermissionMode | str) -> ModePolicy:
    return MODE_TABLE[PermissionMode.parse(mode)]
