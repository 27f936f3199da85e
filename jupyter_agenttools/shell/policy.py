"""What the Bash tool's permission hooks delegate to.

Decisions (SPEC §6), in order, for ``bash_check_permissions``:

0. **Unanalyzable** — a parse error (ERROR/MISSING node), control / zero-width / bidi
   characters, a lone surrogate, non-text or oversize input → *safety* ASK with the reason.
   These are the only structural safety ASKs: we cannot even tell what would run.
1. **Read-only** → ALLOW: the command is provably simple (no reasons), every sub-command is in
   the read-only table with no vetoed flag, no output redirection except to ``/dev/null`` (and
   fd duplication), no assignment that changes what runs, and nothing read is a secret.
2. **Dangerous operations**, judged on argv after the wrappers are seen through (``sudo``,
   ``xargs``, ``find -exec``, ``sh -c``, ``eval`` included) → DENY for the catastrophic and
   irreversible ones (recursive removal of ``/``, ``~``, ``$HOME`` or a top-level system
   directory such as ``/usr``; a fork bomb), safety ASK for the rest: recursive removal of
   ``.``/``..``/``.git``/a working-directory ancestor/``*``/a target decided at run time,
   disk writers (``dd of=/dev/…``, ``mkfs``, ``shred``, ``fdisk``, redirection to a block
   device), ``chmod -R 777``, recursive ``chmod/chown`` of system directories,
   download-and-execute, and sending secrets over the network.
3. **sed** scripts that execute (``e``, ``s///e``) → safety ASK.
4. **Sensitive paths**: writes (redirections, ``tee``, ``cp``/``mv`` targets, ``sed -i``,
   ``touch``, ``rm`` …) to shell profiles, ``.ssh``, ``.env*``, ``.git/``, credentials,
   system files → safety ASK; reading a key or credential file → safety ASK; reading another
   secret, or printing the environment / a token (``env``, ``gh auth token``) → plain ASK.
5. **accept_edits**: ALLOW when every sub-command is one of ``mkdir touch rm rmdir mv cp``
   (after the transparent wrappers), the command is provably simple, and every target
   resolves inside a working directory.
6. Otherwise **PASSTHROUGH**: the engine's allow rules and the mode's fallback decide.

Command/process substitution, parameter expansion (quoted or not), brace expansion, loops,
subshells, functions, ``[[ ]]``, unquoted heredocs and the like are *not* safety ASKs: such a
command is simply not provably read-only, so it falls through to PASSTHROUGH (default mode
asks). Their sub-commands are still extracted: deny/ask rules and the danger checks see ``rm``
inside ``$( )``, in ``sh -c '…'``, ``eval``, ``sudo``, ``xargs``, ``find -exec`` and in shell code
fed on stdin (``bash <<EOF``, ``echo '…' | sh``); an allow rule approves the command only if
every extracted sub-command is matched by it or is itself read-only *and reads no secret*.
Constructs that can run code no sub-command shows (a ``$VAR`` command name, arithmetic on
variables, ``${x@P}``) make the command *opaque*: no allow rule can approve it.
``bash_match_allow_rules`` lets several allow rules approve a chain together.

Secrets: content reads (``cat``, ``grep``, ``sed r``, ``< file``, ``jq --rawfile`` …) are
checked against permission/sensitive.py, with symlinks resolved; globs are expanded like bash
and their literal part checked (``*.pem``); recursive searches are checked for key directories
below them and for secret files right inside them; names/metadata (``ls``, ``stat``, ``find``)
of a secret are a plain ASK. Without a context (the engine's read-only fast path) the cwd is a
guess, so relative names that exist in ``~/.ssh`` and the other key directories count too.

Other repositories: git reads the config of the repository it runs in, and that config runs
programs (``core.fsmonitor`` on ``git status``, pagers, diff drivers). So ``git -C DIR`` is
read-only only for a plain relative sub-directory (no ``/``, ``~`` or ``..`` start), and any
``git`` after a ``cd`` whose target is outside the working directories is not read-only.

Parser gaps: tree-sitter-bash 0.25 leaves the body of a tab-indented ``<<-`` heredoc
childless. When an unquoted heredoc has a ``$(``/``${``/backquote outside every expansion
node, the command is analysed again with each line's leading tabs stripped and ``<<-`` read
as ``<<`` (what bash runs); if the expansion is still not in the tree it is unanalyzable.

``bash_match_rule`` (SPEC §5.3): ``Bash(git commit:*)`` is a word prefix, ``Bash(npm run
test *)`` a wildcard over the joined argv (a trailing `` *`` also matches nothing),
``Bash(make)`` exact. Transparent wrappers (wrappers.TRANSPARENT) are stripped first. Allow
rules: the program must be written exactly as in the rule (``/usr/bin/git`` is not ``git``),
prefix assignments must all be in ``HARMLESS_ENV``, a word decided at run time never matches
a literal. Deny/ask rules: any sub-command matches, including those inside substitutions and
those run by ``sudo``/``xargs``/``find -exec``/``sh -c``/``eval``; program paths are compared
by basename; assignments are ignored; a word decided at run time matches anything.
"""

from __future__ import annotations

import glob as _glob
import os
import re
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import lru_cache

from ..permission.memo import current_memo
from ..permission.types import (
    PermissionBehavior,
    PermissionContext,
    PermissionDecision,
    PermissionMode,
    PermissionRule,
)
from .parse import ShellAnalysis, SimpleCommand, Word, analyze
from .programs import (
    DOWNLOADERS,
    INTERPRETERS,
    NETWORK,
    SHELLS,
    Verdict,
    classify,
    secret_printer,
    sed_analysis,
)
from .wrappers import inner_commands, program_name, unwrap

__all__ = ["bash_is_read_only", "bash_check_permissions", "bash_match_rule",
           "bash_match_allow_rules", "bash_suggest_rules", "HARMLESS_ENV", "explain"]

# Assignments that do not change which code runs or what it reads.
HARMLESS_ENV = frozenset({
    "LANG", "LANGUAGE", "TZ", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TERM",
    "COLUMNS", "LINES", "GREP_COLOR", "GREP_COLORS", "LS_COLORS", "TIME_STYLE", "CI",
    "POSIXLY_CORRECT", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONIOENCODING",
    "RUST_BACKTRACE", "RUST_LOG", "NODE_ENV", "DEBUG", "VERBOSE", "TQDM_DISABLE",
})
_HARMLESS_PREFIX = ("LC_",)

# Recursive removal of these (or `/`, `~`) is refused outright.
_SYSTEM_DIRS = frozenset({
    "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32", "/media",
    "/mnt", "/opt", "/proc", "/root", "/run", "/sbin", "/srv", "/sys", "/usr", "/var", "/snap",
    "/Users", "/System", "/Library", "/Applications", "/private", "/Volumes", "/usr/bin",
    "/usr/lib", "/usr/local", "/usr/share", "/usr/sbin", "/var/lib", "/var/log",
})
_BLOCK_DEVICE = re.compile(r"^/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|mapper/|loop|"
                           r"mem$|kmem$|port$|sr|fd\d)")
_DISK_TOOLS = frozenset({"mkfs", "mke2fs", "mkswap", "fdisk", "sfdisk", "cfdisk", "gdisk",
                         "sgdisk", "parted", "wipefs", "shred", "blkdiscard", "badblocks",
                         "mkdosfs", "mkntfs", "newfs", "diskutil", "format"})
_POWER = frozenset({"shutdown", "reboot", "halt", "poweroff"})
_FILE_CMDS = frozenset({"mkdir", "touch", "rm", "rmdir", "mv", "cp"})
_FORK_BOMB = re.compile(r"(\w+|:)\s*\(\)\s*\{\s*\1\s*\|\s*\1\s*&\s*\}\s*;\s*\1")
_HOME_SECRET_DIRS = (".ssh", ".aws", ".gnupg", ".config/gh", ".kube", ".azure",
                     ".config/gcloud", ".password-store", ".docker")
