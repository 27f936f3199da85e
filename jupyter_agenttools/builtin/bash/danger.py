"""Dangerous operations, judged on the effects of every command (those run by ``sudo``,
``xargs``, ``find -exec``, ``sh -c``, ``eval`` included).

DENY (catastrophic, never run): recursive removal of ``/``, ``~``, a top-level system
directory or a directory holding the home directory (also by ``find -delete``), a fork bomb.
Safety ASK: recursive removal of ``.``/``..``/``.git``/a working-directory ancestor/``*``/a
target decided at run time, writes to disk devices, disk tools, ``chmod -R 777``, recursive
permission changes of system directories, power and every-process signals, cron, code
downloaded and run, and secrets sent over the network.

Every directory the command may be in counts (each ``cd`` before it may have happened or
not); the worst finding wins.
"""

from __future__ import annotations

import os
from functools import lru_cache

from ...shell.effects import CODE, DELETE, MODE, READ, SCRIPT, SOURCE, STDIN, WRITE, Effects
from ...shell.programs import DOWNLOADERS, program_name
from ...shell.syntax import Command
from ...shell.words import GLOB, Word
from .plan import NETWORK, PATHS, SYSTEM, Plan, home_secret_dirs
from .secrets import secret_word, secrets_of

__all__ = ["DENY", "ASK", "danger"]

DENY = "deny"
ASK = "ask"
Danger = tuple[str, str]

# Recursive removal of these (or `/`, `~`) is refused outright.
SYSTEM_DIRS = frozenset({
    "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32", "/media",
    "/mnt", "/opt", "/proc", "/root", "/run", "/sbin", "/srv", "/sys", "/usr", "/var", "/snap",
    "/Users", "/System", "/Library", "/Applications", "/private", "/Volumes", "/usr/bin",
    "/usr/lib", "/usr/local", "/usr/share", "/usr/sbin", "/var/lib", "/var/log",
})
_BLOCK_PREFIXES = ("sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-",
                   "mapper/", "loop", "sr")
_BLOCK_EXACT = frozenset({"mem", "kmem", "port"})


def is_block_device(path: str) -> bool:
    if not path.startswith("/dev/"):
        return False
    rest = path[5:]
    if rest in _BLOCK_EXACT:
        return True
    if rest.startswith("fd") and rest[2:3].isdigit():
        return True
    return rest.startswith(_BLOCK_PREFIXES)


def target_danger(word: Word, plan: Plan, command: Command, what: str) -> Danger | None:
    """How bad it is to destroy (recursively) what ``word`` names."""
    home = plan.home.rstrip("/") or "/"
    value = word.value
    if value is None:
        return (ASK, f"{what} of {word.text!r}: a target decided at run time may be empty "
                     "or point anywhere")
    if word.kind == GLOB:
        head, slash, segment = value.rpartition("/")
        if any(ch in head for ch in "*?["):
            return (ASK, f"{what} of the glob {value!r} spans directories")
        if segment.startswith(".") and any(ch in segment for ch in "*?["):
            return (ASK, f"{what} of {value!r} may include '..' on older shells")
        where = head if slash else "."
        if value.startswith("/") and not head:
            where = "/"
        found = target_danger(Word(where, where, tilde=word.tilde), plan, command, what)
        if found:
            return found
        if where == "." and segment in ("*", "**"):
            return (ASK, f"{what} of {value!r}: everything in the working directory")
        return None
    paths = plan.paths(word, command)
    if paths is None:
        return (ASK, f"{what} of {value!r} in a directory decided at run time")
    bases = plan.bases(command) or (plan.cwd,)
    worst: Danger | None = None
    for p in paths:  # every directory the command may run in: the worst finding wins
        for q in {p, plan.realpath(p)}:
            found = _place_danger(q, home, bases, plan, what)
            if found is not None:
                if found[0] == DENY:
                    return found
                worst = worst or found
    return worst


