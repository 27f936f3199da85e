"""What a ``git config`` write changes: which file, and whether the key can run code.

Writing a git configuration file is, as a whole, writing a file that runs code later (aliases,
``core.fsmonitor``, ``core.hooksPath``, diff drivers, credential helpers…: the permission
layer's ``later`` entries for ``.git/**`` and ``~/.gitconfig``). Most keys are data though: a
name, a colour, a branch. A write of a key of :data:`DATA_KEYS` (an allow-list, a reason each)
to the repository's own config is reported as a plain change of the repository (not read-only,
no path: ``.git/config`` is not flagged as planting code); every other key, a key the analysis
cannot read literally, an option it does not know, ``--edit`` (runs the editor, any key) and
``--rename-section`` still report a write of the config file, which the permission layer asks
about in every mode. ``--global``/``--system``/``--file`` writes report the file they write
(``~/.gitconfig``, ``/etc/gitconfig``, the named file) whatever the key.

Git keys are ``section[.subsection].variable``: section and variable are case-insensitive,
the subsection (a branch or remote name) is anything and may hold dots, so a key is matched on
its first and last components (``remote.x.vcs.url`` is the ``url`` of remote ``x.vcs``).
"""

from __future__ import annotations

from ..effects import WRITE, Effects
from ..words import LITERAL, Word, literal

__all__ = ["DATA_KEYS", "data_key_reason", "config_write"]

_ANY = "*"

#: (section, subsection: "" none / "*" any, variable) -> why the value is data, not code.
#: Left out on purpose (they run code or redirect what git runs): core.* (fsmonitor, hooksPath,
#: sshCommand, pager, editor, askPass), alias.*, include*/includeIf.*, credential.*, filter.*,
#: diff.<driver>.* and diff.external, merge.<driver>.driver, gpg.*, sequence.editor, *.command,
#: uploadpack.*, url.*.insteadOf, remote.*.receivepack/uploadpack/vcs/proxy, protocol.*,
#: http.*, init.templateDir, commit.template, help.autocorrect (runs a guessed command, an
#: alias included), format.pretty/pretty.* and log.showSignature (%G and signatures run gpg),
#: commit.gpgSign/tag.gpgSign (run gpg.program), pull.twohead (a merge strategy is a program).
DATA_KEYS: dict[tuple[str, str, str], str] = {
    ("user", "", "name"): "the author name",
    ("user", "", "email"): "the author email",
    ("user", "", "signingkey"): "names a key; the program that signs is gpg.program (not "
                                "allowed)",
    ("user", "", "useconfigonly"): "a boolean",
    ("author", "", "name"): "the author name",
    ("author", "", "email"): "the author email",
    ("committer", "", "name"): "the committer name",
    ("committer", "", "email"): "the committer email",
    ("init", "", "defaultbranch"): "a branch name",
    ("color", "", _ANY): "a colour or a boolean",
    ("color", _ANY, _ANY): "a colour (color.diff.meta…)",
    ("advice", "", _ANY): "a boolean hint switch",
    ("pull", "", "rebase"): "a boolean or merges/interactive",
    ("pull", "", "ff"): "a boolean or only",
    ("push", "", "default"): "a push mode name",
    ("push", "", "autosetupremote"): "a boolean",
    ("push", "", "followtags"): "a boolean",
    ("fetch", "", "prune"): "a boolean",
    ("fetch", "", "prunetags"): "a boolean",
    ("merge", "", "ff"): "a boolean or only",
    ("merge", "", "conflictstyle"): "a style name",
    ("rebase", "", "autostash"): "a boolean",
    ("rebase", "", "autosquash"): "a boolean",
    ("rebase", "", "updaterefs"): "a boolean",
    ("branch", "", "autosetupmerge"): "a boolean or always/inherit/simple",
    ("branch", "", "autosetuprebase"): "a mode name",
    ("branch", "", "sort"): "a sort key",
    ("branch", _ANY, "remote"): "the remote a branch tracks (a name)",
    ("branch", _ANY, "merge"): "the ref a branch tracks",
    ("branch", _ANY, "pushremote"): "a remote name",
    ("branch", _ANY, "rebase"): "a boolean or merges/interactive",
    ("branch", _ANY, "description"): "text",
    ("remote", "", "pushdefault"): "a remote name",
    # a URL is where git fetches from; a `<transport>::` URL runs the git-remote-<transport>
    # helper (ext:: any command, once protocol.ext.allow permits it): _URL_VARIABLES checks
    ("remote", _ANY, "url"): "a URL (no <transport>:: helper)",
    ("remote", _ANY, "pushurl"): "a URL (no <transport>:: helper)",
    ("remote", _ANY, "fetch"): "a refspec",
    ("remote", _ANY, "push"): "a refspec",
    ("remote", _ANY, "tagopt"): "--tags or --no-tags",
    ("remote", _ANY, "prune"): "a boolean",
    ("remote", _ANY, "prunetags"): "a boolean",
    ("log", "", "date"): "a date format name",
    ("log", "", "decorate"): "a boolean or short/full",
    ("log", "", "abbrevcommit"): "a boolean",
    ("log", "", "follow"): "a boolean",
    ("status", "", "short"): "a boolean",
    ("status", "", "branch"): "a boolean",
    ("status", "", "showuntrackedfiles"): "no/normal/all",
    ("status", "", "relativepaths"): "a boolean",
    ("status", "", "aheadbehind"): "a boolean",
    ("status", "", "showstash"): "a boolean",
    ("diff", "", "renames"): "a boolean or copies",
    ("diff", "", "algorithm"): "an algorithm name",
    ("diff", "", "colormoved"): "a mode name",
    ("diff", "", "noprefix"): "a boolean",
    ("diff", "", "mnemonicprefix"): "a boolean",
    ("commit", "", "verbose"): "a boolean",
    ("tag", "", "sort"): "a sort key",
    ("column", "", "ui"): "layout words",
    ("rerere", "", "enabled"): "a boolean",
    ("rerere", "", "autoupdate"): "a boolean",
}
_URL_VARIABLES = frozenset({"url", "pushurl"})
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")


