"""``analyze(command)``: one parse, one walk, and the effects of every command in it.

The result, :class:`ShellAnalysis`, lists every command — those written in the text (also
inside ``$( )``, ``<( )``, subshells, loops, functions and here-documents) and those *run by*
other commands (``sudo X``, ``find -exec X``, ``sh -c '…'``, ``eval``, a here-document or an
``echo '…' |`` fed to a shell) — each a :class:`~.syntax.Command` with its
:class:`~.effects.Effects` and whether it, and everything it runs, only reads. No path is
resolved, no file is read, no rule or mode is known here.

Budgets are explicit: at most ``MAX_DEPTH`` levels of code running code, ``MAX_COMMANDS``
commands, ``MAX_WORDS`` words, ``MAX_INNER_CHARS`` characters of inner source parsed,
``MAX_SUFFIX_WORDS`` words after a wrapper whose options were not understood, and before
parsing ``MAX_EXPANSIONS`` ``$``/backquotes (``MAX_HEREDOC_LINE_EXPANSIONS`` on one line when an
unquoted here-document is present: tree-sitter-bash's scanner is quadratic there) and
``MAX_SEPARATORS`` command separators and ``MAX_GROUPS`` parentheses. A command over budget
is ``too_complex``: the permission layer never allows it. Everything is linear in the length
of the command.
"""

from __future__ import annotations

import re

from .effects import ARGV, READ, SOURCE, STDIN, WRITE, Effects
from .environment import harmless_assignment
from .fastpath import EXPANDS_UNQUOTED, plain_command_list
from .programs import classify, known_programs, program_name, secret_printer
from .programs.base import maybe_reads
from .programs.hooks import rebound_names, rebound_run
from .rebinding import (
    TooManyValues,
    apply_assigned_values,
    apply_home_rebinding,
    home_rebinding,
)
from .syntax import (
    EXPANSION_REASON,
    IN_INNER,
    UNQUOTED_REASON,
    Budget,
    Command,
    Source,
    Syntax,
    parse_commands,
)
from .words import DYNAMIC, LITERAL, Word
from .written import add_script_runs, written_files

__all__ = ["ShellAnalysis", "analyze", "MAX_COMMAND_CHARS", "MAX_DEPTH", "MAX_COMMANDS",
           "MAX_WORDS", "MAX_INNER_CHARS", "MAX_SUFFIX_WORDS", "MAX_EXPANSIONS",
           "MAX_HEREDOC_LINE_EXPANSIONS", "MAX_SEPARATORS", "MAX_GROUPS", "OK_OUTPUTS"]

# Above this size we don't parse at all: nobody reviews a 100 KB one-liner.
MAX_COMMAND_CHARS = 100_000
MAX_DEPTH = 6
MAX_COMMANDS = 1_000
MAX_WORDS = 10_000
MAX_INNER_CHARS = 200_000
MAX_SUFFIX_WORDS = 256
MAX_EXPANSIONS = 2_000
MAX_HEREDOC_LINE_EXPANSIONS = 200
MAX_SEPARATORS = 4 * MAX_COMMANDS
MAX_GROUPS = 2_000  # `(`: subshells, substitutions, arithmetic, function definitions

# C0/C1 controls except \t and \n, plus zero-width and bidi controls: they hide what runs.
# Planes 2-16 (rare ideographs, unassigned, tags, private use) too: tree-sitter-bash 0.25's
# scanner can crash the process on `{` or `${` followed by one of them (found by fuzzing).
_BAD_CHARS = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e"
    "\u2028\u2029\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"
    "\U0001d173-\U0001d17a\U00020000-\U0010ffff]"
)
_BAD_ASCII = re.compile("[\x00-\x08\x0b-\x1f\x7f]")  # the same, for ASCII text
_NAMES = {
    "\x00": "NUL", "\r": "carriage return", "\x1b": "escape", "\u200b": "zero-width space",
    "\u200c": "zero-width non-joiner", "\u200d": "zero-width joiner", "\u200e": "LTR mark",
    "\u200f": "RTL mark", "\u202e": "RTL override", "\u202d": "LTR override", "\ufeff": "BOM",
    "\u2066": "LTR isolate", "\u2067": "RTL isolate", "\u2068": "first strong isolate",
    "\u2069": "pop directional isolate",
}
# output redirections that write no file
OK_OUTPUTS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2"})
_PRINTERS = frozenset({"echo", "printf"})
_HERE_OPERATORS = frozenset({"<<", "<<-", "<<<"})
_INPUT_OPERATORS = frozenset({"<", "<&", "<>"})
# programs whose arguments are text, not files (no possible reads for them)
_STRING_ARGUMENTS = frozenset({
    "echo", "printf", "git", "grep", "egrep", "fgrep", "rg", "test", "[", "expr", "basename",
    "dirname", "which", "type", "command", "ssh", "sshpass", "gh", "export", "declare",
    "local", "readonly", "typeset", "unset", "alias", "true", "false", ":"})


