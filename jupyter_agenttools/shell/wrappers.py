"""Programs that run another program, and how to see through them.

Two lists, on purpose:

- ``TRANSPARENT``: wrappers that change nothing about *what* runs — ``time``, ``nice``,
  ``nohup``, ``timeout``, ``stdbuf``, ``env`` without options (its ``VAR=value`` words are
  treated like assignment prefixes), ``command`` (not ``-v``/``-V``), ``builtin``, ``exec``.
  They are stripped before the read-only check and before matching any rule, so
  ``timeout 5 git status`` is read-only and ``nice git push`` meets a ``git push:*`` deny rule.
  A transparent wrapper with an unknown option stays opaque (it is itself the program).
- ``INNER``: programs that run a command given in their arguments but change its privileges
  or its arguments (``sudo``, ``doas``, ``xargs``, ``find -exec``, ``watch``, ``sh -c``,
  ``eval``, ``su -c``…). They are *not* stripped for the read-only check or for allow rules
  (``sudo git push`` is not ``git push``), but deny/ask rules and the danger checks look at the
  command inside as well.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .parse import Word

__all__ = ["Unwrapped", "unwrap", "inner_commands", "program_name", "TRANSPARENT",
           "SYSTEM_BIN_DIRS"]

TRANSPARENT = ("time", "nice", "nohup", "timeout", "stdbuf", "env", "command", "builtin",
               "exec")

# A program given by absolute path in these directories is the system program of that name.
SYSTEM_BIN_DIRS = ("/bin/", "/usr/bin/", "/sbin/", "/usr/sbin/")

_TIMEOUT_VALUE = frozenset({"-s", "--signal", "-k", "--kill-after"})
_TIMEOUT_FLAGS = frozenset({"--preserve-status", "--foreground", "-v", "--verbose"})
_STDBUF_VALUE = frozenset({"-i", "-o", "-e", "--input", "--output", "--error"})


@dataclass(slots=True)
class Unwrapped:
    argv: list[Word]
    wrappers: list[str] = field(default_factory=list)
    assignments: list[tuple[str, Word]] = field(default_factory=list)


def program_name(word: Word | None) -> str | None:
    """The bare program name for a system-path program (``/usr/bin/ls`` → ``ls``); other paths
    (``./ls``, ``/tmp/x/ls``) are returned as they are."""
    if word is None or word.value is None or word.glob:
        return None
    v = word.value
    if "/" in v:
        for d in SYSTEM_BIN_DIRS:
            if v.startswith(d) and "/" not in v[len(d):] and v[len(d):]:
                return v[len(d):]
    return v


def _basename(v: str | None) -> str | None:
    if v is None:
        return None
    return v.rsplit("/", 1)[-1] if "/" in v else v


def unwrap(argv: list[Word], *, any_path: bool = False) -> Unwrapped:
    """Strip transparent wrappers. ``any_path``: treat ``/x/y/time`` as ``time`` too (for
    deny/ask matching); otherwise only system-directory paths are recognised."""
    out = Unwrapped(argv=argv)
    for _ in range(16):  # `nice nohup timeout 5 env time ls`: bounded
        a = out.argv
        if not a:
            return out
        name = _basename(a[0].value) if any_path else program_name(a[0])
        if name not in TRANSPARENT:
            return out
        rest = _strip_one(name, a[1:], out)
        if rest is None or not rest:
            return out  # unknown option or nothing to run: the wrapper is the program
        out.wrappers.append(name)
        out.argv = rest
    return out


def _strip_one(name: str, rest: list[Word], out: Unwrapped) -> list[Word] | None:
    i = 0
    n = len(rest)
    vals = [w.value for w in rest]
    if name in ("nohup", "builtin", "exec"):
        if n and vals[0] == "--":
            return rest[1:]
        if n and (vals[0] or "").startswith("-"):
            return None
        return rest
    if name == "time":
        while i < n and vals[i] in ("-p", "--portability"):
            i += 1
        return rest[i:]
    if name == "command":
        while i < n and vals[i] == "-p":
            i += 1
        if i < n and (vals[i] or "").startswith("-") and vals[i] != "--":
            return None  # -v / -V: a lookup, not a wrapper
        if i < n and vals[i] == "--":
            i += 1
        return rest[i:]
    if name == "nice":
        if i < n and vals[i] in ("-n", "--adjustment"):
            i += 2
        elif i < n and vals[i] and (vals[i].startswith("--adjustment=") or
                                    (vals[i][0] == "-" and vals[i][1:].lstrip("-").isdigit())):
            i += 1
        if i < n and vals[i] == "--":
            i += 1
        if i < n and (vals[i] or "").startswith("-"):
            return None
        return rest[i:]
    if name == "timeout":
        while i < n and (vals[i] or "").startswith("-"):
            v = vals[i] or ""
            if v == "--":
                i += 1
                break
            key = v.split("=", 1)[0]
            if key in _TIMEOUT_VALUE:
                i += 1 if ("=" in v or (len(v) > 2 and not v.startswith("--"))) else 2
            elif key in _TIMEOUT_FLAGS:
                i += 1
            else:
                return None
        if i >= n or vals[i] is None:
            return None  # the duration
        return rest[i + 1:]
    if name == "stdbuf":
        while i < n and (vals[i] or "").startswith("-"):
            v = vals[i] or ""
            key = v.split("=", 1)[0]
            if v == "--":
                i += 1
                break
            if key in _STDBUF_VALUE or (not v.startswith("--") and v[:2] in _STDBUF_VALUE):
                i += 1 if ("=" in v or (len(v) > 2 and not v.startswith("--"))) else 2
            else:
                return None
        return rest[i:]
    if name == "env":
        if i < n and vals[i] == "--":
            i += 1
        while i < n:
            v = vals[i]
            if v is None:
                return None
            if v.startswith("-"):
                return None  # env with options: opaque (documented)
            key, eq, _ = v.partition("=")
            if eq and key and (key.replace("_", "a").isalnum()) and not key[0].isdigit():
                out.assignments.append((key, Word(rest[i].text, v[len(key) + 1:])))
                i += 1
                continue
            break
        return rest[i:]
    return None


# --- commands inside other commands ----------------------------------------------------------

_SUDO_VALUE = frozenset({"-u", "--user", "-g", "--group", "-C", "--close-from", "-D",
                         "--chdir", "-h", "--host", "-p", "--prompt", "-r", "--role", "-t",
                         "--type", "-T", "--command-timeout", "-U", "--other-user"})
_XARGS_VALUE = frozenset({"-n", "-L", "-P", "-d", "-I", "-s", "-E", "-a", "--max-args",
                          "--max-lines", "--max-procs", "--delimiter", "--replace",
                          "--max-chars", "--eof", "--arg-file"})
_SHELL_NAMES = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"})


def _after_options(rest: list[Word], value_opts: frozenset[str]) -> list[Word]:
    i = 0
    n = len(rest)
    while i < n:
        v = rest[i].value
        if v is None or not v.startswith("-"):
            break
        i += 1
        if v == "--":
            break
        if v in value_opts:
            i += 1
        elif len(v) > 2 and not v.startswith("--") and v[:2] in value_opts:
            pass
    return rest[i:]


_INNER_NAMES = frozenset({
    "sudo", "doas", "run0", "pkexec", "xargs", "parallel", "setsid", "ionice", "chrt",
    "taskset", "flock", "unbuffer", "caffeinate", "strace", "ltrace", "nsenter", "unshare",
    "chroot", "firejail", "proot", "fakeroot", "torsocks", "proxychains", "proxychains4",
    "catchsegv", "valgrind", "gdb", "time", "nice", "nohup", "timeout", "stdbuf", "env",
    "command", "builtin", "exec", "watch", "entr", "systemd-run", "script", "su", "runuser",
    "dbus-run-session", "xvfb-run", "uv", "poetry", "pipenv", "npx", "pnpx", "bunx", "conda",
    "mamba", "pixi", "eval", "find"}) | _SHELL_NAMES


def inner_commands(argv: list[Word]) -> tuple[list[list[Word]], list[str]]:
    """Commands run by this one: (argv lists, shell source strings). Used by deny/ask
    matching and the danger checks, never to prove anything safe."""
    if not argv:
        return [], []
    name = _basename(argv[0].value)
    if name not in _INNER_NAMES:
        return [], []
    rest = argv[1:]
    vals = [w.value for w in rest]
    if name in ("sudo", "doas", "run0", "pkexec"):
        if name == "sudo" and {"-s", "-i", "--shell", "--login"} & set(v for v in vals if v):
            tail = _after_options(rest, _SUDO_VALUE)
            return [], [" ".join(w.value or w.text for w in tail)] if tail else []
        tail = _after_options(rest, _SUDO_VALUE)
        return ([tail] if tail else []), []
    if name in ("xargs", "parallel"):
        tail = _after_options(rest, _XARGS_VALUE)
        return ([tail] if tail else []), []
    if name in ("setsid", "ionice", "chrt", "taskset", "flock", "unbuffer", "caffeinate",
                "strace", "ltrace", "nsenter", "unshare", "chroot", "firejail", "proot",
                "fakeroot", "torsocks", "proxychains", "proxychains4", "catchsegv", "valgrind",
                "gdb", "time", "nice", "nohup", "timeout", "stdbuf", "env", "command",
                "builtin", "exec", "watch", "entr", "systemd-run", "script", "su", "runuser",
                "dbus-run-session", "xvfb-run", "uv", "poetry", "pipenv", "npx", "pnpx",
                "bunx", "conda", "mamba", "pixi"):
        if name in ("watch",):
            tail = _after_options(rest, frozenset({"-n", "--interval", "-d", "-g"}))
            return [], [" ".join(w.value or w.text for w in tail)] if tail else []
        if name in ("su", "runuser", "script"):
            for k, v in enumerate(vals):
                if v in ("-c", "--command") and k + 1 < len(vals) and vals[k + 1]:
                    return [], [vals[k + 1]]
            return [], []
        if name in ("uv", "poetry", "pipenv", "conda", "mamba", "pixi"):
            if vals[:1] == ["run"]:
                tail = _after_options(rest[1:], frozenset({"-n", "--name", "-p", "--prefix",
                                                           "--with", "--python", "-e"}))
                return ([tail] if tail else []), []
            return [], []
        if name in ("npx", "pnpx", "bunx"):
            return [], []
        if name == "flock":
            tail = _after_options(rest, frozenset({"-w", "--timeout", "-E", "-c"}))
            if "-c" in vals:
                k = vals.index("-c")
                return [], [vals[k + 1]] if k + 1 < len(vals) and vals[k + 1] else []
            return ([tail[1:]] if len(tail) > 1 else []), []
        if name in ("taskset",):
            tail = _after_options(rest, frozenset({"-c"}))
            return ([tail[1:]] if len(tail) > 1 else []), []
        if name in ("ionice", "chrt", "strace", "ltrace", "valgrind", "systemd-run",
                    "nsenter", "unshare", "firejail"):
            tail = _after_options(rest, frozenset({"-c", "-n", "-p", "-o", "-e", "-u", "-t",
                                                   "--unit", "-s"}))
            return ([tail] if tail else []), []
        if name == "chroot":
            tail = _after_options(rest, frozenset({"--userspec", "--groups"}))
            return ([tail[1:]] if len(tail) > 1 else []), []
        if name in TRANSPARENT:
            un = unwrap(argv, any_path=True)
            return ([un.argv] if un.wrappers else []), []
        tail = _after_options(rest, frozenset())
        return ([tail] if tail else []), []
    if name in _SHELL_NAMES or name == "eval":
        if name == "eval":
            if all(v is not None for v in vals) and vals:
                return [], [" ".join(vals)]  # type: ignore[arg-type]
            return [], []
        for k, v in enumerate(vals):
            if v is None:
                break
            if v.startswith("-") and not v.startswith("--") and "c" in v:
                if k + 1 < len(vals) and vals[k + 1] is not None:
                    return [], [vals[k + 1]]
                break
            if not v.startswith("-"):
                break
        return [], []
    if name == "find":
        out: list[list[Word]] = []
        k = 0
        while k < len(rest):
            if vals[k] in ("-exec", "-execdir", "-ok", "-okdir"):
                j = k + 1
                while j < len(rest) and vals[j] not in (";", "+"):
                    j += 1
                if j > k + 1:
                    out.append(rest[k + 1:j])
                k = j
            k += 1
        return out, []
    return [], []
