"""The command supervisor: a small program that runs one command and answers for every process
it starts (run as ``python -I -S -c <this source> [options] -- argv...``).

Why a separate process: a command's descendants may leave its process group (``setsid``,
``setpgid``, a double fork), so killing the group misses them. The supervisor makes itself a
*child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``): every orphan below it is re-parented to
it instead of to init, so the whole tree stays findable through the parent links in ``/proc``.
It also asks for a signal when its parent dies (``PR_SET_PDEATHSIG``), so a kernel killed with
SIGKILL still takes its commands' trees with it. A cgroup would track processes as well, but
needs a delegated cgroup v2 subtree (systemd or root), which a notebook kernel, a container or
a remote kernel usually does not have; the subreaper needs no privilege and runs the same in
every backend (this source is also shipped to remote kernels).

The program is self-contained (standard library, few imports: it starts for every command)
and is also importable for tests. Locally it is imported from this folder (its compiled
bytecode is cached: compiling it costs more than starting Python); remote kernels get its
source. Protocol with the backend:

- options before ``--``; the command after it;
- ``--status-fd N``: one line per event — ``pid P``, ``sandbox on|off|refused ...``,
  ``exit CODE`` (the command's own exit: the code, or minus the signal), ``stopped N S names``
  (after a kill: processes signalled, survivors, their names), ``left N pid:name...``
  (processes still running when released), ``error TEXT``;
- SIGTERM / SIGINT / SIGHUP (and the parent's death): stop the whole tree — SIGTERM to every
  descendant, ``--grace`` seconds, then freeze what is left with SIGSTOP (a process that keeps
  forking cannot outrun a frozen tree) and SIGKILL it — then report and exit;
- SIGUSR1 (release): the backend saw the command's end; report what still runs and exit
  without touching it (a deliberately detached process outlives a command that completed);
- ``--on-exit kill``: when the command itself exits, stop whatever it left (MCP servers).

With ``--bwrap`` the command runs inside bubblewrap (see ``sandbox.py`` for the policy); the
sandbox's layout is computed here, on the machine that runs the command, from its own files.
"""

from __future__ import annotations  # annotations are never evaluated: no typing import here

import _signal
import os
import sys
import time

TYPE_CHECKING = False  # type checkers read the imports below; the program never pays for them
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Iterable, Mapping, Sequence

try:
    import ctypes

    _LIBC = ctypes.CDLL(None, use_errno=True)
except (ImportError, OSError):
    _LIBC = None  # type: ignore[assignment]

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
STOP_SIGNALS = (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP)
WATCHED = (_signal.SIGCHLD, _signal.SIGUSR1) + STOP_SIGNALS
LIST_OPTIONS = ("write", "mask", "mask_glob", "mask_name", "keep_name", "protect",
                "protect_dir", "protect_glob", "protect_name", "env")
#: directories the secret walk does not enter (big, and they hold no project secrets)
WALK_SKIP = frozenset({"node_modules", "__pycache__", ".tox", ".nox", ".mypy_cache",
                       ".pytest_cache", ".ruff_cache", ".cache", ".venv", "venv",
                       "site-packages", ".ipynb_checkpoints", ".hg", ".svn"})


class Options:
    """The options before ``--`` (one list per name of LIST_OPTIONS) and the command."""

    write: list[str]
    mask: list[str]
    mask_glob: list[str]
    mask_name: list[str]
    keep_name: list[str]
    protect: list[str]
    protect_dir: list[str]
    protect_glob: list[str]
    protect_name: list[str]
    env: list[str]

    def __init__(self) -> None:
        self.status_fd = -1
        self.parent = 0
        self.grace = 0.5
        self.on_exit = "wait"
        self.bwrap: str | None = None
        self.network = False
        self.walk_limit = 20000
        for name in LIST_OPTIONS:
            setattr(self, name, [])
        self.argv: list[str] = []