class ShellAnalysis:
    """See the module docstring. ``commands`` are the commands written in the text;
    ``all_commands`` adds those run by other commands (``via`` set). ``reasons``: why the
    text is not provably simple; ``unanalyzable``: it could not be parsed; ``opaque``: it runs
    code no command shows; ``too_complex``: a budget was exhausted; ``cds``: the directory
    words of every ``cd`` in the order they run (a command's ``cds`` counts those before it)."""

    # flags and counts default at class level: one analysis is made per decision, and most
    # set none of them (a plain class with few attributes set is quicker to build)
    written = 0
    unanalyzable = False
    opaque = False
    too_complex = False
    background = False
    multiline = False
    fork_bomb = False
    _budget_chars = MAX_INNER_CHARS
    written_files: dict[str, list[str | None]] = {}  # (shared empty default: never changed)

    def __init__(self, command: str) -> None:
        self.command = command
        self.records: list[Command] = []
        self.heredocs: list = []
        self.reasons: list[str] = []
        self.cds: list[Word] = []
        self.budget = Budget(MAX_COMMANDS, MAX_WORDS)

    @property
    def commands(self) -> list[Command]:
        return self.records[:self.written]

    @property
    def all_commands(self) -> list[Command]:
        return self.records

    @property
    def simple(self) -> bool:
        """No reasons and analyzable: every command is a plain top-level command."""
        return not self.reasons and not self.unanalyzable

    @property
    def read_only(self) -> bool:
        """Provably only reads (secrets are the permission layer's question)."""
        if self.unanalyzable or self.reasons or self.opaque or self.too_complex or \
                not self.written:
            return False
        return all(self.records[k].read_only for k in range(self.written))

    def reason(self, text: str) -> None:
        if text not in self.reasons:
            self.reasons.append(text)

    def children(self, command: Command) -> list[Command]:
        return [self.records[k] for k in command.children]

    def __repr__(self) -> str:
        return f"ShellAnalysis({self.command[:60]!r}, {self.records!r}, reasons={self.reasons})"


def _fail(command: str, reason: str) -> ShellAnalysis:
    out = ShellAnalysis(command)
    out.unanalyzable = True
    out.opaque = True
    out.reasons.append(reason)
    return out


def _check_text(command: object) -> str | None:
    if not isinstance(command, str):
        return f"the command is not text (got {type(command).__name__})"
    if not command or command.isspace():
        return "the command is empty"
    if len(command) > MAX_COMMAND_CHARS:
        return f"the command is too long to review ({len(command):,} characters)"
    if command.isascii():
        m = _BAD_ASCII.search(command)
    else:
        try:
            command.encode("utf-8")
        except UnicodeEncodeError:
            return "the command contains invalid characters (lone surrogates)"
        m = _BAD_CHARS.search(command)
    if m:
        ch = m.group(0)
        name = _NAMES.get(ch, f"U+{ord(ch):04X}")
        return f"the command contains a hidden or control character ({name}) at offset {m.start()}"
    return None