_SYSTEM_SECRETS = ("/etc/shadow", "/etc/gshadow", "/etc/ssh", "/etc/ssl/private", "/root",
                   "/proc", "/var/lib/docker", "/run/secrets")
_DEV_READ_OK = frozenset({"/dev/null", "/dev/zero", "/dev/urandom", "/dev/random",
                          "/dev/stdin", "/dev/fd/0"})
# Typical secret file names a glob is tested against (checked against the table where the
# glob points, so `src/c*` is fine and `~/.docker/c*` is not).
_GLOB_SAMPLES = (".env", ".env.local", ".envrc", ".netrc", ".npmrc", ".pypirc", ".dockercfg",
                 ".git-credentials", ".vault-token", ".pgpass", "config.json", "credentials",
                 "config", "hosts.yml", "id_rsa", "id_ed25519", "id_ecdsa")
# A glob naming files whose content is read is expanded (like bash) and every match checked.
_MAX_GLOB = 2000
_RISKY_GIT_CONFIG = re.compile(
    r"^(core\.|alias\.|credential|include|filter\.|diff\.|merge\.|url\.|http\.|gpg\.|"
    r"sequence\.|protocol\.|uploadpack\.|receive\.|submodule\.|remote\.[^.]*\.(uploadpack|"
    r"receivepack|proxy)|safe\.|init\.templatedir)", re.I)


# --- per sub-command view ----------------------------------------------------------------------

@dataclass(slots=True)
class _Cmd:
    sc: SimpleCommand
    argv: list[Word]                  # after transparent wrappers, name reduced to bare name
    raw_argv: list[Word]              # after transparent wrappers, name as written
    assignments: list[tuple[str, Word]]
    name: str | None
    wrappers: list[str] = field(default_factory=list)
    virtual: bool = False             # run by sudo/xargs/sh -c…: seen by deny and danger only
    _verdict: Verdict | None = None
    _secrets: list[tuple[str, bool]] | None = None

    @property
    def verdict(self) -> Verdict:
        if self._verdict is None:
            self._verdict = _verdict_of(self)
        return self._verdict


def _make(sc: SimpleCommand, argv: list[Word] | None = None, virtual: bool = False) -> _Cmd:
    un = unwrap(sc.argv if argv is None else argv)
    raw = un.argv
    name = program_name(raw[0]) if raw else None
    if raw and name is not None and name != raw[0].value:
        argv2 = [Word(raw[0].text, name)] + raw[1:]
    else:
        argv2 = raw
    return _Cmd(sc=sc, argv=argv2, raw_argv=raw, assignments=list(sc.assignments) +
                un.assignments, name=name, wrappers=un.wrappers, virtual=virtual)


def _harmless(name: str) -> bool:
    return name in HARMLESS_ENV or name.startswith(_HARMLESS_PREFIX)


_DEV_OK = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2"})


def _output_target_ok(r) -> bool:
    t = r.target
    if t is None:
        return True
    v = t.value
    if r.op in (">&", "<&", "&>") and v is not None and (v.isdigit() or v == "-") \
            and r.op != "&>":
        return True
    return v in _DEV_OK


def _verdict_of(c: _Cmd) -> Verdict:
    sc = c.sc
    for name, _w in c.assignments:
        if not _harmless(name):
            return Verdict(False, f"{name}=… changes what runs or what it reads")
    if sc.kind in ("declaration", "unset"):
        return Verdict(False, f"{sc.argv[0].value if sc.argv else 'declaration'} changes the "
                       "shell environment")
    if sc.kind == "assignment":
        return Verdict(True, "sets harmless shell variables")
    extra_reads: list[Word] = []
    for r in sc.redirects:
        if r.is_output:
            if not _output_target_ok(r):
                return Verdict(False, f"redirects output to {r.target.text if r.target else '?'}"
                               " (writes a file)")
        elif r.op == "<":
            if r.target is None or r.target.value is None or r.target.glob:
                return Verdict(False, "reads input from a file named at run time")
            extra_reads.append(r.target)
    if c.name is None and c.argv:
        return Verdict(False, "the program is decided at run time")
    if c.argv and c.argv[0].value != c.raw_argv[0].value and "/" in (c.raw_argv[0].value or "") \
            and c.name == c.raw_argv[0].value:
        return Verdict(False, "a program outside the system directories")
    if c.argv and "/" in (c.name or ""):
        return Verdict(False, f"{c.name} is not a system program")
    v = classify(c.argv)
    if extra_reads:
        v = Verdict(v.read_only, v.reason, reads=v.reads + extra_reads, recursive=v.recursive,
                    writes=v.writes, touches=v.touches, hidden=v.hidden, follow=v.follow)
    return v


# --- the plan: everything one call needs, computed once --------------------------------------

@dataclass(slots=True)
class _Plan:
    analysis: ShellAnalysis
    context: PermissionContext
    cmds: list[_Cmd]
    cwds: list[str]
    _all: list[_Cmd] | None = None
    _secrets: list[tuple[str, bool]] | None = None
    # where relative *reads* may resolve: the cwds, plus the key directories when the caller
    # gave no context (the engine's read-only fast path), since the cwd is then a guess
    read_cwds: list[str] = field(default_factory=list)

    @property
    def home(self) -> str:
        return self.context.home

    def all_cmds(self) -> list[_Cmd]:
        """The sub-commands plus the commands run inside sudo/xargs/find -exec/sh -c/eval."""
        if self._all is None:
            out: list[_Cmd] = []
            todo: list[tuple[_Cmd, int]] = [(c, 0) for c in self.cmds]
            while todo:
                c, depth = todo.pop(0)
                out.append(c)
                if depth >= 3 or len(out) > 500:
                    continue
                argvs, sources = inner_commands(c.raw_argv)
                sources = sources + _stdin_sources(c, self)
                for argv in argvs:
                    todo.append((_make(c.sc, argv, virtual=True), depth + 1))
                for src in sources:
                    sub = analyze(src)
                    for sc in sub.commands:
                        todo.append((_make(sc, virtual=True), depth + 1))
            self._all = out
        return self._all

    def secrets(self) -> list[tuple[str, bool]]:
        """(reason, is key/credential) for every secret a read-only-table program would output."""
        if self._secrets is None:
            found: list[tuple[str, bool]] = []
            for c in self.all_cmds():
                found.extend(self.secrets_of(c))
            self._secrets = found
        return self._secrets

    def secrets_of(self, c: _Cmd) -> list[tuple[str, bool]]:
        if c._secrets is None:
            found: list[tuple[str, bool]] = []
            v = c.verdict
            for w in v.reads:
                hit = _secret_word(w, self, precise=True)
                if hit:
                    found.append(hit)
            for w in v.recursive:
                hit = _secret_tree(w, self, v.hidden)
                if hit is None and v.follow:
                    hit = _symlinked_secret(w, self)
                if hit:
                    found.append(hit)
            for w in v.touches:  # names and metadata only: a plain ASK
                hit = _secret_word(w, self, precise=True, guess=False)
                if hit:
                    found.append((f"shows {hit[0]}", False))
            c._secrets = found
        return c._secrets


def _stdin_sources(c: _Cmd, plan: "_Plan") -> list[str]:
    """Shell code a shell reads on stdin: a here-document, a here-string, or the static output
    of `echo`/`printf` piped into it (``echo 'rm -rf ~' | sh``)."""
    if c.name not in SHELLS and c.name not in ("source", "."):
        return []
    if any((w.value or "").startswith("-") and "c" in (w.value or "") for w in c.argv[1:2]):
        return []
    out: list[str] = []
    for r in c.sc.redirects:
        if r.op in ("<<", "<<-", "<<<") and r.target is not None and r.target.value:
            out.append(r.target.value)
    pipe = c.sc.pipeline
    if pipe is not None and pipe[1] > 0:
        for other in plan.cmds:
            p = other.sc.pipeline
            if p is not None and p[0] == pipe[0] and p[1] == pipe[1] - 1 and \
                    other.name in ("echo", "printf") and len(other.argv) > 1:
                vals = [w.value for w in other.argv[1:]]
                if all(v is not None for v in vals):
                    out.append(" ".join(v for v in vals if v not in ("-e", "-n", "-E")))
    return out


