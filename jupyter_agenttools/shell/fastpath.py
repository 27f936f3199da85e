"""The fast path: commands plain enough to split without tree-sitter.

A command made only of unquoted words (letters, digits and ``_./=,:+-@%^~*?``), single- and
double-quoted strings without expansions, the separators ``| && || ;`` and simple
redirections (``> >> < >| &> 2>&1``) has no expansion, grouping, comment or control flow, so
bash splits it exactly as :func:`plain_commands` does. A word that is one variable
(``$NAME``, ``"$NAME"``; not ``$HOME`` or ``$PWD``, not a command name, not a redirection
target) is a dynamic word with the tree walk's reasons; a command holding one takes the fast
path only without redirections, ``VAR=`` prefixes or declarations (where the walk's fields
differ).
So does one holding ``find -exec`` / ``xargs -I`` words: ``{}`` ending a word (``{}``,
``-I{}``) and the whole word ``\\;``, and one holding a statement run by ``time`` (which
tree-sitter-bash reads as a command name). Anything else (other ``$``, backquotes, other
backslashes and braces, parentheses, ``#``, ``!``, ``[``, newlines, reserved words, a
background ``&``, declaration builtins such as ``export`` and ``unset`` …) returns None and
the command is parsed by tree-sitter; a text with a character the tokenizer never takes is
recognised by one regular-expression pass before the token loop.
``tests/shell/test_shell_fuzz.py`` checks that both give the same commands.

One pass of a tokenizer whose alternatives are single character classes (no nested
quantifier, nothing that backtracks): linear in the length of the command. The tokens are
cut by the regular-expression engine in one call (``findall``; a last alternative takes any
other single character, which ends the fast path) and read by one Python loop.
"""

from __future__ import annotations

import re

from .syntax import (
    EXPANSION_REASON,
    UNQUOTED_REASON,
    Budget,
    Command,
    Redirect,
    Source,
    Syntax,
    plain_command,
)
from .words import DYNAMIC, GLOB, LITERAL, RUN_TIME_TILDE, Word

__all__ = ["plain_commands", "plain_command_list", "EXPANDS", "EXPANDS_UNQUOTED"]

_PLAIN = re.compile(r"[A-Za-z0-9_./=,:+ \t|;&-]*\Z")
_SPLIT = re.compile(r"(\|\||&&|\||;)")
# The blanks before a token, then the token: a redirection operator with, when it is one
# plain word right after it (not starting with `~` or `-`, which need a closer look, and not
# followed by more of the word), its target; or any other token: an operator, a plain or
# quoted word part, any other character but a blank (the fast path ends there), the end of
# the text. No two alternatives start alike (a plain word may start with digits only when
# no redirection operator follows them), so the order is the tokenizer's of old. A token
# never starts with a blank, so the blanks are never given back; a target gives back at most
# its own characters once (linear).
_TOKENS = re.compile(
    r"([ \t]*)"
    r"(?:((?:[0-9]*(?:>>|>&|>\||<&|>|<(?!>))|&>>|&>))"
    r"((?![0-9]*(?:>|<(?!>)))"  # digits before an operator are the next redirection's
    r"[A-Za-z0-9_./=,:+@%^*?][A-Za-z0-9_./=,:+@%^~*?-]*(?![A-Za-z0-9_./=,:+@%^~*?'\"{\\-])|)"
    # a whole word that is one plain or quoted part (a blank, an operator, a redirection or
    # the end follows): read in one step, the commonest token
    r"|([A-Za-z0-9_./=,:+@%^~*?-]+|'[^'\n]*'|\"[^\"$`\\\n!]*\")(?=[ \t|;&<>]|\Z)"
    r"|(\|\||&&|[|;]"
    r"|[A-Za-z0-9_./=,:+@%^~*?-]+"
    # `{}` (find -exec, xargs -I) not after a quote and when the word ends after it
    # (`{}a,b` is a brace expansion to the parser, `{}\;` two words); `\;` (find's
    # terminator, the word `;`) as a whole word (the parser splits `"a"\;` in two)
    r"|(?<!['\"])\{\}(?=[ \t|;&<>]|\Z)|(?<![^ \t|;&<>])\\;(?=[ \t|;&<>]|\Z)"
    r"|'[^'\n]*'"
    r"|\"[^\"$`\\\n!]*\""
    # a whole word that is one variable, `$NAME` or `"$NAME"`, when a blank, `|`, `;` or the
    # end follows (`$X.txt`, `$X&`, `$X>f` need the parser)
    r"|(?:\$[A-Za-z_][A-Za-z0-9_]*|\"\$[A-Za-z_][A-Za-z0-9_]*\")(?=[ \t|;]|\Z)"
    r"|[^ \t]|\Z))")
