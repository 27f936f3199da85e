"""The Bash sandbox: bubblewrap around a command, from the ``sandbox`` settings key.

    {"sandbox": {"enabled": true, "network": false, "writable": [...], "hidden": [...],
                 "env_allow": [...], "required": false}}

When enabled, a command sees (set up by the supervisor, ``_supervise.py``, on the machine that
runs it):

- the whole file system read-only; the working directories (and ``writable``) writable, except
  the protected paths inside them, mounted read-only: the agent's settings (``.agenttools``),
  ``.git/hooks`` and ``.git/config``, start-up and config files that run code later (from the
  ``write`` column of ``permission/sensitive.py``); their parent folders become mount points so
  they cannot be renamed away;
- secret locations masked (an empty read-only folder, or ``/dev/null`` for a file):
  ``~/.ssh``, ``~/.aws``, ``~/.config/gh``, … and ``.env*``, key files and the like found in the
  writable folders (the ``read`` column of the same table), plus ``hidden``;
- a private ``/tmp`` and ``/run`` (other services' sockets live there), its own ``/dev`` and
  ``/proc`` (only its own processes: no other process's environment); the folders under /tmp
  its programs come from (``PATH``, ``PYTHONPATH``, ``VIRTUAL_ENV``, ``CONDA_PREFIX``: a
  virtualenv made in /tmp) are shown read-only;
- no network (a new network namespace with only loopback) unless ``network``; a new PID, IPC
  and user namespace, no capabilities, no further user namespaces, a new session (no terminal
  injection), ``--die-with-parent``;
- an environment reduced to an allow-list (``DEFAULT_ENV_ALLOW`` plus ``env_allow``): API keys
  never reach the command unless listed.

Limits, said plainly: secrets are found by name below the writable folders (a bounded walk,
``WALK_LIMIT`` entries) and at the table's fixed home locations; a secret elsewhere in the home
folder stays readable unless listed in ``hidden``. A protected *file* that does not exist yet
(an ``.envrc``) cannot be mounted, so the sandbox does not stop its creation; the permission
engine still asks for it. A sandboxed command's background processes end with it (its PID
namespace goes away).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Sequence

from ..permission.protected import PROTECTED
from ..permission.sensitive import CREDENTIAL, OK, SECRET, SENSITIVE, TABLE
from .local import LocalBackend
from .sandbox_settings import (
    SANDBOX_KEYS,
    SandboxPolicy,
    SandboxSettingsError,
    merge_sandbox_layers,
    parse_sandbox_settings,
)
from .supervisor import SUPERVISION, supervisor_argv

__all__ = [
    "SANDBOX_KEYS",
    "DEFAULT_ENV_ALLOW",
    "WALK_LIMIT",
    "SandboxPolicy",
    "SandboxSpec",
    "SandboxSettingsError",
    "parse_sandbox_settings",
    "merge_sandbox_layers",
    "build_spec",
    "probe_local",
    "SandboxStatus",
    "SandboxController",
]

WALK_LIMIT = 20000

#: variables a sandboxed command keeps (``NAME*`` is a prefix); everything else, API keys and
#: tokens included, is dropped unless ``env_allow`` lists it. Each has a reason:
DEFAULT_ENV_ALLOW: tuple[str, ...] = (
    "PATH", "HOME", "USER", "LOGNAME", "SHELL",  # who and where: programs need them
    "LANG", "LANGUAGE", "LC_*", "TZ",  # locale and time zone: output format
    "TERM", "COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "CLICOLOR",  # terminal behaviour
    "TMPDIR", "PWD", "SHLVL",  # shell state (TMPDIR is dropped when it is outside the sandbox)
    # the interpreter and environment the notebook uses (KernelBackend puts its bin first)
    "PYTHONPATH", "PYTHONIOENCODING", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE",
    "PYTHONHASHSEED", "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "CONDA_EXE",
    "CONDA_SHLVL", "PYENV_ROOT", "PYENV_VERSION", "MPLBACKEND",
    "JAVA_HOME", "GOPATH", "GOROOT", "CARGO_HOME", "RUSTUP_HOME",  # tool chains
    "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE",  # CA bundles (public data)
)



# --- the concrete request to the supervisor ---------------------------------------------------

@dataclass(frozen=True)
class SandboxSpec:
    """What the supervisor gets: the folders to make writable, the candidates to mask and to
    protect (it keeps those that exist there), the network switch and the environment
    allow-list. Paths may start with ``~`` (the machine that runs the command expands it)."""

    writable: tuple[str, ...]
    network: bool = False
    env_allow: tuple[str, ...] = DEFAULT_ENV_ALLOW
    mask: tuple[str, ...] = ()
    mask_glob: tuple[str, ...] = ()
    mask_name: tuple[str, ...] = ()
    keep_name: tuple[str, ...] = ()
    protect: tuple[str, ...] = ()
    protect_dir: tuple[str, ...] = ()
    protect_glob: tuple[str, ...] = ()
    protect_name: tuple[str, ...] = ()
    bwrap: str = "bwrap"
    walk_limit: int = WALK_LIMIT

    def options(self, extra_env: Iterable[str] = ()) -> list[str]:
        """The supervisor's command-line options for this sandbox; ``extra_env`` names
        variables the caller passed on purpose (kept)."""
        out = ["--bwrap", self.bwrap, "--walk-limit", str(self.walk_limit)]
        if self.network:
            out.append("--network")
        for option, values in (("--write", self.writable), ("--mask", self.mask),
                               ("--mask-glob", self.mask_glob),
                               ("--mask-name", self.mask_name),
                               ("--keep-name", self.keep_name), ("--protect", self.protect),
                               ("--protect-dir", self.protect_dir),
                               ("--protect-glob", self.protect_glob),
                               ("--protect-name", self.protect_name)):
            for v in values:
                out += [option, v]
        for name in dict.fromkeys([*self.env_allow, *extra_env]):
            out += ["--env", name]
        return out


_GLOB = re.compile(r"[*?\[]")


def _split_anchored(pattern: str) -> tuple[str, list[str]]:
    """``~/.ssh/**`` → ("~/.ssh", ["**"]): the literal leading part and the rest."""
    segments = pattern.split("/")
    for i, seg in enumerate(segments):
        if _GLOB.search(seg):
            return "/".join(segments[:i]) or "/", segments[i:]
    return pattern, []


def _anchored_target(pattern: str) -> tuple[str, str] | None:
    """("path"|"glob", value) for an anchored (``~/``, ``/``) table pattern, or None when the
    sandbox has its own copy of the place (``/proc``, ``/dev``)."""
    if pattern.startswith(("/proc/", "/dev/", "/sys/", "/boot/")):
        return None  # the sandbox's own /proc and /dev; /sys and /boot stay read-only
    prefix, rest = _split_anchored(pattern)
    if not rest or rest == ["**"]:
        return ("path", prefix)
    return ("glob", prefix.rstrip("/") + "/" + rest[0])


def _name_target(pattern: str) -> str | None:
    """What the walk looks for, for a table pattern that matches at any depth: a name glob
    (``.env.*``), or a first folder and the literal path below it (``.vscode/tasks.json``,
    ``share/jupyter/kernels``). Where globs follow the first folder, the whole folder
    (``.ssh/id_*`` → ``.ssh``): stricter than the entry, and no second name slips by."""
    name = pattern[3:] if pattern.startswith("**/") else pattern
    if name.startswith("/**/"):
        name = name[4:]
    segments = [s for s in name.split("/") if s]
    if not segments or segments[0].lower() == ".git":
        return None  # .git is handled on its own (commits must keep working)
    literal: list[str] = []
    for segment in segments[1:]:
        if _GLOB.search(segment):
            break
        literal.append(segment)
    return "/".join([segments[0], *literal]).lower()


