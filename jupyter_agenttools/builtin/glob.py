"""Glob: find files by name pattern, newest first, honouring .gitignore."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from ..errors import ToolExecutionError
from ..permission.effects import PathEffect, current_checked
from ..permission.paths import glob_reach_word
from ..tools.base import Tool, ToolChunk
from ._files import GLOB_CHARS, ToolBackend, glob_regex, list_files, split_glob
from .read import FileToolMixin, check_input, hold_to_check, path_word

if TYPE_CHECKING:
    from ..backends.base import BackendBase
    from ..permission.types import PermissionContext

__all__ = ["Glob"]

MAX_RESULTS = 200


class Glob(FileToolMixin, Tool):
    name = "Glob"
    description = (
        "Find files whose path matches a glob pattern such as `**/*.py` or `src/**/test_*.{js,"
        "ts}`: `*` and `?` stay within one folder, `**` spans folders, `[abc]` and `{a,b}` "
        "work. Searches `path` (default: the working directory); files ignored by .gitignore "
        "and .git folders are left out. Results are absolute paths, newest first, at most "
        f"{MAX_RESULTS}.")
    input_schema = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "minLength": 1, "description": "The glob pattern."},
            "path": {"type": "string",
                     "description": "The folder to search (default: the working directory)."},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }
    read_only = True
    concurrency_safe = True
    rule_argument = "path"
    backend = ToolBackend()  # None: a LocalBackend made on first use

    def __init__(self, backend: "BackendBase | None" = None, *, max_results: int = MAX_RESULTS):
        self.backend = backend
        self.max_results = max_results

    def _path_of(self, tool_input: Mapping[str, Any],
                 context: "PermissionContext | None" = None) -> Any:
        # Checks and rules see the folder the pattern can reach (``../*`` or ``/etc/*`` leave
        # ``path``); an unusable pattern falls back to ``path`` (whose check then asks).
        if context is None:
            return tool_input.get("path")
        from ..permission.paths import glob_reach

        try:
            return glob_reach(tool_input.get("pattern"), tool_input.get("path"), context)
        except ValueError:
            return tool_input.get("path")

    def path_effects(self, tool_input: Mapping[str, Any],
                     context: "PermissionContext") -> list["PathEffect"]:
        """One search: of the folder the pattern can reach from ``path`` (default the cwd)."""
        pattern = path_word(self.name, tool_input, "pattern")
        path = tool_input.get("path")
        if path == "":
            path = None
        if path is not None:
            path = path_word(self.name, tool_input, "path")
        check_input(self, tool_input)
        return [PathEffect("search", glob_reach_word(pattern, path), filtered=True)]

    async def call(self, pattern: str, path: str | None = None) -> ToolChunk:
        b = self.backend
        try:
            reach = glob_reach_word(pattern, path)  # the folder the permission check resolved
        except ValueError as exc:
            raise ToolExecutionError(str(exc)) from None
        hold_to_check(self.name, "search", reach, await b.resolve(reach))
        base = await b.resolve(path or ".")
        st = await b.stat(base)
        if st is None or not st.is_dir:
            raise ToolExecutionError(f"Directory not found: {base}")
        try:
            root, rest = split_glob(pattern, base)
        except ValueError as exc:
            raise ToolExecutionError(str(exc)) from None
        if not GLOB_CHARS.search(rest):  # a literal path: it is there or not
            target = b.path.normpath(b.path.join(root, rest))
            found = await b.stat(target)
            files = [target] if found is not None and not found.is_dir else []
            complete = True
        else:
            root_st = await b.stat(root)
            if root_st is None or not root_st.is_dir:
                files, complete = [], True
            else:
                regex = glob_regex(rest)
                listed, complete = await list_files(b, root)
                prefix = root.rstrip("/") + "/"
                hits = [(p, m) for p, m in listed if regex.match(p[len(prefix):])]
                checked = current_checked()
                if checked is not None and checked.excluded_names:
                    # names a deny/ask Read rule keeps from every search (see CheckedCall)
                    hits = [(p, m) for p, m in hits if not checked.excludes(p)]
                hits.sort(key=lambda pm: (-pm[1], pm[0]))
                files = [p for p, _ in hits]
        if not files:
            return ToolChunk.text(f"No files found matching {pattern!r} in {base}.",
                                  metadata={"count": 0})
        shown = files[:self.max_results]
        text = "\n".join(shown)
        if len(files) > len(shown):
            text += (f"\n\n[Showing the {len(shown)} newest of {len(files)} matching files; "
                     f"narrow the pattern or the path to see the others.]")
        if not complete:
            text += "\n\n[The folder is very large: only part of it was searched.]"
        return ToolChunk.text(text, metadata={"count": len(files), "truncated":
                                              len(files) > len(shown)})
