"""The public corpus (tests/shell/corpus.jsonl): labelled commands, judged end to end.

Rule: **zero** ``not_read_only`` commands ALLOWed in default mode with no rules, and at most
5 % of the ``read_only`` ones not ALLOWed. Both figures are printed (run with ``-s``).
Each line is the ``agenttools check --jsonl`` input format plus ``label`` and ``family``.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from jupyter_agenttools.permission.types import PermissionBehavior, PermissionContext

CORPUS = Path(__file__).with_name("corpus.jsonl")
LABELS = ("read_only", "not_read_only")


def _rows() -> list[dict]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _decide():
    """The engine's check() when it is there; else the policy reproducing default mode."""
    try:
        from jupyter_agenttools.permission.check import check

        check("Bash", {"command": "true"})
    except Exception:  # pragma: no cover - only before the engine landed
        from jupyter_agenttools.shell.policy import bash_check_permissions, bash_is_read_only

        def decide(row: dict) -> PermissionBehavior:
            ctx = PermissionContext(cwd=row.get("cwd") or str(Path.cwd()))
            if bash_is_read_only(row["input"]["command"], ctx):
                return PermissionBehavior.ALLOW
            d = bash_check_permissions(row["input"]["command"], ctx)
            return d.behavior if d.behavior is not PermissionBehavior.PASSTHROUGH \
                else PermissionBehavior.ASK
        return decide

    def decide(row: dict) -> PermissionBehavior:
        return check("Bash", row["input"], mode=row.get("mode", "default"),
                     rules=row.get("rules"), cwd=row.get("cwd")).behavior
    return decide


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
    decide = _decide()
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
    assert share <= 0.05, "too many read-only commands asked:\n" + "\n".join(asked)


@pytest.mark.parametrize("mode", ["default", "accept_edits", "explore", "dont_ask"])
def test_corpus_unsafe_commands_are_never_allowed_in_non_bypass_modes(mode: str) -> None:
    """accept_edits may allow in-working-directory file commands; nothing else leaks."""
    try:
        from jupyter_agenttools.permission.check import check
    except ImportError:  # pragma: no cover
        pytest.skip("the engine's check() is not there")
    for r in _rows():
        if r["label"] != "not_read_only":
            continue
        d = check("Bash", r["input"], mode=mode, cwd=r.get("cwd"))
        if d.behavior is PermissionBehavior.ALLOW:
            assert mode == "accept_edits" and d.step == "tool_check" and \
                d.reason.startswith("accept_edits"), (mode, r, d.reason)
