"""Secrets a Bash command would read or print, judged on its read effects.

Content reads (``cat``, ``grep``, ``< file``, ``sed r``, ``jq --rawfile``, ``curl -d @f`` …)
are checked against ``permission/sensitive.py`` with symlinks resolved; a glob is checked for
the place it points to, for the literal part of its pattern (``*.pem``), for typical secret
names it could match (``.e*``) and, expanded the way bash will, for every current match;
recursive searches for key directories below them and for secret files right inside them;
names and metadata (``ls``, ``stat``, ``find``) of a secret are a plain ASK. Without a
context (the engine's read-only fast path) the cwd is a guess, so relative names that exist in
``~/.ssh`` and the other key directories count too.

Each finding is ``(reason, safety)``: reading a secret file's content is a safety ASK (no allow
rule silences a secret read, SPEC §9); names and metadata of a secret (``ls ~/.ssh``) and a
program whose purpose is to print the environment or a token (``env``, ``gh auth token``) are a
plain ASK a rule naming the command may silence.
"""

from __future__ import annotations

import glob as _glob
import os
from fnmatch import filter as _matching
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import Sequence

from ...permission import sensitive
from ...shell.effects import LIST, READ, SEARCH
from ...shell.syntax import Command
from ...shell.words import GLOB, Word
from .plan import SECRET, Plan, home_secret_dirs, lexical

__all__ = ["Finding", "secrets_of", "all_secrets", "key_handed_over", "secret_word",
           "read_verdict", "write_reason", "filter_selects_secret"]

Finding = tuple[str, bool]

_SYSTEM_SECRETS = ("/etc/shadow", "/etc/gshadow", "/etc/ssh", "/etc/ssl/private", "/root",
                   "/proc", "/var/lib/docker", "/run/secrets")
_DEV_READ_OK = frozenset({"/dev/null", "/dev/zero", "/dev/urandom", "/dev/random",
                          "/dev/stdin", "/dev/fd/0"})
# Typical secret file names a glob is tested against (checked against the table where the
# glob points, so `src/c*` is fine and `~/.docker/c*` is not).
_GLOB_SAMPLES = (".env", ".env.local", ".env.production", ".envrc", ".netrc", ".npmrc",
                 ".pypirc", ".dockercfg", ".git-credentials", ".vault-token", ".pgpass",
                 "config.json", "credentials", "config", "hosts.yml", "id_rsa", "id_ed25519",
                 "id_ecdsa", "secrets.json", "key.pem", "server.key")
# A glob naming files whose content is read is expanded (like bash) and every match checked.
_MAX_GLOB = 2000
_MAX_WALK = 20000  # entries; a bigger tree is a plain ASK for a symlink-following search


@lru_cache(maxsize=8192)
def read_verdict(path: str, home: str):
    """Memoised: the table is fixed, the answer depends on the two strings only."""
    return sensitive.read_verdict(path, home)


@lru_cache(maxsize=8192)
def write_reason(path: str, home: str) -> str | None:
    why = sensitive.sensitive_write_reason(path, home)
    if why is None and sensitive.read_verdict(path, home) is not None:
        why = "it holds a secret"
    return why


def _credential(hit) -> bool:
    return hit[0] == sensitive.CREDENTIAL


def _pattern_probe(segment: str, filler: str) -> str:
    """The literal part of a glob segment (classes and wildcards replaced), linear."""
    out: list[str] = []
    i = 0
    n = len(segment)
    while i < n:
        c = segment[i]
        if c == "[":
            end = segment.find("]", i + 1)
            if end < 0:
                out.append(c)
                i += 1
                continue
            out.append(filler)
            i = end + 1
            continue
        if c in "*?":
            out.append(filler)
            while i < n and segment[i] in "*?":
                i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def secret_word(word: Word, plan: Plan, command: Command, precise: bool = True,
                guess: bool = True) -> Finding | None:
    """Is the file this word names a secret? Globs are tested against typical secret names."""
    value = word.value
    if value is None:
        return None
    home = plan.home
    bases = plan.bases(command)
    places: Sequence[str]
    if bases is None:
        places = bases = (plan.cwd,)  # unknown: at least where we are
    else:
        places = plan.read_places(command, bases) or bases
    if value.startswith("/") or (word.tilde and value.startswith("~")):
        places = places[:1]
    elif len(places) > 1 and word.kind != GLOB:
        # after a `cd` the file is in one of several places: the ones where it exists are
        # named first (`cd ~; cat .ssh/id_rsa` reads ~/.ssh/id_rsa, not ./.ssh/id_rsa)
        there = [c for c in places if _exists(lexical(word, c, home))]
        if there and len(there) < len(places):
            places = there + [c for c in places if c not in there]
    for cwd in places:
        if word.kind == GLOB:
            hit = _secret_glob(value, word, cwd, plan, command, precise, guess)
            if hit:
                return hit
            continue
        p = lexical(word, cwd, home)
        if p is None:
            continue
        if cwd not in bases and not os.path.lexists(p):
            continue  # a guessed cwd (no context): only files that are really there
        if p.startswith("/dev/") and p not in _DEV_READ_OK:
            return (f"reads the device {p} (raw disk or memory content)", False)
        paths = [p]
        if precise:
            real = plan.realpath(p)
            if real != p:
                paths.append(real)
        for q in paths:
            hit = read_verdict(q, home)
            if hit:
                return (f"{q}: {hit[1]}", _credential(hit))
    return None