def _over_budget(text: str) -> str | None:
    """Why ``text`` is too complex to parse at all (counted with ``str.count``, linear).
    A text of at most MAX_HEREDOC_LINE_EXPANSIONS characters is within every count."""
    if len(text) <= MAX_HEREDOC_LINE_EXPANSIONS:
        return None
    separators = text.count("|") + text.count(";") + text.count("&") + text.count("\n")
    if separators > MAX_SEPARATORS:
        return f"more than {MAX_SEPARATORS:,} command separators"
    if text.count("(") > MAX_GROUPS:
        return f"more than {MAX_GROUPS:,} parentheses"
    expansions = text.count("$") + text.count("`")
    if expansions > MAX_EXPANSIONS:
        return f"more than {MAX_EXPANSIONS:,} expansions"
    if expansions > MAX_HEREDOC_LINE_EXPANSIONS and "<<" in text:
        busiest = max(line.count("$") + line.count("`") for line in text.split("\n"))
        if busiest > MAX_HEREDOC_LINE_EXPANSIONS:
            return f"a here-document line with more than {MAX_HEREDOC_LINE_EXPANSIONS} expansions"
    return None


def analyze(command: object) -> ShellAnalysis:
    """Parse ``command`` once and describe every command in it; never raises."""
    problem = _check_text(command)
    if problem:
        return _fail(command if isinstance(command, str) else repr(command)[:200], problem)
    assert isinstance(command, str)
    try:
        out = ShellAnalysis(command)
        why = _over_budget(command)
        if why:
            out.multiline = "\n" in command.strip()
            _too_complex(out, why)
            return out
        found = plain_command_list(command, out.budget)
        if found is not None:  # the fast path: top-level commands, indices from 0
            commands, _, too_complex, expands = found
            if too_complex:
                _too_complex(out, too_complex)
            if expands:  # what the tree walk says of words that are variables
                out.reason(EXPANSION_REASON)
                if expands & EXPANDS_UNQUOTED:
                    out.reason(UNQUOTED_REASON)
            plain = not expands
            simple = True
            for index, cmd in enumerate(commands):
                cmd.index = index
                e = cmd.effects = _effects(cmd, plain=plain)
                if e.runs or e.cwd is not None:
                    simple = False
                else:
                    cmd.read_only = e.read_only  # what _finish decides for it
            out.records = commands
            out.written = len(commands)
            if _rebound_names(out) | _written_scripts(out):
                simple = False
            if not simple:  # a command runs code or changes directory
                _expand(out)
                _rebind(out)
                _finish(out)
            elif _rebind(out):
                _finish(out)
        else:
            syntax = parse_commands(command, budget=out.budget)
            out.multiline = syntax.multiline
            _absorb(out, syntax, 0)
            out.written = len(out.records)
            _rebound_names(out)
            _written_scripts(out)
            _expand(out)
            _rebind(out)
            _finish(out)
        if _fork_bomb(command):
            out.fork_bomb = True
        return out
    except RecursionError:
        return _fail(command, "the command is too deeply nested to analyse")
    except Exception as exc:  # a defect in the analysis must not become an allow
        return _fail(command, f"the command could not be analyzed ({type(exc).__name__})")


def _absorb(out: ShellAnalysis, syntax: Syntax, pipeline_offset: int,
            inner: bool = False) -> list[Command]:
    """Add the commands of ``syntax`` to ``out`` (indices re-based) with their effects. The
    syntax problems of code run by a command (``inner``) are not the command's own: that
    command is not read-only anyway, and its inner commands are still listed."""
    if syntax.too_complex:
        _too_complex(out, syntax.too_complex)
    if not inner:
        out.heredocs.extend(syntax.heredocs)
        for r in syntax.reasons:
            out.reason(r)
        if syntax.unanalyzable:
            out.unanalyzable = True
        if syntax.opaque:
            out.opaque = True
        if syntax.background:
            out.background = True
    base = len(out.records)
    added = syntax.commands
    for k, cmd in enumerate(added):
        cmd.index = base + k
        if cmd.parent is not None:
            cmd.parent += base
        if cmd.pipeline is not None:
            cmd.pipeline = (cmd.pipeline[0] + pipeline_offset, cmd.pipeline[1])
        cmd.effects = _effects(cmd)
        out.records.append(cmd)
    return added