def _candidates_for(pattern: str, kind: str, add: Any) -> None:
    if pattern.startswith(("~/", "/")) and not pattern.startswith("/**/"):
        target = _anchored_target(pattern)
        if target is not None:
            add(kind if target[0] == "path" else f"{kind}_glob", target[1])
        return
    name = _name_target(pattern)
    if name:
        add(f"{kind}_name", name)


@functools.lru_cache(maxsize=1)
def _table_candidates() -> dict[str, tuple[str, ...]]:
    """The sensitive table (read column: masked; write column: read-only) and the protected
    tier (read-only) as candidates for the supervisor (computed once)."""
    out: dict[str, list[str]] = {k: [] for k in ("mask", "mask_glob", "mask_name",
                                                 "keep_name", "protect", "protect_glob",
                                                 "protect_name")}

    def add(kind: str, value: str) -> None:
        if value not in out[kind]:
            out[kind].append(value)

    # Not all of .git: commits must work. The parts that run code later are protected
    # (hooks/ is created if missing so it can be mounted read-only); .git itself becomes a
    # mount point, so it cannot be renamed away either.
    add("protect_name", ".git/hooks/")
    add("protect_name", ".git/config")
    for entry in TABLE:
        for column, verdicts, kind in (("read", (CREDENTIAL, SECRET), "mask"),
                                       ("write", (SENSITIVE,), "protect")):
            verdict = getattr(entry, column)
            if verdict == OK and "/" not in entry.pattern:
                add("keep_name", entry.pattern.lower())  # .env.example: neither masked nor locked
            elif verdict in verdicts:
                _candidates_for(entry.pattern, kind, add)
    for protected in PROTECTED:
        _candidates_for(protected.pattern, "protect", add)
    return {k: tuple(v) for k, v in out.items()}


