"""What one command does, as data: the effects the permission layer decides on.

The analysis never resolves a path, reads the file system or knows a rule: a path is the
:class:`~.words.Word` as written (``base`` — the directories a ``cd`` went through — is kept
on the command). The permission layer resolves, compares with rules, and decides.

- :class:`Access`: a path the command reads (``read`` content, ``list`` names or metadata,
  ``search`` a tree recursively), writes (``write`` creates, overwrites, appends, moves into),
  ``delete`` s or changes the permissions of (``mode``).
- :class:`Run`: code the command runs: another argv (``sudo X``, ``find -exec X``), shell
  source (``sh -c '…'``, ``eval``), code of another language (``python -c``), its standard
  input (``… | sh``) or a script file.
- ``network``: why it talks to the network; ``env``: the variables it prints or passes on
  (``*`` for the whole environment); ``secret``: why its output is a credential
  (``gh auth token``); ``system``: a machine-wide change (power, every process, cron).
- ``read_only`` with its ``reason``: every flag is known to be safe and nothing above other
  than reads happens; ``problems``: why the command cannot be analysed.
"""

from __future__ import annotations

from .words import Word

__all__ = ["Access", "Run", "Effects", "READ", "LIST", "SEARCH", "WRITE", "DELETE", "MODE",
           "ARGV", "SOURCE", "CODE", "STDIN", "SCRIPT"]

READ = "read"
LIST = "list"
SEARCH = "search"
WRITE = "write"
DELETE = "delete"
MODE = "mode"

ARGV = "argv"        # runs another argv
SOURCE = "source"    # runs shell source text (analysed in turn)
CODE = "code"        # runs code the analysis cannot read (python -c, a script, an unknown)
STDIN = "stdin"      # runs whatever arrives on its standard input
SCRIPT = "script"    # runs a file (the word names it)


class Access:
    """One path the command touches. ``recursive``: the whole tree below it; for searches
    ``hidden`` (dotfiles included) and ``follow`` (symlinks followed); ``detail`` e.g. the
    mode of a chmod."""

    __slots__ = ("kind", "word", "recursive", "hidden", "follow", "detail")

    def __init__(self, kind: str, word: Word, *, recursive: bool = False, hidden: bool = True,
                 follow: bool = False, detail: str = "") -> None:
        self.kind = kind
        self.word = word
        self.recursive = recursive
        self.hidden = hidden
        self.follow = follow
        self.detail = detail

    def __repr__(self) -> str:
        flags = "r" if self.recursive else ""
        return f"Access({self.kind}{'/' + flags if flags else ''} {self.word.text!r})"


class Run:
    """Code a command runs. ``how`` is one of ARGV, SOURCE, CODE, STDIN, SCRIPT.
    ``transparent``: the runner changes nothing about what runs (``time``, ``nice``,
    ``timeout``): the inner command counts as the command itself for rules and read-only.
    ``exact``: the runner's options were understood; when not, ``argv`` is the rest of the
    words after the runner and every suffix of it may be the command (deny rules see each)."""

    __slots__ = ("how", "argv", "source", "runner", "language", "transparent", "exact",
                 "same_shell")

    def __init__(self, how: str, runner: str, *, argv: list[Word] | None = None,
                 source: str | None = None, language: str = "", transparent: bool = False,
                 exact: bool = True, same_shell: bool = False) -> None:
        self.how = how
        self.runner = runner
        self.argv = argv
        self.source = source
        self.language = language
        self.transparent = transparent
        self.exact = exact
        self.same_shell = same_shell  # eval / source: runs in this shell (its cd counts)

    def __repr__(self) -> str:
        what = self.argv if self.argv is not None else (self.source or self.language)
        return f"Run({self.how} by {self.runner}: {what!r})"


class Effects:
    # rarely set fields default at class level: an Effects is made for every command, and
    # most commands have none of them (a plain class is quicker to build than slots)
    network = ""
    env: tuple[str, ...] = ()
    secret = ""
    system = ""
    problems: list[str] | tuple[str, ...] = ()
    cwd: Word | None = None  # `cd DIR`: where later commands run

    def __init__(self, read_only: bool, reason: str) -> None:
        self.read_only = read_only
        self.reason = reason
        self.paths: list[Access] = []
        self.runs: list[Run] = []

    def no(self, reason: str) -> "Effects":
        """Mark not read-only (the first reason is kept)."""
        if self.read_only:
            self.read_only = False
            self.reason = reason
        return self

    def add(self, kind: str, word: Word, **kw) -> None:
        self.paths.append(Access(kind, word, **kw) if kw else Access(kind, word))

    def writes(self) -> list[Access]:
        return [a for a in self.paths if a.kind in (WRITE, DELETE, MODE)]

    def __repr__(self) -> str:
        return (f"Effects(read_only={self.read_only}, {self.reason!r}, paths={self.paths}, "
                f"runs={self.runs}, network={self.network!r})")
