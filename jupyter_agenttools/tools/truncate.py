"""The one cut-and-offload mechanism for over-long tool results (SPEC §3, gate 5).

``truncate_response`` cuts a finished ToolResponse: when its text is longer than the budget, the
model gets the head and the tail within the budget plus a notice naming a file that holds the
FULL text (not just the cut part). ``OutputSpool`` is the same mechanism for a stream (Bash):
it passes the head through live, keeps a bounded tail, and writes everything to the file once
the budget is exceeded, so memory stays bounded whatever the output size.

Non-text blocks (images) are left alone; metadata is kept and gains ``truncated``,
``offload_path`` and ``original_chars``.
"""

from __future__ import annotations

import copy
import os
import re
import time
import uuid
from typing import Any

from .base import ToolResponse, text_block

__all__ = ["truncate_response", "OutputSpool", "DEFAULT_BUDGET_CHARS", "offload_file_path"]

DEFAULT_BUDGET_CHARS = 30_000
#: what a tool that cut its own output may add to the budget (its notice, exit code, processes)
CUT_SLACK = 2_000
TAIL_SHARE = 0.2  # part of the budget given to the end of the text (errors are often there)


def offload_file_path(offload_dir: str | os.PathLike[str] | None, name: str | None) -> str:
    """A new, unique file path in ``offload_dir`` (a per-user temp folder when None)."""
    if offload_dir is None:
        from ..backends.base import default_offload_dir

        offload_dir = default_offload_dir()
    directory = os.fspath(offload_dir)
    os.makedirs(directory, exist_ok=True)
    label = re.sub(r"[^A-Za-z0-9_.-]+", "_", name or "tool")[:60] or "tool"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return os.path.join(directory, f"{label}-{stamp}-{uuid.uuid4().hex[:8]}.txt")


def _notice(shown: int, total: int, path: str, nbytes: int) -> str:
    return (f"\n[Output truncated: showing {shown:,} of {total:,} characters. The full output "
            f"({total:,} characters, {nbytes:,} bytes) is in {path} — read it in windows with "
            f"Read (offset/limit) or search it with Grep.]")


def _unsaved_notice(shown: int, total: int, reason: str) -> str:
    return (f"\n[Output truncated: showing {shown:,} of {total:,} characters. The full output "
            f"could not be saved ({reason}); if the omitted part matters, run it again with "
            f"less output.]")


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__


def _discard(path: str | None) -> None:
    """Remove a partly written offload file: a notice never names a file that is not whole."""
    if path is not None:
        try:
            os.unlink(path)
        except OSError:
            pass


def _save(offload_dir: str | os.PathLike[str] | None, name: str | None,
          data: bytes) -> tuple[str | None, str]:
    """(path of the whole text, "") or (None, why it could not be saved: a read-only or full
    disk, a folder that is a file). The cut result goes to the model either way: a full
    disk must not fail the run."""
    path = None
    try:
        path = offload_file_path(offload_dir, name)
        with open(path, "wb") as f:
            f.write(data)
        return path, ""
    except OSError as exc:
        _discard(path)
        return None, _reason(exc)


def _split_budget(budget: int) -> tuple[int, int]:
    tail = int(budget * TAIL_SHARE)
    return budget - tail, tail


def truncate_response(response: ToolResponse, *, budget_chars: int = DEFAULT_BUDGET_CHARS,
                      offload_dir: str | os.PathLike[str] | None = None) -> ToolResponse:
    """``response`` itself when its text fits ``budget_chars``, else a cut copy whose text is
    head + tail within the budget plus a notice naming the file with the full text. The cut
    text replaces the text blocks (as one block, first); other blocks keep their order."""
    if budget_chars < 0:
        raise ValueError(f"expected budget_chars >= 0, got {budget_chars}")
    text = response.text
    if len(text) <= budget_chars:
        return response
    if response.metadata.get("truncated") is True and len(text) <= budget_chars + CUT_SLACK:
        # the tool cut its own output as it streamed (Bash's OutputSpool) and its notice names
        # the whole output: a second cut would save the cut text as "the full output"
        return response
    data = text.encode("utf-8", "replace")
    path, unsaved = _save(offload_dir, response.name, data)
    head_n, tail_n = _split_budget(budget_chars)
    head, tail = text[:head_n], text[len(text) - tail_n:] if tail_n else ""
    omitted = len(text) - head_n - tail_n
    cut = head
    if tail:
        cut += f"\n[… {omitted:,} characters omitted …]\n" + tail
    if path is not None:
        cut += _notice(head_n + tail_n, len(text), path, len(data))
    else:
        cut += _unsaved_notice(head_n + tail_n, len(text), unsaved)
    others = [copy.deepcopy(b) for b in response.content if b.get("type") != "text"]
    metadata = dict(response.metadata)
    metadata.update(truncated=True, offload_path=path, original_chars=len(text))
    if path is None:
        metadata["offload_error"] = unsaved
    return ToolResponse([text_block(cut)] + others, state=response.state, metadata=metadata,
                        id=response.id, name=response.name)


