"""The one path resolver: a word as a tool or a shell wrote it → the file the kernel would use.

Kernel semantics (``namei``): the path is walked component by component from ``/``; a component
that is a symlink is replaced by its target *before* the next component is applied, so ``..``
after a symlink goes to the parent of the link's *target* (``keys/..`` with ``keys -> ~/.ssh``
is ``~``, not the cwd). At most :data:`MAX_LINKS` symlinks are followed (the kernel's ELOOP
bound); a loop stops the walk and the result says so. A component that does not exist ends the
resolution: the rest is appended as written (after ``.``/``..`` tidying), as for a file about
to be created.

A *word* becomes an absolute path first: ``~`` and ``~/x`` against the home, ``~user`` through
the user table, a relative word against the directory a shell ``cd``'d to (the ``base`` words,
applied in order to the cwd the way bash's ``cd`` does by default: logically, ``..`` removing the
previous component of the spelling; the kernel's cwd is then the physical form of that). A
leading ``//`` is ``/``.

This module uses nothing but the standard library and takes every file-system fact through a
``readlink(path) -> target | None`` callable, so the same code runs here (on ``os.readlink``),
inside a remote kernel (its source text is sent there by the backends: :func:`gather_facts` is
its entry point) and on prefetched answers (the facts a remote kernel sent back). Keep it that
way: no imports from the package, no module-level state.
"""

import fnmatch as _fnmatch
import os as _os
import stat as _stat

MAX_LINKS = 40  # Linux's MAXSYMLINKS: the 41st link in one walk is ELOOP
MAX_LISTING = 2000  # names returned per listed directory (glob expansion)
MAX_MATCHES = 500  # paths one glob word may expand to before it counts as "too many"
_GLOB_CHARS = "*?["


def split_components(path):
    """The non-empty components of ``path`` ("." dropped, ".." kept)."""
    return [c for c in path.split("/") if c and c != "."]


def lexical_join(directory, word):
    """``word`` joined to the absolute ``directory`` and tidied lexically (``..`` removes the
    previous component, never above ``/``): what bash's logical ``cd`` does."""
    if word.startswith("/"):
        if "/." not in word and "//" not in word and not word.endswith("/"):
            return word  # no ".", "..", empty or trailing component: already its tidy form
        parts = []
    else:
        parts = split_components(directory)
    for c in split_components(word):
        if c == "..":
            if parts:
                parts.pop()
        else:
            parts.append(c)
    return "/" + "/".join(parts)


def resolve(path, readlink, follow_last=True):
    """``(physical, status)`` of the absolute ``path``: status "ok", or "loop" when more than
    MAX_LINKS symlinks were met (then ``physical`` is where the walk stopped, plus the rest).

    ``follow_last=False`` keeps a final symlink itself (``rm link``, ``mv link x`` act on the
    link); a trailing "/" always follows it, as the kernel does."""
    if not path.startswith("/"):
        raise ValueError(f"resolve() needs an absolute path, got {path!r}")
    pending = split_components(path)
    if path.endswith("/") and pending:
        follow_last = True
    pending.reverse()  # the next component is the last item
    current, _, status = walk("", 0, pending, readlink, follow_last)
    return current or "/", status


def walk(current, links, pending, readlink, follow_last=True):
    """The walk of :func:`resolve` from a state: ``current`` the physical path so far ("" is
    "/"; no symlink in it), ``links`` the symlinks followed to get there, ``pending`` the
    components still to walk, the next one last (the list is consumed). Returns ``(current,
    links, status)``; the state after a directory's components is the state the walk of any
    path below it passes through, so a caller may keep it and walk only the rest."""
    while pending:
        name = pending.pop()
        if name == "..":
            current = current[: current.rfind("/")]  # "/" stays "/"
            continue
        candidate = current + "/" + name
        if not pending and not follow_last:
            current = candidate
            break
        target = readlink(candidate)
        if target is None:
            current = candidate
            continue
        links += 1
        if links > MAX_LINKS:
            return candidate + "".join("/" + c for c in reversed(pending)), links, "loop"
        if target.startswith("/"):
            current = ""
        pending.extend(reversed(split_components(target)))
    return current, links, "ok"


def expand_word(word, home, users):
    """``~``, ``~/x``, ``~user``/``~user/x`` expanded; None when ``~user`` is unknown (then the
    word is a relative name, as for the shell)."""
    if word == "~" or word.startswith("~/"):
        return home.rstrip("/") + word[1:]
    if word.startswith("~"):
        name, slash, rest = word[1:].partition("/")
        found = users.get(name)
        if found is None:
            return None
        return found.rstrip("/") + (slash + rest if slash else "")
    return word