_DEFAULT_CONTEXTS: dict[tuple[str, str], PermissionContext] = {}
_KEY_DIRS: dict[str, tuple[float, list[str]]] = {}


def _context(context: PermissionContext | None) -> PermissionContext:
    """The caller's context, or one for the process cwd and home (built once per pair)."""
    if isinstance(context, PermissionContext):
        return context
    key = (os.getcwd(), os.environ.get("HOME") or os.path.expanduser("~"))
    ctx = _DEFAULT_CONTEXTS.get(key)
    if ctx is None:
        if len(_DEFAULT_CONTEXTS) > 64:
            _DEFAULT_CONTEXTS.clear()
        ctx = _DEFAULT_CONTEXTS[key] = PermissionContext(cwd=key[0], home=key[1])
    return ctx


def _existing_key_dirs(home: str) -> list[str]:
    """The key directories (~/.ssh …) that exist, re-checked at most every 2 seconds."""
    import time
    now = time.monotonic()
    hit = _KEY_DIRS.get(home)
    if hit is None or now - hit[0] > 2.0:
        dirs = [os.path.join(home, d) for d in _HOME_SECRET_DIRS]
        hit = _KEY_DIRS[home] = (now, [d for d in dirs if os.path.isdir(d)])
    return hit[1]


def _plan(command: object, context: PermissionContext | None) -> _Plan:
    # One plan per command per engine decision: the engine asks read-only, check, each rule
    # and suggestions about the same call. The memo dies with the decision (no result cache).
    memo = current_memo()
    if memo is None or not isinstance(command, str):
        return _new_plan(command, context)
    key = ("bash-plan", command, id(context))
    plan = memo.get(key)
    if plan is None:
        plan = memo[key] = _new_plan(command, context)
    return plan


def _new_plan(command: object, context: PermissionContext | None) -> _Plan:
    a = analyze(command)
    ctx = _context(context)
    cmds = [_make(sc) for sc in a.commands]
    cwds = [ctx.cwd]
    for c in cmds:
        if c.name == "cd" and len(c.argv) == 1 and ctx.home not in cwds:
            cwds.append(ctx.home)  # a bare `cd` goes home
        if c.name == "cd" and len(c.argv) >= 2:
            t = c.argv[-1]
            if t.value is not None and not t.glob:
                for base in list(cwds):
                    p = _lexical(t.value, base, ctx.home)
                    if p and p not in cwds:
                        cwds.append(p)
    read_cwds = cwds if isinstance(context, PermissionContext) else \
        cwds + _existing_key_dirs(ctx.home)
    return _Plan(a, ctx, cmds, cwds, read_cwds=read_cwds)


# --- paths ------------------------------------------------------------------------------------

def _lexical(value: str, cwd: str, home: str) -> str | None:
    if not value or "\x00" in value:
        return None
    if value == "~" or value.startswith("~/"):
        value = home.rstrip("/") + value[1:]
    elif value.startswith("~"):
        value = os.path.expanduser(value)
    if not value.startswith("/"):
        value = os.path.join(cwd, value)
    p = os.path.normpath(value)
    if p.startswith("//"):
        p = "/" + p.lstrip("/")
    return p


_SENSITIVE = None


def _sensitive_module():
    """permission/sensitive.py, imported on first use (it belongs to the file-tool policy)."""
    global _SENSITIVE
    if _SENSITIVE is None:
        from ..permission import sensitive
        _SENSITIVE = sensitive
    return _SENSITIVE


@lru_cache(maxsize=8192)
def _read_verdict(path: str, home: str):
    """Memoised: the table is fixed, the answer depends on the two strings only."""
    return _sensitive_module().read_verdict(path, home)


@lru_cache(maxsize=8192)
def _write_reason(path: str, home: str) -> str | None:
    mod = _sensitive_module()
    why = mod.sensitive_write_reason(path, home)
    if why is None and mod.read_verdict(path, home) is not None:
        why = "it holds a secret"
    return why


def _secret_word(w: Word, plan: _Plan, precise: bool,
                 guess: bool = True) -> tuple[str, bool] | None:
    """Is the file this word names a secret? Globs are tested against typical secret names."""
    CREDENTIAL = _sensitive_module().CREDENTIAL
    v = w.value
    if v is None:
        return None
    home = plan.home
    for cwd in plan.read_cwds:
        if w.glob:
            head, _, seg = v.rpartition("/")
            if any(ch in head for ch in "*?["):
                if not guess:
                    continue  # names only (`ls -d */`)
                return (f"{v!r}: a glob over directories may reach secret files", False)
            base = _lexical(head or ("/" if v.startswith("/") else "."), cwd, home)
            if base is None:
                continue
            hit = _read_verdict(base + "/x", home) or _read_verdict(base, home)
            if hit:
                return (f"{v}: {hit[1]}", hit[0] == CREDENTIAL)
            if not guess:
                continue
            # The pattern's literal part names a secret (`*.pem`, `.env*`, `*credentials*`)?
            for filler in ("", "x"):
                probe = re.sub(r"\[[^\]]*\]|[*?]+", filler, seg)
                if probe and probe not in (".", ".."):
                    hit = _read_verdict(base + "/" + probe, home)
                    if hit:
                        return (f"{v} names files like {probe}: {hit[1]}", hit[0] == CREDENTIAL)
            # Could it match a typical secret file there (`.e*`, `~/.docker/c*`)? A match
            # today is not needed: the file may appear before the command runs.
            # A bare `*` only counts where the place makes the name a secret (`~/.docker/*`
            # may match config.json; `grep x *` in a project is not suspected of id_rsa).
            bare = not seg.strip("*?[]")
            for name in _GLOB_SAMPLES:
                if (name.startswith(".") and not seg.startswith(".")) or \
                        not fnmatchcase(name, seg):
                    continue
                hit = _read_verdict(base + "/" + name, home)
                if hit and bare and _read_verdict("/_anywhere_/" + name, home):
                    continue
                if hit:
                    return (f"{v} may match {name}: {hit[1]}", hit[0] == CREDENTIAL)
            # Expand the glob the way bash will (no dotfiles for `*`) and check every match.
            try:
                names = _glob.glob1(base, seg) if os.path.isdir(base) else []
            except (OSError, ValueError):
                names = []
            if len(names) > _MAX_GLOB:
                return (f"{v} matches more than {_MAX_GLOB} files; they can't all be checked",
                        False)
            for name in names:
                hit = _secret_word(Word(name, base + "/" + name), plan, precise)
                if hit:
                    return (f"{v} matches {hit[0]}", hit[1])
            continue
        p = _lexical(v, cwd, home)
        if p is None:
            continue
        if cwd not in plan.cwds and not os.path.lexists(p):
            continue  # a guessed cwd (no context): only files that are really there
        if p.startswith("/dev/") and p not in _DEV_READ_OK:
            return (f"reads the device {p} (raw disk or memory content)", False)
        paths = [p]
        if precise:
            try:
                real = os.path.realpath(p)
            except (OSError, ValueError):
                real = p
            if real != p:
                paths.append(real)
        for q in paths:
            hit = _read_verdict(q, home)
            if hit:
                return (f"{q}: {hit[1]}", hit[0] == CREDENTIAL)
    return None


@lru_cache(maxsize=64)
def _home_dirs(home: str) -> tuple[tuple[str, str], ...]:
    return tuple((d, os.path.join(home, d)) for d in _HOME_SECRET_DIRS)