# What the tokenizer could accept at all, read greedily in one regular-expression call: its
# characters outside quotes, whole quoted strings it takes, `$` before a name. A text this
# does not cover entirely holds a character the tokenizer refuses (`(`, `{`, a backslash,
# `$(` …), so the tree walk is asked straight away instead of after a Python loop over the
# tokens before it. Every alternative starts with its own character and none can end
# elsewhere: no backtracking (linear).
_CANDIDATE = re.compile(
    r"""(?:[A-Za-z0-9_./=,:+@%^~*?|;&<> \t-]+|'[^'\n]*'|"[^"$`\\\n!]*"|"""
    r'"\$[A-Za-z_][A-Za-z0-9_]*"|\$(?=[A-Za-z_])|\{\}|\\;)*')
# Longer texts skip that pass: it would be a second scan of a long quoted string, and the
# tokenizer counts what it read before giving up in the budget (as it always did), which
# for a text this short can never decide whether a budget runs out
_CANDIDATE_CHARS = 1_000
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# bash's reserved words (`time` is not here: tree-sitter-bash reads it as a command name, as
# the fast path does, and the program table's `time` entry analyses what it runs)
_RESERVED = frozenset({"if", "then", "else", "elif", "fi", "case", "esac", "for", "select",
                       "while", "until", "do", "done", "in", "function", "coproc", "{", "}",
                       "!", "[[", "]]"})
# declaration builtins: the walk's reading (a declaration whose ``NAME=value`` words are
# assignments, checked like ``VAR=`` prefixes) is the only one — read as a plain command,
# `export LD_PRELOAD=/tmp/x.so; ls` was approved by the rules Bash(export:*) and Bash(ls)
_DECLARATIONS = frozenset({"export", "local", "declare", "typeset", "readonly", "unset"})
# tree-sitter-bash rejects or re-reads these in a command name (`x@y`, `x%y`, `a=1 x:y`)
_ODD_RE = re.compile(r"[@%:^]")

# what a token is, by its first character
_WORD, _BLANK, _OPERATOR, _AMPERSAND, _ANGLE, _QUOTE, _VARIABLE, _BRACES, _ESCAPED = range(9)
# what a command's words expand (the third item of plain_command_list's answer; bits)
EXPANDS = 1  # a word is a variable
EXPANDS_UNQUOTED = 2  # one of them is not quoted
_KIND_OF = {
    # a plain word part (one starting with digits is not a redirection: that alternative
    # comes first)
    **{c: _WORD for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_./=,:+@%^~*?-"
                         "0123456789"},
    " ": _BLANK, "\t": _BLANK, "|": _OPERATOR, ";": _OPERATOR, "&": _AMPERSAND,
    "<": _ANGLE, ">": _ANGLE, "'": _QUOTE, '"': _QUOTE,
    # `{}` and `\;` are word parts (a lone `{` or `\` is any other character)
    "{": _BRACES, "\\": _ESCAPED,
}


def plain_commands(text: str, budget: Budget | None = None) -> Syntax | None:
    """The commands of ``text`` when it is plain (module docstring), else None. When the
    budget runs out the commands so far are returned with ``too_complex`` set."""
    found = plain_command_list(text, budget if budget is not None else Budget(1 << 30, 1 << 30))
    if found is None:
        return None
    commands, pipelines, too_complex, expands = found
    out = Syntax(Source(text, char_offsets=True), multiline=False)
    out.commands = commands
    out.pipelines = pipelines
    out.too_complex = too_complex
    if expands:
        out.reason(EXPANSION_REASON)
        if expands & EXPANDS_UNQUOTED:
            out.reason(UNQUOTED_REASON)
    return out


def plain_command_list(text: str, budget: Budget
                       ) -> tuple[list[Command], int, str, int] | None:
    """:func:`plain_commands` without the Syntax record: (commands, pipelines, why the budget
    ran out, EXPANDS bits: words that are variables), or None when ``text`` is not plain."""
    if _PLAIN.match(text):
        return _split_words(text, budget)
    if len(text) <= _CANDIDATE_CHARS:
        candidate = _CANDIDATE.match(text)  # always a match (maybe empty)
        if candidate is None or candidate.end() != len(text):
            return None
    return _tokenize(text, budget)