def data_key_reason(key: str, value: str | None) -> str | None:
    """Why setting ``key`` (to ``value``: None when unset) runs no code, or None."""
    first, dot, rest = key.partition(".")
    if not dot or "\n" in key or "\x00" in key:
        return None
    middle, _, variable = rest.rpartition(".")
    section, variable = first.lower(), variable.lower()
    if not section or not variable or not variable[0].isalpha() \
            or not set(section) <= _NAME_CHARS or not set(variable) <= _NAME_CHARS:
        return None  # git refuses such a key; not worth reasoning about
    subsection = _ANY if middle else ""
    reason = DATA_KEYS.get((section, subsection, variable)) \
        or DATA_KEYS.get((section, subsection, _ANY))
    if reason is None:
        return None
    if section == "remote" and variable in _URL_VARIABLES and value is not None \
            and ("::" in value or value.startswith("-")):
        return None
    return f"{key}: {reason}"


# options that take no value and change neither the action nor the file
_FLAGS = frozenset({"--bool", "--int", "--bool-or-int", "--path", "--expiry-date", "--no-type",
                    "--fixed-value", "--includes", "--no-includes", "-z", "--null",
                    "--append", "--all", "--show-origin", "--show-scope", "--name-only",
                    "--bool-or-str"})
_VALUED = frozenset({"--type", "-t", "--comment", "--value", "--default"})
_HOME_CONFIG = Word("~/.gitconfig", "~/.gitconfig", LITERAL, tilde=True)
_SCOPES = {"--global": "~/.gitconfig", "--system": "/etc/gitconfig", "--local": "",
           "--worktree": ""}
# the actions (classic option spelling and the sub-command one of git 2.46)
_SUB_COMMANDS = frozenset({"set", "unset", "get", "list", "edit", "rename-section",
                           "remove-section"})
_SETS = frozenset({"--add", "--replace-all", "set"})
_UNSETS = frozenset({"--unset", "--unset-all", "unset"})
_READS = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l",
                    "list", "get", "--get-color", "--get-colorbool", "--blob"})
_ACTIONS = _SETS | _UNSETS | _READS


def config_write(words: list[Word], repository: Word, effects: Effects) -> None:
    """Report the write a ``git config`` (``words``: its arguments) makes: nothing for a read
    (the caller judged it), not read-only without a path for a data key set in the repository's
    config, else not read-only and a write of the file (see the module docstring)."""
    target: Word | None = None  # None: the repository's own config
    action = ""
    operands: list[Word] = []
    understood = True
    i, count = 0, len(words)
    while i < count:
        word = words[i]
        value = word.value
        if word.kind != LITERAL or value is None:
            understood = False
            break
        name, eq, attached = value.partition("=")
        if value == "--":
            operands.extend(words[i + 1:])
            break
        # the classic form stops at the first operand (`git config k --global` sets k to the
        # text "--global"); the sub-command form (git 2.46) takes options anywhere: not
        # modelled, an option after an operand there is not understood
        if operands or not value.startswith("-"):
            if not operands and not action and value in _SUB_COMMANDS:
                action = value
            elif action in _SUB_COMMANDS and value.startswith("-"):
                understood = False
                break
            else:
                operands.append(word)
            i += 1
            continue
        if name in _SCOPES and not eq:
            where = _SCOPES[name]
            target = None if not where else _HOME_CONFIG if where[0] == "~" else literal(where)
        elif name == "--file" or (name == "-f" and not eq):
            file_word = literal(attached) if eq else (words[i + 1] if i + 1 < count else None)
            i += 0 if eq else 1
            if file_word is None or file_word.kind != LITERAL or file_word.value in ("", "-"):
                understood = False
                break
            target = file_word
        elif name in _VALUED:
            i += 0 if eq else 1
        elif name in _FLAGS and not eq:
            pass
        elif name in _ACTIONS and not eq and not action:
            action = name
        else:
            understood = False  # --edit, --rename-section, an option not known here
            break
        i += 1
    local = target is None
    if target is None:
        where = (repository.value or ".").rstrip("/") or "/"
        target = literal(".git/config" if where == "." else where + "/.git/config")
    if action in _READS or (understood and not action and len(operands) < 2):
        return  # a read (`git config KEY` prints it): nothing written
    effects.no("git config writes configuration")
    if any(word.kind != LITERAL for word in operands):
        understood = False
    values = [word.value or "" for word in operands]
    key, value = "", None
    if action in _UNSETS and values:
        key = values[0]
    elif action in _SETS or not action:
        key, value = (values[0], values[1]) if len(values) >= 2 else ("", None)
    reason = data_key_reason(key, value) if understood and key else None
    if reason is None or not local:
        effects.add(WRITE, target)
        return
    effects.reason = f"git config writes a setting that runs no code ({reason})"