def _below(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def _secret_tree(w: Word, plan: _Plan, hidden: bool = True) -> tuple[str, bool] | None:
    """A recursive read of a directory that holds key directories (e.g. ``grep -r x ~``)."""
    v = w.value
    if v is None:
        return None
    home = plan.home
    for cwd in plan.read_cwds:
        p = _lexical(v, cwd, home)
        if p is None or (cwd not in plan.cwds and not os.path.lexists(p)):
            continue
        for q in {p, os.path.realpath(p)}:
            for d, secret_dir in _home_dirs(home):
                if _below(secret_dir, q):
                    return (f"searches {q}, which contains ~/{d}", True)
            for d in _SYSTEM_SECRETS:
                if _below(d, q):
                    return (f"searches {q}, which contains {d}", True)
            # a secret right inside the searched directory (a project's .env): plain ASK
            try:
                names = os.listdir(q) if os.path.isdir(q) else []
            except OSError:
                names = []
            for name in names[:_MAX_GLOB]:
                if name.startswith(".") and not hidden:
                    continue
                hit = _read_verdict(os.path.join(q, name), home)
                if hit:
                    return (f"searches {q}, which holds {name}: {hit[1]}", False)
    return _secret_word(w, plan, precise=True)


_MAX_WALK = 20000  # entries; a bigger tree is a plain ASK for a symlink-following search


def _symlinked_secret(w: Word, plan: _Plan) -> tuple[str, bool] | None:
    """A search that follows symlinks (grep -R, rg -L) reaches what the tree's links point at:
    each link below the root is checked like a root of its own (a bounded walk)."""
    if w.value is None:
        return None
    seen = 0
    for cwd in plan.cwds:
        root = _lexical(w.value, cwd, plan.home)
        if root is None or not os.path.isdir(root):
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d not in (".git", "node_modules")]
            for name in dirnames + filenames:
                seen += 1
                if seen > _MAX_WALK:
                    return (f"{w.value} holds too many files to check their symlinks", False)
                full = os.path.join(dirpath, name)
                if os.path.islink(full):
                    hit = _secret_tree(Word(full, full), plan)
                    if hit:
                        return (f"follows the symlink {full}: {hit[0]}", hit[1])
    return None


# --- 1. read-only -----------------------------------------------------------------------------

def _read_only(plan: _Plan) -> tuple[bool, str]:
    a = plan.analysis
    if a.unanalyzable:
        return False, a.reasons[0] if a.reasons else "unanalyzable"
    if a.reasons:
        return False, a.reasons[0]
    if a.opaque:
        return False, "opaque"
    if not plan.cmds:
        return False, "no command"
    for c in plan.cmds:
        v = c.verdict
        if not v.read_only:
            return False, v.reason
        why = secret_printer(c.argv)
        if why:
            return False, why
    gits = [c for c in plan.all_cmds() if c.name == "git"]
    if gits:
        from ..permission.paths import inside_working_dirs
        # another repository's config runs programs (core.fsmonitor on `git status`): the
        # directory git runs in, after `cd` or `-C` (symlinks resolved), must be ours
        dirs = list(plan.cwds[1:])
        for c in gits:
            vals = [w.value for w in c.argv]
            dirs += [os.path.join(cwd, vals[i + 1]) for i in range(1, len(vals) - 1)
                     if vals[i] == "-C" and vals[i + 1] for cwd in plan.cwds]
        for d in dirs:
            if not inside_working_dirs(d, plan.context):
                return False, f"git runs in {d}, outside the working directories"
    if plan.secrets():
        return False, plan.secrets()[0][0]
    return True, "; ".join(sorted({c.verdict.reason for c in plan.cmds}))[:300]


def bash_is_read_only(command: object, context: PermissionContext | None = None) -> bool:
    """True only when the command provably only reads, and reads no secret."""
    try:
        return _read_only(_plan(command, context))[0]
    except Exception:
        return False


# --- 2. dangerous operations -----------------------------------------------------------------

_DENY = "deny"
_ASK = "ask"


def _target_danger(w: Word, plan: _Plan, what: str) -> tuple[str, str] | None:
    home = plan.home.rstrip("/") or "/"
    v = w.value
    if v is None:
        return (_ASK, f"{what} of {w.text!r}: a target decided at run time may be empty "
                      "or point anywhere")
    if w.glob:
        head, slash, seg = v.rpartition("/")
        if any(ch in head for ch in "*?["):
            return (_ASK, f"{what} of the glob {v!r} spans directories")
        if seg.startswith(".") and any(ch in seg for ch in "*?["):
            return (_ASK, f"{what} of {v!r} may include '..' on older shells")
        base = head if slash else "."
        if v.startswith("/") and not head:
            base = "/"
        d = _target_danger(Word(base, base), plan, what)
        if d:
            return d
        if base == "." and seg in ("*", "**"):
            return (_ASK, f"{what} of {v!r}: everything in the working directory")
        return None
    for cwd in plan.cwds:
        p = _lexical(v, cwd, home)
        if p is None:
            continue
        for q in {p, os.path.realpath(p)}:
            if q == "/" or q == home:
                return (_DENY, f"{what} of {q}: the whole " +
                        ("file system" if q == "/" else "home directory"))
            if q in _SYSTEM_DIRS:
                return (_DENY, f"{what} of the system directory {q}")
            if os.path.dirname(q) == "/":
                return (_ASK, f"{what} of the top-level directory {q}")
            if any(_below(c, q) for c in plan.cwds):
                return (_ASK, f"{what} of {q}: the working directory or one of its parents")
            if _below(home, q):
                return (_DENY, f"{what} of {q}, which contains your home directory")
            if os.path.basename(q) == ".git" or "/.git/" in q:
                return (_ASK, f"{what} of {q}: the repository's history")
            if ("/" + q.split("/", 2)[1]) in _SYSTEM_DIRS and not q.startswith(home + "/"):
                return (_ASK, f"{what} in the system directory {q}")
            for _d, secret_dir in _home_dirs(home):
                if _below(q, secret_dir):
                    return (_ASK, f"{what} of {q}: keys and credentials live there")
    return None


def _flags(argv: list[Word]) -> tuple[set[str], list[Word]]:
    flags: set[str] = set()
    ops: list[Word] = []
    opts = True
    for w in argv[1:]:
        v = w.value
        if opts and v == "--":
            opts = False
            continue
        if opts and v and v.startswith("--"):
            flags.add(v.split("=", 1)[0])
        elif opts and v and v.startswith("-") and len(v) > 1:
            flags.update("-" + ch for ch in v[1:])
        else:
            ops.append(w)
    return flags, ops


def _rm_danger(c: _Cmd, plan: _Plan) -> tuple[str, str] | None:
    flags, ops = _flags(c.argv)
    recursive = bool({"-r", "-R", "--recursive"} & flags)
    if not recursive:
        return None
    worst = None
    for w in ops:
        d = _target_danger(w, plan, "recursive removal")
        if d and (worst is None or d[0] == _DENY):
            worst = d
            if d[0] == _DENY:
                break
    return worst


_WORLD = re.compile(r"^(0?[0-7]?[0-7][0-7]7|[ugoa]*[+=][rwxXst]*w[rwxXst]*|"
                    r"(a|o|ugo|ug?o|)\+[rwxXst]*w)$")


def _chmod_danger(c: _Cmd, plan: _Plan) -> tuple[str, str] | None:
    flags, ops = _flags(c.argv)
    recursive = bool({"-R", "--recursive"} & flags)
    name = c.name
    if name == "chmod" and ops:
        mode = ops[0].value or ""
        targets = ops[1:]
        world = bool(re.fullmatch(r"0?[0-7]?[0-7][0-7][2367]", mode)) or bool(
            re.search(r"(^|,)[ao]*\+[rwxXst]*w", mode)) or bool(re.search(r"(^|,)o[+=]\w*w",
                                                                          mode))
        if recursive and world:
            return (_ASK, f"chmod -R {mode}: makes a whole tree writable by everyone")
    else:
        targets = ops[1:]
    if recursive:
        for w in targets:
            d = _target_danger(w, plan, f"recursive {name}")
            if d:
                return (_ASK, d[1])
    elif name == "chmod" and ops and re.fullmatch(r"0?[0-7]?777", ops[0].value or ""):
        for w in targets:
            d = _target_danger(w, plan, f"{name} 777")
            if d:
                return (_ASK, d[1])
    return None


