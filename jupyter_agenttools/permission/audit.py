"""The audit log: one JSON line per decision, per answer to an ASK and per outcome of a call.

Who and what: every record names the user (``JUPYTERHUB_USER``, else the OS user) and the agent
it came from (``agenttools`` for our own loop; ``claude-code``, ``codex``, ``gemini-cli`` for
``agenttools hook``). Decisions are followed, for calls that ran, by an ``outcome`` record
(state, exit code, duration) carrying the same ``call_id``.

Writing: secrets are redacted first (``redact.py``: one table, a reason per rule), a line is
capped at ``max_line_bytes`` (the longest fields are cut, ``"truncated": true`` says so), and
the file rotates to ``audit.jsonl.1`` … ``.N`` past ``max_bytes``. Lines are appended with a
single ``write`` under an exclusive lock so concurrent kernels never interleave them: ``flock``
on the log itself where the OS has it (a few µs: the log is written on every decision), else a
``filelock`` lock file next to it. An append cut short (``kill -9`` in the middle of a large
write) leaves a partial line: the next writer sees the file does not end with a newline and
starts its record on a fresh line, so the cut record is lost but never the next one.

Reading: from the end of the file in blocks, so ``read(limit=1)`` costs the same on a 250 MB log
as on a small one (``scanned_bytes`` tells what a read touched). Only regular files are read or
written: a FIFO, a device or a link to ``/dev/zero`` (a cloned repository can ship one) is a
clear AuditLogError, never a hang or a MemoryError. Corrupt lines are skipped and counted
(``skipped``), and a line longer than ``MAX_READ_LINE`` is skipped without being held in memory.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import getpass
import json
import os
import stat
import threading
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

from ..errors import AuditLogError
from .redact import REDACTION_MARGIN, redact_value

__all__ = ["AuditLog", "utc_now", "parse_time", "current_user", "audit_call", "AGENT",
           "DEFAULT_MAX_LINE_BYTES", "DEFAULT_MAX_BYTES", "DEFAULT_BACKUPS", "MAX_READ_LINE"]

#: the ``agent`` of records written by this package's own agent loop
AGENT = "agenttools"
#: a record bigger than this is cut (its longest fields first); an input summary is 200 chars,
#: so only a runaway reason or a hook's huge input ever gets near it
DEFAULT_MAX_LINE_BYTES = 64 * 1024
#: the log rotates past this size: audit.jsonl → audit.jsonl.1 → … → .DEFAULT_BACKUPS
DEFAULT_MAX_BYTES = 20 * 1024 * 1024
DEFAULT_BACKUPS = 3
#: a line longer than this is corrupt (our lines are capped far below); readers skip it
#: without holding it in memory
MAX_READ_LINE = 16 * 1024 * 1024
_BLOCK = 64 * 1024
# A writer that was slow between taking the time and taking the lock writes a slightly older
# time after newer ones: a `since` read stops only this far past its bound.
_SINCE_SLACK = timedelta(minutes=5)
# Values of these keys are ours (names, enums, numbers), not tool input: not redacted.
_PLAIN_KEYS = frozenset({"time", "kind", "user", "agent", "session", "call_id", "tool", "mode",
                         "step", "behavior", "bypass_immune", "state", "exit_code", "duration_s",
                         "answer", "rule_source", "redacted", "truncated", "timed_out"})
_CALL: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "agenttools_audit_call", default=None)


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


def current_user() -> str:
    """The person the agent acts for: JupyterHub's user in a hub, else the OS account."""
    hub_user = os.environ.get("JUPYTERHUB_USER", "").strip()
    if hub_user:
        return hub_user
    try:
        return getpass.getuser()
    except Exception:  # no passwd entry (containers with an arbitrary uid)
        return f"uid:{os.getuid()}" if hasattr(os, "getuid") else "unknown"


@contextlib.contextmanager
def audit_call(call_id: str | None, **fields: Any) -> Iterator[None]:
    """Records written inside carry ``call_id`` and ``fields`` (the agent loop wraps its
    permission check in it, so a decision and the call's outcome can be matched; a hook adds
    the agent's own tool name)."""
    token = _CALL.set({"call_id": call_id, **fields})
    try:
        yield
    finally:
        _CALL.reset(token)