def build_spec(policy: SandboxPolicy, working_directories: Sequence[str], *,
               bwrap: str = "bwrap", project_root: str | None = None,
               extra_protect: Iterable[str] = (), walk_limit: int = WALK_LIMIT) -> SandboxSpec:
    """The supervisor's request for ``policy`` with these working directories writable. The
    project's ``.agenttools`` folder is kept read-only even if it does not exist yet (it is
    created empty): otherwise a command could create it and write settings into it.
    ``extra_protect``: more paths kept read-only (the session's user settings folder and
    managed file, wherever ``AGENTTOOLS_USER_DIR`` put them)."""
    table = _table_candidates()
    writable = tuple(dict.fromkeys([*working_directories, *policy.writable]))
    protect = [*table["protect"], *extra_protect]
    for d in working_directories:
        protect.append(os.path.join(d, ".agenttools"))
    protect_dir = (os.path.join(project_root, ".agenttools"),) if project_root else ()
    return SandboxSpec(
        writable=writable, network=policy.network,
        env_allow=tuple(dict.fromkeys([*DEFAULT_ENV_ALLOW, *policy.env_allow])),
        mask=tuple(dict.fromkeys([*table["mask"], *policy.hidden])),
        mask_glob=table["mask_glob"], mask_name=table["mask_name"],
        keep_name=table["keep_name"], protect=tuple(dict.fromkeys(protect)),
        protect_dir=protect_dir,
        protect_glob=table["protect_glob"], protect_name=table["protect_name"],
        bwrap=bwrap, walk_limit=walk_limit)


def with_writable(spec: SandboxSpec, *paths: str) -> SandboxSpec:
    return replace(spec, writable=tuple(dict.fromkeys([*spec.writable, *paths])))


# --- availability ---------------------------------------------------------------------------

@functools.lru_cache(maxsize=8)
def probe_local(bwrap: str = "bwrap") -> tuple[bool, str]:
    """(available, why not) for bubblewrap on this machine: a real sandboxed ``true``, with the
    same flags as every sandboxed command. Cached for the process."""
    path = bwrap if os.path.isabs(bwrap) else shutil.which(bwrap)
    if not path or not (os.path.isfile(path) and os.access(path, os.X_OK)):
        return False, f"bubblewrap is not installed ({bwrap} not found on PATH; Debian/Ubuntu: " \
                      f"apt-get install bubblewrap)"
    if not SUPERVISION:
        return False, "the sandbox needs Linux"
    spec = SandboxSpec(writable=(), bwrap=path, env_allow=("PATH",))
    argv = supervisor_argv(sys.executable, ["true"], options=spec.options())
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=30,
                              cwd="/")
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"bubblewrap could not start: {exc}"
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return False, "bubblewrap cannot create its namespaces here (are unprivileged user " \
                      f"namespaces disabled?): {why[-1] if why else 'exit ' + str(done.returncode)}"
    return True, ""


# --- a session's sandbox, as the Bash tools and the engine see it -------------------------------

@dataclass(frozen=True)
class SandboxStatus:
    """Whether commands run confined on a backend, and why (not)."""

    enabled: bool
    #: True/False once known (probed), None before the first probe of a remote backend
    available: bool | None
    reason: str = ""
    policy: SandboxPolicy = field(default_factory=SandboxPolicy)

    @property
    def confining(self) -> bool:
        """Commands will run inside the sandbox: what the engine may rely on."""
        return self.enabled and self.available is True

    @property
    def refusal(self) -> str | None:
        """Why Bash must refuse (``required`` and not available), else None."""
        if self.enabled and self.policy.required and self.available is False:
            return (f"The sandbox is required (sandbox.required) but cannot be used: "
                    f"{self.reason}. The command was not run.")
        return None


