"""The fast path: commands plain enough to split without tree-sitter.

A command made only of unquoted words (letters, digits and ``_./=,:+-@%^~*?``), single- and
double-quoted strings without expansions, the separators ``| && || ;`` and simple
redirections (``> >> < >| &> 2>&1``) has no expansion, grouping, comment or control flow, so
bash splits it exactly as :func:`plain_commands` does. Anything else (``$``, backquotes,
backslashes, parentheses, braces, ``#``, ``!``, ``[``, newlines, reserved words, a background
``&`` …) returns None and the command is parsed by tree-sitter. ``tests/shell/test_shell_fuzz.py``
checks that both give the same commands.

One pass of a tokenizer whose alternatives are single character classes (no nested
quantifier, nothing that backtracks): linear in the length of the command.
"""

from __future__ import annotations

import re

from .syntax import Budget, Command, Redirect, Source, Syntax
from .words import GLOB, LITERAL, Word

__all__ = ["plain_commands"]

_PLAIN = re.compile(r"[A-Za-z0-9_./=,:+ \t|;&-]*\Z")
_SPLIT = re.compile(r"(\|\||&&|\||;)")
_TOKEN = re.compile(
    r"(?P<blank>[ \t]+)"
    r"|(?P<op>\|\||&&|[|;])"
    r"|(?P<redirect>[0-9]*(?:>>|>&|>\||<&|>|<(?!>))|&>>|&>)"
    r"|(?P<plain>[A-Za-z0-9_./=,:+@%^~*?-]+)"
    r"|(?P<single>'[^'\n]*')"
    r"|(?P<double>\"[^\"$`\\\n!]*\")"
)
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_RESERVED = frozenset({"if", "then", "else", "elif", "fi", "case", "esac", "for", "select",
                       "while", "until", "do", "done", "in", "function", "coproc", "{", "}",
                       "!", "[[", "]]", "time"})
_GLOB_CHARS = frozenset("*?")
# tree-sitter-bash rejects or re-reads these in a command name (`x@y`, `x%y`, `a=1 x:y`)
_ODD_RE = re.compile(r"[@%:^]")


def plain_commands(text: str, budget: Budget | None = None) -> Syntax | None:
    """The commands of ``text`` when it is plain (module docstring), else None. When the
    budget runs out the commands so far are returned with ``too_complex`` set."""
    budget = budget if budget is not None else Budget(1 << 30, 1 << 30)
    if _PLAIN.match(text):
        return _split_words(text, budget)
    return _tokenize(text, budget)


def _split_words(text: str, budget: Budget) -> Syntax | None:
    """No quotes, no redirections: bash splits on blanks and on ``| && || ;`` alone."""
    if "==" in text or "+=" in text:
        return None  # `A+=1` appends; tree-sitter rejects `ls ==`
    parts = _SPLIT.split(text)
    source = Source(text)
    out = Syntax(source, multiline=False)
    commands = out.commands
    pipe_id = -1
    position = 0
    previous = ""
    offset = 0
    for k in range(0, len(parts), 2):
        segment = parts[k]
        separator = parts[k + 1] if k + 1 < len(parts) else ""
        if "&" in segment:
            return None  # a lone & (background) or &>: let the parser decide
        words = segment.split()
        if not words:
            return None  # `ls |`, `; ls`, `ls;`: the parser reports or accepts these
        if not budget.command() or not budget.word(len(words)):
            out.too_complex = budget.exceeded
            break
        assignments: list[tuple[str, Word]] = []
        i = 0
        while i < len(words) and "=" in words[i] and _ASSIGN.match(words[i]):
            name, _, value = words[i].partition("=")
            assignments.append((name, Word(value, value, tilde=False)))
            i += 1
        if i < len(words) and (words[i] in _RESERVED or "=" in words[i] or
                               _ODD_RE.search(words[i])):
            return None  # tree-sitter reads `--opt=1` in command position as an assignment
        pipe = None
        if separator == "|" or previous == "|":
            if previous != "|":
                pipe_id += 1
                position = 0
            pipe = (pipe_id, position)
            position += 1
        lead = len(segment) - len(segment.lstrip())
        start = offset + lead
        end = offset + len(segment.rstrip())
        argv = [Word(w, w, tilde=False) for w in words[i:]]
        if not argv and pipe is not None:
            return None  # an assignment as a pipeline member: the parser's view decides
        commands.append(Command(argv, source, start, end, assignments=assignments,
                                pipeline=pipe, kind="command" if argv else "assignment"))
        previous = separator
        offset += len(segment) + len(separator)
    out.pipelines = pipe_id + 1
    return out


class _Pending:
    __slots__ = ("words", "redirects", "start", "end")

    def __init__(self) -> None:
        self.words: list[Word] = []
        self.redirects: list[Redirect] = []
        self.start = -1
        self.end = -1