def _place_danger(q: str, home: str, bases: tuple[str, ...], plan: Plan,
                  what: str) -> Danger | None:
    if q == "/" or q == home:
        return (DENY, f"{what} of {q}: the whole " +
                ("file system" if q == "/" else "home directory"))
    if q in SYSTEM_DIRS:
        return (DENY, f"{what} of the system directory {q}")
    if os.path.dirname(q) == "/":
        return (ASK, f"{what} of the top-level directory {q}")
    # below(c, q) for each place c: c is q or lies under it
    under = q.rstrip("/") + "/"
    cwd = plan.cwd
    if cwd == q or cwd.startswith(under) or any(c == q or c.startswith(under) for c in bases):
        return (ASK, f"{what} of {q}: the working directory or one of its parents")
    if home.startswith(under):  # (home == q was refused above)
        return (DENY, f"{what} of {q}, which contains your home directory")
    if os.path.basename(q) == ".git" or "/.git/" in q:
        return (ASK, f"{what} of {q}: the repository's history")
    if ("/" + q.split("/", 2)[1]) in SYSTEM_DIRS and not q.startswith(home + "/"):
        return (ASK, f"{what} in the system directory {q}")
    dirs, inside = _secret_places(home)
    if q in dirs or q.startswith(inside):
        return (ASK, f"{what} of {q}: keys and credentials live there")
    return None


