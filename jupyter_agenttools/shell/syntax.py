"""One tree-sitter-bash parse and one iterative walk: the simple commands of a shell text.

``parse_commands(text)`` returns a :class:`Syntax`: every simple command in source order,
*including* those inside ``$( )``, ``<( )``, subshells, loops, functions, conditions and
here-documents, each as a :class:`Command` (argv of :class:`~.words.Word`, ``VAR=value``
prefixes, redirections — its own and those of enclosing groups); statements made only of a
redirection (``ls; > ~/.bashrc``, ``$(<file)``) are commands with an empty argv and kind
``redirect``. ``reasons`` say why the text is not provably simple; ``unanalyzable`` marks
parse errors; ``opaque`` marks constructs that run code no command shows (a ``$VAR`` command
name, arithmetic on variables, ``${x@P}``).

Node kinds are allow-listed: a kind not known to be simple becomes a reason. The walk is
iterative (10,000-deep nesting is fine) and linear in the size of the tree; text is sliced
lazily from the source so nested substitutions do not copy it once per level.
"""

from __future__ import annotations

import tree_sitter_bash
from tree_sitter import Language, Parser

from .effects import Effects
from .words import (
    DYNAMIC,
    GLOB,
    LITERAL,
    RUN_TIME_TILDE,
    Word,
    decode_ansi_c,
    unescape_double_quoted,
    unescape_word,
)

__all__ = ["Source", "Redirect", "Heredoc", "Command", "Syntax", "Budget", "parse_commands",
           "PARSER", "EXPANSION_REASON", "UNQUOTED_REASON",
           "IN_SUBSTITUTION", "IN_SUBSHELL", "IN_LOOP", "IN_FUNCTION", "IN_CONDITION",
           "IN_INNER"]

LANGUAGE = Language(tree_sitter_bash.language())
PARSER = Parser(LANGUAGE)

# Where a simple command sits (bit flags on Command.nesting).
IN_SUBSTITUTION = 1   # inside $( ), ` `, <( ), >( )
IN_SUBSHELL = 2       # ( … ) or { …; }
IN_LOOP = 4           # for / while / until body or header
IN_FUNCTION = 8       # function body (runs whenever called)
IN_CONDITION = 16     # if / case / [[ ]]
IN_INNER = 32         # run by another command (sh -c, eval, sudo, find -exec …)

# Kinds that are part of a provably simple command; containers we descend into freely.
_SIMPLE_KINDS = frozenset({
    "program", "list", "pipeline", "redirected_statement", "negated_command", "comment",
})
# Kinds that make a command not provably simple (the value is the reason text).
_REASON_KINDS = {
    "subshell": "subshell ( … )",
    "compound_statement": "command group { …; }",
    "if_statement": "if statement",
    "elif_clause": "if statement",
    "else_clause": "if statement",
    "while_statement": "while/until loop",
    "for_statement": "for loop",
    "c_style_for_statement": "for (( )) loop",
    "do_group": "loop body",
    "case_statement": "case statement",
    "case_item": "case statement",
    "function_definition": "function definition",
    "test_command": "[[ … ]] test",
    "arithmetic_expansion": "arithmetic $(( ))",
    "command_substitution": "command substitution $( )",
    "process_substitution": "process substitution <( )",
}
_FLAG_OF = {
    "command_substitution": IN_SUBSTITUTION, "process_substitution": IN_SUBSTITUTION,
    "subshell": IN_SUBSHELL, "compound_statement": IN_SUBSHELL,
    "while_statement": IN_LOOP, "for_statement": IN_LOOP, "c_style_for_statement": IN_LOOP,
    "function_definition": IN_FUNCTION,
    "if_statement": IN_CONDITION, "case_statement": IN_CONDITION, "test_command": IN_CONDITION,
}
_REDIRECT_KINDS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_SUBST_KINDS = frozenset({"command_substitution", "process_substitution"})
_MARKS = frozenset({"&", ";;"})  # the anonymous tokens the walk looks at
_LEAF_KINDS = frozenset({
    "heredoc_body", "heredoc_start", "heredoc_end", "heredoc_content", "string_content",
    "raw_string", "word", "number", "variable_name", "special_variable_name",
    "file_descriptor", "test_operator"})
_WORD_CONTAINERS = frozenset({
    "simple_expansion", "expansion", "string", "concatenation", "array", "brace_expression",
    "ansi_c_string", "translated_string", "binary_expression", "unary_expression",
    "ternary_expression", "parenthesized_expression", "postfix_expression", "subscript",
    "regex", "extglob_pattern", "case_item", "else_clause"})
# Parameter expansion anywhere (quoted too) is decided at run time: never provably simple.
_EXPANSION_REASON = EXPANSION_REASON = \
    "parameter expansion $… (its value is decided at run time)"