def _exists(path: str | None) -> bool:
    return path is not None and os.path.lexists(path)


def _prefixes(path: str) -> list[int]:
    """The lengths of ``path``'s parent directories (``/a/b/c`` -> len("/a"), len("/a/b"))."""
    return [k for k in range(1, len(path)) if path[k] == "/"]


def _secret_glob(value: str, word: Word, cwd: str, plan: Plan, command: Command,
                 precise: bool, guess: bool) -> Finding | None:
    home = plan.home
    head, _, segment = value.rpartition("/")
    if any(ch in head for ch in "*?["):
        if not guess:
            return None  # names only (`ls -d */`)
        # a key directory the directory part may match (`~/.ss?/id_rsa`, `/home/*/.ssh/x`)
        where = lexical(Word(head, head, tilde=word.tilde), cwd, home) if head else None
        if where is not None:
            for d, secret_dir in home_secret_dirs(home):
                if fnmatchcase(secret_dir, where) or fnmatchcase(secret_dir, where + "/*") or \
                        any(fnmatchcase(secret_dir[:k], where) for k in _prefixes(secret_dir)):
                    return (f"{value!r} may reach ~/{d}, where keys and credentials live",
                            True)
        # the pattern names a secret file wherever it matches (`/home/*/.ssh/id_rsa`)
        for filler in ("x", ""):
            probe = lexical(Word(value, _pattern_probe(value, filler), tilde=word.tilde), cwd,
                            home)
            hit = read_verdict(probe, home) if probe else None
            if hit:
                return (f"{value!r} may match {probe}: {hit[1]}", _credential(hit))
        return (f"{value!r}: a glob over directories may reach secret files", False)
    where = head or ("/" if value.startswith("/") else ".")
    base = lexical(Word(where, where, tilde=word.tilde), cwd, home)
    if base is None:
        return None
    hit = read_verdict(base + "/x", home) or read_verdict(base, home)
    if hit:
        return (f"{value}: {hit[1]}", _credential(hit))
    if not guess:
        return None
    # The pattern's literal part names a secret (`*.pem`, `.env*`, `*credentials*`)?
    for filler in ("", "x"):
        probe = _pattern_probe(segment, filler)
        if probe and probe not in (".", ".."):
            hit = read_verdict(base + "/" + probe, home)
            if hit:
                return (f"{value} names files like {probe}: {hit[1]}", _credential(hit))
    # Could it match a typical secret file there (`.e*`, `~/.docker/c*`)? A match today is
    # not needed: the file may appear before the command runs. A bare `*` only counts where
    # the place makes the name a secret (`~/.docker/*` may match config.json; `grep x *` in a
    # project is not suspected of id_rsa).
    bare = not segment.strip("*?[]")
    # (fnmatch.filter: the pattern compiled once for all samples, their order kept)
    for name in _matching(_GLOB_SAMPLES, segment):
        if name.startswith(".") and not segment.startswith("."):
            continue
        hit = read_verdict(base + "/" + name, home)
        if hit and bare and read_verdict("/_anywhere_/" + name, home):
            continue
        if hit:
            return (f"{value} may match {name}: {hit[1]}", _credential(hit))
    # Expand the glob the way bash will (no dotfiles for `*`) and check every match.
    try:
        names = _glob.glob1(base, segment) if plan.is_dir(base) else []
    except (OSError, ValueError):
        names = []
    if len(names) > _MAX_GLOB:
        return (f"{value} matches more than {_MAX_GLOB} files; they can't all be checked",
                False)
    # Every match is what secret_word() finds for its absolute path, asked here in one loop:
    # the folder is placed once, not once per match (the same checks in the same order).
    prefix = base if base.endswith("/") else base + "/"  # (base is normalised: "/" only)
    for name in names:
        p = prefix + name  # a listed name is one plain component: already normalised
        if p.startswith("/dev/") and p not in _DEV_READ_OK:
            return (f"{value} matches reads the device {p} (raw disk or memory content)",
                    False)
        hit = read_verdict(p, home)
        if hit:
            return (f"{value} matches {p}: {hit[1]}", _credential(hit))
        if precise:
            real = plan.realpath(p)
            if real != p:
                hit = read_verdict(real, home)
                if hit:
                    return (f"{value} matches {real}: {hit[1]}", _credential(hit))
    return None


