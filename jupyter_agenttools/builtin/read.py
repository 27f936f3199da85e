"""Read: a window of a text file with line numbers, or an image."""

from __future__ import annotations

import base64
import contextlib
import os
from typing import TYPE_CHECKING, Any, Literal, Mapping, overload

from ..errors import ToolExecutionError
from ..permission.effects import (
    PathEffect,
    check_effect,
    check_effects,
    current_checked,
    effect_matches,
    effects_of,
    is_family_rule,
)
from ..permission.types import PermissionBehavior, PermissionDecision
from ..tools.base import Tool, ToolChunk, text_block
from ._files import ToolBackend

if TYPE_CHECKING:
    from ..backends.base import BackendBase
    from ..permission.types import PermissionContext, PermissionRule

__all__ = ["Read", "FileToolMixin", "path_word", "check_input", "hold_to_check"]

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000
MAX_IMAGE_BYTES = 10 * 1024 * 1024
_MAGIC = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"),
          (b"GIF87a", "image/gif"), (b"GIF89a", "image/gif"))


def _sniff_image(head: bytes) -> str | None:
    for magic, mime in _MAGIC:
        if head.startswith(magic):
            return mime
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def looks_binary(head: bytes) -> bool:
    """A NUL byte, or mostly undecodable UTF-8, in the first bytes of a file."""
    if b"\x00" in head:
        return True
    text = head.decode("utf-8", "replace")
    bad = text[:-3].count("\ufffd")  # a multi-byte character may be cut at the end
    return bad > max(8, len(text) // 20)


@overload
def path_word(tool_name: str, tool_input: Mapping[str, Any], key: str,
              required: Literal[True] = True) -> str: ...
@overload
def path_word(tool_name: str, tool_input: Mapping[str, Any], key: str,
              required: bool) -> str | None: ...
def path_word(tool_name: str, tool_input: Mapping[str, Any], key: str,
               required: bool = True) -> str | None:
    """The path argument as written; a missing or non-string one is an error, never a guess,
    and so is one no file can be named by (a NUL character, a lone surrogate the file system
    cannot encode): the call would fail, and what it names cannot be checked."""
    value = tool_input.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or value == "":
        got = "nothing" if value is None else repr(value)[:80]
        raise ValueError(f"{tool_name}: {key!r} must be a non-empty path string, got {got}")
    if "\x00" in value:
        raise ValueError(f"{tool_name}: {key!r} contains a NUL character: {value[:80]!r}")
    if not value.isascii():
        try:
            os.fsencode(value)
        except UnicodeError:
            raise ValueError(f"{tool_name}: {key!r} contains characters no file name can have "
                             f"(a lone surrogate?): {value[:80]!r}") from None
    return value


def hold_to_check(tool_name: str, kind: str, word: str, physical: str) -> None:
    """Refuse to run when ``word`` now resolves to another file than the one its permission
    decision checked (a symbolic link created or changed between the check and the call —
    maybe while a person was answering the question). Nothing to compare with (the tool called
    directly, without a decision): nothing to refuse."""
    checked = current_checked()
    expected = checked.path_for(kind, word) if checked is not None else None
    if expected is not None and expected != physical:
        raise ToolExecutionError(
            f"{tool_name}: {word!r} now resolves to {physical}, not to {expected} as when its "
            f"permission was checked (a symbolic link changed in between); nothing was done. "
            f"Call it again to have the new target checked.")


#: JSON schema types of the file tools' inputs, as Python types (bool is no integer here)
_TYPES: dict[str, tuple[type, ...]] = {"string": (str,), "integer": (int,),
                                       "boolean": (bool,), "number": (int, float)}


def check_input(tool: Any, tool_input: Mapping[str, Any]) -> None:
    """The input fits the tool's schema in what the permission check relies on: no unknown key,
    every required key present, each value of its type (and in its enum). ``engine.decide`` is
    also called without gate 2 (``agenttools hook``, embedders): an input the tool could not run
    with is an error naming the problem — the engine asks, never allows."""
    if not isinstance(tool_input, Mapping):
        raise ValueError(f"{tool.name}: the input must be an object, got "
                         f"{type(tool_input).__name__}")
    schema = tool.input_schema
    properties = schema.get("properties", {})
    for key in schema.get("required", ()):
        if key not in tool_input:
            raise ValueError(f"{tool.name}: {key!r} is required")
    for key, value in tool_input.items():
        if value is None and key not in schema.get("required", ()):
            continue  # an optional argument sent as null: absent, as the tools read it
        spec = properties.get(key)
        if spec is None:
            if schema.get("additionalProperties", True) is False:
                raise ValueError(f"{tool.name}: unknown argument {str(key)[:80]!r}")
            continue
        types = _TYPES.get(spec.get("type", ""), (object,))
        if not isinstance(value, types) or (bool not in types and isinstance(value, bool)):
            raise ValueError(f"{tool.name}: {key!r} must be a {spec.get('type')}, got "
                             f"{type(value).__name__}")
        if "enum" in spec and value not in spec["enum"]:
            raise ValueError(f"{tool.name}: {key!r} must be one of {spec['enum']}, got "
                             f"{repr(value)[:80]}")


class FileToolMixin:
    """Permission hooks shared by the file tools: they report their effects (``path_effects``)
    and the engine applies Read/Edit/Write rules to them; their own check is the per-effect
    policy of ``permission.effects`` (secrets, working directories, sensitive targets)."""

    name: str
    rule_argument: str | None
    #: the effects describe the whole call: Read/Edit/Write allow rules may allow it
    effects_complete = True

    def path_effects(self, tool_input: Mapping[str, Any],
                     context: "PermissionContext") -> list["PathEffect"]:
        raise NotImplementedError

    def _path_of(self, tool_input: Mapping[str, Any],
                 context: "PermissionContext | None" = None) -> Any:
        return tool_input.get(self.rule_argument or "file_path")

    def is_read_only(self, tool_input: Mapping[str, Any] | None = None,
                     context: "PermissionContext | None" = None) -> bool:
        """Write/Edit: never. Read/Glob/Grep: only with a context (the engine passes it), when
        every effect is a non-secret read inside the working directories; without one, False,
        and the engine's step 4 (``check_permissions``) decides."""
        if not self.read_only or context is None:  # type: ignore[attr-defined]
            return False
        try:
            effects = effects_of(self, tool_input or {}, context)  # type: ignore[arg-type]
        except ValueError:
            return False
        return bool(effects) and all(
            check_effect(e, context, self.name).behavior is PermissionBehavior.ALLOW
            for e in effects or ())

    def check_permissions(self, tool_input: Mapping[str, Any],
                          context: "PermissionContext") -> "PermissionDecision":
        try:
            effects = effects_of(self, tool_input, context)  # type: ignore[arg-type]
        except ValueError as exc:
            return PermissionDecision.ask(f"cannot check this call: {exc}", safety=True)
        return check_effects(effects or (), context, self.name)

    def match_rule(self, rule: "PermissionRule", tool_input: Mapping[str, Any],
                   context: "PermissionContext") -> bool:
        if is_family_rule(rule):
            try:
                effects = effects_of(self, tool_input, context)  # type: ignore[arg-type]
            except ValueError:
                return rule.behavior is not PermissionBehavior.ALLOW
            hits = [effect_matches(rule, e, context) for e in effects or ()]
            if rule.behavior is PermissionBehavior.ALLOW:
                return bool(hits) and all(hits)
            return any(hits)
        from ..permission.paths import match_path_rule

        return bool(match_path_rule(rule, self._path_of(tool_input, context), context))

    def suggest_rules(self, tool_input: Mapping[str, Any],
                      context: "PermissionContext") -> list["PermissionRule"]:
        from ..permission.paths import suggest_path_rules

        return list(suggest_path_rules(self.name, self._path_of(tool_input, context), context))


class Read(FileToolMixin, Tool):
    name = "Read"
    description = (
        "Read a text file (or an image: png, jpeg, gif, webp). Text comes back with line "
        "numbers (`cat -n` style), by default the first 2000 lines; use `offset` (1-based "
        "line to start at) and `limit` (number of lines) to read further. Lines longer than "
        "2000 characters are cut. Relative paths start from the working directory. Read a "
        "file before you Write over or Edit it.")
    input_schema = {
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "minLength": 1,
                          "description": "The file to read (absolute, or relative to the "
                                         "working directory)."},
            "offset": {"type": "integer", "minimum": 1,
                       "description": "The line number to start at (1-based, default 1)."},
            "limit": {"type": "integer", "minimum": 1, "maximum": DEFAULT_LIMIT,
                      "description": "How many lines to read (default and max 2000)."},
        },
        "required": ["file_path"],
        "additionalProperties": False,
    }
    read_only = True
    concurrency_safe = True
    rule_argument = "file_path"
    backend = ToolBackend()  # None: a LocalBackend made on first use

    def __init__(self, backend: "BackendBase | None" = None, *,
                 max_line_chars: int = MAX_LINE_CHARS):
        self.backend = backend
        self.max_line_chars = max_line_chars

    def path_effects(self, tool_input: Mapping[str, Any],
                     context: "PermissionContext") -> list["PathEffect"]:
        word = path_word(self.name, tool_input, "file_path")
        check_input(self, tool_input)
        return [PathEffect("read", word)]

    async def call(self, file_path: str, offset: int | None = None,
                   limit: int | None = None) -> ToolChunk:
        b = self.backend
        path = await b.resolve(file_path)  # the path the permission check resolved
        hold_to_check(self.name, "read", file_path, path)
        st = await b.stat(path)
        if st is None:
            raise ToolExecutionError(f"File does not exist: {path}")
        if st.is_dir:
            raise ToolExecutionError(f"{path} is a directory, not a file; list it with Glob "
                                     f"or Bash (ls).")
        start = 1 if offset is None else int(offset)
        count = DEFAULT_LIMIT if limit is None else int(limit)
        if start < 1 or count < 1:
            raise ToolExecutionError(f"offset and limit must be at least 1, got offset={start}, "
                                     f"limit={count}")
        try:
            return await self._read(path, st, start, count)
        except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
            raise ToolExecutionError(f"Cannot read {path}: {exc.strerror or exc}") from None

    async def _read(self, path: str, st: Any, start: int, count: int) -> ToolChunk:
        b = self.backend
        lines: list[tuple[int, str, int]] = []  # (number, kept text, full length in chars)
        total = 0
        pending = bytearray()  # the current line's first bytes
        pending_len = 0  # its full length in bytes
        keep = self.max_line_chars * 4 + 8
        head = b""
        first = True

        def finish_line(raw: bytes, full: int) -> None:
            nonlocal total
            total += 1
            if start <= total < start + count:
                text = raw.decode("utf-8", "replace")
                if text.endswith("\r"):
                    text, full = text[:-1], full - 1
                lines.append((total, text, full))

        async with contextlib.aclosing(b.read_stream_at(path)) as stream:
            async for chunk in stream:
                if first:
                    first = False
                    head = chunk[:8192]
                    mime = _sniff_image(head)  # the bytes decide, not the extension
                    if mime is not None:
                        return await self._image(path, st, mime)
                    if looks_binary(head):
                        raise ToolExecutionError(
                            f"{path} looks like a binary file ({st.size:,} bytes); Read shows "
                            f"text files and png/jpeg/gif/webp images only.")
                pos = 0
                while True:
                    nl = chunk.find(b"\n", pos)
                    piece = chunk[pos:] if nl < 0 else chunk[pos:nl]
                    if len(pending) < keep:
                        pending += piece[:keep - len(pending)]
                    pending_len += len(piece)
                    if nl < 0:
                        break
                    finish_line(bytes(pending), pending_len)
                    pending, pending_len = bytearray(), 0
                    pos = nl + 1
        if pending_len:
            finish_line(bytes(pending), pending_len)
        self.backend.file_read_state[path] = (st.mtime_ns, st.size)

        if total == 0:
            return ToolChunk.text(f"[{path} is empty.]", metadata={"file_path": path,
                                                                   "total_lines": 0})
        if start > total:
            raise ToolExecutionError(f"offset {start} is past the end of {path}, which has "
                                     f"{total} lines.")
        out = []
        for n, text, full in lines:
            if len(text) > self.max_line_chars or full > len(text.encode()):
                text = (text[:self.max_line_chars]
                        + f"… [line cut: {full:,} bytes, showing {self.max_line_chars} chars]")
            out.append(f"{n:6d}\t{text}")
        last = lines[-1][0]
        body = "\n".join(out)
        if last < total:
            body += (f"\n\n[Showing lines {start}-{last} of {total}. {total - last} more lines: "
                     f"call Read with offset={last + 1} to continue.]")
        return ToolChunk.text(body, metadata={"file_path": path, "total_lines": total,
                                              "start_line": start, "end_line": last})

    async def _image(self, path: str, st: Any, mime: str) -> ToolChunk:
        if st.size > MAX_IMAGE_BYTES:
            raise ToolExecutionError(f"{path} is an image of {st.size:,} bytes, more than the "
                                     f"{MAX_IMAGE_BYTES:,} bytes Read returns.")
        data = await self.backend.read_file_at(path)
        self.backend.file_read_state[path] = (st.mtime_ns, st.size)
        return ToolChunk([text_block(f"Image {path} ({mime}, {len(data):,} bytes):"),
                          {"type": "image", "data": base64.b64encode(data).decode("ascii"),
                           "mime_type": mime}],
                         metadata={"file_path": path, "mime_type": mime})
