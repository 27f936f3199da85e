"""A memory ceiling for the code RunCode runs without asking.

Proven read-only code runs without a question; "read-only" must not mean "may take the kernel
down". The analysis asks about the sizes it can compute (``pycode/sizes.py``); what it cannot
(``np.zeros(shape)`` with a shape from a variable, a ``describe()`` of a frame of objects) is
caught here, while the code runs: the kernel's address space may grow by a share of the memory
that is available when the code starts (the system's, or the container's cgroup limit when
that is tighter), and an allocation past that fails with ``MemoryError``
in the code — a result the model reads — instead of the kernel being killed by the system's
out-of-memory killer with the user's variables in it.

How: ``RLIMIT_AS``, the soft limit on the process's address space, is lowered for the run and
put back after it (Linux; elsewhere no ceiling is set and the run says so in its metadata).
It is a process-wide limit: the kernel's other threads are held to it too while the code
runs, which is why the allowance is generous (half of the available memory, at least
256 MiB). A tighter limit the user set is left alone. Code the user approved runs without a
ceiling: it may need the memory (training a model), and the user chose to run it.

Time is guarded by ``execute.py``'s timeout (the kernel's own interrupt).
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any, Iterator

__all__ = ["memory_ceiling", "cgroup_room", "MEMORY_SHARE", "MIN_ALLOWANCE"]

#: the share of the memory available when the code starts that it may add to the kernel
MEMORY_SHARE = 0.5
MIN_ALLOWANCE = 256 * 2 ** 20

try:
    import resource as _resource
except ImportError:  # pragma: no cover - Windows
    _resource: Any = None  # type: ignore[no-redef]


def _available_memory() -> int | None:
    """``MemAvailable`` of ``/proc/meminfo`` in bytes (None when it cannot be read)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


#: limits at or above this mean "no limit" (cgroup v1 writes 2**63 rounded to pages)
_NO_LIMIT = 2 ** 62


def _read_int(path: str) -> int | None:
    try:
        with open(path, encoding="ascii") as f:
            text = f.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None  # "max": no limit


def cgroup_room(root: str = "/sys/fs/cgroup", own: str = "/proc/self/cgroup") -> int | None:
    """Bytes the process's memory cgroup may still grow by (its limit minus its usage, the
    tightest of its own and its parents' limits), or None when no limit applies. In a
    container or a JupyterHub pod, the cgroup limit is what the OOM killer enforces, and
    ``MemAvailable`` still counts the whole host's memory."""
    try:
        with open(own, encoding="ascii") as f:
            lines = [line.strip().split(":", 2) for line in f if line.count(":") >= 2]
    except OSError:
        return None
    candidates: list[tuple[str, str, str]] = []  # (mount, cgroup path, version)
    for _hierarchy, controllers, path in lines:
        if "memory" in controllers.split(","):  # cgroup v1
            candidates.append((os.path.join(root, "memory"), path, "v1"))
        elif controllers == "" and os.path.exists(os.path.join(root, "cgroup.controllers")):
            candidates.append((root, path, "v2"))
    rooms: list[int] = []
    for mount, path, version in candidates:
        limit_name, usage_name = (("memory.max", "memory.current") if version == "v2" else
                                  ("memory.limit_in_bytes", "memory.usage_in_bytes"))
        folder = os.path.normpath(os.path.join(mount, path.lstrip("/")))
        if not os.path.isdir(folder):
            folder = mount  # a cgroup namespace: the mount is the process's own cgroup
        while True:
            limit = _read_int(os.path.join(folder, limit_name))
            usage = _read_int(os.path.join(folder, usage_name))
            if limit is not None and limit < _NO_LIMIT and usage is not None:
                rooms.append(max(0, limit - usage))
            if os.path.normpath(folder) == os.path.normpath(mount):
                break
            folder = os.path.dirname(folder)
    return min(rooms) if rooms else None


def _address_space() -> int | None:
    """The process's address space in bytes (``/proc/self/statm``'s first field)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


@contextlib.contextmanager
def memory_ceiling() -> Iterator[int | None]:
    """While active, the address space may grow by the yielded number of bytes (None: no
    ceiling could be set here)."""
    if _resource is None or not sys.platform.startswith("linux"):
        yield None
        return
    available, used = _available_memory(), _address_space()
    if available is None or used is None:
        yield None
        return
    room = cgroup_room()
    if room is not None:
        available = min(available, room)
    allowance = max(int(available * MEMORY_SHARE), MIN_ALLOWANCE)
    unlimited = _resource.RLIM_INFINITY
    soft, hard = _resource.getrlimit(_resource.RLIMIT_AS)
    ceiling = used + allowance
    if hard != unlimited:
        ceiling = min(ceiling, hard)
    if soft != unlimited and soft <= ceiling:
        yield None  # a limit at least as tight is in place already
        return
    try:
        _resource.setrlimit(_resource.RLIMIT_AS, (ceiling, hard))
    except (ValueError, OSError):
        yield None
        return
    try:
        yield allowance
    finally:
        _resource.setrlimit(_resource.RLIMIT_AS, (soft, hard))