def parse(args: list[str]) -> Options:
    opts = Options()
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            opts.argv = list(args[i + 1:])
            break
        if arg == "--network":
            opts.network = True
            i += 1
            continue
        if not arg.startswith("--") or i + 1 >= len(args):
            raise ValueError(f"bad supervisor option {arg!r}")
        name, value = arg[2:].replace("-", "_"), args[i + 1]
        if name in LIST_OPTIONS:
            getattr(opts, name).append(value)
        elif name in ("status_fd", "parent", "walk_limit"):
            setattr(opts, name, int(value))
        elif name == "grace":
            opts.grace = float(value)
        elif name in ("on_exit", "bwrap"):
            setattr(opts, name, value)
        else:
            raise ValueError(f"unknown supervisor option {arg!r}")
        i += 2
    if not opts.argv:
        raise ValueError("no command given after --")
    return opts


# --- reporting ---------------------------------------------------------------------------

class Reporter:
    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __call__(self, *words: object) -> None:
        if self.fd < 0:
            return
        line = " ".join(str(w) for w in words).replace("\n", " ") + "\n"
        try:
            os.write(self.fd, line.encode("utf-8", "replace"))
        except OSError:  # the backend stopped listening: keep supervising anyway
            self.fd = -1


# --- the process tree --------------------------------------------------------------------