UNQUOTED_REASON = "unquoted expansion (its value is split into words and globbed at run time)"
_BRACE_REASON = "brace expansion {a,b} (one word becomes several)"
_HOME_VARS = frozenset({"HOME"})
# characters that make a `~+…` word more than a plain path
_NOT_PLAIN = frozenset("$`'\"\\*?[{")
# characters after `$` that start an expansion in an unquoted here-document body
_EXPANSION_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789"
                             "{([@*#?$!-")


class Budget:
    """How many commands and words one analysis may still build; when one runs out the walk
    stops and the analysis is "too complex" (linear time and memory whatever the input)."""

    __slots__ = ("commands", "words", "exceeded")

    def __init__(self, commands: int, words: int) -> None:
        self.commands = commands
        self.words = words
        self.exceeded = ""

    def command(self) -> bool:
        self.commands -= 1
        if self.commands < 0 and not self.exceeded:
            self.exceeded = "too many commands"
        return not self.exceeded

    def word(self, count: int = 1) -> bool:
        self.words -= count
        if self.words < 0 and not self.exceeded:
            self.exceeded = "too many words"
        return not self.exceeded


class Source:
    """The text a command list was parsed from (the command itself or a string run by a
    shell); commands keep their position in it and slice their text on demand."""

    __slots__ = ("text", "_data", "ascii")

    def __init__(self, text: str, char_offsets: bool = False) -> None:
        self.text = text
        # positions are byte offsets (tree-sitter) unless ``char_offsets``; for ASCII text
        # both are the same. The bytes are made only for the parser.
        if char_offsets:
            self._data: bytes | None = None
            self.ascii = True
        else:
            self._data = text.encode("utf-8")
            self.ascii = len(self._data) == len(text)

    @property
    def data(self) -> bytes:
        if self._data is None:
            self._data = self.text.encode("utf-8")
        return self._data

    def slice(self, start: int, end: int) -> str:
        if self.ascii:
            return self.text[start:end]
        return self.data[start:end].decode("utf-8", "replace")


class Redirect:
    """``op`` is the operator (``>``, ``>>``, ``&>``, ``>|``, ``<``, ``<>``, ``>&``, ``<<<``,
    ``<<`` …); ``target`` the word after it (a here-document's body for ``<<``)."""

    __slots__ = ("op", "target", "fd")

    def __init__(self, op: str, target: Word | None, fd: str | None = None) -> None:
        self.op = op
        self.target = target
        self.fd = fd

    @property
    def is_output(self) -> bool:
        return ">" in self.op

    @property
    def is_input(self) -> bool:
        return self.op in ("<", "<&", "<>")

    @property
    def is_duplication(self) -> bool:
        """``2>&1``, ``>&-``, ``<&3``: moves a descriptor, names no file."""
        if self.op not in (">&", "<&") or self.target is None:
            return False
        v = self.target.value
        return v is not None and (v.isdigit() or v in ("-",) or
                                  (v[:-1].isdigit() and v.endswith("-")))

    def __repr__(self) -> str:
        return f"Redirect({self.op!r}, {self.target!r})"


class Heredoc:
    __slots__ = ("delimiter", "quoted", "expands")

    def __init__(self, delimiter: str, quoted: bool, expands: bool) -> None:
        self.delimiter = delimiter
        self.quoted = quoted
        self.expands = expands


class Command:
    """One simple command. ``kind``: ``command``, ``declaration`` (export/local/…),
    ``assignment`` (only ``VAR=value``), ``unset``, ``redirect`` (only redirections).
    ``nesting`` has IN_* flags; ``parent`` is the index of the command whose words contain
    this one (substitutions); ``pipeline`` is (pipeline id, position) for pipeline members;
    ``via`` the index of the command that runs this one (``sudo``, ``sh -c``, ``find -exec``).
    ``cds`` counts the directory changes (``cd``) that come before it in the analysis."""

    # defaults at class level: a plain class with few attributes set is quicker to build than
    # slots (a Command is made for every command of every decision)
    nesting = 0
    parent: int | None = None
    pipeline: tuple[int, int] | None = None
    kind = "command"
    via: int | None = None
    depth = 0
    cds = 0
    effects: Effects | None = None  # set by the analysis (shell.analysis)
    index = -1
    read_only = False  # this command and everything it runs only read
    suffix = False  # one of the suffixes of a wrapper whose options were not parsed

    def __init__(self, argv: list[Word], source: Source, start: int, end: int, *,
                 assignments: list[tuple[str, Word]] | None = None,
                 redirects: list[Redirect] | None = None, nesting: int = 0,
                 parent: int | None = None, pipeline: tuple[int, int] | None = None,
                 kind: str = "command", via: int | None = None, depth: int = 0) -> None:
        self.argv = argv
        self.assignments = assignments if assignments is not None else []
        self.redirects = redirects if redirects is not None else []
        self.source = source
        self.start = start
        self.end = end
        self.children: list[int] = []  # commands this one runs (indices in the analysis)
        if nesting:
            self.nesting = nesting
        if parent is not None:
            self.parent = parent
        if pipeline is not None:
            self.pipeline = pipeline
        if kind != "command":
            self.kind = kind
        if via is not None:
            self.via = via
        if depth:
            self.depth = depth

    @property
    def text(self) -> str:
        return self.source.slice(self.start, self.end)

    @property
    def name(self) -> Word | None:
        return self.argv[0] if self.argv else None

    @property
    def virtual(self) -> bool:
        """Run by another command rather than written as a command of its own."""
        return self.via is not None

    def values(self) -> list[str | None]:
        return [w.value if w.kind != GLOB else None for w in self.argv]

    def __repr__(self) -> str:
        return f"Command({[w.value if w.value is not None else w.text for w in self.argv]!r})"


