"""Write: create or overwrite a file (an existing file must have been Read first)."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any, Mapping

from ..errors import ToolExecutionError
from ..permission.effects import PathEffect
from ..tools.base import Tool, ToolChunk
from ._files import ToolBackend
from .read import FileToolMixin, check_input, hold_to_check, path_word

if TYPE_CHECKING:
    from ..backends.base import BackendBase, FileStat
    from ..permission.types import PermissionContext

__all__ = ["Write", "require_fresh_read", "short_diff"]

MAX_DIFF_CHARS = 20_000
MAX_DIFF_INPUT = 1_000_000  # characters; larger files get no diff (difflib is superlinear)


def require_fresh_read(backend: "BackendBase", path: str, st: "FileStat", verb: str) -> None:
    """The read-before-write rule: ``path`` exists, so the Read tool on this backend must have
    read it, and it must not have changed since (mtime and size as the backend sees them)."""
    seen = backend.file_read_state.get(path)
    if seen is None:
        raise ToolExecutionError(
            f"{path} exists but has not been read yet. Read it with the Read tool first, then "
            f"{verb} it.")
    if seen != (st.mtime_ns, st.size):
        raise ToolExecutionError(
            f"{path} has changed on disk since you last read it (someone or something else "
            f"modified it). Read it again before you {verb} it, so their change is not lost.")


def short_diff(old: str, new: str, path: str) -> str | None:
    if len(old) > MAX_DIFF_INPUT or len(new) > MAX_DIFF_INPUT:
        return None
    diff = "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                        fromfile=path, tofile=path))
    return diff if len(diff) <= MAX_DIFF_CHARS else diff[:MAX_DIFF_CHARS] + "\n… [diff cut]\n"


async def write_and_remember(backend: "BackendBase", path: str, data: bytes) -> None:
    """Write, then refresh the read state so a following Edit/Write needs no new Read."""
    try:
        await backend.write_file_at(path, data)  # the checked file, not what a link names now
    except (IsADirectoryError, NotADirectoryError, PermissionError, FileExistsError) as exc:
        raise ToolExecutionError(f"Cannot write {path}: {exc.strerror or exc}") from None
    st = await backend.stat(path)
    if st is None:
        raise ToolExecutionError(f"Writing {path} reported success but the file is not there.")
    if st.size != len(data):
        raise ToolExecutionError(f"Writing {path}: expected {len(data):,} bytes on disk, found "
                                 f"{st.size:,}.")
    backend.file_read_state[path] = (st.mtime_ns, st.size)


class Write(FileToolMixin, Tool):
    name = "Write"
    description = (
        "Write a file with the given content, creating it and its parent folders, or replacing "
        "it whole. An existing file must have been read with Read first (and not changed "
        "since). Prefer Edit to change part of a file.")
    input_schema = {
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "minLength": 1,
                          "description": "The file to write (absolute, or relative to the "
                                         "working directory)."},
            "content": {"type": "string", "description": "The complete new content."},
        },
        "required": ["file_path", "content"],
        "additionalProperties": False,
    }
    read_only = False
    concurrency_safe = False
    rule_argument = "file_path"
    backend = ToolBackend()  # None: a LocalBackend made on first use

    def __init__(self, backend: "BackendBase | None" = None):
        self.backend = backend

    def path_effects(self, tool_input: Mapping[str, Any],
                     context: "PermissionContext") -> list["PathEffect"]:
        word = path_word(self.name, tool_input, "file_path")
        check_input(self, tool_input)
        return [PathEffect("write", word)]

    async def call(self, file_path: str, content: str) -> ToolChunk:
        b = self.backend
        path = await b.resolve(file_path)  # the path the permission check resolved
        hold_to_check(self.name, "write", file_path, path)
        st = await b.stat(path)
        old: str | None = None
        if st is not None:
            if st.is_dir:
                raise ToolExecutionError(f"{path} is a directory; give a file path.")
            require_fresh_read(b, path, st, "overwrite")
            old = (await b.read_file_at(path)).decode("utf-8", "replace")
        data = content.encode("utf-8")
        await write_and_remember(b, path, data)
        lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
        verb = "Created" if old is None else "Overwrote"
        meta: dict[str, Any] = {"file_path": path, "created": old is None, "bytes": len(data)}
        meta["diff"] = short_diff(old or "", content, path)
        return ToolChunk.text(f"{verb} {path} ({lines} lines, {len(data):,} bytes).",
                              metadata=meta)
