"""The audit log: one JSON line per decision and per answer to an ASK.

Lines are appended with a single ``write`` under an exclusive lock so concurrent kernels never
interleave them: ``flock`` on the log itself where the OS has it (a few µs: the log is written
on every decision), else a ``filelock`` lock file next to it. The reader skips (and counts)
corrupt lines instead of failing: a log cut by a crash must stay readable.
"""

from __future__ import annotations

import json
import os
import threading

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

__all__ = ["AuditLog", "utc_now", "parse_time"]


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def parse_time(value: Any) -> datetime:
    """An aware UTC datetime from a datetime or an ISO 8601 string (``Z`` accepted)."""
    if isinstance(value, datetime):
        dt = value
    else:
        text = str(value).strip()
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            dt = datetime.fromisoformat(text)
        except ValueError:
            raise ValueError(f"expected an ISO 8601 time such as 2026-01-31T12:00:00Z, "
                             f"got {value!r}") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.astimezone(timezone.utc)


class AuditLog:
    """An append-only JSON-lines file, e.g. ``<project>/.agenttools/audit.jsonl``."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        #: corrupt lines skipped by the last ``read``
        self.skipped = 0
        self._lock: Any = None
        self._thread_lock = threading.Lock()

    def _file_lock(self) -> Any:
        if self._lock is None:
            from filelock import FileLock

            self._lock = FileLock(str(self.path) + ".lock")
        return self._lock

    def record(self, entry: dict[str, Any] | None = None, /, **fields: Any) -> dict[str, Any]:
        """Append one line; ``time`` (ISO 8601 UTC) is added when missing."""
        line = {"time": utc_now()}
        if entry:
            line.update(entry)
        line.update(fields)
        data = (json.dumps(line, ensure_ascii=False, default=str) + "\n").encode("utf-8")
        if not self.path.parent.exists():
            from .settings import ensure_agenttools_dir

            ensure_agenttools_dir(self.path.parent)
        with self._thread_lock:
            if fcntl is None:  # pragma: no cover - Windows
                with self._file_lock():
                    self._append(data, locked=False)
            else:
                self._append(data, locked=True)
        return line

    def _append(self, data: bytes, *, locked: bool) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            if locked:
                fcntl.flock(fd, fcntl.LOCK_EX)
            view = memoryview(data)
            while view:  # a short write continues where it stopped, still under the lock
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)  # closing releases the flock

    def record_decision(self, *, tool: str, input_summary: str, decision: Any, mode: Any,
                        session: str | None = None) -> dict[str, Any]:
        return self.record(
            kind="decision", session=session, tool=tool, input=input_summary,
            mode=str(mode), step=decision.step,
            rule=decision.rule.text if decision.rule is not None else None,
            rule_source=decision.rule_source, behavior=decision.behavior.value,
            bypass_immune=decision.bypass_immune, reason=decision.reason)

    def record_answer(self, *, tool: str, input_summary: str, decision: Any, answer: str,
                      rule: Any = None, mode: Any = None, session: str | None = None
                      ) -> dict[str, Any]:
        return self.record(
            kind="answer", session=session, tool=tool, input=input_summary,
            mode=None if mode is None else str(mode), step=decision.step,
            behavior=decision.behavior.value, bypass_immune=decision.bypass_immune,
            answer=answer, rule_chosen=None if rule is None else getattr(rule, "text", str(rule)))

    def _lines(self) -> Iterable[str]:
        try:
            with open(self.path, encoding="utf-8", errors="replace") as f:
                yield from f
        except FileNotFoundError:
            return

    def read(self, limit: int | None = None, tool: str | None = None,
             behavior: str | None = None, since: Any = None, newest_first: bool = True,
             kind: str | None = None) -> list[dict[str, Any]]:
        """Entries matching every filter given; ``skipped`` counts the corrupt lines."""
        since_dt = parse_time(since) if since is not None else None
        behavior = None if behavior is None else str(getattr(behavior, "value", behavior))
        out: list[dict[str, Any]] = []
        skipped = 0
        for raw in self._lines():
            if not raw.strip():
                continue
            try:
                entry = json.loads(raw)
                if not isinstance(entry, dict):
                    raise ValueError("not an object")
                when = parse_time(entry["time"]) if since_dt is not None else None
            except (ValueError, KeyError, TypeError):
                skipped += 1
                continue
            if tool is not None and entry.get("tool") != tool:
                continue
            if behavior is not None and entry.get("behavior") != behavior:
                continue
            if kind is not None and entry.get("kind") != kind:
                continue
            if when is not None and since_dt is not None and when < since_dt:
                continue
            out.append(entry)
        self.skipped = skipped
        if newest_first:
            out.reverse()
        if limit is not None:
            out = out[:limit] if newest_first else out[-limit:] if limit else []
        return out
