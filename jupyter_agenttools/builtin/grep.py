"""Grep: search file contents with ripgrep, or a Python fallback where ``rg`` is missing.

ripgrep gets the pattern through ``-e`` and the path after ``--``, so neither can be read as an
option (``path="--pre=sh"`` is a path, not a preprocessor). The fallback walks the tree on the
host side with the same .gitignore handling as Glob and runs a small Python program on the
backend over that file list; its output has ripgrep's format. Regex dialects differ slightly:
ripgrep's Rust syntax vs Python's ``re``.
"""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING, Any, Mapping

from ..errors import ToolExecutionError
from ..permission.effects import PathEffect, current_checked
from ..tools.base import Tool, ToolChunk
from ._files import ToolBackend, glob_regex, list_files
from .read import FileToolMixin, check_input, hold_to_check, path_word

if TYPE_CHECKING:
    from ..backends.base import BackendBase, ExecResult
    from ..permission.effects import CheckedCall
    from ..permission.types import PermissionContext

__all__ = ["Grep"]

DEFAULT_HEAD_LIMIT = 250
MAX_COLUMNS = 500
SEARCH_TIMEOUT = 60.0
VCS_DIRS = (".git", ".hg", ".svn")

_FALLBACK = r'''
import json, re, sys
with open(sys.argv[1], encoding="utf-8") as f:
    a = json.load(f)
try:
    rx = re.compile(a["pattern"], re.IGNORECASE if a["i"] else 0)
except re.error as e:
    sys.stderr.write("regex parse error: %s\n" % e)
    sys.exit(2)
out, failed, found = sys.stdout, False, False
before, after, numbers, mode, cols = a["before"], a["after"], a["n"], a["mode"], a["cols"]
last_printed = None  # (file, line index) of the last line shown, for "--" separators

def show(path, i, sep, text):
    global last_printed
    if len(text) > cols:
        text = text[:cols] + " [... omitted end of long line]"
    if (before or after) and last_printed is not None and last_printed != (path, i - 1):
        out.write("--\n")
    out.write(path + sep + (str(i + 1) + sep if numbers else "") + text + "\n")
    last_printed = (path, i)

for path in a["files"]:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        sys.stderr.write("%s: %s\n" % (path, e.strerror))
        failed = True
        continue
    if b"\x00" in data[:8192]:
        continue
    lines = data.decode("utf-8", "replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [l[:-1] if l.endswith("\r") else l for l in lines]
    hits = [i for i, l in enumerate(lines) if rx.search(l)]
    if not hits:
        continue
    found = True
    if mode == "files_with_matches":
        out.write(path + "\n")
    elif mode == "count":
        out.write("%s:%d\n" % (path, len(hits)))
    else:
        hit_set, shown = set(hits), set()
        for h in hits:
            for i in range(max(0, h - before), min(len(lines), h + after + 1)):
                if i not in shown:
                    shown.add(i)
        for i in sorted(shown):
            show(path, i, ":" if i in hit_set else "-", lines[i])
sys.exit(0 if found else (2 if failed else 1))
'''