def _split_words(text: str, budget: Budget) -> tuple[list[Command], int, str, int] | None:
    """No quotes, no redirections: bash splits on blanks and on ``| && || ;`` alone."""
    if "==" in text or "+=" in text:
        return None  # `A+=1` appends; tree-sitter rejects `ls ==`
    if "|" in text or ";" in text or "&" in text:
        parts = _SPLIT.split(text)
    else:
        parts = [text]
    source = Source(text, char_offsets=True)  # plain text is ASCII
    commands: list[Command] = []
    too_complex = ""
    pipe_id = -1
    position = 0
    previous = ""
    offset = 0
    count = len(parts)
    for k in range(0, count, 2):
        segment = parts[k]
        separator = parts[k + 1] if k + 1 < count else ""
        if "&" in segment:
            return None  # a lone & (background) or &>: let the parser decide
        words = segment.split()
        if not words:
            return None  # `ls |`, `; ls`, `ls;`: the parser reports or accepts these
        if not budget.command() or not budget.word(len(words)):
            too_complex = budget.exceeded
            break
        assignments: list[tuple[str, Word]] = []
        first = 0
        if "=" in segment:
            while first < len(words) and "=" in words[first] and _ASSIGN.match(words[first]):
                name, _, value = words[first].partition("=")
                assignments.append((name, Word(value, value, LITERAL, (), False, False, False)))
                first += 1
            if first < len(words) and "=" in words[first]:
                return None  # tree-sitter reads `--opt=1` in command position as an assignment
        if first < len(words):
            name = words[first]
            if name in _RESERVED or name in _DECLARATIONS or (
                    ":" in name and _ODD_RE.search(name)):
                return None
        pipe = None
        if separator == "|" or previous == "|":
            if previous != "|":
                pipe_id += 1
                position = 0
            pipe = (pipe_id, position)
            position += 1
        if segment[0] in " \t":
            start = offset + len(segment) - len(segment.lstrip())
        else:
            start = offset
        if segment[-1] in " \t":
            end = offset + len(segment.rstrip())
        else:
            end = offset + len(segment)
        argv = [Word(word, word, LITERAL, (), False, False, False) for word in words[first:]]
        if not argv and pipe is not None:
            return None  # an assignment as a pipeline member: the parser's view decides
        commands.append(plain_command(argv, source, start, end, assignments, [], pipe,
                                      "command" if argv else "assignment"))
        previous = separator
        offset += len(segment) + len(separator)
    return commands, pipe_id + 1, too_complex, 0


