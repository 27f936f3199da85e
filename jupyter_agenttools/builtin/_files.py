"""Shared helpers of the file tools: the default backend, glob patterns, .gitignore filtering."""

from __future__ import annotations

import os
import posixpath
import re
import threading
from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:
    from ..backends.base import BackendBase

GLOB_CHARS = re.compile(r"[*?\[{]")


def default_backend(backend: "BackendBase | None") -> "BackendBase":
    if backend is not None:
        return backend
    # lazy: backends.local loads asyncio and the process machinery, which a tool built only to
    # decide permissions (``agenttools hook``, ``check``) never needs
    from ..backends.local import LocalBackend

    return LocalBackend()


class _PendingLocalBackend:
    """A LocalBackend not made yet: the directory the tool was created in (where
    ``LocalBackend()`` would have started), made once on first use even from several threads."""

    def __init__(self) -> None:
        self.cwd = os.getcwd()
        self._lock = threading.Lock()
        self._backend: "BackendBase | None" = None

    def get(self) -> "BackendBase":
        with self._lock:
            if self._backend is None:
                from ..backends.local import LocalBackend  # lazy: see default_backend

                self._backend = LocalBackend(self.cwd)
            return self._backend


class ToolBackend:
    """A tool's ``backend`` attribute. Set to None, the tool runs on a LocalBackend in the
    directory it was created in, as ``default_backend(None)`` gives, but made on first use: a
    tool built only for its permission hooks never loads asyncio and the process machinery."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._slot = f"_{name}"

    def __get__(self, tool: Any, owner: type | None = None) -> Any:
        if tool is None:
            return self
        value = tool.__dict__[self._slot]
        if isinstance(value, _PendingLocalBackend):
            value = tool.__dict__[self._slot] = value.get()
        return value

    def __set__(self, tool: Any, backend: "BackendBase | None") -> None:
        tool.__dict__[self._slot] = _PendingLocalBackend() if backend is None else backend


def _segment_regex(seg: str) -> str:
    """One path segment of a glob: ``*``, ``?``, ``[…]`` (``[!…]`` negates), ``{a,b}``."""
    out, i, n = [], 0, len(seg)
    while i < n:
        c = seg[i]
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = seg.find("]", i + 2 if i + 1 < n and seg[i + 1] in "!^" else i + 1)
            if j < 0:
                out.append(re.escape(c))
            else:
                body = seg[i + 1:j]
                neg = body[:1] in ("!", "^")
                body = body[1:] if neg else body
                body = body.replace("\\", "\\\\")
                out.append(f"[{'^' if neg else ''}{body}]")
                i = j
        elif c == "{":
            j = seg.find("}", i)
            if j < 0:
                out.append(re.escape(c))
            else:
                alts = seg[i + 1:j].split(",")
                out.append("(?:" + "|".join(_segment_regex(a) for a in alts) + ")")
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A regex for a relative glob: ``*``/``?`` stay in a segment, ``**`` spans segments."""
    segs = [s for s in pattern.split("/") if s not in ("", ".")]
    parts = []
    for i, seg in enumerate(segs):
        last = i == len(segs) - 1
        if seg == "**":
            parts.append(".*" if last else "(?:.*/)?")
        else:
            parts.append(_segment_regex(seg) + ("" if last else "/"))
    return re.compile("".join(parts) + r"\Z", re.DOTALL)


def split_glob(pattern: str, base: str) -> tuple[str, str]:
    """(directory to search, remaining relative glob): literal leading segments of ``pattern``
    (``..`` included) move into the directory; an absolute pattern ignores ``base``."""
    if pattern.startswith("/"):
        base = "/"
    segs = [s for s in pattern.split("/") if s not in ("", ".")]
    i = 0
    while i < len(segs) - 1 and not GLOB_CHARS.search(segs[i]):
        i += 1
    rest = segs[i:]
    if ".." in rest:
        raise ValueError(f"'..' after a wildcard is not supported in {pattern!r}; put the "
                         f"directory in 'path' instead")
    directory = posixpath.normpath(posixpath.join(base, *segs[:i])) if i else base
    return directory, "/".join(rest)


class IgnoreRules:
    """The .gitignore files that apply to a tree: each file's rules are relative to its folder,
    and the deepest file with an opinion about a path decides (as git does)."""

    def __init__(self) -> None:
        self._specs: list[tuple[str, Any]] = []  # (absolute folder, GitIgnoreSpec)

    def add(self, folder: str, text: str) -> None:
        import pathspec

        spec = pathspec.GitIgnoreSpec.from_lines(text.splitlines())
        self._specs.append((folder.rstrip("/") or "/", spec))
        self._specs.sort(key=lambda fs: fs[0].count("/"), reverse=True)

    def ignored(self, path: str) -> bool:
        for folder, spec in self._specs:
            prefix = folder if folder.endswith("/") else folder + "/"
            if not path.startswith(prefix):
                continue
            verdict = spec.check_file(path[len(prefix):]).include
            if verdict is not None:
                return bool(verdict)
        return False


async def list_files(backend: "BackendBase", root: str, *, respect_gitignore: bool = True,
                     max_entries: int = 200_000) -> tuple[list[tuple[str, int]], bool]:
    """``([(absolute path, mtime_ns), …], complete)`` of the files under ``root``, minus VCS
    folders and (by default) what .gitignore files in the tree and in its repository's
    enclosing folders ignore."""
    tree = await backend.walk(root, max_entries=max_entries)
    files = [(posixpath.join(root, rel), int(m)) for rel, m in tree["files"]]
    if respect_gitignore:
        rules = IgnoreRules()
        for rel, text in tree["ignores"].items():
            rules.add(posixpath.normpath(posixpath.join(root, rel)), text)
        for folder, text in await _enclosing_ignores(backend, root):
            rules.add(folder, text)
        files = [(p, m) for p, m in files if not rules.ignored(p)]
    return files, bool(tree["complete"])


async def _enclosing_ignores(backend: "BackendBase", root: str) -> list[tuple[str, str]]:
    """.gitignore texts of the folders above ``root`` up to the repository top (the folder with
    ``.git``); none when ``root`` is not inside a repository."""
    found: list[tuple[str, str]] = []
    folder = root
    while True:
        if await backend.exists(posixpath.join(folder, ".git")):
            return found
        parent = posixpath.dirname(folder)
        if parent == folder:
            return []
        folder = parent
        gi = posixpath.join(folder, ".gitignore")
        st = await backend.stat(gi)
        if st is not None and not st.is_dir:
            try:
                found.append((folder, (await backend.read_file(gi)).decode("utf-8", "replace")))
            except OSError:
                pass


def matches_any(path_rel: str, patterns: Iterable[re.Pattern[str]]) -> bool:
    return any(p.match(path_rel) for p in patterns)
