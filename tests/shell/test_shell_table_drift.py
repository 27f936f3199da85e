"""The table and the corpora stay together: every read-only program of the table and every
option it vetoes appears in tests/shell/corpus.jsonl or tests/redteam/redteam.jsonl, so an
entry added to the table without a case (or a case left for an entry since removed) shows."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from jupyter_agenttools.shell.programs import known_programs, read_only_programs, vetoed_options

ROOT = Path(__file__).resolve().parents[1]
CORPORA = [ROOT / "shell" / "corpus.jsonl", ROOT / "redteam" / "redteam.jsonl"]


def _commands() -> list[set[str]]:
    out = []
    for path in CORPORA:
        for line in path.read_text(encoding="utf-8").splitlines():
            command = json.loads(line)["input"].get("command") if line.strip() else None
            if not isinstance(command, str):
                continue
            try:
                words = shlex.split(command)
            except ValueError:
                words = command.split()
            out.append(set(words))
    return out


WORDS = _commands()


def _mentions(words: set[str], option: str) -> bool:
    return any(w == option or w.startswith(option + "=") or
               (len(option) == 2 and w.startswith(option) and not w.startswith("--"))
               for w in words)


def test_every_read_only_program_has_a_case() -> None:
    missing = sorted(p for p in read_only_programs() if not any(p in w for w in WORDS))
    assert not missing, f"programs of the table without a corpus case: {missing}"


def test_every_vetoed_option_has_a_case() -> None:
    missing = [(program, option) for program, options in sorted(vetoed_options().items())
               for option in sorted(options)
               if not any(program in w and _mentions(w, option) for w in WORDS)]
    assert not missing, f"vetoed options without a corpus case: {missing}"


def test_the_read_only_programs_are_known() -> None:
    assert read_only_programs() <= known_programs()
    assert {"cat", "grep", "git", "sed", "awk", "find", "tar", "xargs", "timeout"} <= \
        read_only_programs()