def _runs_stdin_code(c: _Cmd) -> bool:
    name = c.name or ""
    base = re.sub(r"[\d.]+$", "", name)
    if name in SHELLS:
        return True
    if name in ("source", ".", "eval"):
        return True
    if base in ("python", "perl", "ruby", "node", "php", "lua", "pypy", "deno", "bun") or \
            name in INTERPRETERS - SHELLS - {"awk", "gawk", "exec", "eval", "source", "."}:
        for w in c.argv[1:]:
            v = w.value or ""
            if v in ("-c", "-e", "-m", "-E", "-r", "--eval", "--command") or (
                    v.startswith("-") and not v.startswith("--") and
                    any(ch in v for ch in "cem") and base not in ("node",)):
                return False
            if v and not v.startswith("-"):
                return False  # a script file; stdin is data
            if v == "-":
                return True
        return True
    if name in ("sudo", "doas", "xargs", "env", "nohup", "time", "nice", "timeout"):
        argvs, sources = inner_commands(c.argv)
        for argv in argvs:
            if argv and _runs_stdin_code(_make(c.sc, argv, virtual=True)):
                return True
        return bool(sources)
    return False


def _download_outputs(c: _Cmd) -> list[str]:
    out: list[str] = []
    vals = [w.value for w in c.argv]
    urls = [v for v in vals[1:] if v and re.match(r"(?i)(https?|ftp)://", v)]
    for k, v in enumerate(vals):
        if v in ("-o", "--output", "-O", "--output-document") and k + 1 < len(vals):
            if c.name == "curl" and v == "-O":
                continue
            if vals[k + 1]:
                out.append(vals[k + 1])
        elif v and v.startswith(("--output=", "--output-document=")):
            out.append(v.split("=", 1)[1])
    if (c.name == "wget" and not out) or (c.name == "curl" and ("-O" in vals or
                                                                "--remote-name" in vals)):
        out += [u.rstrip("/").rsplit("/", 1)[-1] for u in urls]
    return [o for o in out if o and o != "-"]


def _download_exec(plan: _Plan, depth: int = 0) -> str | None:
    cmds = plan.all_cmds()
    # a) downloader | … | interpreter reading stdin
    pipes: dict[int, list[tuple[int, _Cmd]]] = {}
    for c in plan.cmds:
        if c.sc.pipeline is not None:
            pipes.setdefault(c.sc.pipeline[0], []).append((c.sc.pipeline[1], c))
    for members in pipes.values():
        members.sort(key=lambda t: t[0])
        seen_dl = None
        for _pos, c in members:
            if c.name in DOWNLOADERS:
                seen_dl = c.name
            elif seen_dl and _runs_stdin_code(c):
                return f"downloads with {seen_dl} and pipes it into {c.name}: runs code " \
                       "from the network"
    # b) an interpreter whose arguments contain a download: bash <(curl …), sh -c "$(curl …)"
    index = {id(c.sc): c for c in plan.cmds}
    for c in plan.cmds:
        if c.name not in DOWNLOADERS or c.sc.parent is None:
            continue
        p = c.sc.parent
        hops = 0
        while p is not None and hops < 1000:
            hops += 1
            parent = plan.analysis.commands[p]
            pc = index.get(id(parent))
            if pc is not None and (pc.name in SHELLS or pc.name in ("eval", "source", ".")
                                   or (pc.name in INTERPRETERS and pc.name not in
                                       ("awk", "gawk"))):
                return f"runs code downloaded by {c.name} with {pc.name}"
            p = parent.parent
    # c) download to a file, then run that file
    outputs: set[str] = set()
    for c in cmds:
        if c.name in DOWNLOADERS:
            outputs.update(_download_outputs(c))
            continue
        if not outputs:
            continue
        vals = [w.value or "" for w in c.argv]
        targets = {vals[0]}
        if c.name in INTERPRETERS or c.name in ("chmod",):
            targets.update(v for v in vals[1:] if not v.startswith("-"))
        for t in targets:
            tn = t[2:] if t.startswith("./") else t
            if tn in outputs or t in outputs:
                return f"downloads {tn} and then runs it"
    # d) shell code run by `sh -c`, `eval`, `sudo sh -c` or fed to a shell on stdin
    if depth < 3:
        for c in cmds:
            sources = inner_commands(c.raw_argv)[1] + _stdin_sources(c, plan)
            for src in sources:
                why = _download_exec(_plan(src, plan.context), depth + 1)
                if why:
                    return why
    return None


def _exfiltration(plan: _Plan) -> str | None:
    cmds = plan.all_cmds()
    net = [c for c in cmds if c.name in NETWORK]
    if not net:
        return None
    secrets = plan.secrets()
    if secrets:
        return f"sends data over the network ({net[0].name}) while reading a secret: " \
               f"{secrets[0][0]}"
    for c in cmds:
        why = secret_printer(c.argv)
        others = [n for n in net if n is not c]
        if why and others:
            return f"{why}, with {others[0].name} in the same command"
    for c in net:
        vals = [w.value for w in c.argv]
        skip = False
        for _k, v in enumerate(vals[1:], 1):
            if skip:
                skip = False
                continue
            if v is None:
                continue
            if v in ("-i", "-F", "--identity-file") and c.name in ("ssh", "scp", "sftp", "rsync",
                                                                   "sshpass"):
                skip = True
                continue
            cands = [v.lstrip("@<"), v]
            if "=@" in v or "=<" in v:
                cands.insert(0, re.split(r"=[@<]", v, maxsplit=1)[1])
            elif v.startswith("-") and "=" in v:
                cands.insert(0, v.split("=", 1)[1].lstrip("@<"))
            elif v.startswith("-") and "@" in v:
                cands.insert(0, v.split("@", 1)[1])
            for cand in cands:
                if not cand or cand.startswith("-") or "://" in cand:
                    continue
                if ":" in cand and c.name in ("scp", "rsync", "sftp"):
                    cand = cand.split(":", 1)[0] if cand.startswith("/") else cand
                hit = _secret_word(Word(cand, cand), plan, precise=False)
                if hit:
                    return f"sends {cand} with {c.name}: {hit[0]}"
        for r in c.sc.redirects:
            if r.op == "<" and r.target is not None and r.target.value:
                hit = _secret_word(r.target, plan, precise=False)
                if hit:
                    return f"feeds {r.target.value} to {c.name}: {hit[0]}"
    # a secret read by any command of a pipeline that ends in a network program
    return None


