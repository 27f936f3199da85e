"""The ``%agent`` sub-commands: one table, filled by ``@subcommand``, which also makes the help.

A sub-command is a function ``handler(magics, args)`` registered with its one-line summary and
examples; IPython's ``@argument`` decorators below ``@subcommand`` declare its options (the
parser is built from them, as for any IPython magic). ``%agent help`` lists the table;
``%agent help NAME`` (or ``%agent NAME --help``) shows one entry with its options. Another
module adds its own sub-command the same way, and it appears in the help at once::

    from jupyter_agenttools.jupyter.commands import argument, subcommand

    @subcommand("trust", "trust this project's settings", examples=["%agent trust"])
    @argument("--revoke", action="store_true", help="take the trust back")
    def _trust(magics, args):
        session = magics.session
        ...

With ``raw=True`` the handler gets the rest of the line as written (``%agent check`` keeps the
quotes of a shell command) and ``usage`` describes it. A handler returns what the cell shows
(or None) and raises ``UsageError`` (IPython's or the package's) for misuse: IPython prints it
as one line, without a traceback.
"""

from __future__ import annotations

import argparse
import difflib
import html
import re
import shlex
from dataclasses import dataclass, field
from typing import Any, Callable

from IPython.core.error import UsageError
from IPython.core.magic_arguments import argument, magic_arguments

from .display import Help

__all__ = ["SubCommand", "SUBCOMMANDS", "argument", "subcommand", "parse", "suggest",
           "help_overview", "help_for", "CELL_USAGE"]


@dataclass
class SubCommand:
    name: str
    summary: str
    handler: Callable[[Any, Any], Any]
    #: makes the argparse parser on first use (building the ~20 parsers and their help text
    #: at import cost `%load_ext` ~30 ms); None: a raw command without options
    parser_factory: Callable[[], Any] | None = None
    examples: tuple[str, ...] = ()
    raw: bool = False
    usage_text: str = ""
    #: shown under the options in ``%agent help NAME``
    details: str = ""
    aliases: tuple[str, ...] = field(default_factory=tuple)
    _parser: Any = field(default=None, repr=False)

    @property
    def parser(self) -> Any:
        if self._parser is None and self.parser_factory is not None:
            self._parser = self.parser_factory()
        return self._parser

    @property
    def usage(self) -> str:
        if self.usage_text:
            return self.usage_text
        parser = self.parser
        if parser is None:
            return f"%agent {self.name} ..."
        return parser.format_usage().strip().removeprefix("usage: ")


#: name -> SubCommand, in the order the help lists them
SUBCOMMANDS: dict[str, SubCommand] = {}

CELL_USAGE = "%%agent [--mode MODE] [--model MODEL] [--as NAME] [--wait]"


def subcommand(name: str, summary: str, *, examples: list[str] | tuple[str, ...] = (),
               raw: bool = False, usage: str = "", details: str = "") -> Callable:
    """Register ``%agent NAME``; put ``@argument(...)`` decorators below this one."""
    if not re.fullmatch(r"[a-z][a-z0-9-]*", name):
        raise ValueError(f"a sub-command name is a lower-case word, got {name!r}")

    def register(func: Callable) -> Callable:
        factory = None
        if not raw:
            if not hasattr(func, "decorators"):  # no @argument: a command without options
                func.decorators = []  # type: ignore[attr-defined]

            def factory() -> Any:
                magic_arguments(f"agent {name}")(func)
                parser = func.parser  # type: ignore[attr-defined]
                parser.prog = f"%agent {name}"
                parser.description = summary
                parser.formatter_class = argparse.HelpFormatter  # plain "usage: ...", not rST
                return parser

        SUBCOMMANDS[name] = SubCommand(name, summary, func, factory, tuple(examples), raw,
                                       usage, details)
        return func

    return register


def suggest(word: str, names: list[str] | tuple[str, ...]) -> str | None:
    """The name ``word`` was probably meant to be, or None."""
    word = word.lower()
    starts = [n for n in names if n.startswith(word)]
    if len(starts) == 1:
        return starts[0]
    close = difflib.get_close_matches(word, list(names), n=1, cutoff=0.6)
    return close[0] if close else None