_new_object = object.__new__


def plain_command(argv: list[Word], source: Source, start: int, end: int,
                  assignments: list[tuple[str, Word]], redirects: list[Redirect],
                  pipeline: tuple[int, int] | None, kind: str) -> Command:
    """A top-level :class:`Command` built without keyword parsing (the fast path makes one
    per statement of most commands); the same object ``Command(...)`` builds."""
    cmd = _new_object(Command)
    cmd.argv = argv
    cmd.assignments = assignments
    cmd.redirects = redirects
    cmd.source = source
    cmd.start = start
    cmd.end = end
    cmd.children = []
    if pipeline is not None:
        cmd.pipeline = pipeline
    if kind != "command":
        cmd.kind = kind
    return cmd


class Syntax:
    __slots__ = ("source", "commands", "heredocs", "reasons", "unanalyzable", "opaque",
                 "background", "multiline", "pipelines", "too_complex")

    def __init__(self, source: Source, multiline: bool | None = None) -> None:
        self.source = source
        self.commands: list[Command] = []
        self.heredocs: list[Heredoc] = []
        self.reasons: list[str] = []
        self.unanalyzable = False
        self.opaque = False
        self.background = False
        self.multiline = "\n" in source.text.strip() if multiline is None else multiline
        self.pipelines = 0
        self.too_complex = ""  # why a budget ran out (the commands are then incomplete)

    def reason(self, text: str) -> None:
        if text not in self.reasons:
            self.reasons.append(text)

    def fail(self, text: str) -> None:
        self.unanalyzable = True
        self.opaque = True
        self.reason(text)


def parse_commands(text: str, *, nesting: int = 0, via: int | None = None,
                   depth: int = 0, budget: Budget | None = None) -> Syntax:
    """Parse ``text`` once and extract its commands (``nesting``/``via``/``depth`` are given
    to every command, for text run by another command)."""
    budget = budget if budget is not None else Budget(1 << 30, 1 << 30)
    walker = _Walker(Source(text), nesting, via, depth, budget)
    out = walker.run()
    if walker.hidden:
        out = _reparse_dash_heredocs(text, nesting, via, depth, budget)
    return out


def _strip_leading_tabs(text: str) -> str:
    return "\n".join(line.lstrip("\t") for line in text.split("\n"))


def _reparse_dash_heredocs(text: str, nesting: int, via: int | None, depth: int,
                           budget: Budget) -> Syntax:
    """tree-sitter-bash 0.25 returns a childless heredoc_body for a ``<<-`` heredoc whose lines
    are tab-indented, hiding ``$( )`` from every check. bash strips those tabs, so the same
    command with the leading tabs of every line removed and ``<<-`` read as ``<<`` runs the
    same code (a tab before a shell word is a blank); that text is analysed instead. If
    expansions are still invisible, the command is unanalyzable."""
    walker = _Walker(Source(_strip_leading_tabs(text).replace("<<-", "<<")), nesting, via,
                     depth, budget)
    out = walker.run()
    if walker.hidden:
        out.fail("the command could not be fully parsed (a here-document's expansions are not "
                 "in the syntax tree)")
    return out