def _danger(plan: _Plan) -> tuple[str, str] | None:
    if _FORK_BOMB.search(plan.analysis.command):
        return (_DENY, "a fork bomb")
    worst: tuple[str, str] | None = None
    for c in plan.all_cmds():
        name = c.name
        d = None
        if name in ("rm", "rmdir") or (name or "").endswith("/rm"):
            d = _rm_danger(c, plan)
        elif name in ("chmod", "chown", "chgrp"):
            d = _chmod_danger(c, plan)
        elif name == "find":
            vals = [w.value for w in c.argv]
            if "-delete" in vals or any(v in ("-exec", "-execdir") for v in vals):
                inner = [a for a in inner_commands(c.raw_argv)[0]]
                deleting = "-delete" in vals or any(
                    (a[0].value or "").rsplit("/", 1)[-1] in ("rm", "shred") for a in inner if a)
                if deleting:
                    for w in c.argv[1:]:
                        if (w.value or "-").startswith(("-", "(", "!")):
                            break
                        d = _target_danger(w, plan, "find -delete")
                        if d and d[0] == _DENY:
                            break
                        d = None  # `find . -name '*.pyc' -delete` is routine
        elif name == "dd":
            for w in c.argv[1:]:
                v = w.value
                if v is None and w.text.startswith("of="):
                    d = (_ASK, "dd writes to a target decided at run time")
                elif v and v.startswith("of=") and v[3:].startswith("/dev/") and \
                        v[3:] not in ("/dev/null", "/dev/stdout", "/dev/stderr"):
                    d = (_ASK, f"dd writes the raw device {v[3:]}")
        elif name and (name in _DISK_TOOLS or name.startswith(("mkfs.", "mkfs"))):
            d = (_ASK, f"{name} destroys data on a disk or file irrecoverably")
        elif name in _POWER or (name in ("init", "telinit") and
                                [w.value for w in c.argv[1:2]] in (["0"], ["6"])) or (
                name == "systemctl" and any(w.value in ("poweroff", "reboot", "halt",
                                                        "kexec") for w in c.argv[1:])):
            d = (_ASK, f"{name} shuts down or restarts the machine")
        elif name in ("kill", "pkill", "killall") and any(w.value == "-1" for w in c.argv[1:]):
            d = (_ASK, f"{name} -1 signals every process")
        elif name == "crontab" and not any(w.value in ("-l",) for w in c.argv[1:]):
            d = (_ASK, "crontab installs or removes scheduled commands")
        if d is None:
            for r in c.sc.redirects:
                t = r.target.value if r.target is not None else None
                if r.is_output and t and _BLOCK_DEVICE.match(t):
                    d = (_ASK, f"writes to the device {t}")
            if name == "tee":
                for w in c.argv[1:]:
                    if w.value and _BLOCK_DEVICE.match(w.value):
                        d = (_ASK, f"writes to the device {w.value}")
        if d is not None:
            if d[0] == _DENY:
                return d
            worst = worst or d
    if worst:
        return worst
    names = {c.name for c in plan.all_cmds()}
    if names.isdisjoint(DOWNLOADERS) and names.isdisjoint(NETWORK):
        return None
    why = _download_exec(plan)
    if why:
        return (_ASK, why)
    why = _exfiltration(plan)
    if why:
        return (_ASK, why)
    return None


# --- 3. sed -----------------------------------------------------------------------------------

def _sed_exec(plan: _Plan) -> str | None:
    for c in plan.all_cmds():
        if c.name in ("sed", "gsed"):
            problem, *_ = sed_analysis(c.argv)
            if problem and problem.startswith("exec:"):
                return f"sed runs a shell command ({problem[6:]})"
    return None


# --- 4. sensitive paths -----------------------------------------------------------------------

def _write_targets(c: _Cmd) -> list[Word]:
    out: list[Word] = []
    for r in c.sc.redirects:
        if r.is_output and not _output_target_ok(r) and r.target is not None:
            out.append(r.target)
    name = c.name
    if c.virtual and not out and name is None:
        return out
    args = c.argv[1:]
    flags, ops = _flags(c.argv)
    if name in ("tee", "touch", "rm", "rmdir", "mkdir", "unlink", "shred", "truncate",
                "chattr", "setfacl", "mkfifo", "mknod"):
        out += ops
    elif name in ("chmod", "chown", "chgrp"):
        out += ops[1:]
    elif name in ("cp", "mv", "ln", "install", "rsync"):
        t = None
        for k, w in enumerate(args):
            if w.value in ("-t", "--target-directory") and k + 1 < len(args):
                t = args[k + 1]
            elif (w.value or "").startswith("--target-directory="):
                v = w.value.split("=", 1)[1]
                t = Word(v, v)
        if t is not None:
            out.append(t)
            if name == "mv":
                out += ops
        elif ops:
            out.append(ops[-1])
            if name == "mv":
                out += ops[:-1]
    elif name in ("sed", "gsed"):
        problem, in_place, _r, writes, operands = sed_analysis(c.argv)
        out += writes
        if in_place:
            out += operands
    elif name == "dd":
        for w in args:
            if (w.value or "").startswith("of="):
                v = w.value[3:]
                out.append(Word(v, v))
    elif name in ("curl", "wget"):
        out += [Word(o, o) for o in _download_outputs(c)]
    elif name in ("sort", "tree"):
        for k, w in enumerate(args):
            if w.value in ("-o", "--output") and k + 1 < len(args):
                out.append(args[k + 1])
            elif (w.value or "").startswith("--output="):
                v = w.value.split("=", 1)[1]
                out.append(Word(v, v))
    return out


def _sensitive(plan: _Plan) -> tuple[str, bool] | None:
    """(reason, safety) for the first sensitive write, secret read or secret printer."""
    home = plan.home
    for c in plan.all_cmds():
        for w in _write_targets(c):
            v = w.value
            if v is None or w.glob:
                continue
            for cwd in plan.cwds:
                p = _lexical(v, cwd, home)
                if p is None:
                    continue
                for q in {p, os.path.realpath(p)}:
                    why = _write_reason(q, home)
                    if why:
                        return (f"writes {q}: {why}", True)
        if c.name == "git":
            vals = [w.value or "" for w in c.argv[1:]]
            if "config" in vals:
                rest = vals[vals.index("config") + 1:]
                keys = [v for v in rest if not v.startswith("-")]
                query = any(v in ("--get", "--get-all", "--get-regexp", "--list", "-l")
                            for v in rest)
                if keys and not query and len(keys) >= 2 and _RISKY_GIT_CONFIG.match(keys[0]):
                    return (f"git config {keys[0]} can make git run commands", True)
    secrets = plan.secrets()
    for reason, key in secrets:
        if key:
            return (f"reads a key or credential file: {reason}", True)
    # keys passed to programs we don't know (python x.py ~/.ssh/id_rsa)
    for c in plan.all_cmds():
        if c.name is None or c.name in _STRING_ARG_PROGRAMS:
            continue
        if not c.verdict.read_only or c.name in ("cp", "mv", "scp", "rsync"):
            skip = False
            for w in c.argv[1:]:
                if skip:
                    skip = False
                    continue
                v = w.value
                if v in ("-i", "--identity-file", "-F"):
                    skip = True
                    continue
                if not v or v.startswith("-") or not ("/" in v or v.startswith((".", "~"))
                                                      or "." in v):
                    continue
                hit = _secret_word(w, plan, precise=False)
                if hit and hit[1]:
                    return (f"{c.name} is given a key or credential file: {hit[0]}", True)
    if secrets:
        return (f"reads a secret: {secrets[0][0]}", False)
    for c in plan.all_cmds():
        why = secret_printer(c.argv)
        if why:
            return (why, False)
    return None


# Programs whose arguments are text, not files, for the key-file check above.
_STRING_ARG_PROGRAMS = frozenset({"echo", "printf", "git", "grep", "egrep", "fgrep", "rg",
                                  "test", "[", "expr", "basename", "dirname", "which", "type",
                                  "command", "ssh", "sshpass", "gh", "export", "declare",
                                  "local", "readonly", "typeset", "unset", "alias", "true",
                                  "false", ":"})


# --- 5. accept_edits --------------------------------------------------------------------------

_FILE_CMD_FLAGS = {
    "mkdir": ({"-p", "-v", "--parents", "--verbose"}, {"-m", "--mode"}),
    "touch": ({"-a", "-m", "-c", "--no-create", "-h", "--no-dereference"},
              {"-d", "--date", "-t"}),
    "rm": ({"-r", "-R", "-f", "-v", "-d", "-i", "-I", "--recursive", "--force", "--verbose",
            "--dir"}, set()),
    "rmdir": ({"-p", "-v", "--parents", "--verbose", "--ignore-fail-on-non-empty"}, set()),
    "mv": ({"-f", "-i", "-n", "-v", "-u", "-T", "--force", "--no-clobber", "--verbose",
            "--update", "--no-target-directory", "-b", "--backup"},
           {"-t", "--target-directory", "-S", "--suffix"}),
    "cp": ({"-r", "-R", "-a", "-p", "-f", "-n", "-v", "-u", "-L", "-P", "-d", "-T", "-i",
            "--recursive", "--archive", "--force", "--no-clobber", "--verbose", "--update",
            "--preserve", "--parents", "--no-target-directory", "-b", "--backup",
            "--dereference", "--no-dereference"},
           {"-t", "--target-directory", "-S", "--suffix"}),
}