def _tokenize(text: str, budget: Budget) -> Syntax | None:
    source = Source(text, char_offsets=True)
    out = Syntax(source, multiline=False)
    groups: list[tuple[_Pending, str]] = []  # each statement and the separator after it
    current = _Pending()
    redirect_op: str | None = None
    redirect_fd: str | None = None
    word_parts: list[str] = []
    word_text_start = -1
    word_quoted = False
    word_glob = False
    position = 0
    n = len(text)

    def flush_word(end: int) -> bool:
        nonlocal word_parts, word_text_start, word_quoted, word_glob, redirect_op, redirect_fd
        if word_text_start < 0:
            return True
        raw = text[word_text_start:end]
        value = "".join(word_parts)
        word = Word(raw, value, GLOB if word_glob else LITERAL, quoted=word_quoted,
                    tilde=raw.startswith("~") and not word_quoted and
                    not raw.startswith(("~-", "~+")))
        if raw.startswith(("~-", "~+")):
            return False  # $OLDPWD / $PWD: decided at run time
        if redirect_op in (">&", "<&") and raw.startswith("-"):
            return False  # `>&-` closes a descriptor: the parser reads it as one operator
        if redirect_op is not None:
            current.redirects.append(Redirect(redirect_op, word, redirect_fd))
            redirect_op = redirect_fd = None
        else:
            current.words.append(word)
        if current.start < 0:
            current.start = word_text_start
        current.end = end
        word_parts = []
        word_text_start = -1
        word_quoted = word_glob = False
        return True

    match = _TOKEN.match
    while position < n:
        m = match(text, position)
        if m is None:
            return None
        kind = m.lastgroup
        token = m.group()
        start = position
        position = m.end()
        if kind == "plain" or kind == "single" or kind == "double":
            if word_text_start < 0:
                word_text_start = start
                if not budget.word():
                    out.too_complex = budget.exceeded
                    return out
            if kind == "plain":
                word_parts.append(token)
                if not word_glob and ("*" in token or "?" in token):
                    word_glob = True
            else:
                word_parts.append(token[1:-1])
                word_quoted = True
            continue
        if not flush_word(start):
            return None
        if kind == "blank":
            continue
        if kind == "redirect":
            if redirect_op is not None:
                return None  # `> >x`
            digits = len(token) - len(token.lstrip("0123456789"))
            if digits and start > 0 and text[start - 1] not in " \t|;&":
                return None  # `a2>x`: the digits belong to the word before
            redirect_fd = token[:digits] or None
            redirect_op = token[digits:]
            if current.start < 0:
                current.start = start
            continue
        # an operator ends the statement
        if redirect_op is not None:
            return None  # `ls > | x`
        if not budget.command():
            out.too_complex = budget.exceeded
            return out
        groups.append((current, token))
        current = _Pending()
    if not flush_word(n) or redirect_op is not None:
        return None
    groups.append((current, ""))
    return _build(out, groups)


def _build(out: Syntax, groups: list[tuple[_Pending, str]]) -> Syntax | None:
    source = out.source
    commands = out.commands
    pipe_id = -1
    position = 0
    previous = ""
    for pending, separator in groups:
        words = pending.words
        if not words and not pending.redirects:
            return None  # an empty statement: `ls;;`, `| x`, `ls |`
        if pending.redirects and previous in ("&&", "||", "|"):
            # tree-sitter-bash applies `a && b >x` to the whole chain (bash: to b alone);
            # the parser's (wider) reading is the reference
            return None
        assignments: list[tuple[str, Word]] = []
        i = 0
        while i < len(words) and _ASSIGN.match(words[i].text):
            name, _, value = (words[i].value or "").partition("=")
            assignments.append((name, Word(value, value, tilde=False)))
            i += 1
        argv = words[i:]
        if argv:
            first = argv[0]
            if first.text in _RESERVED or (not first.quoted and "=" in first.text) or \
                    first.glob or first.text.startswith("~") or _ODD_RE.search(first.text):
                return None
            kind = "command"
        elif assignments:
            if pending.redirects:
                return None
            kind = "assignment"
        else:
            return None  # a redirect-only statement: the parser's view is the reference
        pipe = None
        if separator == "|" or previous == "|":
            if previous != "|":
                pipe_id += 1
                position = 0
            pipe = (pipe_id, position)
            position += 1
        if kind == "assignment" and pipe is not None:
            return None  # an assignment as a pipeline member: the parser's view decides
        commands.append(Command(argv, source, pending.start, pending.end,
                                assignments=assignments, redirects=pending.redirects,
                                pipeline=pipe, kind=kind))
        previous = separator
    out.pipelines = pipe_id + 1
    return out