_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)")


def parse(sub: SubCommand, line: str) -> Any:
    """The parsed options of ``%agent NAME line``; misuse raises UsageError with a hint."""
    try:
        argv = shlex.split(line)
    except ValueError as exc:
        raise UsageError(f"cannot split the arguments ({exc}): {line!r}") from None
    try:
        return sub.parser.parse_args(argv)
    except UsageError as exc:
        message = str(exc)
        m = _INVALID_CHOICE.search(message)
        if m:
            choices = [c.strip(" '") for c in m.group(2).split(",")]
            guess = suggest(m.group(1), choices)
            if guess:
                message += f"; did you mean {guess!r}?"
        raise UsageError(f"%agent {sub.name}: {message} (see %agent help {sub.name})") from None


# --- help ---------------------------------------------------------------------------------------

_OVERVIEW_HEAD = (
    "Give the agent a task in a cell that starts with %%agent; the rest of the cell is the "
    "prompt. It asks before it changes anything: answer on the card it shows in the cell.")


def help_overview() -> Help:
    """``%agent help``: what there is, one line each, with an example."""
    rows = [(s.name, s.summary, s.examples[0] if s.examples else f"%agent {s.name}")
            for s in SUBCOMMANDS.values()]
    width = max(len(r[0]) for r in rows) if rows else 4
    text = [_OVERVIEW_HEAD, "", CELL_USAGE, "    %%agent", "    Summarise data.csv and write "
            "the summary to notes/summary.md", "", "%agent SUB-COMMAND:"]
    for name, summary, example in rows:
        text.append(f"  {name.ljust(width)}  {summary}")
        text.append(f"  {' ' * width}    e.g. {example}")
    text += ["", "%agent help SUB-COMMAND shows its options, e.g. %agent help rule.",
             "Settings: %config AgentTools (mode, model, base_url, api_key_env, max_turns, "
             "backend, …); @agent_tool makes a notebook function a tool."]
    e = html.escape
    md = [e(_OVERVIEW_HEAD), "",
          "```\n%%agent\nSummarise data.csv and write the summary to notes/summary.md\n```",
          f"Options: `{CELL_USAGE.removeprefix('%%agent ')}`", "",
          "| sub-command | what | example |", "|---|---|---|"]
    for name, summary, example in rows:
        md.append(f"| `{name}` | {e(summary)} | `{example}` |")
    md += ["", "`%agent help SUB-COMMAND` shows its options, e.g. `%agent help rule`. "
           "Settings: `%config AgentTools`; `@agent_tool` makes a notebook function a tool."]
    return Help("\n".join(md), "\n".join(text))


def help_for(name: str) -> Help:
    """``%agent help NAME``: usage, options, examples."""
    if name in ("agent", "%%agent", "cell"):
        return _cell_help()
    sub = SUBCOMMANDS.get(name)
    if sub is None:
        raise unknown_subcommand(name)
    if sub.parser is not None:
        body = sub.parser.format_help().strip()
    else:
        body = f"usage: {sub.usage}\n\n{sub.summary}"
    if sub.details:
        body += "\n\n" + sub.details.strip()
    if sub.examples:
        body += "\n\nexamples:\n" + "\n".join(f"  {x}" for x in sub.examples)
    return Help(f"```\n{body}\n```", body)


def _cell_help() -> Help:
    from .magics import cell_parser

    body = cell_parser().format_help().strip()
    body += ("\n\nexamples:\n  %%agent\n  Summarise data.csv\n\n"
             "  %%agent --mode accept_edits --as tidy\n  Tidy up the notes folder")
    return Help(f"```\n{body}\n```", body)


def unknown_subcommand(word: str) -> UsageError:
    guess = suggest(word, list(SUBCOMMANDS))
    hint = f"did you mean %agent {guess}? " if guess else ""
    return UsageError(f"unknown sub-command {word!r}; {hint}%agent help lists them "
                      "(a prompt goes in a %%agent cell)")