def _accept_edits(plan: _Plan) -> str | None:
    """Why the accept_edits auto-allow applies (None if it does not)."""
    from ..permission.paths import inside_working_dirs
    a = plan.analysis
    if not a.simple or a.opaque or not plan.cmds:
        return None
    targets = 0
    for c in plan.cmds:
        if c.name not in _FILE_CMDS or c.assignments or c.sc.kind != "command":
            if c.name == "cd" or (c.verdict.read_only and not c.assignments):
                continue  # read-only companions such as `ls` or `cd build` are fine
            return None
        if any(r.is_output and not _output_target_ok(r) for r in c.sc.redirects):
            return None
        if "/" in (c.raw_argv[0].value or ""):
            return None
        ok_flags, value_flags = _FILE_CMD_FLAGS[c.name]
        args = c.argv[1:]
        k = 0
        opts = True
        while k < len(args):
            w = args[k]
            v = w.value
            k += 1
            if v is None:
                return None
            if opts and v == "--":
                opts = False
                continue
            if opts and v.startswith("-") and len(v) > 1:
                name, eq, val = v.partition("=")
                if name in value_flags:
                    if not eq:
                        if k >= len(args) or args[k].value is None:
                            return None
                        val = args[k].value
                        k += 1
                    if name in ("-t", "--target-directory"):
                        if not _inside(val, plan, inside_working_dirs):
                            return None
                        targets += 1
                    continue
                if v.startswith("--"):
                    if name not in ok_flags:
                        return None
                    continue
                for ch in v[1:]:
                    if "-" + ch not in ok_flags:
                        return None
                continue
            if w.glob:
                head = v.rpartition("/")[0]
                seg = v.rpartition("/")[2]
                if any(ch in head for ch in "*?[") or seg.startswith("."):
                    return None
                v = head or "."
            if not _inside(v, plan, inside_working_dirs):
                return None
            targets += 1
    if not targets:
        return None
    return "accept_edits: file commands with every target inside a working directory"


def _inside(value: str, plan: _Plan, inside_working_dirs) -> bool:
    for cwd in plan.cwds:
        p = _lexical(value, cwd, plan.home)
        if p is None or not inside_working_dirs(p, plan.context):
            return False
    return True


# --- check_permissions ------------------------------------------------------------------------

def _summary(command: object) -> str:
    text = command if isinstance(command, str) else repr(command)
    text = text.replace("\n", "⏎ ")
    return text if len(text) <= 120 else text[:117] + "…"


def bash_check_permissions(command: object,
                           context: PermissionContext | None = None) -> PermissionDecision:
    """The Bash tool's own check, in the order of SPEC §6 (module docstring). Never raises."""
    try:
        return _check(command, context)
    except Exception as exc:  # a defect must never become an allow
        return PermissionDecision.ask(
            f"Bash: the command could not be checked ({type(exc).__name__}: {exc})",
            safety=True)


def _check(command: object, context: PermissionContext | None,
           plan: _Plan | None = None) -> PermissionDecision:
    plan = plan or _plan(command, context)
    a = plan.analysis
    shown = _summary(command)
    if a.unanalyzable:
        why = a.reasons[0] if a.reasons else "the command cannot be analyzed"
        return PermissionDecision.ask(
            f"Safety check: {why}", safety=True,
            message=f"Permission required: {why}. It cannot be checked statically: {shown}")
    ro, why = _read_only(plan)
    if ro:
        return PermissionDecision.allow(f"read-only command ({why})",
                                        message="Permission granted for a read-only command")
    d = _danger(plan)
    if d is not None:
        level, reason = d
        if level == _DENY:
            return PermissionDecision.deny(
                f"Dangerous: {reason}", bypass_immune=True,
                message=f"Refused: {reason}. This command is never run: {shown}")
        return PermissionDecision.ask(
            f"Safety check: {reason}", safety=True,
            message=f"Permission required: {reason} (allow rules cannot approve this): {shown}")
    why_sed = _sed_exec(plan)
    if why_sed:
        return PermissionDecision.ask(f"Safety check: {why_sed}", safety=True,
                                      message=f"Permission required: {why_sed}: {shown}")
    s = _sensitive(plan)
    if s is not None:
        reason, safety = s
        label = "Safety check" if safety else "Secret"
        return PermissionDecision.ask(f"{label}: {reason}", safety=safety,
                                      message=f"Permission required: {reason}: {shown}")
    if plan.context.mode is PermissionMode.ACCEPT_EDITS:
        why_edit = _accept_edits(plan)
        if why_edit:
            return PermissionDecision.allow(why_edit)
    return PermissionDecision.passthrough(
        f"not read-only: {why}", message=f"Execute bash command: {shown}")


def explain(command: object, context: PermissionContext | None = None) -> dict:
    """A debugging view: sub-commands, reasons and each step's finding."""
    plan = _plan(command, context)
    return {
        "reasons": list(plan.analysis.reasons),
        "unanalyzable": plan.analysis.unanalyzable,
        "opaque": plan.analysis.opaque,
        "commands": [{"argv": [w.value if w.value is not None else f"<{w.text}>"
                               for w in c.argv],
                      "virtual": c.virtual, "read_only": c.verdict.read_only,
                      "why": c.verdict.reason} for c in plan.all_cmds()],
        "read_only": _read_only(plan),
        "decision": bash_check_permissions(command, context).to_dict(),
    }


# --- rules ----------------------------------------------------------------------------------

_SENTINEL = "\x00"


@dataclass(frozen=True, slots=True)
class _Spec:
    kind: str                 # "prefix", "exact", "wildcard"
    words: tuple[str, ...]
    regex: re.Pattern[str] | None = None


_SPEC_CACHE: dict[str, _Spec] = {}


def _spec_of(text: str) -> _Spec:
    hit = _SPEC_CACHE.get(text)
    if hit is not None:
        return hit
    t = " ".join(text.split())
    if t.endswith(":*"):
        spec = _Spec("prefix", _spec_words(t[:-2]))
    elif "*" in t:
        parts = t.split("*")
        body = ".*".join(re.escape(p) for p in parts)
        if t.endswith(" *"):
            body = ".*".join(re.escape(p) for p in parts[:-1])
            body = body[:-len(re.escape(" "))] + r"(?: .*)?" if body.endswith(re.escape(" ")) \
                else body + ".*"
        spec = _Spec("wildcard", tuple(t.split()), re.compile(body, re.DOTALL))
    else:
        spec = _Spec("exact", _spec_words(t))
    if len(_SPEC_CACHE) < 4096:
        _SPEC_CACHE[text] = spec
    return spec


def _spec_words(text: str) -> tuple[str, ...]:
    a = analyze(text)
    if not a.unanalyzable and len(a.commands) == 1 and a.commands[0].kind == "command":
        vals = [w.value for w in a.commands[0].argv]
        if all(v is not None for v in vals) and vals:
            return tuple(vals)  # type: ignore[arg-type]
    return tuple(text.split())


def _basename(v: str) -> str:
    return v.rsplit("/", 1)[-1] if "/" in v else v


def _matches(spec: _Spec, vals: list[str | None], allow: bool) -> bool:
    if not vals:
        return False
    if not allow:
        vals = [_basename(vals[0]) if vals[0] is not None else None] + vals[1:]
        words = (_basename(spec.words[0]),) + spec.words[1:] if spec.words else spec.words
    else:
        words = spec.words
    if spec.kind in ("prefix", "exact"):
        if spec.kind == "exact" and len(vals) != len(words):
            return False
        if len(vals) < len(words):
            return False
        for v, w in zip(vals, words):
            if v is None:
                if allow:
                    return False
                continue  # decided at run time: it might be exactly this word
            if v != w:
                return False
        return True
    assert spec.regex is not None
    joined = " ".join(v if v is not None else _SENTINEL for v in vals)
    if spec.regex.fullmatch(joined):
        return True
    if not allow and _SENTINEL in joined:
        # a run-time word might be anything: match it against the literal pieces loosely
        loose = re.compile(spec.regex.pattern.replace(r"\x00", ""), re.DOTALL)
        return bool(loose.fullmatch(joined.replace(_SENTINEL, ""))) or \
            bool(re.fullmatch(".*".join(re.escape(p) for p in joined.split(_SENTINEL)),
                              " ".join(spec.words), re.DOTALL))
    return False