class _Walker:
    __slots__ = ("source", "data", "out", "pending", "hidden", "nesting", "via", "depth",
                 "lead_pipe", "trailing", "budget", "_pwd_known")

    def __init__(self, source: Source, nesting: int, via: int | None, depth: int,
                 budget: Budget) -> None:
        self.budget = budget
        self._pwd_known: bool | None = None  # computed when first needed
        self.source = source
        self.data = source.data
        self.out = Syntax(source)
        self.pending: list = []  # statements found inside a heredoc redirect
        self.hidden = False  # an unquoted heredoc body has expansions the tree does not show
        self.nesting = nesting
        self.via = via
        self.depth = depth
        self.lead_pipe: tuple[int, int] | None = None
        # words tree-sitter attaches to a redirection that bash gives to the command
        # (`sort >/dev/null -o ~/.bashrc f`): keyed by the id of the command node
        self.trailing: dict[int, list] = {}

    def text(self, node) -> str:
        return self.source.slice(node.start_byte, node.end_byte)

    def pwd_known(self) -> bool:
        """Whether ``$PWD`` / ``~+`` name the directory the command is in: true unless the text
        names PWD other than by expanding it (`PWD=/`, `read PWD`, `unset PWD`, `OLDPWD`)."""
        known = self._pwd_known
        if known is None:
            text = self.source.text
            known = self._pwd_known = \
                text.count("PWD") == text.count("$PWD") + text.count("${PWD")
        return known

    def _new(self, argv: list[Word], node, nest: int, parent: int | None,
             pipe: tuple[int, int] | None, kind: str = "command",
             redirects: list[Redirect] | None = None) -> tuple[Command, int]:
        commands = self.out.commands
        idx = len(commands)
        self.budget.command()
        # what Command(...) builds, without its keyword parsing
        cmd = _new_object(Command)
        cmd.argv = argv
        cmd.assignments = []
        cmd.redirects = redirects if redirects is not None else []
        cmd.source = self.source
        cmd.start = node.start_byte
        cmd.end = node.end_byte
        cmd.children = []
        nest |= self.nesting
        if nest:
            cmd.nesting = nest
        if parent is not None:
            cmd.parent = parent
        if pipe is not None:
            cmd.pipeline = pipe
        if kind != "command":
            cmd.kind = kind
        if self.via is not None:
            cmd.via = self.via
        if self.depth:
            cmd.depth = self.depth
        commands.append(cmd)
        return cmd, idx

    def run(self) -> Syntax:
        tree = PARSER.parse(self.data)
        root = tree.root_node
        out = self.out
        if root.has_error:
            out.fail(self._error_reason(root))
        elif self._dropped_text(root):
            # tree-sitter occasionally skips text without an ERROR node (`- a=` parses as
            # `a=`): whatever it did not cover was not analysed
            out.fail("the command could not be fully parsed (text outside the syntax tree)")
        # stack items: (node, nesting flags, parent command index, inherited redirects, pipe)
        stack: list = [(root, 0, None, (), None)]
        nest = 0
        parent = None
        budget = self.budget
        while stack or self.pending:
            if budget.exceeded:
                out.too_complex = budget.exceeded
                break
            if self.pending:
                for item in reversed(self.pending):
                    stack.append(item)
                self.pending.clear()
                continue
            node, nest, parent, redirs, pipe = stack.pop()
            kind = node.type
            if kind == "command":
                self._command(node, nest, parent, redirs, pipe, stack)
            elif kind == "redirected_statement":
                self._redirected(node, nest, parent, redirs, pipe, stack)
            elif kind == "pipeline":
                pid = out.pipelines
                out.pipelines += 1
                pos = 0
                items = []
                for child in node.children:
                    if child.is_named and child.type != "comment":
                        items.append((child, nest, parent, redirs, (pid, pos)))
                        pos += 1
                stack.extend(reversed(items))
            elif kind in ("declaration_command", "unset_command"):
                self._declaration(node, nest, parent, redirs, stack)
            elif kind in ("variable_assignment", "variable_assignments"):
                self._assignment_statement(node, nest, parent, redirs, stack)
            elif kind in _REDIRECT_KINDS:
                # a statement made of a redirection only: `> f`, `$(<f)`, `$(>f)`
                nested: list = []
                own = self._redirect(node, nested, nest, parent, pipe)
                cmd, idx = self._new([], node, nest, parent, pipe, "redirect",
                                     list(redirs) + own)
                self._push_nested(nested, nest, idx, stack)
            elif kind in _SIMPLE_KINDS:
                self._push_children(node, nest, parent, redirs, stack, pipe)
            elif kind == "&":
                out.background = True
            elif kind == ";;" and (node.parent is None or node.parent.type not in
                                   ("case_item", "case_statement")):
                out.fail("the command has a syntax error near ';;'")
            elif kind == "test_command" and not self.text(node).startswith("[["):
                self._single_test(node, nest, parent, redirs, pipe, stack)
            elif not node.is_named:
                continue
            elif kind in _REASON_KINDS or kind in _FLAG_OF:
                if kind in _REASON_KINDS:
                    out.reason(_REASON_KINDS[kind])
                if kind in ("arithmetic_expansion", "c_style_for_statement") and _has_var(node):
                    out.opaque = True
                    out.reason("arithmetic on variables (array subscripts can run commands)")
                self._push_children(node, nest | _FLAG_OF.get(kind, 0), parent, redirs, stack,
                                    pipe if kind in ("subshell", "compound_statement") else None)
            elif kind in _LEAF_KINDS:
                continue
            elif kind == "ERROR":
                self._push_children(node, nest, parent, redirs, stack)
            elif kind in _WORD_CONTAINERS:
                # Words outside a simple command (loop lists, tests, case subjects): only
                # substitutions inside them matter.
                if kind == "expansion":
                    self._expansion_ops(node)
                self._push_children(node, nest, parent, redirs, stack)
            else:
                out.reason(f"unsupported shell syntax ({kind})")
                self._push_children(node, nest, parent, redirs, stack)
        return out

    def _dropped_text(self, root) -> bool:
        """True when bytes other than blanks and separators lie outside the root's children."""
        data = self.data
        pos = 0
        for child in root.children:
            if data[pos:child.start_byte].strip(b" \t\n;&|\\"):
                return True
            pos = child.end_byte
        return bool(data[pos:].strip(b" \t\n;&|\\"))

    def _error_reason(self, root) -> str:
        stack = [root]
        while stack:
            n = stack.pop()
            if n.is_missing:
                return f"the command has a syntax error (missing {n.type!r} at offset " \
                       f"{n.start_byte})"
            if n.is_error:
                snippet = self.source.slice(n.start_byte, min(n.end_byte, n.start_byte + 30))
                return f"the command has a syntax error near {snippet!r} (offset {n.start_byte})"
            if n.has_error:
                stack.extend(reversed(n.children))
        return "the command has a syntax error"

    @staticmethod
    def _push_children(node, nest, parent, redirs, stack, pipe=None) -> None:
        """Queue the children; a pipeline position goes to the first statement inside (so
        `curl x | (sh)` or tree-sitter's `a | (b && c)` still show `sh` / `b` as the reader)."""
        children = node.children
        first = None
        if pipe is not None:
            for child in children:
                if child.is_named and child.type != "comment":
                    first = child
                    break
        for i in range(len(children) - 1, -1, -1):
            child = children[i]
            # an anonymous token (`(`, `do`, `$(`, `;`) is skipped by the walk unless it is
            # `&` or `;;`: it is not queued at all
            if child.is_named or child.type in _MARKS:
                stack.append((child, nest, parent, redirs, pipe if child is first else None))

    @staticmethod
    def _push_nested(nested: list, nest: int, idx: int, stack: list) -> None:
        sub = nest | IN_SUBSTITUTION
        for n in reversed(nested):
            stack.append((n, sub, idx, (), None))

    # -- statements -----------------------------------------------------------------
    def _redirected(self, node, nest, parent, redirs, pipe, stack) -> None:
        own: list[Redirect] = []
        body = None
        nested: list = []
        trailing: list = []
        for child in node.children:
            if child.type in _REDIRECT_KINDS:
                own.extend(self._redirect(child, nested, nest, parent, pipe,
                                          trailing=trailing))
            elif child.is_named and body is None and child.type != "comment":
                body = child
            elif child.is_named:
                nested.append(child)
        idx = len(self.out.commands)  # substitutions in redirect targets belong to the body
        if self.lead_pipe is not None:  # `cat <<EOF | sh`: the pipeline nests in the heredoc
            pipe, self.lead_pipe = self.lead_pipe, None
        if trailing:
            if body is not None and body.type == "command":
                self.trailing.setdefault(body.id, []).extend(trailing)
            else:
                self.out.fail("words after a redirection of a group or a redirection alone")
        if body is not None:
            self._push_nested(nested, nest, idx, stack)
            stack.append((body, nest, parent, redirs + tuple(own), pipe))
        else:
            cmd, idx = self._new([], node, nest, parent, pipe, "redirect", list(redirs) + own)
            self._push_nested(nested, nest, idx, stack)

    def _command(self, node, nest, parent, redirs, pipe, stack) -> None:
        cmd, idx = self._new([], node, nest, parent, pipe, redirects=list(redirs))
        out = self.out
        nested: list = []
        argv = cmd.argv
        source = self.source
        plain_text = source.text if source.ascii else None
        for child in node.children:
            kind = child.type
            if kind == "word" and plain_text is not None:
                # what _word makes of a plain argument, without the call (most are one)
                text = plain_text[child.start_byte:child.end_byte]
                if "\\" not in text and text[:1] != "~":
                    self.budget.word()
                    argv.append(Word(text, text, GLOB if "*" in text or "?" in text or
                                     "[" in text else LITERAL))
                else:
                    argv.append(self._word(child, nested))
            elif kind in _SUBST_KINDS:
                # what _word makes of an argument that is one `$( )` / `<( )`, without the call
                self.budget.word()
                nested.append(child)
                argv.append(Word(source.slice(child.start_byte, child.end_byte), None, DYNAMIC,
                                 (), False, False))
            elif kind == "command_name":
                inner = child.children[0] if child.child_count else child
                if plain_text is not None and inner.type == "word":
                    text = plain_text[inner.start_byte:inner.end_byte]
                    if "\\" not in text and text[:1] != "~":  # as for an argument above
                        self.budget.word()
                        w = Word(text, text, GLOB if "*" in text or "?" in text or
                                 "[" in text else LITERAL)
                    else:
                        w = self._word(inner, nested)
                else:
                    w = self._word(inner, nested)
                cmd.argv.append(w)
                if w.kind != LITERAL:
                    out.opaque = True
                    out.reason("the command name is not static "
                               f"({w.text[:40]!r} is decided at run time)")
                elif w.ansi_c:
                    out.reason("ANSI-C quoted command name $'…'")
            elif kind == "variable_assignment":
                cmd.assignments.append(self._assign(child, nested))
            elif kind in _REDIRECT_KINDS:
                extra: list = []
                cmd.redirects.extend(self._redirect(child, nested, nest, parent, pipe, idx,
                                                    trailing=extra))
                for word in extra:
                    cmd.argv.append(self._word(word, nested))
            elif child.is_named and kind != "comment":
                cmd.argv.append(self._word(child, nested))
            elif kind == "$":
                out.reason('locale-translated string $"…"')
            elif kind in ("==", "=~", "!="):
                cmd.argv.append(Word(kind, kind))  # bash passes them as words
        if self.trailing:
            for extra in self.trailing.pop(node.id, ()):
                cmd.argv.append(self._word(extra, nested))
        self._push_nested(nested, nest, idx, stack)

    def _single_test(self, node, nest, parent, redirs, pipe, stack) -> None:
        """`[ … ]` is the test builtin: a simple command `[` with its words."""
        cmd, idx = self._new([Word("[", "[")], node, nest, parent, pipe, redirects=list(redirs))
        nested: list = []
        todo = list(reversed(node.children))
        while todo:
            n = todo.pop()
            t = n.type
            if t in ("unary_expression", "binary_expression", "parenthesized_expression",
                     "negated_expression"):
                todo.extend(reversed(n.children))
            elif not n.is_named:
                if t not in ("[", "]"):
                    cmd.argv.append(Word(t, t))
            elif t == "test_operator":
                v = self.text(n)
                cmd.argv.append(Word(v, v))
            else:
                cmd.argv.append(self._word(n, nested))
        cmd.argv.append(Word("]", "]"))
        self._push_nested(nested, nest, idx, stack)

    def _declaration(self, node, nest, parent, redirs, stack) -> None:
        cmd, idx = self._new([], node, nest, parent, None,
                             "unset" if node.type == "unset_command" else "declaration",
                             list(redirs))
        nested: list = []
        for child in node.children:
            if not child.is_named:
                t = self.text(child)
                if t.strip():
                    cmd.argv.append(Word(t, t))
            elif child.type == "variable_assignment":
                name, w = self._assign(child, nested)
                cmd.assignments.append((name, w))
                v = None if w.value is None else f"{name}={w.value}"
                cmd.argv.append(Word(self.text(child), v, w.kind if v is not None else DYNAMIC,
                                     vars=w.vars))
            elif child.type in ("variable_name", "word"):
                t = self.text(child)
                cmd.argv.append(Word(t, t))
            else:
                cmd.argv.append(self._word(child, nested))
        self._push_nested(nested, nest, idx, stack)

    def _assignment_statement(self, node, nest, parent, redirs, stack) -> None:
        cmd, idx = self._new([], node, nest, parent, None, "assignment", list(redirs))
        nested: list = []
        items = [node] if node.type == "variable_assignment" else node.named_children
        for child in items:
            if child.type == "variable_assignment":
                cmd.assignments.append(self._assign(child, nested))
        self._push_nested(nested, nest, idx, stack)

    def _assign(self, node, nested: list) -> tuple[str, Word]:
        name = ""
        value: Word | None = None
        for child in node.children:
            if child.type in ("variable_name", "subscript") and not name:
                name = self.text(child)
                if child.type == "subscript":
                    self.out.opaque = True  # a[$(cmd)]=x runs cmd
                    nested.append(child)
            elif child.is_named:
                value = self._word(child, nested, assignment=True)
        if value is None:
            value = Word("", "")
        return name, value

    def _redirect(self, node, nested: list, nest: int = 0, parent: int | None = None,
                  pipe: tuple[int, int] | None = None, owner: int | None = None,
                  trailing: list | None = None) -> list[Redirect]:
        kind = node.type
        if kind == "heredoc_redirect":
            return self._heredoc(node, nested, nest, parent, pipe, owner)
        op = ""
        fd = None
        target = None
        for child in node.children:
            t = child.type
            if not child.is_named:
                if t not in ('"', "'"):
                    op += self.text(child)
            elif t == "file_descriptor":
                fd = self.text(child)
            elif target is None:
                target = self._word(child, nested)
            elif trailing is not None:
                trailing.append(child)  # `> f -o x`: bash gives `-o x` to the command
            else:
                self.out.fail("words after a redirection that belong to no command")
        if kind == "herestring_redirect":
            op = "<<<"
        return [Redirect(op or ">", target, fd)]

    def _heredoc(self, node, nested: list, nest: int, parent: int | None,
                 pipe: tuple[int, int] | None, owner: int | None) -> list[Redirect]:
        delim = ""
        quoted = False
        expands = False
        op = "<<"
        body = ""
        more: list[Redirect] = []
        out = self.out
        for child in node.children:
            t = child.type
            if t in _REDIRECT_KINDS:  # `cat <<EOF > file`: the file redirect nests here
                more.extend(self._redirect(child, nested, nest, parent, pipe, owner))
            elif child.is_named and t not in ("heredoc_start", "heredoc_body", "heredoc_end"):
                # `cat <<EOF | sh` / `cat <<EOF && rm x`: the rest of the line nests here
                if t == "pipeline" and child.child_count and child.children[0].type in \
                        ("|", "|&"):
                    # the command owning the here-document is the first member
                    pid = out.pipelines
                    out.pipelines += 1
                    if owner is not None:
                        out.commands[owner].pipeline = (pid, 0)
                    else:
                        self.lead_pipe = (pid, 0)
                    pos = 1
                    items = []
                    for member in child.children:
                        if member.is_named and member.type != "comment":
                            items.append((member, nest, parent, (), (pid, pos)))
                            pos += 1
                    self.pending.extend(items)
                else:
                    self.pending.append((child, nest, parent, (), None))
            elif t == "heredoc_start":
                raw = self.text(child)
                quoted = any(c in raw for c in "'\"\\")
                delim = raw.replace("'", "").replace('"', "").replace("\\", "")
            elif t == "heredoc_body":
                body = self.text(child)
                covered: list[tuple[int, int]] = []
                for part in child.children:
                    if part.type in ("simple_expansion", "expansion", "command_substitution",
                                     "arithmetic_expansion"):
                        expands = True
                        nested.append(part)
                        covered.append((part.start_byte - child.start_byte,
                                        part.end_byte - child.start_byte))
                if not quoted:
                    if self._hidden_expansion(child, covered):
                        expands = True
                    if "\\" in body or "`" in body:
                        expands = True
            elif not child.is_named and t.startswith("<<"):
                op = t
        out.heredocs.append(Heredoc(delim, quoted, expands))
        if expands and not quoted:
            out.reason("here-document with an unquoted delimiter expands $… and `…`")
        # the body is kept (as the target) so a shell reading it can be analysed too
        target = Word(body, None if (expands and not quoted) else body, quoted=quoted,
                      tilde=False)
        return [Redirect(op, target)] + more

    def _hidden_expansion(self, body_node, covered: list[tuple[int, int]]) -> bool:
        """Does the unquoted body hold a ``$x``/``$(``/backquote outside every expansion node?
        Sets ``hidden`` when code or operators the walk cannot see are there. One pass over
        the body's bytes (``covered`` is in order)."""
        data = self.data[body_node.start_byte:body_node.end_byte]
        found = False
        k = 0  # next interval of `covered` that may contain the position
        slashes = 0
        n = len(data)
        i = 0
        while i < n:
            c = data[i]
            if c == 0x5C:  # backslash
                slashes += 1
                i += 1
                continue
            escaped = slashes % 2 == 1
            slashes = 0
            if escaped or (c != 0x24 and c != 0x60):  # `$`, backquote
                i += 1
                continue
            if c == 0x24:
                if i + 1 >= n or chr(data[i + 1]) not in _EXPANSION_START:
                    i += 1
                    continue
                opener = data[i:i + 2]
            else:
                opener = b"`"
            while k < len(covered) and covered[k][1] <= i:
                k += 1
            if not (k < len(covered) and covered[k][0] <= i < covered[k][1]):
                found = True
                if opener in (b"${", b"$(", b"$[", b"`"):
                    self.hidden = True  # code or operators the walk cannot see
                    return True
            i += 1
        return found

    def _expansion_ops(self, node) -> bool:
        """Record parameter-expansion operators that assign or evaluate; True if plain."""
        ops = [self.text(c) for c in node.children if not c.is_named]
        ops = [o for o in ops if o not in ("${", "}")]
        if not ops:
            return True
        out = self.out
        if "@" in ops or any(o.startswith("@") for o in ops):
            if "P" in self.text(node).rsplit("@", 1)[-1]:
                out.opaque = True
                out.reason("${…@P} prompt expansion can run commands")
        if any(o in (":=", "=") for o in ops):
            out.reason("parameter expansion that assigns ${x:=…}")
        if any(c.type == "subscript" for c in node.children):
            out.opaque = True
        return False

    # -- words ------------------------------------------------------------------------
    def _word(self, node, nested: list, assignment: bool = False) -> Word:
        """Unquote one argument node. Substitution nodes found inside are appended to
        ``nested`` (walked later by the main loop), never recursed into here. An unquoted
        ``$VAR`` outside an assignment is a reason: its value is split and globbed."""
        self.budget.word()
        kind = node.type
        source = self.source
        if source.ascii:
            text = source.text[node.start_byte:node.end_byte]
        else:
            text = source.slice(node.start_byte, node.end_byte)
        if text[:1] == "~" and text[1:2] in RUN_TIME_TILDE and not assignment:
            if text[1] == "+" and kind == "word" and (len(text) == 2 or text[2] == "/") and \
                    not any(ch in _NOT_PLAIN for ch in text) and self.pwd_known():
                # `~+` is $PWD: the directory the command is in (`cd /; rm -rf ~+`)
                return Word(text, "." + text[2:])
            # `~-` ($OLDPWD), `~1` (the directory stack): decided at run time
            return Word(text, None)
        if kind == "word":
            if "\\" not in text:  # unescape_word, without a call
                return Word(text, text, GLOB if "*" in text or "?" in text or "[" in text
                            else LITERAL)
            value, glob = unescape_word(text)
            return Word(text, value, GLOB if glob else LITERAL)
        if kind == "number":
            return Word(text, text)
        if kind == "raw_string":
            return Word(text, text[1:-1], quoted=True, tilde=False)
        if kind == "ansi_c_string":
            return Word(text, decode_ansi_c(text[2:-1]), quoted=True, ansi_c=True, tilde=False)
        out = self.out
        parts: list[str] = []
        quoted = ansi = False
        pieces = [node] if kind != "concatenation" else node.children
        first = True
        ok = True
        glob = False
        tilde: bool | None = None
        variables: list[str] = []
        for piece in pieces:
            pk = piece.type
            if pk == "word":
                v, g = unescape_word(self.text(piece))
                parts.append(v)
                glob = glob or g
            elif pk == "number":
                parts.append(self.text(piece))
            elif pk == "raw_string":
                parts.append(self.text(piece)[1:-1])
                quoted = True
            elif pk == "ansi_c_string":
                parts.append(decode_ansi_c(self.text(piece)[2:-1]))
                quoted = ansi = True
            elif pk in ("string", "translated_string"):
                quoted = True
                if pk == "translated_string":
                    out.reason('locale-translated string $"…"')
                for sp in piece.children:
                    st = sp.type
                    if st == "string_content":
                        parts.append(unescape_double_quoted(self.text(sp)))
                    elif st in ('"', "$"):
                        continue
                    elif st == "simple_expansion" or st == "expansion":
                        name = self._var_name(sp)
                        if not assignment:
                            out.reason(_EXPANSION_REASON)
                        plain = st == "simple_expansion" or self._expansion_ops(sp)
                        if plain and name in _HOME_VARS and first and not parts:
                            parts.append("~")
                            tilde = True
                            variables.append(name)
                        elif plain and name == "PWD" and first and not parts and \
                                self.pwd_known():
                            parts.append(".")  # the directory the command is in
                            variables.append(name)
                        else:
                            ok = False
                            variables.append(name or "?")
                            self._collect(sp, nested)
                    else:
                        ok = False
                        self._collect(sp, nested)
            elif pk in ("simple_expansion", "expansion"):
                name = self._var_name(piece)
                if not assignment:
                    out.reason(_EXPANSION_REASON)
                    out.reason(UNQUOTED_REASON)
                plain = pk == "simple_expansion" or self._expansion_ops(piece)
                if plain and name in _HOME_VARS and first:
                    parts.append("~")
                    tilde = True
                    variables.append(name)
                elif plain and name == "PWD" and first and self.pwd_known():
                    parts.append(".")  # the directory the command is in
                    variables.append(name)
                else:
                    ok = False
                    variables.append(name or "?")
                    self._collect(piece, nested)
            elif pk == "brace_expression":
                ok = False
                out.reason(_BRACE_REASON)
            elif not piece.is_named:
                parts.append(self.text(piece))
            else:
                ok = False
                self._collect(piece, nested)
            first = False
        if kind == "concatenation" and ok and self._has_brace_expansion(node):
            ok = False
            out.reason(_BRACE_REASON)
        if not ok:
            return Word(text, None, DYNAMIC, tuple(variables), quoted, ansi)
        value = "".join(parts)
        if tilde is None:
            tilde = value.startswith("~") and text.startswith("~") and \
                not any(c in text.split("/", 1)[0] for c in "'\"\\$`")
        return Word(text, value, GLOB if glob else LITERAL, tuple(variables), quoted, ansi,
                    tilde)

    def _var_name(self, node) -> str:
        for child in node.children:
            if child.type in ("variable_name", "special_variable_name"):
                return self.text(child)
        return ""

    def _has_brace_expansion(self, node) -> bool:
        """A concatenation with an unquoted `{` … `,` or `..` … `}` expands to several words."""
        depth = 0
        for child in node.children:
            if child.type != "word":
                continue
            t = self.text(child)
            if t == "{" or t.endswith("{"):
                depth += 1
            elif depth and ("," in t or ".." in t):
                return True
            elif t.startswith("}"):
                depth = max(0, depth - 1)
        return False

    def _collect(self, node, nested: list) -> None:
        """Queue the substitutions / expansions under ``node`` for the main walk."""
        kind = node.type
        if kind in _SUBST_KINDS or kind == "arithmetic_expansion":
            nested.append(node)
            return
        if kind == "expansion":
            self._expansion_ops(node)
        # shallow scan: expansions like ${x:-$(cmd)} hold substitutions one level down;
        # deeper nesting is reached by the main loop through `nested`.
        for child in node.children:
            if child.type in _SUBST_KINDS or child.type in ("arithmetic_expansion", "expansion",
                                                            "string", "concatenation"):
                nested.append(child)


def _has_var(node) -> bool:
    stack = [node]
    seen = 0
    while stack and seen < 10_000:
        n = stack.pop()
        seen += 1
        if n.type in ("variable_name", "simple_expansion", "expansion", "subscript",
                      "command_substitution"):
            return True
        stack.extend(n.children)
    return seen >= 10_000