def _tokenize(text: str, budget: Budget) -> tuple[list[Command], int, str, int] | None:
    """Quotes and redirections too. The budget is counted as a word or statement starts, as
    :class:`Budget` counts (the same totals when the fast path gives up half-way)."""
    pairs = _TOKENS.findall(text)
    # words and statements the budget still allows (none once a budget has run out)
    word_room = budget.words if not budget.exceeded else -1
    command_room = budget.commands if not budget.exceeded else -1
    words_used = 0
    commands_used = 0
    # each statement: its words, its redirections, where it starts and ends, the separator
    groups: list[tuple[list[Word], list[Redirect], int, int, str]] = []
    words: list[Word] = []
    redirects: list[Redirect] = []
    statement_start = -1
    statement_end = -1
    redirect_op: str | None = None
    redirect_fd: str | None = None
    # the word being read: where it starts (-1: none), its text and value when it is one
    # token, its values when it is several (`a'b'"c"`), whether a part is quoted / a glob
    word_start = -1
    word_text = word_value = ""
    word_parts: list[str] | None = None
    word_quoted = word_glob = False
    expands = 0
    odd = False  # a word has `{}` or `\;`
    kind_of = _KIND_OF
    position = 0
    for blanks, redirect, target, whole, token in pairs:
        if whole:
            if word_start < 0:
                # a word of its own: what the steps below make of it, at once
                if blanks:
                    position += len(blanks)
                words_used += 1
                if words_used > word_room:
                    _use(budget, words_used, commands_used, "too many words")
                    return [], 0, budget.exceeded, expands
                first = whole[0]
                if first == "'" or first == '"':
                    word = Word(whole, whole[1:-1], LITERAL, (), True, False, False)
                else:
                    if first == "~":
                        if whole[1:2] in RUN_TIME_TILDE:
                            _use(budget, words_used, commands_used)
                            return None  # $OLDPWD / $PWD / the directory stack
                        tilde = True
                    else:
                        tilde = False
                    word = Word(whole, whole, GLOB if "*" in whole or "?" in whole else
                                LITERAL, (), False, False, tilde)
                if redirect_op is not None:
                    if (redirect_op == ">&" or redirect_op == "<&") and first == "-":
                        _use(budget, words_used, commands_used)
                        return None  # `>& -`: see below
                    redirects.append(Redirect(redirect_op, word, redirect_fd))
                    redirect_op = redirect_fd = None
                else:
                    words.append(word)
                if statement_start < 0:
                    statement_start = position
                position += len(whole)
                statement_end = position
                continue
            token = whole  # the last part of a word (`'a'b`)
        if token:
            kind = kind_of.get(token[0])
            if kind == _WORD:
                part = True
            elif kind == _BRACES or kind == _ESCAPED:
                part = len(token) == 2  # `{}`, `\;`
                odd = True
            elif kind == _QUOTE:
                part = len(token) > 1
                if part and token[1] == "$" and token[0] == '"':
                    # `"$NAME"` (a double-quoted part never holds `$`)
                    kind = _VARIABLE
                    part = False
            else:
                part = False
                if kind is None and token[0] == "$" and len(token) > 1:
                    kind = _VARIABLE  # `$NAME`
        else:
            kind = None
            part = False
        if kind == _VARIABLE and not blanks and position and text[position - 1] not in "|;&":
            _use(budget, words_used, commands_used)
            return None  # `a$X`, `>f$X`: a word with a variable inside
        if word_start >= 0 and (blanks or not part):
            # the word ends here
            if word_parts is not None:
                word_text = text[word_start:position]
                word_value = "".join(word_parts)
            if word_text[0] == "~":
                if word_text[1:2] in RUN_TIME_TILDE:
                    _use(budget, words_used, commands_used)
                    return None  # $OLDPWD / $PWD / the directory stack
                tilde = not word_quoted
            else:
                tilde = False
            word = Word(word_text, word_value, GLOB if word_glob else LITERAL, (), word_quoted,
                        False, tilde)
            if redirect_op is not None:
                if (redirect_op == ">&" or redirect_op == "<&") and word_text[0] == "-":
                    # `>&-` closes a descriptor: the parser reads it as one operator
                    _use(budget, words_used, commands_used)
                    return None
                redirects.append(Redirect(redirect_op, word, redirect_fd))
                redirect_op = redirect_fd = None
            else:
                words.append(word)
            if statement_start < 0:
                statement_start = word_start
            statement_end = position
            word_start = -1
        if blanks:
            position += len(blanks)
        if part:
            if word_start < 0:
                words_used += 1
                if words_used > word_room:
                    _use(budget, words_used, commands_used, "too many words")
                    return [], 0, budget.exceeded, expands
                word_start = position
                word_text = token
                word_parts = None
                if kind == _QUOTE:
                    word_value = token[1:-1]
                    word_quoted = True
                    word_glob = False
                else:
                    word_value = token if kind != _ESCAPED else token[1:]
                    word_quoted = False
                    word_glob = "*" in token or "?" in token
            else:
                if word_parts is None:
                    word_parts = [word_value]
                if kind == _QUOTE:
                    word_parts.append(token[1:-1])
                    word_quoted = True
                else:
                    word_parts.append(token if kind != _ESCAPED else token[1:])
                    if not word_glob and ("*" in token or "?" in token):
                        word_glob = True
            position += len(token)
            continue
        if kind == _VARIABLE:  # a whole word (the tokenizer saw a blank, `|`, `;` or the end next)
            name = token.strip('"')[1:]
            if redirect_op is not None or name == "HOME" or name == "PWD" or not words:
                # `> $X`: a target named at run time; `$HOME` reads as `~`, `$PWD` as `.`;
                # `$X ls`: a command name decided at run time: the parser's view
                _use(budget, words_used, commands_used)
                return None
            words_used += 1
            if words_used > word_room:
                _use(budget, words_used, commands_used, "too many words")
                return [], 0, budget.exceeded, expands
            quoted = token[0] == '"'
            expands |= EXPANDS if quoted else EXPANDS | EXPANDS_UNQUOTED
            words.append(Word(token, None, DYNAMIC, (name,), quoted, False, False))
            if statement_start < 0:
                statement_start = position
            position += len(token)
            statement_end = position
            continue
        if redirect:
            start = position
            position += len(redirect)
            if redirect_op is not None:
                _use(budget, words_used, commands_used)
                return None  # `> >x`
            if redirect[0] in "0123456789":
                if start > 0 and text[start - 1] not in " \t|;&":
                    # `a'b'2>x`: the digits belong to the word before
                    _use(budget, words_used, commands_used)
                    return None
                digits = len(redirect) - len(redirect.lstrip("0123456789"))
                redirect_fd = redirect[:digits]
                redirect_op = redirect[digits:]
            else:
                redirect_op = redirect
            if statement_start < 0:
                statement_start = start
            if target:  # a plain word: read here, as the word loop above would
                words_used += 1
                if words_used > word_room:
                    _use(budget, words_used, commands_used, "too many words")
                    return [], 0, budget.exceeded, expands
                redirects.append(Redirect(redirect_op, Word(
                    target, target, GLOB if "*" in target or "?" in target else LITERAL, (),
                    False, False, False), redirect_fd))
                redirect_op = redirect_fd = None
                position += len(target)
                statement_end = position
            continue
        if not token:
            break  # the end of the text
        position += len(token)
        if kind != _OPERATOR and token != "&&":
            _use(budget, words_used, commands_used)
            return None  # not a token here: `&`, `<>`, a character the path lacks
        # an operator ends the statement
        if redirect_op is not None:
            _use(budget, words_used, commands_used)
            return None  # `ls > | x`
        commands_used += 1
        if commands_used > command_room:
            _use(budget, words_used, commands_used, "too many commands")
            return [], 0, budget.exceeded, expands
        groups.append((words, redirects, statement_start, statement_end, token))
        words = []
        redirects = []
        statement_start = -1
    _use(budget, words_used, commands_used)
    if redirect_op is not None:
        return None
    groups.append((words, redirects, statement_start, statement_end, ""))
    built = _build(Source(text, char_offsets=True), groups, expands != 0 or odd, odd)
    if built is None:
        return None
    return built[0], built[1], "", expands