def _kind_of(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def cap_line(line: dict[str, Any], max_bytes: int) -> bytes | None:
    """None when the record's JSON fits in ``max_bytes``, else a cut version that fits: the
    longest fields are cut first and ``truncated`` is set; if that is not enough (thousands of
    small fields), only the identifying fields are kept."""
    data = _dumps(line).encode("utf-8")
    if len(data) <= max_bytes:
        return None
    line = dict(line, truncated=True)
    for _ in range(32):
        candidates = [k for k in line if k not in ("time", "kind", "truncated")]
        if not candidates:
            break
        key = max(candidates, key=lambda k: len(_dumps(line[k])))
        value = line[key]
        text = value if isinstance(value, str) else _dumps(value)
        excess = len(data) - max_bytes
        keep = max(0, len(text) - excess - 48)
        line[key] = f"{text[:keep]}…[cut {len(text) - keep} chars]"
        data = _dumps(line).encode("utf-8")
        if len(data) <= max_bytes:
            return data
    names = ("time", "kind", "user", "agent", "session", "call_id", "tool", "behavior", "state")
    minimal: dict[str, Any] = {k: line[k] for k in names if k in line}
    minimal["truncated"] = True
    return _dumps(minimal).encode("utf-8")[:max_bytes]


class AuditLog:
    """An append-only JSON-lines file, e.g. ``<project>/.agenttools/audit.jsonl``.

    ``agent`` and ``user`` are written into every record that does not name its own
    (``user`` defaults to ``current_user()`` at write time).
    """

    def __init__(self, path: str | os.PathLike[str], *, agent: str | None = AGENT,
                 user: str | None = None, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
                 max_bytes: int | None = DEFAULT_MAX_BYTES, backups: int = DEFAULT_BACKUPS):
        if max_line_bytes < 256:
            raise ValueError(f"expected max_line_bytes of at least 256, got {max_line_bytes}")
        self.path = Path(path)
        self.agent = agent
        self.user = user
        self.max_line_bytes = max_line_bytes
        self.max_bytes = max_bytes
        self.backups = max(0, backups)
        #: corrupt lines skipped by the last ``read``
        self.skipped = 0
        #: bytes the last ``read`` went through (reads stop once they have what was asked)
        self.scanned_bytes = 0
        self._lock: Any = None
        self._thread_lock = threading.Lock()

    # --- writing ------------------------------------------------------------------------------

    def _file_lock(self) -> Any:
        if self._lock is None:
            from filelock import FileLock

            self._lock = FileLock(str(self.path) + ".lock")
        return self._lock

    def record(self, entry: dict[str, Any] | None = None, /, **fields: Any) -> dict[str, Any]:
        """Append one line and return the record as written (redacted, maybe cut).

        ``time`` (ISO 8601 UTC), ``user``, ``agent`` and the current ``call_id`` are added when
        missing; a ``redacted`` list names the redaction rules that fired."""
        line: dict[str, Any] = {"time": utc_now()}
        if entry:
            line.update(entry)
        line.update(fields)
        if line.get("user") is None:
            line["user"] = self.user or current_user()
        if line.get("agent") is None and self.agent is not None:
            line["agent"] = self.agent
        for key, value in (_CALL.get() or {}).items():
            if line.get(key) is None and value is not None:
                line[key] = value
        if line.get("call_id") is None:
            line.pop("call_id", None)
        fired: list[str] = []
        # A string longer than a whole line is cut before redaction (which is slow on
        # megabytes); the line cap then cuts it again by more than REDACTION_MARGIN, so a
        # secret split by the first cut is gone whole.
        longest = self.max_line_bytes + REDACTION_MARGIN
        for key, value in line.items():
            if key not in _PLAIN_KEYS and value is not None:
                line[key] = redact_value(value, fired, longest)
        if fired:
            line["redacted"] = fired
        cut = cap_line(line, self.max_line_bytes)
        if cut is None:
            data = _dumps(line).encode("utf-8") + b"\n"
        else:
            line, data = json.loads(cut), cut + b"\n"
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

    def _open_append(self) -> int:
        flags = (os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
                 | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        try:
            fd = os.open(self.path, flags, 0o600)
        except OSError as exc:
            if exc.errno == errno.ELOOP or self.path.is_symlink():
                raise AuditLogError(
                    f"audit log {self.path} is a symbolic link; it must be a regular file "
                    "(a link could make every record land in another file)") from exc
            raise
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            raise AuditLogError(f"audit log {self.path} is {_kind_of(info.st_mode)}; it must "
                                "be a regular file")
        return fd

    def _append(self, data: bytes, *, locked: bool) -> None:
        for _ in range(8):  # another writer may rotate between our open and our lock
            fd = self._open_append()
            try:
                if locked:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                info = os.fstat(fd)
                try:
                    current = os.stat(self.path, follow_symlinks=False)
                except FileNotFoundError:
                    continue
                if (current.st_ino, current.st_dev) != (info.st_ino, info.st_dev):
                    continue  # rotated away under us: append to the new file
                size = info.st_size
                if self.max_bytes is not None and size > 0 \
                        and size + len(data) > self.max_bytes:
                    self._rotate()
                    continue
                if size > 0 and os.pread(fd, 1, size - 1) != b"\n":
                    # a record cut short (kill -9 during its write): ours starts on a fresh
                    # line, so the reader loses only the cut one
                    data = b"\n" + data
                view = memoryview(data)
                while view:  # a short write continues where it stopped, still under the lock
                    view = view[os.write(fd, view):]
                return
            finally:
                os.close(fd)  # closing releases the flock
        raise AuditLogError(f"audit log {self.path}: could not append (the file kept being "
                            "replaced while waiting for its lock)")

    def _rotate(self) -> None:
        """audit.jsonl → .1 → .2 …; the oldest beyond ``backups`` is dropped (held lock)."""
        if self.backups == 0:
            os.truncate(self.path, 0)
            return
        for n in range(self.backups - 1, 0, -1):
            older = self._backup_path(n)
            if older.exists():
                os.replace(older, self._backup_path(n + 1))
        os.replace(self.path, self._backup_path(1))

    def _backup_path(self, n: int) -> Path:
        return self.path.with_name(f"{self.path.name}.{n}")

    def record_decision(self, *, tool: str, input_summary: str, decision: Any, mode: Any,
                        session: str | None = None, agent: str | None = None,
                        **extra: Any) -> dict[str, Any]:
        return self.record(
            kind="decision", session=session, agent=agent, tool=tool, input=input_summary,
            mode=str(mode), step=decision.step,
            rule=decision.rule.text if decision.rule is not None else None,
            rule_source=decision.rule_source, behavior=decision.behavior.value,
            bypass_immune=decision.bypass_immune, reason=decision.reason, **extra)

    def record_answer(self, *, tool: str, input_summary: str, decision: Any, answer: str,
                      rule: Any = None, mode: Any = None, session: str | None = None,
                      agent: str | None = None) -> dict[str, Any]:
        return self.record(
            kind="answer", session=session, agent=agent, tool=tool, input=input_summary,
            mode=None if mode is None else str(mode), step=decision.step,
            behavior=decision.behavior.value, bypass_immune=decision.bypass_immune,
            answer=answer, rule_chosen=None if rule is None else getattr(rule, "text", str(rule)))

    def record_outcome(self, *, tool: str, input_summary: str, state: Any,
                       exit_code: int | None = None, duration_s: float | None = None,
                       session: str | None = None, call_id: str | None = None,
                       agent: str | None = None, timed_out: bool | None = None,
                       error: str | None = None) -> dict[str, Any]:
        """What happened after an ALLOW: the call's final state (``success``, ``error``,
        ``interrupted``, ``denied``), the exit code of a command, the wall time."""
        fields: dict[str, Any] = {
            "kind": "outcome", "session": session, "agent": agent, "call_id": call_id,
            "tool": tool, "input": input_summary, "state": str(getattr(state, "value", state)),
            "exit_code": exit_code,
            "duration_s": None if duration_s is None else round(duration_s, 3)}
        if timed_out:
            fields["timed_out"] = True
        if error:
            fields["error"] = error
        return self.record({k: v for k, v in fields.items() if v is not None or k == "exit_code"})

    # --- reading ------------------------------------------------------------------------------

    def files(self) -> list[Path]:
        """The log and its rotated backups that exist, newest first."""
        out = [self.path] if os.path.lexists(self.path) else []
        for n in range(1, self.backups + 1):
            backup = self._backup_path(n)
            if os.path.lexists(backup):
                out.append(backup)
        return out

    @staticmethod
    def _open_read(path: Path) -> tuple[int, int] | None:
        """(fd, size) of a regular file; None when it vanished; AuditLogError otherwise."""
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(path, flags)  # O_NONBLOCK: opening a FIFO must not wait for a writer
        except FileNotFoundError:
            return None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            raise AuditLogError(f"audit log {path} is {_kind_of(info.st_mode)}; it must be a "
                                "regular file")
        return fd, info.st_size

    def _lines_backward(self, fd: int, size: int) -> Iterator[bytes | None]:
        """Lines from the end (None for a line too long to keep)."""
        position = size
        tail = b""  # the start of the line being assembled (its end is known)
        oversize = False
        while position > 0:
            start = max(0, position - _BLOCK)
            block = os.pread(fd, position - start, start)
            self.scanned_bytes += len(block)
            position = start
            pieces = block.split(b"\n")
            # pieces[-1] continues the line in `tail`; pieces[1:-1] are whole lines
            if oversize:
                if len(pieces) > 1:
                    yield None
                    oversize = False
                    tail = b""
                else:
                    continue
            else:
                tail = pieces[-1] + tail
                if len(pieces) > 1:
                    yield tail
                    tail = b""
            yield from reversed(pieces[1:-1])
            first = pieces[0]
            if len(pieces) > 1:
                tail = first
            if len(tail) > MAX_READ_LINE:
                oversize, tail = True, b""
        if oversize:
            yield None
        elif tail:
            yield tail

    def _entries(self, needles: tuple[bytes, ...] = ()) -> Iterator[dict[str, Any] | None]:
        """Parsed records newest first (None for a corrupt line), across rotations. A line
        that lacks one of ``needles`` cannot match the filters: it is not even parsed."""
        for path in self.files():
            opened = self._open_read(path)
            if opened is None:
                continue
            fd, size = opened
            try:
                for raw in self._lines_backward(fd, size):
                    if raw is None:
                        yield None
                        continue
                    if not raw.strip() or any(n not in raw for n in needles):
                        continue
                    try:
                        entry = json.loads(raw)
                    except ValueError:  # also UnicodeDecodeError
                        yield None
                        continue
                    yield entry if isinstance(entry, dict) else None
            finally:
                os.close(fd)

    def read(self, limit: int | None = None, tool: str | None = None,
             behavior: str | None = None, since: Any = None, newest_first: bool = True,
             kind: str | None = None, *, offset: int = 0, user: str | None = None,
             outcome: str | None = None, agent: str | None = None,
             call_id: str | None = None) -> list[dict[str, Any]]:
        """Entries matching every filter given, ``offset`` matches skipped, at most ``limit``.

        The newest matches are taken (``offset`` newest skipped), read from the end of the
        file: a read stops as soon as it has ``offset + limit`` matches, so a bounded read of
        a huge log is cheap. ``newest_first=False`` gives the same entries oldest first.
        ``outcome`` keeps the outcome records in that state (``success``, ``error``,
        ``interrupted``, ``denied``); ``skipped`` counts the corrupt lines met (a line that
        cannot match the filters is not parsed, so not counted)."""
        if limit is not None and limit < 0:
            raise ValueError(f"expected a limit of 0 or more, got {limit}")
        if offset < 0:
            raise ValueError(f"expected an offset of 0 or more, got {offset}")
        since_dt = parse_time(since) if since is not None else None
        behavior = None if behavior is None else str(getattr(behavior, "value", behavior))
        outcome = None if outcome is None else str(getattr(outcome, "value", outcome))
        wanted = {"tool": tool, "behavior": behavior, "kind": kind, "user": user,
                  "agent": agent, "call_id": call_id}
        if outcome is not None:
            wanted["kind"] = "outcome" if kind in (None, "outcome") else kind
            wanted["state"] = outcome
        filters = [(key, value) for key, value in wanted.items() if value is not None]
        # A value's JSON text must appear in a matching line (skips json.loads on the others);
        # only for ASCII values, which every JSON writer leaves unescaped.
        needles = tuple(json.dumps(value)[1:-1].encode() for _, value in filters
                        if isinstance(value, str) and value.isascii())
        out: list[dict[str, Any]] = []
        skipped = 0
        to_skip = offset
        self.scanned_bytes = 0
        if limit == 0:
            self.skipped = 0
            return out
        for entry in self._entries(needles):
            if entry is None:
                skipped += 1
                continue
            if since_dt is not None:
                try:
                    when = parse_time(entry["time"])
                except (KeyError, ValueError):
                    skipped += 1
                    continue
                if when < since_dt:
                    if when < since_dt - _SINCE_SLACK:
                        break  # everything further back is older still
                    continue
            if any(entry.get(key) != value for key, value in filters):
                continue
            if to_skip:
                to_skip -= 1
                continue
            out.append(entry)
            if limit is not None and len(out) >= limit:
                break
        self.skipped = skipped
        if not newest_first:
            out.reverse()
        return out