class SandboxController:
    """Ties a session's sandbox policy to its Bash tools and its engine.

    ``policy``: a SandboxPolicy or a callable returning the current one (settings change on
    disk); ``working_directories``: the folders made writable (a sequence or a callable).
    Availability is probed once per backend: a real sandboxed ``true``."""

    def __init__(self, policy: SandboxPolicy | Any = None,
                 working_directories: Sequence[str] | Any = (), *, bwrap: str = "bwrap",
                 project_root: str | None = None, extra_protect: Iterable[str] = ()):
        self.bwrap = bwrap
        self.project_root = project_root
        self.extra_protect = tuple(extra_protect)
        self._policy = SandboxPolicy() if policy is None else policy
        self._working = working_directories
        self._probes: dict[int, tuple[Any, tuple[bool, str]]] = {}

    def policy(self) -> SandboxPolicy:
        policy = self._policy() if callable(self._policy) else self._policy
        if policy.required and not policy.enabled:
            policy = replace(policy, enabled=True)  # required means: on, and never without it
        return policy

    def working_directories(self) -> tuple[str, ...]:
        dirs = self._working() if callable(self._working) else self._working
        return tuple(dirs)

    def _known(self, backend: Any) -> tuple[bool, str] | None:
        hit = self._probes.get(id(backend))
        return hit[1] if hit is not None and hit[0] is backend else None

    def availability(self, backend: Any) -> tuple[bool | None, str]:
        """(available, why not); None when a remote backend has not been probed yet."""
        if not getattr(backend, "supports_sandbox", False):
            return False, f"the {type(backend).__name__} cannot run commands in the sandbox"
        known = self._known(backend)
        if known is not None:
            return known
        if isinstance(backend, LocalBackend):
            result = probe_local(self.bwrap)
            self._probes[id(backend)] = (backend, result)
            return result
        return None, "not probed yet (it is, before the first sandboxed command)"

    async def probe(self, backend: Any) -> tuple[bool, str]:
        available, reason = self.availability(backend)
        if available is not None:
            return available, reason
        spec = SandboxSpec(writable=(), env_allow=("PATH",), bwrap=self.bwrap)
        try:
            result = await backend.exec_shell(["true"], sandbox=spec, timeout=60)
        except Exception as exc:  # noqa: BLE001 - any failure means: not available
            answer = (False, f"the sandbox probe failed: {exc}")
        else:
            if result.exit_code == 0 and result.sandbox == "on":
                answer = (True, "")
            else:
                why = result.sandbox or result.stderr_text.strip()[-300:] or \
                    f"exit {result.exit_code}"
                answer = (False, why.split(": ", 1)[-1] if why.startswith(("refused",
                                                                           "failed")) else why)
        self._probes[id(backend)] = (backend, answer)
        return answer

    def status(self, backend: Any) -> SandboxStatus:
        policy = self.policy()
        if not policy.enabled:
            return SandboxStatus(False, None, "", policy)
        available, reason = self.availability(backend)
        return SandboxStatus(True, available, reason, policy)

    def confines(self, backend: Any) -> bool:
        """The engine's question: will a Bash command on ``backend`` run inside?"""
        return self.status(backend).confining

    def spec(self, backend: Any) -> SandboxSpec:
        dirs = list(self.working_directories())
        if not isinstance(backend, LocalBackend):
            dirs.append(".")  # a remote kernel's own current folder is its working folder
        return build_spec(self.policy(), dirs, bwrap=self.bwrap, project_root=self.project_root,
                          extra_protect=self.extra_protect)

    async def prepare(self, backend: Any) -> tuple[SandboxSpec | None, str | None, str | None]:
        """(the spec to run under or None, a refusal, a note for the output)."""
        policy = self.policy()
        if not policy.enabled:
            return None, None, None
        available, reason = self.availability(backend)
        if available is None:
            available, reason = await self.probe(backend)
        if available:
            return self.spec(backend), None, None
        status = SandboxStatus(True, False, reason, policy)
        if status.refusal:
            return None, status.refusal, None
        return None, None, (f"[The sandbox is on but unavailable ({reason}); the command ran "
                            f"without it.]\n")