def _secret_tree(word: Word, plan: Plan, command: Command, hidden: bool) -> Finding | None:
    """A recursive read of a directory that holds key directories (``grep -r x ~``)."""
    if word.value is None:
        return None
    home = plan.home
    places = plan.read_places(command) or [plan.cwd]
    bases = plan.bases(command) or (plan.cwd,)
    for cwd in places:
        p = lexical(word, cwd, home)
        if p is None or (cwd not in bases and not os.path.lexists(p)):
            continue
        for q in {p, plan.realpath(p)}:
            if q == "/" or (q and not q.endswith("/")):  # (normalised: always)
                held = _holding_secrets(home).get(q)
                if held is not None:
                    return (f"searches {q}, which contains {held}", True)
            else:
                under = q.rstrip("/") + "/"  # below(d, q): d is q or starts with this
                for d, secret_dir in home_secret_dirs(home):
                    if secret_dir == q or secret_dir.startswith(under):
                        return (f"searches {q}, which contains ~/{d}", True)
                for d in _SYSTEM_SECRETS:
                    if d == q or d.startswith(under):
                        return (f"searches {q}, which contains {d}", True)
            # a secret right inside the searched directory (a project's .env): plain ASK
            try:
                names = os.listdir(q) if plan.is_dir(q) else []
            except OSError:
                names = []
            inside = q if q.endswith("/") else q + "/"  # os.path.join(q, name)
            for name in names[:_MAX_GLOB]:
                if name.startswith(".") and not hidden:
                    continue
                hit = read_verdict(inside + name, home)
                if hit:
                    return (f"searches {q}, which holds {name}: {hit[1]}", False)
    return secret_word(word, plan, command, precise=True)


@lru_cache(maxsize=64)
def _holding_secrets(home: str) -> dict[str, str]:
    """Every directory whose tree holds a key directory of ``home`` or a system secret, and
    the first one it holds (``~/.ssh`` … in order, then the system ones): for ``q`` that is "/"
    or has no trailing "/", ``d == q or d.startswith(q.rstrip("/") + "/")`` holds exactly when
    ``q`` is ``d``, "/" (``d`` absolute) or ``d`` cut before one of its "/". A pure table of the
    home's spelling, made once per process and home."""
    found: dict[str, str] = {}
    places = [(secret_dir, "~/" + d) for d, secret_dir in home_secret_dirs(home)]
    places += [(d, d) for d in _SYSTEM_SECRETS]
    for path, shown in places:
        found.setdefault(path, shown)
        if path.startswith("/"):
            found.setdefault("/", shown)
        for k in range(1, len(path)):
            if path[k] == "/":
                found.setdefault(path[:k], shown)
    return found


def _symlinked_secret(word: Word, plan: Plan, command: Command) -> Finding | None:
    """A search that follows symlinks (grep -R, rg -L) reaches what the tree's links point
    at: each link below the root is checked like a root of its own (a bounded walk)."""
    if word.value is None:
        return None
    seen = 0
    for cwd in plan.bases(command) or (plan.cwd,):
        root = lexical(word, cwd, plan.home)
        if root is None or not os.path.isdir(root):
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d not in (".git", "node_modules")]
            for name in dirnames + filenames:
                seen += 1
                if seen > _MAX_WALK:
                    return (f"{word.value} holds too many files to check their symlinks",
                            False)
                full = os.path.join(dirpath, name)
                if os.path.islink(full):
                    hit = _secret_tree(Word(full, full, tilde=False), plan, command, True)
                    if hit:
                        return (f"follows the symlink {full}: {hit[0]}", hit[1])
    return None