class OutputSpool:
    """Streaming truncation: ``feed(text)`` returns the part to show now (the head, up to the
    head budget); past the budget everything goes to the offload file and a tail of bounded
    size is kept; ``finish()`` returns the closing text (tail + notice) or "" if it all fit."""

    def __init__(self, *, budget_chars: int = DEFAULT_BUDGET_CHARS,
                 offload_dir: str | os.PathLike[str] | None = None, name: str = "tool"):
        self.head_budget, self.tail_budget = _split_budget(budget_chars)
        self.offload_dir = offload_dir
        self.name = name
        self.total_chars = 0
        self.total_bytes = 0
        self.path: str | None = None  # the offload file, while it holds everything so far
        #: why the offload file could not be written ("" when it could)
        self.offload_error = ""
        self._cutting = False  # past the head budget
        self._shown: list[str] = []  # the head, at most head_budget characters
        self._shown_n = 0
        self._tail = ""
        self._file: Any = None

    @property
    def truncated(self) -> bool:
        return self._cutting

    def feed(self, text: str) -> str:
        if not text:
            return ""
        self.total_chars += len(text)
        data = text.encode("utf-8", "replace")
        self.total_bytes += len(data)
        if not self._cutting:
            room = self.head_budget - self._shown_n
            if len(text) <= room:
                self._shown.append(text)
                self._shown_n += len(text)
                return text
            self._cutting = True
            self._open(b"".join(part.encode("utf-8", "replace") for part in self._shown) + data)
            self._shown = []  # no longer needed: the file has it (or it could not be kept)
            self._shown_n += max(room, 0)
            shown, rest = text[:max(room, 0)], text[max(room, 0):]
            self._tail = rest[-self.tail_budget:] if self.tail_budget else ""
            return shown
        if self._file is not None:
            try:
                self._file.write(data)
            except OSError as exc:
                self._fail(exc)
        if self.tail_budget:
            self._tail = (self._tail + text[-self.tail_budget:])[-self.tail_budget:]
        return ""

    def _open(self, data: bytes) -> None:
        try:
            self.path = offload_file_path(self.offload_dir, self.name)
            self._file = open(self.path, "wb")
            self._file.write(data)
        except OSError as exc:
            self._fail(exc)

    def _fail(self, exc: OSError) -> None:
        """The disk is full or read-only: go on without the file (head and tail still reach
        the model) and remove what was written of it."""
        self.offload_error = _reason(exc)
        if self._file is not None:
            try:
                self._file.close()
            except OSError:
                pass
            self._file = None
        _discard(self.path)
        self.path = None

    def finish(self) -> str:
        """Close the file; the text to append to what was shown ("" when nothing was cut)."""
        if not self._cutting:
            return ""
        if self._file is not None:
            try:
                self._file.close()  # flushes: a full disk may show only now
            except OSError as exc:
                self._file = None
                self._fail(exc)
            self._file = None
        omitted = self.total_chars - self._shown_n - len(self._tail)
        out = ""
        if self._tail:
            out = f"\n[… {omitted:,} characters omitted …]\n" + self._tail
        shown = self._shown_n + len(self._tail)
        if self.path is None:
            return out + _unsaved_notice(shown, self.total_chars, self.offload_error)
        return out + _notice(shown, self.total_chars, self.path, self.total_bytes)

    def close(self) -> None:
        if self._file is not None:
            try:
                self._file.close()
            except OSError as exc:
                self._file = None
                self._fail(exc)
            self._file = None