def _rebound_names(out: ShellAnalysis) -> bool:
    """``alias ls='rm -rf ~'`` / ``hash -p /bin/rm ls``: every later command named ``ls``
    also runs what the name now stands for (programs/hooks.py). Whether one did."""
    changed = False
    names: list[tuple[str, str, bool]] = []
    for cmd in out.records:
        argv = cmd.argv
        if not argv:
            continue
        first = argv[0]
        e = cmd.effects
        hit = False
        if names and e is not None:
            for name, replacement, is_source in names:
                if name == "*" or name == first.value:
                    text = cmd.source.slice(cmd.start, cmd.end)
                    e.runs.append(rebound_run(name, replacement, is_source, argv, text))
                    hit = True
        if hit and e is not None:
            e.no(f"{first.text[:40]} may be an alias or a remembered program defined earlier "
                 "in the command")
            # the name no longer says which program runs: no allow rule for `ls` may approve
            # it (deny rules see it as any program, and what it now runs as well)
            cmd.argv = [Word(first.text, None)] + argv[1:]
            changed = True
        if first.value in ("alias", "hash"):
            names.extend(rebound_names(argv))
    return changed


def _written_scripts(out: ShellAnalysis) -> bool:
    """``echo 'rm -rf ~' > s.sh; bash s.sh``: the text of a script the command wrote is code
    the command running it runs (written.py); the commands found later by ``_expand``
    (``sudo sh s.sh``) are looked at there. Whether one was found."""
    files = out.written_files = written_files(out.records)
    added = False
    if files:
        for cmd in out.records:
            added = add_script_runs(cmd, files) or added
    return added


def _rebind(out: ShellAnalysis) -> bool:
    """Words an earlier command changes the meaning of (``HOME=/etc; rm -rf ~``): see
    rebinding.py. Whether an effect changed."""
    values = home_rebinding(out.command, out.records)
    changed = values is not None and apply_home_rebinding(out.records, values)
    if "$" in out.command:
        try:
            changed = apply_assigned_values(out.records, out.command) or changed
        except TooManyValues as exc:
            _too_complex(out, str(exc))
    return changed


def _too_complex(out: ShellAnalysis, why: str) -> None:
    out.too_complex = True
    out.reason(f"the command is too complex to analyse ({why})")


_NOT_IN_PATH = frozenset(" \t\n='\"")


def _assigned_paths(value: Word, effects: Effects) -> None:
    """The path-looking parts of a literal assignment value (bash expands ``~`` after ``=``
    and after each ``:``, as in ``LD_LIBRARY_PATH=~/a:/tmp/b``): possible reads."""
    text = value.value
    if value.kind != LITERAL or not text:
        return
    for part in text.split(":") if ":" in text else (text,):
        if not part or part[0] == "-" or any(ch in part for ch in _NOT_IN_PATH):
            continue  # an option or a command line (`NODE_OPTIONS=--require=x.js`)
        if "/" in part or part[0] in ".~" or "." in part:
            # (a Word made from the value's text: its `~` is expanded unless quoted)
            word = Word(value.text, text) if part == text else Word(part, part)
            effects.add(READ, word, detail="maybe")


def _effects(cmd: Command, plain: bool = False) -> Effects:
    """The effects of one command; ``plain``: made by the fast path (no word has variables)."""
    kind = cmd.kind
    argv = cmd.argv
    if kind == "command":
        e = classify(argv)
    elif kind in ("declaration", "unset"):
        e = Effects(False, f"{argv[0].value if argv else 'declaration'} changes the shell "
                           "environment")
        e.secret = secret_printer(argv)  # the same answer as the fast path's plain command
    elif kind == "assignment":
        e = Effects(True, "sets harmless shell variables")
    else:  # redirect
        e = Effects(True, "only redirections")
    changed = False
    for name, value in cmd.assignments:
        if not harmless_assignment(name):
            if not changed:
                e.no(f"{name}=… changes what runs or what it reads")
                changed = True
                if e.cwd is not None:
                    # `CDPATH=/etc cd x`, `HOME=/etc cd`: where cd goes is decided at run time
                    e.cwd = Word(e.cwd.text, None)
            # the library, start-up file or directory it names (`LD_PRELOAD=/tmp/x.so`,
            # `BASH_ENV=~/.ssh/id_rsa`): a possible read, seen by Read rules and key checks
            _assigned_paths(value, e)
    for r in cmd.redirects:
        target = r.target
        op = r.op
        if target is None or op in _HERE_OPERATORS:
            continue
        if (op == ">&" or op == "<&") and r.is_duplication:
            continue
        if ">" in op:  # Redirect.is_output
            if target.kind == LITERAL and target.value in OK_OUTPUTS:
                continue
            e.add(WRITE, target)
            e.no(f"redirects output to {target.text[:60]} (writes a file)")
            if op == "<>":
                e.add(READ, target)
        elif op in _INPUT_OPERATORS:  # Redirect.is_input
            e.add(READ, target)
            if target.kind == DYNAMIC:
                e.no("reads input from a file named at run time")
    if not e.read_only and argv and argv[0].value not in _STRING_ARGUMENTS:
        # a key handed to a program that changes things (`python x.py --key ~/.ssh/id_rsa`,
        # a path inside an awk or interpreter program): possible reads the permission layer
        # checks for keys and credentials
        maybe_reads(argv, e, detail="guess")
    if plain:
        return e
    variables: list[str] = []
    for w in argv:
        if w.vars:
            variables.extend(w.vars)
    if variables:
        e.env = tuple(dict.fromkeys(e.env + tuple(variables)))
    return e


