"""Shell words: what one argument of a command is, and the unquoting rules bash applies.

A :class:`Word` keeps the text as written and its *value*, the string bash passes to the
program, when that string is known before the command runs. Its ``kind`` says how far the
value can be trusted:

- ``literal``: the value is exactly what the program receives;
- ``glob``: an unquoted pattern (``*.py``); ``value`` holds the pattern, bash replaces the word
  by the matching names (any number of words, possibly none, possibly starting with ``-``);
- ``dynamic``: decided at run time (``$X``, ``$(cmd)``, ``{a,b}``, ``~-``, ``~1``); ``value`` is
  None.

``"$HOME"`` / ``${HOME}`` at the start of a word is read as ``~`` (the permission layer resolves
it); ``tilde`` says whether a leading ``~`` of the value is expanded by bash (it is not when
quoted: ``"~/x"`` names a directory called ``~``).

Every helper here runs in time linear in its input (no regular expression backtracks).
"""

from __future__ import annotations

import re

__all__ = ["Word", "LITERAL", "GLOB", "DYNAMIC", "RUN_TIME_TILDE", "unescape_word",
           "unescape_double_quoted", "decode_ansi_c", "literal"]

LITERAL = "literal"
GLOB = "glob"
DYNAMIC = "dynamic"

_GLOB_CHARS = frozenset("*?[")
# the character after a leading `~` that makes the word decided at run time: `~+` is $PWD,
# `~-` $OLDPWD (inherited from the kernel's environment), `~1`, `~+2`, `~-0` entries of the
# directory stack (`pushd /; rm -rf ~1` removes /; with no such entry `~1` stays as written)
RUN_TIME_TILDE = frozenset("+-0123456789")
# the text of a dynamic word is kept only this long (messages quote at most 40 characters;
# nested substitutions would otherwise copy the same text once per level)
_TEXT_LIMIT = 512


class Word:
    """One shell word (see the module docstring)."""

    __slots__ = ("text", "value", "kind", "vars", "quoted", "ansi_c", "tilde")

    def __init__(self, text: str, value: str | None, kind: str = LITERAL,
                 vars: tuple[str, ...] = (), quoted: bool = False, ansi_c: bool = False,
                 tilde: bool | None = None) -> None:
        if value is None:
            kind = DYNAMIC
            if len(text) > _TEXT_LIMIT:
                text = text[:_TEXT_LIMIT] + "…"
        self.text = text
        self.value = value
        self.kind = kind
        self.vars = vars
        self.quoted = quoted
        self.ansi_c = ansi_c
        if tilde is None:
            tilde = value is not None and value.startswith("~") and text.startswith("~") \
                and _tilde_prefix_unquoted(text)
        self.tilde = tilde

    @property
    def glob(self) -> bool:
        return self.kind == GLOB

    @property
    def dynamic(self) -> bool:
        return self.kind == DYNAMIC

    @property
    def static(self) -> bool:
        """The value is exactly what the program receives."""
        return self.kind == LITERAL

    @property
    def may_start_with_dash(self) -> bool:
        """Could bash hand the program a word starting with ``-`` here (a glob whose first
        character is a pattern or a dash, or a word decided at run time)?"""
        if self.kind == DYNAMIC:
            return True
        if self.kind == GLOB:
            v = self.value or ""
            return v[:1] in ("*", "?", "[", "-")
        return False

    def __repr__(self) -> str:
        return f"Word({self.text!r})"


def literal(value: str) -> Word:
    """A word whose text and value are ``value`` (used for words the analysis derives)."""
    return Word(value, value, LITERAL, (), False, False, False)


def _tilde_prefix_unquoted(text: str) -> bool:
    """bash expands a leading ``~`` only when the characters up to the first ``/`` (the tilde
    prefix) are unquoted."""
    end = text.find("/")
    prefix = text if end < 0 else text[:end]
    return not any(c in prefix for c in "'\"\\$`")


def unescape_word(text: str) -> tuple[str, bool]:
    """Remove backslash escapes from an unquoted word; report unescaped glob characters."""
    if "\\" not in text:
        return text, "*" in text or "?" in text or "[" in text  # _GLOB_CHARS
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


def unescape_double_quoted(text: str) -> str:
    """Inside double quotes a backslash escapes only ``$ ` " \\`` and a newline."""
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
_HEX = frozenset("0123456789abcdefABCDEF")
_OCT = frozenset("01234567")


# one escape of ``$'…'``: a backslash and what it takes (bounded lengths: nothing backtracks)
_ANSI_ESCAPE = re.compile(r"(\\(?:x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}"
                          r"|[0-7]{1,3}|c.|.)?)", re.S)


def _decode_escape(escape: str) -> str:
    """One escape as :data:`_ANSI_ESCAPE` cuts it (a lone backslash at the end stays)."""
    if len(escape) < 2:
        return escape
    e = escape[1]
    if e in _ANSI_SIMPLE:
        return _ANSI_SIMPLE[e]
    digits = escape[2:]
    if e == "x" and digits:
        return chr(int(digits, 16))
    if e in "uU" and digits:
        code = int(digits, 16)
        return chr(code) if code < 0x110000 else "\ufffd"
    if e in _OCT:
        return chr(int(escape[1:], 8) & 0xFF)
    if e == "c" and digits:
        return chr(ord(digits) & 0x1F)
    return escape


# the escapes whose spelling is short enough to decode once per process
_DECODED = {escape: _decode_escape(escape) for escape in (
    ["\\"] + ["\\" + e for e in _ANSI_SIMPLE]
    + ["\\x" + a for a in _HEX] + ["\\x" + a + b for a in _HEX for b in _HEX]
    + ["\\" + a for a in _OCT] + ["\\" + a + b for a in _OCT for b in _OCT]
    + ["\\" + a + b + c for a in _OCT for b in _OCT for c in _OCT])}


def decode_ansi_c(body: str) -> str:
    """Decode the escapes of bash's ``$'…'`` quoting (so ``$'\\x72m'`` is seen as ``rm``).
    ``body`` is the text between the quotes. The regular-expression engine cuts the text
    into literal runs and escapes (odd positions), each escape decoded by table lookup."""
    if "\\" not in body:
        return body
    pieces = _ANSI_ESCAPE.split(body)
    decoded = _DECODED
    pieces[1::2] = [decoded.get(escape) or _decode_escape(escape) for escape in pieces[1::2]]
    return "".join(pieces)
