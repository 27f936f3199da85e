"""``%agent sandbox on|off|status``: Bash in bubblewrap for this kernel (issue 16).

The switch is the ``enabled`` key of ``AgentTools.sandbox`` (this session's layer, under the
managed settings only); ``status`` shows what is in force, where each value comes from, and
whether bubblewrap works here (backends/sandbox.py)."""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError

from .commands import argument, subcommand
from .display import Table

__all__: list[str] = []


@subcommand("sandbox", "run Bash in the bubblewrap sandbox (on/off) or show it (status)",
            examples=["%agent sandbox on", "%agent sandbox status", "%agent sandbox off",
                      "%agent sandbox on --network on"])
@argument("state", nargs="?", choices=("on", "off", "status"), default="status")
@argument("--network", choices=("on", "off"), default=None,
          help="let sandboxed commands reach the network (off: a namespace with loopback only)")
def _sandbox(magics: Any, args: Any) -> Table:
    s = magics.session
    override = dict(s.config.sandbox)
    if args.state in ("on", "off"):
        override["enabled"] = args.state == "on"
    if args.network:
        override["network"] = args.network == "on"
    if override != s.config.sandbox:
        previous = s.config.sandbox
        s.config.sandbox = override
        policy = s.sandbox_policy()
        for key in ("enabled", "network"):
            wanted = override.get(key)
            if wanted is not None and getattr(policy, key) != wanted:
                s.config.sandbox = previous
                raise UsageError(f"sandbox {key} stays {str(getattr(policy, key)).lower()}: "
                                 f"the {policy.sources.get(key, 'managed')} settings decide it")
    return sandbox_table(s)


def sandbox_table(s: Any) -> Table:
    """What is in force for session ``s``, with where each value comes from."""
    policy = s.sandbox_policy()
    status = s.sandbox.status(s.backend)
    if status.enabled and status.available is None:
        available = "checked before the first command (another kernel)"
    elif status.enabled:
        available = "yes" if status.available else f"NO: {status.reason}"
    else:
        available = "-"
    rows = [
        ["enabled", _yes(policy.enabled), policy.sources.get("enabled", "default")],
        ["available", available, type(s.backend).__name__],
        ["network", _yes(policy.network), policy.sources.get("network", "default")],
        ["required", _yes(policy.required), policy.sources.get("required", "default")],
        ["writable", ", ".join(s.sandbox.working_directories() + policy.writable),
         "working directories + settings"],
        ["hidden", ", ".join(policy.hidden) or "-",
         "besides ~/.ssh, ~/.aws, .env… (permission/sensitive.py)"],
        ["env_allow", ", ".join(policy.env_allow) or "-", "besides PATH, HOME, LANG…"],
    ]
    return Table(["sandbox", "value", "from"], rows, title="Bash sandbox")


def _yes(value: bool) -> str:
    return "yes" if value else "no"