def _use(budget: Budget, words: int, commands: int, exceeded: str = "") -> None:
    """Count what the tokenizer built, as one ``Budget.word()`` / ``command()`` per item did
    (``exceeded``: the count that ran out first, when one did)."""
    budget.words -= words
    budget.commands -= commands
    if exceeded and not budget.exceeded:
        budget.exceeded = exceeded


def _build(source: Source, groups: list[tuple[list[Word], list[Redirect], int, int, str]],
           strict: bool, odd: bool = False) -> tuple[list[Command], int] | None:
    """The commands of the statements. ``strict`` (a word is a variable, or ``odd``: a word
    has ``{}`` or ``\\;``): only statements whose every field is the tree walk's too (no
    redirection: the walk's span of a command leaves them out; no ``VAR=`` prefix: the walk
    keeps its quotes), else None. Never a declaration (see ``_DECLARATIONS``). With
    ``odd`` a command name holding ``{`` or a backslash is the parser's to read."""
    if not strict and "time" in source.text:
        # a statement `time …` took the walk's path until session 4: its fields are the
        # walk's in the strict form only (no redirection, prefix or declaration anywhere)
        for words, _, _, _, _ in groups:
            for word in words:
                if "=" in word.text and _ASSIGN.match(word.text):
                    continue
                if word.text == "time":
                    strict = True
                break
    commands: list[Command] = []
    pipe_id = -1
    position = 0
    previous = ""
    for words, redirects, start, end, separator in groups:
        if not words and not redirects:
            return None  # an empty statement: `ls;;`, `| x`, `ls |`
        if redirects and previous in ("&&", "||", "|"):
            # tree-sitter-bash applies `a && b >x` to the whole chain (bash: to b alone);
            # the parser's (wider) reading is the reference
            return None
        if strict and redirects:
            return None
        assignments: list[tuple[str, Word]] = []
        first = 0
        while first < len(words) and "=" in words[first].text and \
                _ASSIGN.match(words[first].text):
            name, _, value = (words[first].value or "").partition("=")
            assignments.append((name, Word(value, value, LITERAL, (), False, False, False)))
            first += 1
        if strict and first:
            return None
        argv = words[first:] if first else words
        if argv:
            name_word = argv[0]
            name = name_word.text
            if name in _RESERVED or (not name_word.quoted and "=" in name) or \
                    name_word.kind != LITERAL or name[0] == "~" or _ODD_RE.search(name) or \
                    (odd and ("{" in name or "\\" in name)):
                return None
            if name in _DECLARATIONS:
                return None
            kind = "command"
        elif assignments:
            if redirects:
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
        commands.append(plain_command(argv, source, start, end, assignments, redirects, pipe,
                                      kind))
        previous = separator
    return commands, pipe_id + 1