def _expand(out: ShellAnalysis) -> None:
    """Follow what every command runs: inner argvs, shell source, a shell's stdin."""
    records = out.records
    for c in records:
        if c.effects is not None and c.effects.runs:
            break
    else:
        return
    pipelines = _pipeline_index(records)
    programs = known_programs()
    i = 0
    pipeline_offset = 1 + max((c.pipeline[0] for c in records if c.pipeline), default=0)
    files = out.written_files
    scripts_seen = len(records)  # the records written_scripts looked at already
    while i < len(records):
        cmd = records[i]
        i += 1
        if files and i > scripts_seen:
            add_script_runs(cmd, files)  # `sudo sh s.sh`: a script written earlier
        effects = cmd.effects
        if effects is None or not effects.runs:
            continue
        for run in effects.runs:
            if run.how == ARGV and run.argv:
                if cmd.depth >= MAX_DEPTH:
                    _too_complex(out, "commands run by commands nested too deeply")
                    return
                if run.exact:
                    _add_inner(out, cmd, run.argv)
                else:
                    argv = run.argv
                    if len(argv) > MAX_SUFFIX_WORDS:
                        _too_complex(out, f"{run.runner}'s options are not understood and "
                                          f"{len(argv)} words follow")
                        return
                    for k in range(len(argv)):
                        first = argv[k]
                        inner = _add_inner(out, cmd, argv[k:], classify_it=(
                            k == 0 or (first.kind == LITERAL and
                                       (program_name(first) or "") in programs)))
                        inner.suffix = True
            elif run.how == SOURCE and run.source is not None:
                added = _add_source(out, cmd, run.source, pipeline_offset, pipelines)
                if added < 0:
                    return
                pipeline_offset += added
            elif run.how == STDIN:
                for text in _stdin_sources(cmd, records, pipelines):
                    added = _add_source(out, cmd, text, pipeline_offset, pipelines)
                    if added < 0:
                        return
                    pipeline_offset += added
        if out.budget.exceeded:
            _too_complex(out, out.budget.exceeded)
            return


def _add_inner(out: ShellAnalysis, cmd: Command, argv: list[Word],
               classify_it: bool = True) -> Command:
    out.budget.command()
    inner = Command(argv, cmd.source, cmd.start, cmd.end, nesting=cmd.nesting | IN_INNER,
                    parent=cmd.parent, pipeline=None, via=cmd.index, depth=cmd.depth + 1)
    inner.index = len(out.records)
    inner.effects = classify(argv) if classify_it else Effects(False, "a possible command")
    cmd.children.append(inner.index)
    out.records.append(inner)
    return inner


