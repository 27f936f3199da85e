"""Opening exactly the file a permission check resolved, on this machine.

A file tool's permission check resolves its path (symbolic links followed, as the kernel
would) and the tool then acts on that physical path. Between the two, a component can be
swapped for a symbolic link (``notes.txt`` → ``~/.bashrc``, or a parent folder → ``/etc``),
and an open *by name* would follow it to a file nobody checked. So the open is made
verifiable:

- the last component is opened with ``O_NOFOLLOW`` (a link there now: refused);
- the opened descriptor is then asked where it is — ``/proc/self/fd/N`` on Linux,
  ``F_GETPATH`` on macOS — and that must be the checked path (a parent swapped for a link:
  refused); where the system cannot say, the descriptor's device and inode must be those of
  the path looked up without following links, and the path must have no link in it;
- a write is atomic inside the *verified folder*: the temporary file is created and renamed
  through the folder's descriptor (``openat``/``renameat``), so once the folder is checked the
  new content lands in that folder, at that name, whole or not at all. A link that appears at
  the name is replaced by the new file, never written through.

A refusal raises :class:`~jupyter_agenttools.errors.PathChangedError` (the tool reports it;
nothing was read or written).
"""

from __future__ import annotations

import os
import secrets
import stat
from typing import Callable, Iterable

from ..errors import PathChangedError

__all__ = ["open_checked", "read_checked", "write_checked", "opened_path"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
#: the system can create and rename inside a folder held by its descriptor
_AT_CALLS = os.open in os.supports_dir_fd and os.rename in os.supports_dir_fd  # (replace too)


def _changed(path: str, what: str) -> PathChangedError:
    return PathChangedError(
        f"{path} {what} since its permission was checked (a symbolic link was swapped in): "
        f"nothing was done. Call the tool again to have the new target checked.")


def opened_path(fd: int) -> str | None:
    """Where the open descriptor ``fd`` is, as the kernel names it, or None when this system
    cannot say."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        pass
    try:
        import fcntl

        get_path = getattr(fcntl, "F_GETPATH", None)  # macOS
        if get_path is not None:
            raw = fcntl.fcntl(fd, get_path, b"\0" * 1024)
            return os.fsdecode(raw.split(b"\0", 1)[0])
    except (ImportError, OSError):
        pass
    return None


def _verify(fd: int, path: str) -> None:
    """Refuse unless the open ``fd`` is the file at ``path`` (absolute, links resolved)."""
    where = opened_path(fd)
    if where is not None:
        if where != path:
            raise _changed(path, f"now opens {where}")
        return
    # no name for the descriptor: its identity must be the path's, and the path link-free
    opened = os.fstat(fd)
    try:
        named = os.stat(path, follow_symlinks=False)
    except OSError:
        raise _changed(path, "is gone") from None
    if (named.st_dev, named.st_ino) != (opened.st_dev, opened.st_ino) \
            or os.path.realpath(path) != path:
        raise _changed(path, "is no longer the file that was opened")


def open_checked(path: str) -> int:
    """A read-only descriptor of the file at the physical ``path`` (see the module
    docstring); the caller closes it."""
    path = os.path.normpath(path)
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
    except OSError:
        if os.path.islink(path):  # ELOOP (Linux) / EMLINK (BSD): the name is a link now
            raise _changed(path, "is now a symbolic link") from None
        raise
    try:
        _verify(fd, path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_checked(path: str) -> bytes:
    with os.fdopen(open_checked(path), "rb") as f:
        return f.read()


def write_checked(path: str, parts: Iterable[bytes],
                  before_replace: Callable[[], None] | None = None) -> None:
    """Replace the file at the physical ``path`` atomically with ``parts`` (creating it and
    its missing parent folders), inside its verified folder. ``before_replace`` runs when the
    new content is on disk, just before it replaces the old (it may raise to give up: the old
    file stays)."""
    path = os.path.normpath(path)
    parent, name = os.path.split(path)
    if not name:
        raise IsADirectoryError(21, "Is a directory", path)
    os.makedirs(parent, exist_ok=True)
    try:
        folder = os.open(parent, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC)
    except OSError:
        if os.path.islink(parent):  # ENOTDIR / ELOOP: the folder's name is a link now
            raise _changed(parent, "is now a symbolic link") from None
        raise
    try:
        _verify(folder, parent)
        if not _AT_CALLS:  # pragma: no cover - every POSIX system CPython runs on has them
            raise PathChangedError(f"{path}: this system cannot write inside a checked folder")
        try:
            old = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            old = None
        if old is not None and stat.S_ISDIR(old.st_mode):
            raise IsADirectoryError(21, "Is a directory", path)
        if old is not None and stat.S_ISLNK(old.st_mode):
            raise _changed(path, "is now a symbolic link")
        temporary = f".agt-{secrets.token_hex(8)}"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC,
                     0o666, dir_fd=folder)  # (the umask applies, as to any new file)
        try:
            with os.fdopen(fd, "wb") as f:
                for part in parts:
                    f.write(part)
                if old is not None:  # an overwritten file keeps its permissions
                    os.fchmod(f.fileno(), stat.S_IMODE(old.st_mode))
                f.flush()
                os.fsync(f.fileno())
            if before_replace is not None:
                before_replace()
            os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            try:
                os.unlink(temporary, dir_fd=folder)
            except OSError:
                pass
            raise
    finally:
        os.close(folder)