def secrets_of(plan: Plan, command: Command) -> list[Finding]:
    """Secrets this command itself reads or prints (not those of commands it runs)."""
    key = ("secrets", command.index)
    hit = plan.memo.get(key)
    if hit is not None:
        return hit
    found: list[Finding] = []
    e = command.effects
    if e is not None:
        for access in e.paths:
            kind = access.kind
            if kind == READ and access.detail == "filter":
                why = filter_selects_secret((access.word.value or "").rsplit("/", 1)[-1])
                f = (why, True) if why else None
            elif kind == READ and access.detail == "pathspec":
                why = _pathspec_secret(access.word.value or "")
                f = (why, True) if why else None
            elif kind == READ and access.detail not in ("maybe", "guess"):
                f = secret_word(access.word, plan, command, precise=True)
                if f:
                    f = (f[0], True)
            elif kind == SEARCH:
                f = _secret_tree(access.word, plan, command, access.hidden)
                if f is None and access.follow:
                    f = _symlinked_secret(access.word, plan, command)
                if f:
                    f = (f[0], True)
            elif kind == LIST:
                f = secret_word(access.word, plan, command, precise=True, guess=False)
                if f:
                    f = (f"shows {f[0]}", False)
            else:
                continue
            if f:
                found.append(f)
        if e.secret:
            found.append((e.secret, False))
    plan.memo[key] = found
    return found


def all_secrets(plan: Plan) -> list[Finding]:
    hit = plan.memo.get("all-secrets")
    if hit is None:
        hit = []
        if plan.bits & SECRET:
            for command in plan.analysis.records:
                e = command.effects
                if e is not None and (e.paths or e.secret):  # else secrets_of finds nothing
                    hit.extend(secrets_of(plan, command))
        else:
            for command in plan.with_paths:
                hit.extend(secrets_of(plan, command))
        plan.memo["all-secrets"] = hit
    return hit


def key_handed_over(plan: Plan) -> Finding | None:
    """A key or credential file named in the arguments of a program the table does not know
    (``python x.py --key ~/.ssh/id_rsa``): a possible read the analysis reports as ``maybe``."""
    for command, access in plan.handed:
        hit = secret_word(access.word, plan, command, precise=False)
        if hit and hit[1]:
            name = command.argv[0].value if command.argv else None
            what = f"{name} is given" if name else "a variable is set to"
            return (f"{what} a key or credential file: {hit[0]}", True)
    return None


# Names a search filter (`--include=.env*`, `rg -g .env`) must not select.
_SECRET_SAMPLES = (".env", ".env.local", ".env.production", "id_rsa", "id_ed25519",
                   "credentials", ".netrc", ".npmrc", ".pypirc", "secrets.json",
                   "key.pem", "server.key", ".dockercfg", ".vault-token", ".git-credentials")


_SECRET_LOWER = tuple(name.lower() for name in _SECRET_SAMPLES)
_SECRET_NESTED = tuple("a/" + name for name in _SECRET_SAMPLES)


def filter_selects_secret(pattern: str) -> str | None:
    pattern = pattern.lstrip("!")
    last = pattern.rstrip("/").rsplit("/", 1)[-1]
    # each pattern compiled once for all samples (fnmatch.filter), then the first sample that
    # matches either way, in order
    exact = _matching(_SECRET_SAMPLES, last)
    folded = _matching(_SECRET_LOWER, last.lower())
    if exact or folded:
        for name, lower in zip(_SECRET_SAMPLES, _SECRET_LOWER):
            if name in exact or lower in folded:
                return f"the filter {pattern!r} selects {name}, which may hold a secret"
    return None


def _pathspec_secret(pattern: str) -> str | None:
    """A git pathspec glob (``*`` also matches dotfiles and crosses ``/``) that could select a
    secret file."""
    last = pattern.rsplit("/", 1)[-1]
    by_name = _matching(_SECRET_SAMPLES, last)
    by_path = _matching(_SECRET_SAMPLES, pattern)
    nested = _matching(_SECRET_NESTED, pattern)
    if by_name or by_path or nested:
        for name, deeper in zip(_SECRET_SAMPLES, _SECRET_NESTED):
            if name in by_name or name in by_path or deeper in nested:
                return f"the git pathspec {pattern!r} matches {name}, which may hold a secret"
    return None