def bash_match_rule(rule: PermissionRule, command: object,
                    context: PermissionContext | None = None) -> bool:
    """Does ``rule`` match ``command``? Allow: every sub-command; deny/ask: any (module doc)."""
    try:
        return _match(rule, command, context)
    except Exception:
        return rule.behavior is not PermissionBehavior.ALLOW


def bash_match_allow_rules(rules, command: object,
                           context: PermissionContext | None = None) -> PermissionRule | None:
    """Several allow rules together: each sub-command matched by at least one of them (or
    read-only). Returns the first rule used, or None. Lets ``git add:*`` + ``git commit:*``
    approve ``git add . && git commit -m x``, which neither approves alone."""
    try:
        rules = [r for r in rules if r.behavior is PermissionBehavior.ALLOW]
        for r in rules:
            if r.specifier is None:
                return r
        if not rules:
            return None
        plan = _plan(command, context)
        a = plan.analysis
        if a.unanalyzable or a.opaque or not plan.cmds:
            return None
        specs = [(r, _spec_of(r.specifier)) for r in rules]
        used: PermissionRule | None = None
        for c in plan.cmds:
            hit = _allow_hit(c, specs, plan)
            if hit is None:
                return None
            used = used or (hit if hit is not True else None)
        return used
    except Exception:
        return None


def _allow_hit(c: _Cmd, specs, plan: _Plan):
    """The rule approving one sub-command, True when it needs none (read-only, no secret),
    None when none does. A rule naming the command approves it even if it reads a plain
    secret (a key or credential is a safety ASK before allow rules are consulted)."""
    if c.sc.kind == "assignment":
        return True if all(_harmless(n) for n, _ in c.assignments) else None
    if all(_harmless(n) for n, _ in c.assignments):
        vals = [w.value for w in c.raw_argv]
        for r, spec in specs:
            if _matches(spec, vals, True):
                return r
    if c.verdict.read_only and not secret_printer(c.argv) and not plan.secrets_of(c):
        return True
    return None


def _match(rule: PermissionRule, command: object, context: PermissionContext | None) -> bool:
    allow = rule.behavior is PermissionBehavior.ALLOW
    if rule.specifier is None:
        return True
    spec = _spec_of(rule.specifier)
    plan = _plan(command, context)
    a = plan.analysis
    if a.unanalyzable:
        if allow or not isinstance(command, str) or not spec.words:
            return False
        first = re.escape(_basename(spec.words[0]))
        return bool(re.search(rf"(^|[^\w-]){first}($|[^\w-])", command))
    if allow:
        if a.opaque or not plan.cmds:
            return False
        matched_any = False
        for c in plan.cmds:
            hit = _allow_hit(c, [(rule, spec)], plan)
            if hit is None:
                return False
            matched_any = matched_any or hit is not True
        return matched_any
    for c in plan.all_cmds():
        if c.sc.kind == "assignment":
            continue
        un = unwrap(c.raw_argv, any_path=True)
        vals = [w.value if not w.glob else None for w in un.argv]
        if any(_matches(spec, v, False) for v in _deny_forms(vals)):
            return True
        raw_vals = [w.value if not w.glob else None for w in c.sc.argv] if not c.virtual \
            else None
        if raw_vals and _matches(spec, raw_vals, False):
            return True
    return False


# git options taking a separate value, before the sub-command
_GIT_GLOBAL_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace",
                               "--config-env", "--exec-path", "--super-prefix"})
# programs that run the rest of their argv after options a deny rule should not stop at
_LAUNCHERS = frozenset({"env", "busybox", "toybox", "exec", "coproc"})


def _deny_forms(vals: list[str | None]) -> list[list[str | None]]:
    """argv as written, plus what a deny rule should also see: `git -C . push` as `git push`,
    `env -i git push` / `busybox rm x` / `exec -a ls rm x` from the inner program on."""
    forms = [vals]
    name = _basename(vals[0]) if vals and vals[0] else None
    if name == "git":
        i = 1
        while i < len(vals) and vals[i] is not None and vals[i].startswith("-"):
            i += 2 if vals[i] in _GIT_GLOBAL_VALUE else 1
        if i > 1:
            forms.append(vals[:1] + vals[i:])
    elif name in _LAUNCHERS:
        for i in range(1, len(vals)):
            forms.append(vals[i:])
    return forms


# --- suggestions ------------------------------------------------------------------------------

_SUBCOMMAND = re.compile(r"^[a-z][a-z0-9]*(?:[-_:][a-z0-9]+)*$")
_SUBCOMMAND_PROGRAMS = frozenset({
    "git", "npm", "pnpm", "yarn", "bun", "pip", "pip3", "uv", "cargo", "go", "docker",
    "kubectl", "gh", "make", "poetry", "conda", "mamba", "brew", "apt", "apt-get", "systemctl",
    "terraform", "helm", "dotnet", "mvn", "gradle", "rustup", "jupyter", "npx", "deno",
    "hatch", "tox", "nox", "pixi", "pre-commit", "ruff", "mypy", "podman", "gcloud", "aws",
    "az", "heroku", "flask", "django-admin", "rails", "bundle", "composer", "just", "task",
})
_PATH_PROGRAMS = frozenset({"rm", "cp", "mv", "mkdir", "touch", "rmdir", "chmod", "chown",
                            "ln", "cat", "tar", "zip", "unzip", "cd", "bash", "sh", "zsh",
                            "node", "ruby", "perl", "source", "."})
_RULE_WORD = re.compile(r"^[A-Za-z0-9_.+/@%=,-]+$")


def bash_suggest_rules(command: object,
                       context: PermissionContext | None = None) -> list[PermissionRule]:
    """One ``Bash(prefix:*)`` allow rule per distinct sub-command that is not yet approved;
    none for safety ASKs, multi-line commands, heredocs or commands no rule could approve."""
    try:
        return _suggest(command, context)
    except Exception:
        return []


def _suggest(command: object, context: PermissionContext | None) -> list[PermissionRule]:
    plan = _plan(command, context)
    a = plan.analysis
    if a.unanalyzable or a.multiline or a.heredocs or a.opaque:
        return []
    d = _check(command, plan.context, plan)
    if d.is_safety_ask or d.behavior in (PermissionBehavior.DENY, PermissionBehavior.ALLOW):
        return []
    out: list[str] = []
    for c in plan.cmds:
        if c.sc.kind == "assignment":
            continue
        if c.verdict.read_only and not secret_printer(c.argv):
            continue
        if c.sc.kind != "command" or not c.raw_argv:
            return []
        if not all(_harmless(n) for n, _ in c.assignments):
            return []
        vals = [w.value for w in c.raw_argv]
        prog = vals[0]
        if prog is None or not _RULE_WORD.match(prog) or c.raw_argv[0].glob:
            return []
        base = _basename(prog)
        second = vals[1] if len(vals) > 1 else None
        if base in INTERPRETERS and re.sub(r"[\d.]+$", "", base) in ("python", "pypy"):
            if second == "-m" and len(vals) > 2 and vals[2] and _RULE_WORD.match(vals[2]):
                spec = f"{prog} -m {vals[2]}:*"
            elif second and not second.startswith("-") and _RULE_WORD.match(second):
                spec = f"{prog} {second}:*"
            else:
                return []
        elif base in INTERPRETERS and second in ("-c", "-e", "--eval"):
            return []
        elif second is not None and _SUBCOMMAND.match(second) and base not in _PATH_PROGRAMS \
                and (base in _SUBCOMMAND_PROGRAMS or not os.path.exists(
                    os.path.join(plan.context.cwd, second))):
            spec = f"{prog} {second}:*"
        else:
            spec = f"{prog}:*"
        if spec not in out:
            out.append(spec)
    return [PermissionRule.parse(f"Bash({s})", PermissionBehavior.ALLOW, source="suggestion")
            for s in out]