@lru_cache(maxsize=64)
def _secret_places(home: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The key directories of ``home`` and their prefixes: ``below(q, d)`` for any of them is
    ``q in dirs or q.startswith(prefixes)``."""
    dirs = [d for _name, d in home_secret_dirs(home)]
    return frozenset(dirs), tuple(d.rstrip("/") + "/" for d in dirs)


def _world_writable(mode: str) -> bool:
    """``chmod`` modes that let everyone write: octal ending in 2/3/6/7 for others, or a
    symbolic ``a+w``/``o+w``/``+w``/``o=…w``."""
    if mode.isdigit() and 3 <= len(mode) <= 4 and all(c in "01234567" for c in mode):
        return mode[-1] in "2367"
    for clause in mode.split(","):
        rest = clause.lstrip("ugoa")  # one C call: a 100 kB mode word stays cheap
        who = clause[:len(clause) - len(rest)]
        if not rest or rest[0] not in "+=":
            continue
        if "w" in rest and (not who or "a" in who or "o" in who):
            return True
    return False


def _chmod_777(mode: str) -> bool:
    return mode.isdigit() and mode.endswith("777") and len(mode) in (3, 4)


def _access_danger(plan: Plan, command: Command, e: Effects) -> Danger | None:
    worst: Danger | None = None
    name: str | None = None
    named = False  # the program name, looked up for the first chmod or write
    for access in e.paths:
        kind = access.kind
        found: Danger | None = None
        if (kind == MODE or kind == WRITE) and not named:
            name = program_name(command.argv[0]) if command.argv else None
            named = True
        if kind == DELETE and access.recursive:
            if access.detail == "find -delete":
                found = target_danger(access.word, plan, command, "find -delete")
                if found and found[0] != DENY:
                    found = None  # `find . -name '*.pyc' -delete` is routine
            else:
                found = target_danger(access.word, plan, command, "recursive removal")
        elif kind == MODE:
            mode = access.detail
            if access.recursive:
                if name == "chmod" and _world_writable(mode):
                    found = (ASK, f"chmod -R {mode}: makes a whole tree writable by everyone")
                else:
                    danger = target_danger(access.word, plan, command, f"recursive {name}")
                    if danger:
                        found = (ASK, danger[1])
            elif name == "chmod" and _chmod_777(mode):
                danger = target_danger(access.word, plan, command, "chmod 777")
                if danger:
                    found = (ASK, danger[1])
        elif kind == WRITE:
            value = access.word.value
            if value is None and name == "dd":
                found = (ASK, "dd writes to a target decided at run time")
            elif value is not None and is_block_device(value):
                found = (ASK, f"writes to the device {value}")
            elif value is not None and name == "dd" and value.startswith("/dev/") and \
                    value not in ("/dev/null", "/dev/stdout", "/dev/stderr"):
                found = (ASK, f"dd writes the raw device {value}")
        if found is not None:
            if found[0] == DENY:
                return found
            worst = worst or found
    return worst


def _runs_code(e: Effects | None) -> bool:
    return e is not None and any(r.how in (STDIN, SOURCE, CODE, SCRIPT) for r in e.runs)


def _runs_stdin(plan: Plan, command: Command) -> bool:
    """Does this command (or what it runs, for wrappers) run what arrives on stdin?"""
    todo = [command]
    seen = 0
    records = plan.analysis.records
    while todo and seen < 64:
        c = todo.pop()
        seen += 1
        e = c.effects
        if e is None:
            continue
        if any(r.how == STDIN for r in e.runs):
            return True
        todo.extend(records[k] for k in c.children if records[k].via == c.index)
    return False


def _downloader(plan: Plan, command: Command) -> str | None:
    """The downloader this command is or runs through wrappers (``nohup curl``)."""
    records = plan.analysis.records
    todo = [command]
    seen = 0
    while todo and seen < 64:
        c = todo.pop()
        seen += 1
        name = program_name(c.argv[0]) if c.argv else None
        if name in DOWNLOADERS:
            return name
        todo.extend(records[k] for k in c.children if records[k].via == c.index)
    return None


def _download_exec(plan: Plan) -> str | None:
    records = plan.analysis.records
    # a) downloader | … | something running its stdin
    pipes: dict[int, list[Command]] = {}
    for c in records:
        if c.pipeline is not None:
            pipes.setdefault(c.pipeline[0], []).append(c)
    for members in pipes.values():
        members.sort(key=lambda c: c.pipeline[1])  # type: ignore[index]
        seen = None
        for c in members:
            here = _downloader(plan, c)
            seen = seen or here
            if seen and not here and _runs_stdin(plan, c):
                name = c.argv[0].value if c.argv else "?"
                return f"downloads with {seen} and pipes it into {name}: runs code from the " \
                       "network"
    # b) a download inside the words of a command that runs code: bash <(curl …),
    #    sh -c "$(curl …)", eval "$(curl …)"
    for c in records:
        name = _downloader(plan, c)
        if name is None:
            continue
        parent = c.parent
        hops = 0
        while parent is not None and hops < 1000:
            hops += 1
            holder = records[parent]
            if _runs_code(holder.effects) or any(_runs_code(records[k].effects)
                                                 for k in holder.children):
                runner = holder.argv[0].value if holder.argv else "?"
                return f"runs code downloaded by {name} with {runner}"
            parent = holder.parent
    # c) download to a file, then run that file
    outputs: set[str] = set()
    for c in records:
        if _downloader(plan, c) and c.effects is not None:
            for access in c.effects.paths:
                if access.kind == WRITE and access.word.value:
                    v = access.word.value
                    outputs.add(v[2:] if v.startswith("./") else v)
            continue
        if not outputs or not c.argv:
            continue
        candidates = [c.argv[0].value or ""]
        e = c.effects
        if e is not None:
            for r in e.runs:
                if r.how == SCRIPT and r.argv:
                    candidates.append(r.argv[0].value or "")
            if (program_name(c.argv[0]) or "") == "chmod":
                candidates += [w.value or "" for w in c.argv[1:]]
        for t in candidates:
            tn = t[2:] if t.startswith("./") else t
            if tn in outputs:
                return f"downloads {tn} and then runs it"
    return None


def _exfiltration(plan: Plan) -> str | None:
    """A secret read (or printed by another command) while something talks to the network."""
    records = plan.analysis.records
    net = [c for c in records if c.effects is not None and c.effects.network]
    if not net:
        return None
    name = net[0].argv[0].value if net[0].argv else "?"
    for c in records:
        e = c.effects
        if e is None:
            continue
        found = secrets_of(plan, c)
        if not found:
            continue
        printed = [f for f in found if f[0] == e.secret]
        read = [f for f in found if f[0] != e.secret]
        if read:
            return f"sends data over the network ({name}) while reading a secret: {read[0][0]}"
        if printed and any(n is not c for n in net):
            other = next(n for n in net if n is not c)
            what = other.argv[0].value if other.argv else "?"
            return f"{printed[0][0]}, with {what} in the same command"
    for c in net:
        e = c.effects
        if e is None:
            continue
        for access in e.paths:
            if access.kind == READ:
                hit = secret_word(access.word, plan, c, precise=False)
                if hit:
                    return f"sends {access.word.value} with {c.argv[0].value}: {hit[0]}"
    return None


def danger(plan: Plan) -> Danger | None:
    """The worst dangerous operation of the command, or None."""
    if plan.analysis.fork_bomb:
        return (DENY, "a fork bomb")
    traits = plan.bits
    if not traits & (PATHS | SYSTEM | NETWORK):
        return None
    worst: Danger | None = None
    # only commands with paths or a system change can be dangerous themselves
    for command in plan.analysis.records if traits & SYSTEM else plan.with_paths:
        e = command.effects
        if e is None:
            continue
        found = _access_danger(plan, command, e) if e.paths else None
        if found is None and e.system:
            found = (ASK, e.system)
        if found is not None:
            if found[0] == DENY:
                return found
            worst = worst or found
    if worst:
        return worst
    if not traits & NETWORK:
        return None
    why = _download_exec(plan)
    if why:
        return (ASK, why)
    why = _exfiltration(plan)
    if why:
        return (ASK, why)
    return None
