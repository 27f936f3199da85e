"""The Bash tool (tool.py) and its permission decision, in small modules:

- ``plan.py``: one analysis per decision and where its paths lead;
- ``decision.py``: the 0–6 ladder (``bash_check_permissions``, ``bash_is_read_only``);
- ``danger.py``: destructive and dangerous operations;
- ``secrets.py``: secrets read or printed;
- ``rules.py``: rule matching per command, several allow rules together;
- ``suggestions.py``: the rules offered with an ASK;
- ``policy.py``: the public names the tool and other code call.

The command itself is analysed by ``shell/`` (pure: effects, no rules, no I/O).
"""

from __future__ import annotations

from .tool import Bash

__all__ = ["Bash"]