def _add_source(out: ShellAnalysis, cmd: Command, text: str, pipeline_offset: int,
                pipelines: dict[tuple[int, int], Command]) -> int:
    """Analyse shell source run by ``cmd``; the number of pipeline ids it used (-1 when a
    budget ran out)."""
    if cmd.depth >= MAX_DEPTH:
        _too_complex(out, "shell code running shell code nested too deeply")
        return -1
    out._budget_chars -= len(text)
    if out._budget_chars < 0:
        _too_complex(out, "too much shell code inside strings")
        return -1
    if not text.strip():
        return 0
    found = plain_command_list(text, out.budget)
    if found is None:
        syntax = parse_commands(text, budget=out.budget)
    else:
        syntax = Syntax(Source(text, char_offsets=True), multiline=False)
        # the reasons of inner code are not the command's own (_absorb)
        syntax.commands, syntax.pipelines, syntax.too_complex, _ = found
    for c in syntax.commands:
        c.nesting |= cmd.nesting | IN_INNER
        c.via = cmd.index
        c.depth = cmd.depth + 1
    added = _absorb(out, syntax, pipeline_offset, inner=True)
    for c in added:
        if c.parent is None:
            cmd.children.append(c.index)
        if c.pipeline is not None:
            pipelines[c.pipeline] = c
    return syntax.pipelines


def _pipeline_index(records: list[Command]) -> dict[tuple[int, int], Command]:
    return {c.pipeline: c for c in records if c.pipeline is not None}


def _stdin_sources(cmd: Command, records: list[Command],
                   pipelines: dict[tuple[int, int], Command]) -> list[str]:
    """Shell code a shell reads on stdin: a here-document or here-string (its own or its
    wrapper's), or the static output of ``echo``/``printf`` piped into it."""
    out: list[str] = []
    holder: Command | None = cmd
    hops = 0
    while holder is not None and hops < MAX_DEPTH + 1:
        for r in holder.redirects:
            if r.op in ("<<", "<<-", "<<<") and r.target is not None and r.target.value:
                out.append(r.target.value)
        if holder.pipeline is not None and holder.pipeline[1] > 0:
            before = pipelines.get((holder.pipeline[0], holder.pipeline[1] - 1))
            if before is not None and before.argv and before.argv[0].value in _PRINTERS and \
                    len(before.argv) > 1 and all(w.kind == LITERAL for w in before.argv[1:]):
                values = [w.value for w in before.argv[1:]]
                out.append(" ".join(v or "" for v in values if v not in ("-e", "-n", "-E")))
        holder = records[holder.via] if holder.via is not None else None
        hops += 1
    return out


def _finish(out: ShellAnalysis) -> None:
    """Directory changes in order, then read-only bottom-up (children come after parents)."""
    records = out.records
    for cmd in _run_order(records):
        cmd.cds = len(out.cds)
        e = cmd.effects
        if e is not None and e.cwd is not None:
            # also a `cd` in code another command runs: `eval 'cd /'; rm -rf etc` and
            # `sh -c 'cd /; rm -rf etc'` remove /etc. One in a child shell does not reach the
            # commands after that shell, but each `cd` counts as maybe done: more places, never
            # fewer
            out.cds.append(e.cwd)
    for cmd in reversed(records):
        e = cmd.effects
        read_only = e is not None and e.read_only
        if e is not None and read_only and e.runs:
            for run in e.runs:
                if run.how != ARGV or not run.exact:
                    read_only = False
                    break
            if read_only:
                read_only = all(records[k].read_only for k in cmd.children)
        cmd.read_only = read_only


def _run_order(records: list[Command]) -> list[Command]:
    """The records in the order they run: the commands a command runs (appended to the
    records after every written command) come right after it, before the next one."""
    if all(cmd.via is None for cmd in records):
        return records
    keys: list[tuple[int, ...]] = []
    for cmd in records:  # a runner always comes before what it runs
        keys.append((cmd.index,) if cmd.via is None else keys[cmd.via] + (cmd.index,))
    return [records[k] for k in sorted(range(len(records)), key=keys.__getitem__)]


def _fork_bomb(text: str) -> bool:
    """``f(){ f|f& };f`` and spellings of it: a function whose body pipes itself into itself
    in the background. Linear: each ``()`` is looked at once, with the name before it."""
    start = 0
    while True:
        k = text.find("()", start)
        if k < 0:
            return False
        start = k + 2
        j = k
        while j > 0 and (text[j - 1].isalnum() or text[j - 1] in "_:.-"):
            j -= 1
        name = text[j:k].strip()
        if not name:
            continue
        body = text[k + 2:k + 2 + 4 * len(name) + 40].replace(" ", "").replace("\t", "")
        if body.startswith("{" + name + "|" + name + "&") or \
                body.startswith("{" + name + "&|" + name):
            return True