def shell_cwd(cwd, base, home, users, readlink):
    """The physical directory a shell is in after ``cd`` through the ``base`` words (bash's
    logical ``cd``: ``..`` is lexical on the spelling), or None when a word cannot be known
    (``cd -``, ``cd ~unknown``)."""
    logical = cwd
    for word in base:
        if word in ("", "~"):
            logical = home
            continue
        if word == "-":
            return None
        expanded = expand_word(word, home, users)
        if expanded is None:
            expanded = word
        logical = lexical_join(logical, expanded)
    return resolve(logical, readlink)[0]


def locate(word, base, cwd, home, users, readlink):
    """The absolute, *unresolved* spelling of ``word`` (``..`` kept for :func:`resolve`), or
    None when it is relative and ``base`` is None (unknown at analysis time)."""
    expanded = expand_word(word, home, users)
    if expanded is None:
        expanded = word
    if expanded.startswith("/"):
        return "/" + expanded.lstrip("/") if expanded.startswith("//") else expanded
    if base is None:
        return None
    directory = shell_cwd(cwd, base, home, users, readlink) if base else cwd
    if directory is None:
        return None
    return directory.rstrip("/") + "/" + expanded


def has_glob(component):
    return any(c in component for c in _GLOB_CHARS)


def expand_glob(pattern, readlink, listdir):
    """``(matches, complete)``: the absolute paths the unresolved absolute ``pattern`` expands to
    the way bash does (each component with ``*``, ``?`` or ``[`` matched against the names of
    the directory reached so far; a leading ``.`` only by a pattern starting with ``.``), and
    False when a directory could not be listed or there were more than MAX_MATCHES. No match:
    ``[]`` (bash then passes the word as it is written). ``listdir(dir)`` returns the names or
    None."""
    parts = [c for c in pattern.split("/") if c]
    found = ["/"]
    complete = True
    for part in parts:
        nxt = []
        if not has_glob(part):
            nxt = [d.rstrip("/") + "/" + part for d in found]
        else:
            for d in found:
                names = listdir(resolve(d, readlink)[0])
                if names is None:
                    complete = False
                    continue
                for name in names:
                    if name.startswith(".") and not part.startswith("."):
                        continue
                    if _fnmatch.fnmatchcase(name, part):
                        nxt.append(d.rstrip("/") + "/" + name)
        if len(nxt) > MAX_MATCHES:
            return nxt[:MAX_MATCHES], False
        found = nxt
        if not found:
            break
    return found, complete


def user_names(words, base_lists):
    """The ``~user`` names a request mentions (so a remote side can expand them)."""
    names = set()
    for w in list(words) + [b for bases in base_lists if bases for b in bases]:
        if w.startswith("~") and not w.startswith("~/") and w != "~":
            names.add(w[1:].partition("/")[0])
    return sorted(names)


def gather_facts(requests, directories=(), listings=(), cwd=None):
    """Everything a permission decision needs to know about this machine's files, in one call.

    ``requests``: ``[[word, base or None, follow_last, glob], …]``; ``directories``: absolute
    or ``~`` paths to resolve (working directories, rule prefixes); ``listings``: absolute
    directories whose names are wanted. Runs the resolver here with a ``readlink`` (and a
    ``listdir``) that record every answer, so the caller replays the same walk on the recorded
    tables. JSON-able answer."""
    cwd = cwd or _os.getcwd()
    home = _os.path.expanduser("~")
    words = [r[0] for r in requests] + list(directories)
    users: dict = {}
    for name in user_names(words, [r[1] for r in requests]):
        expanded = _os.path.expanduser("~" + name)
        if not expanded.startswith("~"):
            users[name] = expanded
    links: dict = {}

    def readlink(p):
        if p in links:
            return links[p]
        target = None
        try:
            target = _os.readlink(p)
        except (OSError, ValueError):
            pass
        links[p] = target
        return target

    kinds: dict = {}

    def kind(p):
        if p not in kinds:
            try:
                mode = _os.stat(p).st_mode
                kinds[p] = "dir" if _stat.S_ISDIR(mode) else "file"
            except (OSError, ValueError):
                kinds[p] = None
        return kinds[p]

    listed: dict = {}

    def listdir(d):
        if d not in listed:
            try:
                listed[d] = sorted(_os.listdir(d))[:MAX_LISTING]
            except (OSError, ValueError):
                listed[d] = None
        return listed[d]

    def visit(absolute, follow_last):
        physical = resolve(absolute, readlink, follow_last)[0]
        kind(physical)
        kind(physical.rsplit("/", 1)[0] or "/")

    for request in requests:
        word, base, follow_last = request[0], request[1], request[2]
        glob = len(request) > 3 and request[3]
        absolute = locate(word, base, cwd, home, users, readlink)
        if absolute is None:
            continue
        visit(absolute, follow_last)
        if glob:
            for match in expand_glob(absolute, readlink, listdir)[0]:
                visit(match, follow_last)
    for d in directories:
        absolute = locate(d, (), cwd, home, users, readlink)
        if absolute is not None:
            visit(absolute, True)
    for d in listings:
        listdir(d)
    return {"cwd": cwd, "home": home, "users": users, "links": links, "kinds": kinds,
            "listings": listed}
