"""``python -m jupyter_agenttools``: the ``agenttools`` command."""

import sys

from .cli import main

sys.exit(main())
