"""Edit: replace an exact string in a file that was Read first."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from ..errors import ToolExecutionError
from ..permission.effects import PathEffect
from ..tools.base import Tool, ToolChunk
from ._files import ToolBackend
from .read import FileToolMixin, check_input, hold_to_check, path_word
from .write import require_fresh_read, short_diff, write_and_remember

if TYPE_CHECKING:
    from ..backends.base import BackendBase
    from ..permission.types import PermissionContext

__all__ = ["Edit"]


class Edit(FileToolMixin, Tool):
    name = "Edit"
    description = (
        "Replace `old_string` with `new_string` in a file. Read the file first. `old_string` "
        "must match the file exactly (indentation included) and be unique in it, unless "
        "`replace_all` is true; include surrounding lines to make it unique. Line endings of "
        "the file are kept (a CRLF file stays CRLF).")
    input_schema = {
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "minLength": 1,
                          "description": "The file to edit."},
            "old_string": {"type": "string", "minLength": 1,
                           "description": "The exact text to replace (not empty)."},
            "new_string": {"type": "string", "description": "The replacement text."},
            "replace_all": {"type": "boolean", "default": False,
                            "description": "Replace every occurrence (default false)."},
        },
        "required": ["file_path", "old_string", "new_string"],
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

    async def call(self, file_path: str, old_string: str, new_string: str,
                   replace_all: bool = False) -> ToolChunk:
        if not old_string:
            raise ToolExecutionError("old_string is empty; give the exact text to replace (to "
                                     "create or rewrite a whole file, use Write).")
        if old_string == new_string:
            raise ToolExecutionError("old_string and new_string are the same: nothing to do.")
        b = self.backend
        path = await b.resolve(file_path)  # the path the permission check resolved
        hold_to_check(self.name, "write", file_path, path)
        st = await b.stat(path)
        if st is None:
            raise ToolExecutionError(f"File not found: {path} (use Write to create a file).")
        if st.is_dir:
            raise ToolExecutionError(f"{path} is a directory, not a file.")
        require_fresh_read(b, path, st, "edit")
        try:
            original = (await b.read_file_at(path)).decode("utf-8")
        except UnicodeDecodeError:
            raise ToolExecutionError(f"{path} is not UTF-8 text; Edit changes text files only.") \
                from None

        # A file whose every line ends in CRLF is edited in LF form and written back as CRLF
        # (the model usually sends "\n"); any other file is edited exactly as it is.
        crlf = "\r\n" in original and original.count("\r\n") == original.count("\n")
        text = original.replace("\r\n", "\n") if crlf else original
        old = old_string.replace("\r\n", "\n") if crlf else old_string
        new = new_string.replace("\r\n", "\n") if crlf else new_string

        found = text.count(old)
        if found == 0:
            raise ToolExecutionError(
                f"old_string was not found in {path}. It must match exactly, whitespace and "
                f"indentation included; Read the file again to copy the current text.")
        if found > 1 and not replace_all:
            raise ToolExecutionError(
                f"old_string occurs {found} times in {path}. Add surrounding lines to make it "
                f"unique, or set replace_all to true to replace every occurrence.")
        updated = text.replace(old, new) if replace_all else text.replace(old, new, 1)
        if crlf:
            updated = updated.replace("\n", "\r\n")
        await write_and_remember(b, path, updated.encode("utf-8"))
        count = found if replace_all else 1
        what = "1 occurrence" if count == 1 else f"all {count} occurrences"
        return ToolChunk.text(f"Replaced {what} in {path}.",
                              metadata={"file_path": path, "occurrences": count,
                                        "diff": short_diff(original, updated, path)})
