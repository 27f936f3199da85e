"""Parse a shell command once with tree-sitter-bash and describe what it would run.

``analyze(command)`` never raises. It returns a :class:`ShellAnalysis`:

- ``commands``: every simple command, in source order, *including* those inside
  ``$( )``, ``<( )``, subshells, loops, functions and conditions, each as an argv of
  :class:`Word` (unquoted the way bash would), its ``VAR=value`` prefixes and redirections;
- ``reasons``: why the command is not provably simple (substitutions, control flow, …);
- ``unanalyzable``: parse errors, control/bidi characters, oversize or non-text input —
  the policy turns these into a safety ASK;
- ``opaque``: constructs no allow rule may approve (a ``$VAR`` command name, arithmetic on
  variables that can run code through array subscripts, ``${x@P}``).

The tree is walked iteratively (no Python recursion), so 10,000-deep nesting is fine.
Node kinds are allow-listed: a kind not known to be simple becomes a reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import tree_sitter_bash
from tree_sitter import Language, Parser

__all__ = [
    "Word", "Redirect", "Heredoc", "SimpleCommand", "ShellAnalysis", "analyze",
    "MAX_COMMAND_CHARS", "IN_SUBSTITUTION", "IN_SUBSHELL", "IN_LOOP", "IN_FUNCTION",
    "IN_CONDITION",
]

_LANGUAGE = Language(tree_sitter_bash.language())
_PARSER = Parser(_LANGUAGE)

# Above this size we don't parse at all: nobody reviews a 100 KB one-liner.
MAX_COMMAND_CHARS = 100_000

# Where a simple command sits (bit flags on SimpleCommand.nesting).
IN_SUBSTITUTION = 1   # inside $( ), ` `, <( ), >( )
IN_SUBSHELL = 2       # ( … ) or { …; }
IN_LOOP = 4           # for / while / until body or header
IN_FUNCTION = 8       # function body (runs whenever called)
IN_CONDITION = 16     # if / case / [[ ]]

# C0/C1 controls except \t and \n, plus zero-width and bidi controls: they hide what runs.
# Planes 2-16 (rare ideographs, unassigned, tags, private use) too: tree-sitter-bash 0.25's
# scanner can crash the process on `{` or `${` followed by one of them (found by fuzzing).
_BAD_CHARS = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e"
    "\u2028\u2029\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"
    "\U0001d173-\U0001d17a\U00020000-\U0010ffff]"
)
_NAMES = {
    "\x00": "NUL", "\r": "carriage return", "\x1b": "escape", "\u200b": "zero-width space",
    "\u200c": "zero-width non-joiner", "\u200d": "zero-width joiner", "\u200e": "LTR mark",
    "\u200f": "RTL mark", "\u202e": "RTL override", "\u202d": "LTR override", "\ufeff": "BOM",
    "\u2066": "LTR isolate", "\u2067": "RTL isolate", "\u2068": "first strong isolate",
    "\u2069": "pop directional isolate",
}

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
_GLOB_CHARS = frozenset("*?[")
# Parameter expansion anywhere (quoted too) is decided at run time: never provably simple.
_EXPANSION_REASON = "parameter expansion $… (its value is decided at run time)"
_BRACE_REASON = "brace expansion {a,b} (one word becomes several)"
# `"$HOME"` and `${HOME}` at the start of a word are resolved to `~` so path checks see them.
_HOME_VARS = frozenset({"HOME"})


@dataclass(slots=True)
class Word:
    """One shell word. ``value`` is its unquoted static value, or None when it depends on
    the environment or on another command. A glob keeps its pattern in ``value`` and sets
    ``glob``; ``vars`` names the variables it expands; ``dynamic`` marks substitutions,
    arithmetic, brace expansion or parameter operators (never static)."""

    text: str
    value: str | None
    glob: bool = False
    vars: tuple[str, ...] = ()
    dynamic: bool = False
    quoted: bool = False
    ansi_c: bool = False

    @property
    def static(self) -> bool:
        return self.value is not None and not self.glob

    def __repr__(self) -> str:
        return f"Word({self.text!r})"


@dataclass(slots=True)
class Redirect:
    """``op`` is the operator (``>``, ``>>``, ``&>``, ``>|``, ``<``, ``>&``, ``<<<`` …)."""

    op: str
    target: Word | None
    fd: str | None = None

    @property
    def is_output(self) -> bool:
        return ">" in self.op

    @property
    def is_input(self) -> bool:
        return self.op in ("<", "<&")


@dataclass(slots=True)
class Heredoc:
    delimiter: str
    quoted: bool
    expands: bool  # unquoted body containing $…, `…` or \


@dataclass(slots=True)
class SimpleCommand:
    """A simple command: ``assignments`` (``VAR=value`` prefixes), ``argv``, ``redirects``
    (its own plus those of enclosing redirected groups). ``nesting`` has IN_* flags,
    ``parent`` is the index of the command whose words contain this one (substitutions),
    ``pipeline`` is (pipeline id, position) for direct pipeline members."""

    argv: list[Word]
    assignments: list[tuple[str, Word]] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    nesting: int = 0
    parent: int | None = None
    pipeline: tuple[int, int] | None = None
    text: str = ""
    kind: str = "command"  # or "declaration" (export/local/…), "assignment", "unset"

    @property
    def name(self) -> Word | None:
        return self.argv[0] if self.argv else None

    def values(self) -> list[str | None]:
        return [w.value if not w.glob else None for w in self.argv]


@dataclass(slots=True)
class ShellAnalysis:
    command: str
    commands: list[SimpleCommand] = field(default_factory=list)
    heredocs: list[Heredoc] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    unanalyzable: bool = False
    opaque: bool = False
    background: bool = False
    multiline: bool = False

    @property
    def simple(self) -> bool:
        """No reasons and analyzable: every sub-command is a plain top-level command."""
        return not self.reasons and not self.unanalyzable

    def _reason(self, text: str) -> None:
        if text not in self.reasons:
            self.reasons.append(text)


def _fail(command: str, reason: str) -> ShellAnalysis:
    return ShellAnalysis(command=command, reasons=[reason], unanalyzable=True, opaque=True)


def _check_text(command: object) -> str | None:
    if not isinstance(command, str):
        return f"the command is not text (got {type(command).__name__})"
    if not command.strip():
        return "the command is empty"
    if len(command) > MAX_COMMAND_CHARS:
        return f"the command is too long to review ({len(command):,} characters)"
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


def analyze(command: object) -> ShellAnalysis:
    """Parse ``command`` once and extract its sub-commands; never raises."""
    problem = _check_text(command)
    if problem:
        return _fail(command if isinstance(command, str) else repr(command)[:200], problem)
    assert isinstance(command, str)
    try:
        fast = _fast(command)
        if fast is not None:
            return fast
        walker = _Walker(command)
        out = walker.run()
        if walker.hidden:
            out = _reparse_dash_heredocs(command)
        return out
    except Exception as exc:  # a defect in the walker must not become an allow
        return _fail(command, f"the command could not be analyzed ({type(exc).__name__})")


# `$name`, `${`, `$(`, `$((`, `$'` … or a backquote: text bash expands in an unquoted heredoc.
_EXPANDS = re.compile(r"\$[A-Za-z_0-9{(\[@*#?$!-]|`")
_LEADING_TABS = re.compile(r"^\t+", re.M)


def _reparse_dash_heredocs(command: str) -> ShellAnalysis:
    """tree-sitter-bash 0.25 returns a childless heredoc_body for a `<<-` heredoc whose lines
    are tab-indented, hiding `$( )` from every check. bash strips those tabs, so the same
    command with the leading tabs of every line removed and `<<-` read as `<<` runs the same
    code (a tab before a shell word is a blank); that text is analysed instead. If expansions
    are still invisible, the command is unanalyzable."""
    text = _LEADING_TABS.sub("", command).replace("<<-", "<<")
    walker = _Walker(text)
    out = walker.run()
    out.command = command
    if walker.hidden:
        out.unanalyzable = True
        out.opaque = True
        out._reason("the command could not be fully parsed (a here-document's expansions "
                    "are not in the syntax tree)")
    return out


# The fast path: a command made only of these characters has no quoting, expansion, globbing,
# redirection, grouping or comments, so bash splits it on blanks and on `| && || ;` alone. It
# gives exactly what the tree walk gives (tests/shell/test_shell_fuzz.py compares the two) at a
# fraction of the cost; anything else, reserved words and empty segments included, is parsed.
_FAST_CHARS = re.compile(r"[A-Za-z0-9_./=,:+ \t|;&-]*\Z")
_FAST_SPLIT = re.compile(r"(\|\||&&|\||;)")
_FAST_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_RESERVED = frozenset({"if", "then", "else", "elif", "fi", "case", "esac", "for", "select",
                       "while", "until", "do", "done", "in", "function", "coproc", "{", "}",
                       "!", "[[", "]]"})


def _fast(command: str) -> ShellAnalysis | None:
    if not _FAST_CHARS.match(command) or "==" in command or "+=" in command:
        return None  # `A+=1` appends; tree-sitter rejects `ls ==`
    parts = _FAST_SPLIT.split(command)
    out = ShellAnalysis(command=command)
    commands = out.commands
    pid = -1
    pos = 0
    prev_sep = ""
    for k in range(0, len(parts), 2):
        seg = parts[k]
        sep = parts[k + 1] if k + 1 < len(parts) else ""
        if "&" in seg:
            return None  # a lone & (background) or &>: let the parser decide
        words = seg.split()
        if not words:
            return None  # `ls |`, `; ls`, `ls;`: the parser reports or accepts these
        assignments: list[tuple[str, Word]] = []
        i = 0
        while i < len(words) and _FAST_ASSIGN.match(words[i]):
            name, _, value = words[i].partition("=")
            assignments.append((name, Word(value, value)))
            i += 1
        argv = [Word(w, w) for w in words[i:]]
        if argv and (argv[0].value in _RESERVED or "=" in words[i]):
            return None  # tree-sitter reads `--opt=1` in command position as an assignment
        pipe = None
        if sep == "|" or prev_sep == "|":
            if prev_sep != "|":
                pid += 1
                pos = 0
            pipe = (pid, pos)
            pos += 1
        text = seg.strip()
        if argv:
            commands.append(SimpleCommand(argv=argv, assignments=assignments, pipeline=pipe,
                                          text=text))
        else:
            commands.append(SimpleCommand(argv=[], assignments=assignments, text=text,
                                          kind="assignment"))
        prev_sep = sep
    return out


class _Walker:
    __slots__ = ("src", "data", "out", "pipelines", "pending", "hidden")

    def __init__(self, command: str) -> None:
        self.src = command
        self.data = command.encode("utf-8")
        self.out = ShellAnalysis(command=command, multiline="\n" in command.strip())
        self.pipelines = 0
        self.pending: list = []  # statements found inside a heredoc redirect
        self.hidden = False  # an unquoted heredoc body has expansions the tree does not show

    def text(self, node) -> str:
        return self.data[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def run(self) -> ShellAnalysis:
        tree = _PARSER.parse(self.data)
        root = tree.root_node
        out = self.out
        if root.has_error:
            out.unanalyzable = True
            out.opaque = True
            out._reason(self._error_reason(root))
        elif self._dropped_text(root):
            # tree-sitter occasionally skips text without an ERROR node (`- a=` parses as
            # `a=`): whatever it did not cover was not analysed
            out.unanalyzable = True
            out.opaque = True
            out._reason("the command could not be fully parsed (text outside the syntax tree)")
        # stack items: (node, nesting flags, parent command index, inherited redirects, pipe)
        stack = [(root, 0, None, (), None)]
        nest, parent = 0, None  # pending nodes inherit the last popped item's values
        while stack or self.pending:
            if self.pending:
                for n in reversed(self.pending):
                    stack.append((n, nest, parent, (), None))
                self.pending.clear()
                continue
            node, nest, parent, redirs, pipe = stack.pop()
            kind = node.type
            if kind == "command":
                self._command(node, nest, parent, redirs, pipe, stack)
            elif kind in ("redirected_statement",):
                self._redirected(node, nest, parent, redirs, pipe, stack)
            elif kind == "pipeline":
                pid = self.pipelines
                self.pipelines += 1
                pos = 0
                items = []
                for child in node.children:
                    if child.is_named:
                        items.append((child, nest, parent, redirs, (pid, pos)))
                        pos += 1
                stack.extend(reversed(items))
            elif kind in ("declaration_command", "unset_command"):
                self._declaration(node, nest, parent, redirs, stack)
            elif kind in ("variable_assignment", "variable_assignments"):
                self._assignment_statement(node, nest, parent, redirs, stack)
            elif kind in _SIMPLE_KINDS:
                self._push_children(node, nest, parent, redirs, stack, pipe)
            elif kind == "&":
                out.background = True
            elif kind == ";;" and (node.parent is None or node.parent.type not in
                                   ("case_item", "case_statement")):
                out.unanalyzable = True
                out.opaque = True
                out._reason("the command has a syntax error near ';;'")
            elif kind == "test_command" and not self.text(node).startswith("[["):
                self._single_test(node, nest, parent, redirs, pipe, stack)
            elif not node.is_named:
                continue
            elif kind in _REASON_KINDS or kind in _FLAG_OF:
                if kind in _REASON_KINDS:
                    out._reason(_REASON_KINDS[kind])
                if kind in ("arithmetic_expansion", "c_style_for_statement") and _has_var(node):
                    out.opaque = True
                    out._reason("arithmetic on variables (array subscripts can run commands)")
                self._push_children(node, nest | _FLAG_OF.get(kind, 0), parent, redirs, stack,
                                    pipe if kind in ("subshell", "compound_statement") else None)
            elif kind in ("heredoc_body", "heredoc_start", "heredoc_end", "heredoc_content",
                          "string_content", "raw_string", "word", "number", "variable_name",
                          "special_variable_name", "file_descriptor", "test_operator"):
                continue
            elif kind == "ERROR":
                self._push_children(node, nest, parent, redirs, stack)
            elif kind in ("simple_expansion", "expansion", "string", "concatenation",
                          "array", "brace_expression", "ansi_c_string", "translated_string",
                          "binary_expression", "unary_expression", "ternary_expression",
                          "parenthesized_expression", "postfix_expression", "subscript",
                          "regex", "extglob_pattern", "case_item", "else_clause"):
                # Words outside a simple command (loop lists, tests, case subjects): only
                # substitutions inside them matter.
                if kind == "expansion":
                    self._expansion_ops(node)
                self._push_children(node, nest, parent, redirs, stack)
            else:
                out._reason(f"unsupported shell syntax ({kind})")
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
        # Find the first ERROR / MISSING node iteratively for a useful message.
        stack = [root]
        while stack:
            n = stack.pop()
            if n.is_missing:
                return (f"the command has a syntax error (missing {n.type!r} at offset "
                        f"{n.start_byte})")
            if n.is_error:
                snippet = self.text(n)[:30]
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
            stack.append((child, nest, parent, redirs, pipe if child is first else None))

    # -- statements -----------------------------------------------------------------
    def _redirected(self, node, nest, parent, redirs, pipe, stack) -> None:
        own: list[Redirect] = []
        body = None
        nested: list = []
        for child in node.children:
            if child.type in _REDIRECT_KINDS:
                own.extend(self._redirect(child, nested))
            elif child.is_named and body is None:
                body = child
            elif child.is_named:
                nested.append(child)
        if body is not None:
            stack.append((body, nest, parent, redirs + tuple(own), pipe))
        idx = len(self.out.commands)  # substitutions in redirect targets belong to the body
        for n in nested:
            stack.append((n, nest | IN_SUBSTITUTION, parent if parent is not None else idx,
                          (), None))

    def _command(self, node, nest, parent, redirs, pipe, stack) -> None:
        idx = len(self.out.commands)
        cmd = SimpleCommand(argv=[], redirects=list(redirs), nesting=nest, parent=parent,
                            pipeline=pipe, text=self.text(node))
        self.out.commands.append(cmd)
        nested: list = []
        for child in node.children:
            kind = child.type
            if kind == "command_name":
                inner = child.children[0] if child.child_count else child
                w = self._word(inner, nested)
                cmd.argv.append(w)
                if w.value is None or w.glob:
                    self.out.opaque = True
                    self.out._reason("the command name is not static "
                                     f"({w.text[:40]!r} is decided at run time)")
                elif w.ansi_c:
                    self.out._reason("ANSI-C quoted command name $'…'")
                elif "{" in w.text and w.dynamic:
                    self.out._reason("brace expansion in the command name")
            elif kind == "variable_assignment":
                cmd.assignments.append(self._assign(child, nested))
            elif kind in _REDIRECT_KINDS:
                cmd.redirects.extend(self._redirect(child, nested))
            elif child.is_named and kind != "comment":
                cmd.argv.append(self._word(child, nested))
            elif kind == "$":
                self.out._reason('locale-translated string $"…"')
        sub = nest | IN_SUBSTITUTION
        for n in reversed(nested):
            stack.append((n, sub, idx, (), None))

    def _single_test(self, node, nest, parent, redirs, pipe, stack) -> None:
        """`[ … ]` is the test builtin: a simple command `[` with its words."""
        idx = len(self.out.commands)
        cmd = SimpleCommand(argv=[Word("[", "[")], redirects=list(redirs), nesting=nest,
                            parent=parent, pipeline=pipe, text=self.text(node))
        self.out.commands.append(cmd)
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
        for n in reversed(nested):
            stack.append((n, nest | IN_SUBSTITUTION, idx, (), None))

    def _declaration(self, node, nest, parent, redirs, stack) -> None:
        idx = len(self.out.commands)
        cmd = SimpleCommand(argv=[], redirects=list(redirs), nesting=nest, parent=parent,
                            text=self.text(node),
                            kind="unset" if node.type == "unset_command" else "declaration")
        self.out.commands.append(cmd)
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
                cmd.argv.append(Word(self.text(child), v, dynamic=w.dynamic, vars=w.vars))
            elif child.type in ("variable_name", "word"):
                t = self.text(child)
                cmd.argv.append(Word(t, t))
            else:
                cmd.argv.append(self._word(child, nested))
        for n in reversed(nested):
            stack.append((n, nest | IN_SUBSTITUTION, idx, (), None))

    def _assignment_statement(self, node, nest, parent, redirs, stack) -> None:
        idx = len(self.out.commands)
        cmd = SimpleCommand(argv=[], redirects=list(redirs), nesting=nest, parent=parent,
                            text=self.text(node), kind="assignment")
        self.out.commands.append(cmd)
        nested: list = []
        items = [node] if node.type == "variable_assignment" else node.named_children
        for child in items:
            if child.type == "variable_assignment":
                cmd.assignments.append(self._assign(child, nested))
        for n in reversed(nested):
            stack.append((n, nest | IN_SUBSTITUTION, idx, (), None))

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

    def _redirect(self, node, nested: list) -> list[Redirect]:
        kind = node.type
        if kind == "heredoc_redirect":
            return self._heredoc(node, nested)
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
            else:  # extra words after the target, e.g. `> a b` is not valid here anyway
                nested.append(child)
        if kind == "herestring_redirect":
            op = "<<<"
        return [Redirect(op=op or ">", target=target, fd=fd)]

    def _heredoc(self, node, nested: list) -> list[Redirect]:
        delim = ""
        quoted = False
        expands = False
        op = "<<"
        body = ""
        more: list[Redirect] = []
        for child in node.children:
            t = child.type
            if t in _REDIRECT_KINDS:  # `cat <<EOF > file`: the file redirect nests here
                more.extend(self._redirect(child, nested))
            elif child.is_named and t not in ("heredoc_start", "heredoc_body", "heredoc_end"):
                # `cat <<EOF | sh` / `cat <<EOF && rm x`: the rest of the line nests here
                self.pending.append(child)
            elif t == "heredoc_start":
                raw = self.text(child)
                quoted = any(c in raw for c in "'\"\\")
                delim = raw.replace("'", "").replace('"', "").replace("\\", "")
            elif t == "heredoc_body":
                body = self.text(child)
                covered = []
                for part in child.children:
                    if part.type in ("simple_expansion", "expansion", "command_substitution",
                                     "arithmetic_expansion"):
                        expands = True
                        nested.append(part)
                        covered.append((part.start_byte - child.start_byte,
                                        part.end_byte - child.start_byte))
                if not quoted:
                    raw = self.data[child.start_byte:child.end_byte].decode("utf-8", "replace")
                    # every `$x`/`$(`/backquote must sit inside an expansion node; positions
                    # are compared in bytes
                    for m in _EXPANDS.finditer(raw):
                        pre = raw[:m.start()]
                        if (len(pre) - len(pre.rstrip("\\"))) % 2:
                            continue  # `\$` is a literal dollar
                        at = len(raw[:m.start()].encode("utf-8"))
                        if not any(a <= at < b for a, b in covered):
                            expands = True
                            if m.group(0) in ("${", "$(", "$[", "`"):
                                self.hidden = True  # code or operators the walk cannot see
                                break
                if not quoted and ("\\" in self.text(child) or "`" in self.text(child)):
                    expands = True
            elif not child.is_named and t.startswith("<<"):
                op = t
        self.out.heredocs.append(Heredoc(delimiter=delim, quoted=quoted, expands=expands))
        if expands and not quoted:
            self.out._reason("here-document with an unquoted delimiter expands $… and `…`")
        # the body is kept (as the target) so a shell reading it can be analysed too
        target = Word(body, None if (expands and not quoted) else body, quoted=quoted)
        return [Redirect(op=op, target=target)] + more

    def _expansion_ops(self, node) -> bool:
        """Record parameter-expansion operators that assign or evaluate; True if plain."""
        ops = [self.text(c) for c in node.children if not c.is_named]
        ops = [o for o in ops if o not in ("${", "}")]
        if not ops:
            return True
        if "@" in ops or any(o.startswith("@") for o in ops):
            if "P" in self.text(node).rsplit("@", 1)[-1]:
                self.out.opaque = True
                self.out._reason("${…@P} prompt expansion can run commands")
        if any(o in (":=", "=") for o in ops):
            self.out._reason("parameter expansion that assigns ${x:=…}")
        if any(c.type == "subscript" for c in node.children):
            self.out.opaque = True
        return False

    # -- words ------------------------------------------------------------------------
    def _word(self, node, nested: list, assignment: bool = False) -> Word:
        """Unquote one argument node. Substitution nodes found inside are appended to
        ``nested`` (walked later by the main loop), never recursed into here. An unquoted
        ``$VAR`` outside an assignment is a reason: its value is split and globbed."""
        kind = node.type
        text = self.text(node)
        if text.startswith(("~-", "~+")) and not assignment:
            # `~-` is $OLDPWD (inherited from the kernel's environment), `~+` is $PWD: both
            # are decided at run time
            return Word(text, None)
        if kind == "word":
            value, glob = _unescape_word(text)
            return Word(text, value, glob=glob)
        if kind == "number":
            return Word(text, text)
        if kind == "raw_string":
            return Word(text, text[1:-1], quoted=True)
        if kind == "ansi_c_string":
            return Word(text, _ansi_c(text[2:-1]), quoted=True, ansi_c=True)
        parts: list[str] = []
        w = Word(text, None)
        pieces = [node] if kind != "concatenation" else node.children
        first = True
        ok = True
        glob = False
        variables: list[str] = []
        for piece in pieces:
            pk = piece.type
            ptext = self.text(piece)
            if pk == "word":
                v, g = _unescape_word(ptext)
                parts.append(v)
                glob = glob or g
                if ptext in ("{", "}") or ("{" in ptext and "," in ptext):
                    pass
            elif pk == "number":
                parts.append(ptext)
            elif pk == "raw_string":
                parts.append(ptext[1:-1])
                w.quoted = True
            elif pk == "ansi_c_string":
                parts.append(_ansi_c(ptext[2:-1]))
                w.quoted = True
                w.ansi_c = True
            elif pk in ("string", "translated_string"):
                w.quoted = True
                if pk == "translated_string":
                    self.out._reason('locale-translated string $"…"')
                for sp in piece.children:
                    st = sp.type
                    if st == "string_content":
                        parts.append(_unescape_dquote(self.text(sp)))
                    elif st in ('"', "$"):
                        continue
                    elif st == "simple_expansion" or st == "expansion":
                        name = _var_name(sp, self)
                        if not assignment:
                            self.out._reason(_EXPANSION_REASON)
                        plain = st == "simple_expansion" or self._expansion_ops(sp)
                        if plain and name in _HOME_VARS and first and not parts:
                            parts.append("~")
                            variables.append(name)
                        else:
                            ok = False
                            variables.append(name or "?")
                            if not plain:
                                w.dynamic = True
                            self._collect(sp, nested)
                    else:
                        ok = False
                        w.dynamic = True
                        self._collect(sp, nested)
            elif pk in ("simple_expansion", "expansion"):
                name = _var_name(piece, self)
                if not assignment:
                    self.out._reason(_EXPANSION_REASON)
                    self.out._reason("unquoted expansion (its value is split into words and "
                                     "globbed at run time)")
                plain = pk == "simple_expansion" or self._expansion_ops(piece)
                if plain and name in _HOME_VARS and first:
                    parts.append("~")
                    variables.append(name)
                else:
                    ok = False
                    variables.append(name or "?")
                    if not plain:
                        w.dynamic = True
                    self._collect(piece, nested)
            elif pk == "brace_expression":
                ok = False
                w.dynamic = True
                self.out._reason(_BRACE_REASON)
            elif not piece.is_named:
                parts.append(ptext)
            else:
                ok = False
                w.dynamic = True
                self._collect(piece, nested)
            first = False
        if kind == "concatenation" and _has_brace_expansion(node, self):
            ok = False
            w.dynamic = True
            self.out._reason(_BRACE_REASON)
        w.vars = tuple(variables)
        w.glob = glob
        if ok:
            w.value = "".join(parts)
        return w

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


def _var_name(node, walker: _Walker) -> str:
    for child in node.children:
        if child.type in ("variable_name", "special_variable_name"):
            return walker.text(child)
    return ""


def _has_brace_expansion(node, walker: _Walker) -> bool:
    """A concatenation with an unquoted `{` … `,` or `..` … `}` expands to several words."""
    depth = 0
    for child in node.children:
        if child.type != "word":
            continue
        t = walker.text(child)
        if t == "{" or t.endswith("{"):
            depth += 1
        elif depth and ("," in t or ".." in t):
            return True
        elif t.startswith("}"):
            depth = max(0, depth - 1)
    return False


def _unescape_word(text: str) -> tuple[str, bool]:
    """Remove backslash escapes from an unquoted word; report unescaped glob characters."""
    if "\\" not in text:
        return text, any(c in _GLOB_CHARS for c in text)
    out: list[str] = []
    glob = False
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            nxt = text[i + 1]
            if nxt != "\n":
                out.append(nxt)
            i += 2
            continue
        if c in _GLOB_CHARS:
            glob = True
        out.append(c)
        i += 1
    return "".join(out), glob


def _unescape_dquote(text: str) -> str:
    if "\\" not in text:
        return text
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] in '$`"\\\n':
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


_ANSI_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n",
                "r": "\r", "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def _ansi_c(body: str) -> str:
    """Decode the escapes of bash's $'…' quoting (so `$'\\x72m'` is seen as `rm`)."""
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        i += 2
        if e in _ANSI_SIMPLE:
            out.append(_ANSI_SIMPLE[e])
        elif e == "x":
            m = re.match(r"[0-9A-Fa-f]{1,2}", body[i:])
            if m:
                out.append(chr(int(m.group(0), 16)))
                i += m.end()
            else:
                out.append("\\x")
        elif e in "uU":
            m = re.match(rf"[0-9A-Fa-f]{{1,{4 if e == 'u' else 8}}}", body[i:])
            if m:
                cp = int(m.group(0), 16)
                out.append(chr(cp) if cp < 0x110000 else "\ufffd")
                i += m.end()
            else:
                out.append("\\" + e)
        elif e in "01234567":
            m = re.match(r"[0-7]{0,2}", body[i:])
            out.append(chr(int(e + m.group(0), 8) & 0xFF))
            i += m.end()
        elif e == "c" and i < n:
            out.append(chr(ord(body[i]) & 0x1F))
            i += 1
        else:
            out.append("\\" + e)
    return "".join(out)