class Grep(FileToolMixin, Tool):
    name = "Grep"
    description = (
        "Search file contents for a regular expression (ripgrep syntax). `path` is a file or "
        "folder (default: the working directory); .gitignore'd files and .git folders are "
        "skipped. output_mode: `files_with_matches` (default: the paths), `content` (matching "
        "lines as path:line:text, with -A/-B/-C context), `count` (path:count). `glob` limits "
        "the files (e.g. `*.py`, `*.{ts,tsx}`, `src/**/*.rs`); `-i` ignores case; `head_limit` "
        f"caps the output lines (default {DEFAULT_HEAD_LIMIT}, 0 = no cap).")
    input_schema = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "minLength": 1,
                        "description": "The regular expression to search for."},
            "path": {"type": "string", "description": "File or folder to search."},
            "glob": {"type": "string", "description": "Only files matching this glob."},
            "output_mode": {"type": "string",
                            "enum": ["files_with_matches", "content", "count"],
                            "default": "files_with_matches"},
            "-i": {"type": "boolean", "description": "Ignore case."},
            "-n": {"type": "boolean", "description": "Line numbers in content mode "
                                                     "(default true)."},
            "-A": {"type": "integer", "minimum": 0, "description": "Lines after each match."},
            "-B": {"type": "integer", "minimum": 0, "description": "Lines before each match."},
            "-C": {"type": "integer", "minimum": 0,
                   "description": "Lines before and after each match."},
            "head_limit": {"type": "integer", "minimum": 0,
                           "description": f"At most this many output lines (default "
                                          f"{DEFAULT_HEAD_LIMIT}; 0 = all)."},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }
    read_only = True
    concurrency_safe = True
    rule_argument = "path"
    backend = ToolBackend()  # None: a LocalBackend made on first use

    def __init__(self, backend: "BackendBase | None" = None, *,
                 use_ripgrep: bool | None = None):
        """``use_ripgrep``: None = when ``rg`` is on the backend's PATH; False = always the
        Python fallback; True = ripgrep or an error."""
        self.backend = backend
        self.use_ripgrep = use_ripgrep
        self._rg: str | None | bool = False  # False = not looked up yet

    def path_effects(self, tool_input: Mapping[str, Any],
                     context: "PermissionContext") -> list["PathEffect"]:
        """One search of ``path`` (a file or a folder; default the cwd) and what is below it."""
        pattern = tool_input.get("pattern")
        if not isinstance(pattern, str) or pattern == "":
            raise ValueError(f"{self.name}: 'pattern' must be a non-empty string, got "
                             f"{repr(pattern)[:80]}")
        path = tool_input.get("path")
        word = "." if path is None or path == "" else path_word(self.name, tool_input, "path")
        check_input(self, tool_input)
        return [PathEffect("search", word, filtered=True)]  # (skips excluded names)

    async def _ripgrep(self) -> str | None:
        if self.use_ripgrep is False:
            return None
        if self._rg is False:
            self._rg = await self.backend.which("rg")
        if self._rg is None and self.use_ripgrep:
            raise ToolExecutionError("ripgrep (rg) is not installed on this backend.")
        return self._rg  # type: ignore[return-value]

    async def call(self, pattern: str, path: str | None = None, glob: str | None = None,
                   output_mode: str = "files_with_matches", head_limit: int | None = None,
                   **flags: Any) -> ToolChunk:
        if output_mode not in ("files_with_matches", "content", "count"):
            raise ToolExecutionError(f"output_mode must be files_with_matches, content or "
                                     f"count, got {output_mode!r}")
        unknown = set(flags) - {"-i", "-n", "-A", "-B", "-C"}
        if unknown:
            raise ToolExecutionError(f"unknown Grep options: {', '.join(sorted(unknown))}")
        b = self.backend
        target = await b.resolve(path or ".")  # the path the permission check resolved
        hold_to_check(self.name, "search", path or ".", target)
        checked = current_checked()
        excluded = checked.excluded_names if checked is not None else ()
        st = await b.stat(target)
        if st is None:
            raise ToolExecutionError(f"Path does not exist: {target}")
        ctx = int(flags.get("-C") or 0)
        before = int(flags.get("-B") or ctx) if output_mode == "content" else 0
        after = int(flags.get("-A") or ctx) if output_mode == "content" else 0
        opts = {"i": bool(flags.get("-i")), "n": flags.get("-n", True) is not False,
                "before": before, "after": after, "mode": output_mode}
        rg = await self._ripgrep()
        if rg:
            result = await b.exec_shell(self._rg_argv(rg, pattern, target, glob, opts,
                                                      excluded),
                                        timeout=SEARCH_TIMEOUT)
        else:
            result = await self._fallback(pattern, target, st.is_dir, glob, opts, checked)
        return self._format(result, pattern, target, head_limit)

    @staticmethod
    def _rg_argv(rg: str, pattern: str, target: str, glob: str | None,
                 o: dict[str, Any], excluded: tuple[str, ...] = ()) -> list[str]:
        argv = [rg, "--no-config", "--color=never", "--hidden", "--no-require-git",
                "--max-columns", str(MAX_COLUMNS), "--max-columns-preview", "--sort", "path"]
        for d in VCS_DIRS:
            argv += ["--glob", f"!{d}"]
        if o["i"]:
            argv.append("-i")
        if o["mode"] == "files_with_matches":
            argv.append("--files-with-matches")
        elif o["mode"] == "count":
            argv += ["--count", "--with-filename"]
        else:
            argv += ["--no-heading", "--with-filename"]
            argv.append("--line-number" if o["n"] else "--no-line-number")
            if o["before"]:
                argv += ["-B", str(o["before"])]
            if o["after"]:
                argv += ["-A", str(o["after"])]
        if glob:
            argv += ["--glob", glob]
        # After the caller's glob, because ripgrep lets the later glob win: a secret file
        # (.env, keys, credentials) is never searched as part of a folder; naming it as the
        # path goes through the Read permission check instead.
        from ..permission.sensitive import search_exclude_globs

        for exclude in search_exclude_globs():
            argv += ["--glob", exclude]
        # and the names the deny/ask Read rules keep from every search, read as those rules
        # read them (case ignored; ripgrep's globs are gitignore's, as the rules' are)
        for name in excluded:
            argv += ["--iglob", "!" + name]
        return argv + ["-e", pattern, "--", target]

    async def _fallback(self, pattern: str, target: str, is_dir: bool, glob: str | None,
                        o: dict[str, Any], checked: "CheckedCall | None" = None
                        ) -> "ExecResult":
        b = self.backend
        if is_dir:
            listed, _ = await list_files(b, target)
            files = sorted(p for p, _ in listed)
            if glob:
                rx = glob_regex(glob)
                prefix = target.rstrip("/") + "/"
                files = [p for p in files
                         if rx.match(p[len(prefix):] if "/" in glob else b.path.basename(p))]
            from ..permission.sensitive import secret_reason

            home = await b.expanduser("~")
            files = [p for p in files if secret_reason(p, home) is None]
            if checked is not None and checked.excluded_names:
                files = [p for p in files if not checked.excludes(p)]
        else:
            files = [target]
        request = dict(o, pattern=pattern, files=files, cols=MAX_COLUMNS)
        tmp = b.path.join("/tmp", f"agenttools-grep-{uuid.uuid4().hex}.json")
        await b.write_file(tmp, json.dumps(request).encode())
        try:
            return await b.exec_shell([b.python_executable, "-c", _FALLBACK, tmp],
                                      timeout=SEARCH_TIMEOUT)
        finally:
            await b.delete_path(tmp)

    @staticmethod
    def _format(result: "ExecResult", pattern: str, target: str,
                head_limit: int | None) -> ToolChunk:
        if result.timed_out:
            raise ToolExecutionError(f"The search timed out after {SEARCH_TIMEOUT:g} s; narrow "
                                     f"the path or add a glob.")
        out = result.stdout_text
        err = result.stderr_text.strip()
        if result.exit_code == 1 and not out:
            return ToolChunk.text(f"No matches for {pattern!r} in {target}.",
                                  metadata={"count": 0})
        if result.exit_code not in (0, 1) and not out:
            raise ToolExecutionError(f"Search failed (exit {result.exit_code}): "
                                     f"{err[-2000:] or 'no message'}")
        lines = out.splitlines()
        if result.truncated and lines:
            lines.pop()  # the last line may be cut at the memory cap
        limit = DEFAULT_HEAD_LIMIT if head_limit is None else int(head_limit)
        shown = lines if limit <= 0 else lines[:limit]
        text = "\n".join(shown)
        more = len(lines) > len(shown) or result.truncated
        if more:
            total = f"{len(lines)}+" if result.truncated else str(len(lines))
            text += (f"\n\n[Showing {len(shown)} of {total} result lines; raise head_limit, "
                     f"narrow the path or add a glob to see more.]")
        if result.exit_code not in (0, 1) and err:
            text += f"\n\n[Some files could not be searched: {err[-1000:]}]"
        return ToolChunk.text(text, metadata={"lines": len(lines), "truncated": more})
