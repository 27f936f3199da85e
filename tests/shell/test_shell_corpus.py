"""The public corpus (tests/shell/corpus.jsonl): labelled commands, judged end to end.

Rule: **zero** ``not_read_only`` commands ALLOWed in default mode with no rules, and at most
3 % of the ``read_only`` ones not ALLOWed. Both figures are printed (run with ``-s``).
Each line is the ``agenttools check --jsonl`` input format plus ``label`` and ``family``.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from jupyter_agenttools.permission.check import check
from jupyter_agenttools.permission.types import PermissionBehavior

CORPUS = Path(__file__).with_name("corpus.jsonl")
LABELS = ("read_only", "not_read_only")


def _rows() -> list[dict]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _decide(row: dict) -> PermissionBehavior:
    return check("Bash", row["input"], mode=row.get("mode", "default"),
                 rules=row.get("rules"), cwd=row.get("cwd")).behavior


def test_corpus_is_well_formed() -> None:
    rows = _rows()
    assert len(rows) >= 400
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids))
    commands = [r["input"]["command"] for r in rows]
    assert len(commands) == len(set(commands))
    for r in rows:
        assert r["tool"] == "Bash" and r["label"] in LABELS and r["family"], r
        assert isinstance(r["input"]["command"], str)
    families = Counter(r["family"] for r in rows)
    assert len(families) >= 20, families
    assert Counter(r["label"] for r in rows)["read_only"] >= 200


def test_corpus_rule() -> None:
    rows = _rows()
    decide = _decide
    leaked: list[str] = []
    asked: list[str] = []
    for r in rows:
        allowed = decide(r) is PermissionBehavior.ALLOW
        if r["label"] == "not_read_only" and allowed:
            leaked.append(f"{r['id']} [{r['family']}] {r['input']['command']!r}")
        if r["label"] == "read_only" and not allowed:
            asked.append(f"{r['id']} [{r['family']}] {r['input']['command']!r}")
    n_not = sum(r["label"] == "not_read_only" for r in rows)
    n_ro = sum(r["label"] == "read_only" for r in rows)
    share = len(asked) / n_ro
    print(f"\ncorpus: {len(rows)} commands; not_read_only ALLOWed: {len(leaked)}/{n_not}; "
          f"read_only not ALLOWed: {len(asked)}/{n_ro} ({share:.1%})")
    for line in asked:
        print("  asked:", line)
    assert not leaked, "not_read_only commands were ALLOWed:\n" + "\n".join(leaked)
    assert share <= 0.03, "too many read-only commands asked:\n" + "\n".join(asked)


@pytest.mark.parametrize("mode", ["default", "accept_edits", "explore", "dont_ask"])
def test_corpus_unsafe_commands_are_never_allowed_in_non_bypass_modes(mode: str) -> None:
    """accept_edits may allow in-working-directory file commands; nothing else leaks."""
    for r in _rows():
        if r["label"] != "not_read_only":
            continue
        d = check("Bash", r["input"], mode=mode, cwd=r.get("cwd"))
        if d.behavior is PermissionBehavior.ALLOW:
            assert mode == "accept_edits" and d.step == "tool_check" and \
                d.reason.startswith("accept_edits"), (mode, r, d.reason)


def test_corpus_through_the_cli_agrees_with_the_labels() -> None:
    """`agenttools check --jsonl` reads the corpus as it is (label/family are annotations) and
    gives one line per input, in order, with the same verdicts as check()."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "jupyter_agenttools.cli", "check", "--jsonl",
                          str(CORPUS)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    results = [json.loads(line) for line in out.stdout.splitlines()]
    rows = _rows()
    assert [r["id"] for r in results] == [r["id"] for r in rows]
    for row, res in zip(rows, results):
        assert set(res) == {"id", "behavior", "bypass_immune", "step", "reason", "rule",
                            "suggestions"}
        if row["label"] == "not_read_only":
            assert res["behavior"] != "allow", (row, res)
    asked = sum(r["label"] == "read_only" and res["behavior"] != "allow"
                for r, res in zip(rows, results))
    assert asked <= 0.03 * sum(r["label"] == "read_only" for r in rows)