def process_table() -> dict[int, tuple[int, bytes, str]]:
    """{pid: (ppid, state, name)} of every process, read from /proc."""
    table: dict[int, tuple[int, bytes, str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/" + entry + "/stat", "rb") as f:
                data = f.read()
        except OSError:
            continue
        close = data.rfind(b")")
        fields = data[close + 2:].split()
        if len(fields) < 2:
            continue
        name = data[data.find(b"(") + 1:close].decode("utf-8", "replace").replace(" ", "_")
        table[int(entry)] = (int(fields[1]), fields[0], name)
    return table


def descendants(root: int | None = None) -> dict[int, str]:
    """{pid: name} of the live (not zombie) processes below ``root`` (default: this one)."""
    root = os.getpid() if root is None else root
    table = process_table()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _state, _name) in table.items():
        children.setdefault(ppid, []).append(pid)
    found: dict[int, str] = {}
    todo = list(children.get(root, ()))
    while todo:
        pid = todo.pop()
        if pid in found or pid == root:
            continue
        ppid, state, name = table[pid]
        if state not in (b"Z", b"X"):
            found[pid] = name
        todo.extend(children.get(pid, ()))
    return found


def signal_all(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


class Reaper:
    """Reaps this process's children (the command and re-parented orphans)."""

    def __init__(self, main_pid: int, on_main_exit: Callable[[int], None]) -> None:
        self.main_pid = main_pid
        self.on_main_exit = on_main_exit
        self.main_code: int | None = None

    def reap(self) -> bool:
        """Reap what exited; True while this process still has children. No children means
        no descendants at all: an orphan is re-parented to this subreaper before its parent
        can be reaped, so every descendant hangs below some child."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return False
            except InterruptedError:
                continue
            if pid == 0:
                return True
            if pid == self.main_pid and self.main_code is None:
                if os.WIFSIGNALED(status):
                    self.main_code = -os.WTERMSIG(status)
                else:
                    self.main_code = os.WEXITSTATUS(status)
                self.on_main_exit(self.main_code)


def wait_signal(timeout: float) -> int | None:
    try:
        info = _signal.sigtimedwait(WATCHED, max(0.0, timeout))
    except InterruptedError:
        return None
    return None if info is None else info.si_signo


def stop_tree(reaper: Reaper, grace: float, pending: list[int]
              ) -> tuple[dict[int, str], dict[int, str]]:
    """SIGTERM every descendant, wait ``grace`` s, then freeze and SIGKILL the rest.
    Returns (signalled {pid: name}, survivors {pid: name}). ``pending`` collects signals that
    arrive meanwhile (a second stop request changes nothing: this already stops everything)."""
    signalled: dict[int, str] = {}
    live = descendants()
    signalled.update(live)
    signal_all(live, _signal.SIGTERM)
    signal_all(live, _signal.SIGCONT)  # a stopped process handles SIGTERM only once continued
    end = time.monotonic() + grace
    while live and time.monotonic() < end:
        sig = wait_signal(min(0.02, end - time.monotonic()))
        if sig is not None:
            pending.append(sig)
        reaper.reap()
        live = descendants()
        new = {p: n for p, n in live.items() if p not in signalled}
        signalled.update(new)
        signal_all(new, _signal.SIGTERM)
    for _ in range(50):
        reaper.reap()
        live = descendants()
        if not live:
            break
        # Freeze first: a stopped process cannot fork, so the set stops growing.
        frozen: dict[int, str] = {}
        for _ in range(100):
            new = {p: n for p, n in live.items() if p not in frozen}
            if not new:
                break
            signal_all(new, _signal.SIGSTOP)
            frozen.update(new)
            live = descendants()
        signalled.update(frozen)
        signal_all(frozen, _signal.SIGKILL)
        end = time.monotonic() + 0.2
        while time.monotonic() < end:
            if not reaper.reap() or not descendants():
                break
            wait_signal(0.01)
    reaper.reap()
    survivors = descendants()
    if survivors:  # e.g. uninterruptible sleep: give the kernel a last moment
        end = time.monotonic() + 1.0
        while survivors and time.monotonic() < end:
            wait_signal(0.05)
            reaper.reap()
            survivors = descendants()
    return signalled, survivors


def settle(reaper: Reaper, seconds: float) -> dict[int, str]:
    """The descendants still alive after waiting up to ``seconds`` for them to go."""
    end = time.monotonic() + seconds
    while True:
        children = reaper.reap()
        left = descendants() if children else {}
        if not left or time.monotonic() >= end:
            return left
        wait_signal(0.02)


def names_of(procs: dict[int, str], limit: int = 20) -> list[str]:
    items = [f"{pid}:{name}" for pid, name in sorted(procs.items())[:limit]]
    return items + (["..."] if len(procs) > limit else [])


# --- the environment and the sandbox -------------------------------------------------------

def filtered_env(patterns: list[str]) -> dict[str, str]:
    """Only the variables whose names match an allowed pattern (``*`` at the end allowed)."""
    keep: dict[str, str] = {}
    for name, value in os.environ.items():
        for pattern in patterns:
            if pattern == name or (pattern.endswith("*") and name.startswith(pattern[:-1])):
                keep[name] = value
                break
    return keep


def _expand(path: str, home: str) -> str:
    if path == "~" or path.startswith("~/"):
        return home.rstrip("/") + path[1:]
    return path


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def programs_under_tmp(env: Mapping[str, str] | None) -> list[str]:
    """Folders below /tmp that the command's programs come from (a virtualenv made in /tmp, a
    PATH or PYTHONPATH entry there): shown read-only over the sandbox's private /tmp, or the
    command could not even start its interpreter. /tmp itself is never shown."""
    source = os.environ if env is None else env
    candidates = [source.get("VIRTUAL_ENV"), source.get("CONDA_PREFIX")]
    for name in ("PATH", "PYTHONPATH"):
        candidates += (source.get(name) or "").split(os.pathsep)
    found: list[str] = []
    for folder in candidates:
        if not folder or not os.path.isabs(folder):
            continue
        real = os.path.realpath(folder)
        if real == "/tmp" or not _under(real, "/tmp") or not os.path.isdir(real):
            continue
        parent = os.path.dirname(real)
        if os.path.basename(real) == "bin" and os.path.exists(os.path.join(parent, "pyvenv.cfg")):
            real = parent  # the virtualenv's bin needs its lib too
        if real not in found:
            found.append(real)
    return found


class Layout:
    """What bubblewrap must mount, computed from this machine's files."""

    def __init__(self, opts: Options, home: str) -> None:
        # Imported here, not at the top: only sandboxed runs need them, and the supervisor's
        # start-up time is paid by every command.
        import fnmatch
        import posixpath
        import re

        self.fnmatch = fnmatch
        self.re = re
        self.home = home
        self.roots: list[str] = []
        for w in opts.write:
            real = os.path.realpath(_expand(w, home))
            if os.path.isdir(real) and real not in self.roots:
                self.roots.append(real)
        self.roots.sort(key=len)
        self.masks: dict[str, bool] = {}  # path -> is_dir
        self.protects: dict[str, bool] = {}
        self.walk_complete = True
        self.posixpath = posixpath
        for p in opts.mask:
            self._add(self.masks, _expand(p, home), anywhere=True)
        for p in opts.mask_glob:
            for hit in self._glob(_expand(p, home)):
                self._add(self.masks, hit, anywhere=True)
        for p in opts.protect:
            self._add(self.protects, _expand(p, home), anywhere=False)
        for p in opts.protect_dir:
            # a folder to keep read-only even before it exists (the project's .agenttools):
            # created empty so it can be mounted
            path = _expand(p, home)
            if os.path.isdir(os.path.dirname(path)) and not os.path.lexists(path):
                try:
                    os.mkdir(path)
                except OSError:
                    pass
            self._add(self.protects, path, anywhere=False)
        for p in opts.protect_glob:
            for hit in self._glob(_expand(p, home)):
                self._add(self.protects, hit, anywhere=False)
        self._walk(opts)

    def _glob(self, pattern: str) -> list[str]:
        """Matches of a pattern whose last segment (only) may hold wildcards."""
        parent, name = self.posixpath.split(pattern)
        try:
            entries = os.listdir(parent)
        except OSError:
            return []
        return [self.posixpath.join(parent, e) for e in entries
                if self.fnmatch.fnmatch(e.lower(), name.lower())]

    def _add(self, table: dict[str, bool], path: str, anywhere: bool) -> None:
        """Record ``path`` if it exists (a symlink counts as its target). Protected paths
        (``anywhere`` false) only matter inside a writable root: the rest of the file system is
        read-only anyway."""
        real = os.path.realpath(path)
        if not os.path.exists(real):
            return
        if anywhere or any(_under(real, r) for r in self.roots):
            table[real] = os.path.isdir(real)

    def _protect_below(self, path: str, rest: str, is_dir: bool) -> None:
        """Protect ``path`` (``rest`` empty) or ``path/rest``. A ``rest`` ending in "/" is a
        folder: created empty when missing (``.git/hooks``), so that it can be mounted
        read-only before the command runs (a missing *file* cannot be: see sandbox.py)."""
        if not rest:
            self._add(self.protects, path, anywhere=False)
            return
        target = self.posixpath.join(path, rest.rstrip("/"))
        if rest.endswith("/") and is_dir and not os.path.lexists(target):
            try:
                os.mkdir(target)
            except OSError:
                pass
        self._add(self.protects, target, anywhere=False)

    def _walk(self, opts: Options) -> None:
        """Find secret and protected names (``.env``, ``.git/hooks``…) below the writable roots;
        bounded by ``--walk-limit`` entries (``walk_complete`` says whether it got through)."""
        masks = [p.lower() for p in opts.mask_name]
        keeps = [p.lower() for p in opts.keep_name]
        protects = [p.lower() for p in opts.protect_name]
        if not (masks or protects) or not self.roots:
            return
        fn = self.fnmatch.fnmatchcase
        translate = self.fnmatch.translate

        def any_of(patterns: list[str]) -> re.Pattern[str] | None:
            # one regex for all the heads: the walk tests every entry, often thousands
            heads = sorted({p.partition("/")[0] for p in patterns})
            return self.re.compile("|".join(translate(h) for h in heads)) if heads else None

        mask_any, protect_any, keep_any = any_of(masks), any_of(protects), any_of(keeps)

        def matches(name: str, patterns: list[str], combined: re.Pattern[str] | None
                    ) -> list[str]:
            """The rest (after "head/") of every pattern whose head matches ``name``."""
            if combined is None or not combined.match(name):
                return []
            return [p.partition("/")[2] for p in patterns if fn(name, p.partition("/")[0])]

        seen = 0
        todo = list(self.roots)
        visited: set[tuple[int, int]] = set()
        while todo:
            d = todo.pop()
            try:
                st = os.stat(d)
            except OSError:
                continue
            if (st.st_dev, st.st_ino) in visited:
                continue
            visited.add((st.st_dev, st.st_ino))
            try:
                entries = list(os.scandir(d))
            except OSError:
                continue
            for e in entries:
                seen += 1
                if seen > opts.walk_limit:
                    self.walk_complete = False
                    return
                low = e.name.lower()
                try:
                    is_dir = e.is_dir(follow_symlinks=False)
                except OSError:
                    is_dir = False
                if keep_any is None or not keep_any.match(low):
                    for rest in matches(low, masks, mask_any):
                        self._add(self.masks, self.posixpath.join(e.path, rest) if rest
                                  else e.path, anywhere=True)
                    for rest in matches(low, protects, protect_any):
                        self._protect_below(e.path, rest, is_dir)
                if is_dir and e.name not in WALK_SKIP and e.name != ".git":
                    todo.append(e.path)

    def bwrap_args(self, bwrap: str, network: bool, cwd: str | None,
                   shown: Sequence[str] = ()) -> list[str]:
        """``shown``: folders under /tmp mounted read-only over the private /tmp."""
        args = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                "--tmpfs", "/tmp", "--tmpfs", "/run",
                "--unshare-user", "--disable-userns", "--unshare-pid", "--unshare-ipc",
                "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
        for folder in shown:
            args += ["--ro-bind", folder, folder]
        if not network:
            args.append("--unshare-net")
        elif os.path.exists("/etc/resolv.conf"):
            # /run is hidden (sockets of other services live there); DNS may point into it
            target = os.path.realpath("/etc/resolv.conf")
            if _under(target, "/run") and os.path.exists(target):
                args += ["--ro-bind", target, target]
        for root in self.roots:
            args += ["--bind", root, root]
        # A protected path's parents inside a root become mount points of their own, so they
        # cannot be renamed away (mv .git .git2 would carry the read-only hooks off with it).
        parents: list[str] = []
        for path in sorted(self.protects):
            for root in self.roots:
                if _under(path, root) and path != root:
                    parent = self.posixpath.dirname(path)
                    while parent != root and _under(parent, root):
                        if parent not in parents:
                            parents.append(parent)
                        parent = self.posixpath.dirname(parent)
        for parent in sorted(parents, key=len):
            args += ["--bind", parent, parent]
        for path in sorted(self.protects, key=len):
            args += ["--ro-bind", path, path]
        masked_dirs: list[str] = []
        for path, is_dir in sorted(self.masks.items(), key=lambda kv: len(kv[0])):
            if any(_under(path, d) for d in masked_dirs):
                continue  # already hidden by a masked folder above it
            if is_dir:
                masked_dirs.append(path)
                args += ["--tmpfs", path, "--remount-ro", path]
            else:
                args += ["--ro-bind", "/dev/null", path]
        if cwd:
            args += ["--chdir", cwd]
        return args


def which(program: str) -> str | None:
    candidates = [program] if "/" in program else [
        os.path.join(d, program) for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    for path in candidates:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def sandbox_argv(opts: Options, cwd: str | None, report: Reporter,
                 env: Mapping[str, str] | None = None) -> tuple[list[str], Layout] | None:
    """(the command wrapped in bubblewrap, its layout), or None (reported) when it cannot
    be wrapped. ``env``: the command's environment (None: this process's)."""
    bwrap = which(opts.bwrap or "bwrap")
    if bwrap is None:
        report("sandbox", "refused", f"bubblewrap is not installed ({opts.bwrap} not found)")
        return None
    home = os.environ.get("HOME") or os.path.expanduser("~")
    layout = Layout(opts, home)
    report("sandbox", "on", len(layout.roots), len(layout.masks), len(layout.protects),
           int(layout.walk_complete))
    shown = programs_under_tmp(env)
    return layout.bwrap_args(bwrap, opts.network, cwd, shown) + ["--"] + opts.argv, layout


# --- running -----------------------------------------------------------------------------

def prctl(option: int, value: int) -> bool:
    try:
        return _LIBC.prctl(option, value, 0, 0, 0) == 0
    except AttributeError:  # not Linux: no subreaper, the process group is all there is
        return False


def spawn(argv: list[str], env: Mapping[str, str] | None, old_mask: Iterable[int],
          status_fd: int) -> int:
    pid = os.fork()
    if pid:
        return pid
    try:  # the child: undo what the supervisor set up, then become the command
        _signal.pthread_sigmask(_signal.SIG_SETMASK, old_mask)
        for sig in (_signal.SIGPIPE, getattr(_signal, "SIGXFSZ", None)):
            if sig is not None:
                _signal.signal(sig, _signal.SIG_DFL)
        if status_fd >= 0:
            os.close(status_fd)
        prctl(PR_SET_PDEATHSIG, _signal.SIGKILL)
        if env is None:
            os.execvp(argv[0], argv)
        os.execvpe(argv[0], argv, env)
    except OSError as exc:
        code = 126 if isinstance(exc, PermissionError) else 127
        msg = f"cannot run {list(argv)!r}: {exc.strerror}: {exc.filename or argv[0]}\n"
        try:
            os.write(2, msg.encode("utf-8", "replace"))
        except OSError:
            pass
        os._exit(code)
    except BaseException:
        os._exit(127)


def main(args: list[str]) -> int:
    opts = parse(args)
    report = Reporter(opts.status_fd)
    if opts.status_fd >= 0:
        os.set_inheritable(opts.status_fd, False)
    old_mask = _signal.pthread_sigmask(_signal.SIG_BLOCK, WATCHED)
    tracked = prctl(PR_SET_CHILD_SUBREAPER, 1)
    prctl(PR_SET_PDEATHSIG, _signal.SIGTERM)
    if opts.parent and os.getppid() != opts.parent:
        report("error", "the process that started the command is gone")
        return 125
    argv, info_read, info_write = opts.argv, -1, -1
    env: dict[str, str] | None = None
    if opts.env:
        env = filtered_env(opts.env)
    if opts.bwrap:
        wrapped = sandbox_argv(opts, os.getcwd(), report, env)
        if wrapped is None:
            return 126
        argv, layout = wrapped
        # bubblewrap reports on --json-status-fd the exit code of the command it ran: none
        # means it failed before the command ran (no user namespaces, …) — not that the
        # command failed
        info_read, info_write = os.pipe()
        os.set_inheritable(info_write, True)
        argv = argv[:1] + ["--json-status-fd", str(info_write)] + argv[1:]
        tmpdir = (env if env is not None else os.environ).get("TMPDIR")
        if tmpdir and not any(_under(os.path.realpath(tmpdir), r) for r in layout.roots):
            # the sandbox's /tmp is private and an outside TMPDIR is read-only: use /tmp
            env = dict(os.environ if env is None else env)
            env.pop("TMPDIR")

    stopping: list[int] = []

    def main_exited(code: int) -> None:
        if info_read >= 0 and not stopping:
            try:
                os.set_blocking(info_read, False)
                ran = b'"exit-code"' in os.read(info_read, 65536)
            except OSError:
                ran = False
            if not ran:
                report("sandbox", "failed",
                       f"bubblewrap could not set up the sandbox (exit {code})")
        report("exit", code)

    pid = spawn(argv, env, old_mask, opts.status_fd)
    if info_read >= 0:
        os.close(info_write)
    reaper = Reaper(pid, main_exited)
    report("pid", pid, "tracked" if tracked else "group")
    # The command holds the output pipes; the supervisor must not, or a finished command's
    # output would never reach end-of-file.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    pending: list[int] = []
    while True:
        sig = pending.pop(0) if pending else wait_signal(1.0)
        children = reaper.reap()
        if sig is not None and sig in STOP_SIGNALS:
            stopping.append(sig)
            signalled, survivors = stop_tree(reaper, opts.grace, pending)
            report("stopped", len(signalled), len(survivors), *names_of(survivors))
            break
        if sig == _signal.SIGUSR1:
            left = descendants() if children else {}
            if left and opts.bwrap:
                # a sandbox's processes die with its PID namespace, a moment after the command
                left = settle(reaper, 1.0)
            report("left", len(left), *names_of(left))
            break
        if reaper.main_code is not None:
            if opts.on_exit == "kill":
                stopping.append(0)
                signalled, survivors = stop_tree(reaper, opts.grace, pending)
                report("stopped", len(signalled), len(survivors), *names_of(survivors))
                break
            if not children:
                break
        if opts.parent and os.getppid() != opts.parent:
            pending.append(_signal.SIGTERM)  # the parent died before PDEATHSIG was armed
    code = reaper.main_code
    if code is None:
        return 128 + 15
    return code if code >= 0 else 128 - code


def run(args: list[str] | None = None) -> None:
    """The program's entry point; ``args`` default to the command line."""
    args = sys.argv[1:] if args is None else args
    try:
        status = main(args)
    except BaseException as exc:  # noqa: BLE001 - report anything to the backend
        status = 125
        try:
            fd = int(args[args.index("--status-fd") + 1])
            os.write(fd, f"error {type(exc).__name__}: {exc}\n".encode())
        except (ValueError, IndexError, OSError):
            pass
    os._exit(status)


if __name__ == "__main__":
    run()
