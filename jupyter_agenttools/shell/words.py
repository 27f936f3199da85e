"""Shell words: what one argument of a command is, and the unquoting rules bash applies.

A :class:`Word` keeps the text as written and its *value*, the string bash passes to the
program, when that string is known before the command runs. Its ``kind`` says how far the
value can be trusted:

- ``literal``: the value is exactly what the program receives;
- ``glob``: an unquoted pattern (``*.py``); ``value`` holds the pattern, bash replaces the word
  by the matching names (any number of words, possibly none, possibly starting with ``-``);
- ``dynamic``: decided at run time (``$X``, ``$(cmd)``, ``{a,b}``, ``~-``); ``value`` is None.

``"$HOME"`` / ``${HOME}`` at the start of a word is read as ``~`` (the permission layer resolves
it); ``tilde`` says whether a leading ``~`` of the value is expanded by bash (it is not when
quoted: ``"~/x"`` names a directory called ``~``).

Every helper here runs in time linear in its input (no regular expression backtracks).
"""

from __future__ import annotations

__all__ = ["Word", "LITERAL", "GLOB", "DYNAMIC", "unescape_word", "unescape_double_quoted",
           "decode_ansi_c", "literal"]

LITERAL = "literal"
GLOB = "glob"
DYNAMIC = "dynamic"

_GLOB_CHARS = frozenset("*?[")
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
    return Word(value, value, LITERAL, tilde=False)


def _tilde_prefix_unquoted(text: str) -> bool:
    """bash expands a leading ``~`` only when the characters up to the first ``/`` (the tilde
    prefix) are unquoted."""
    end = text.find("/")
    prefix = text if end < 0 else text[:end]
    return not any(c in prefix for c in "'\"\\$`")


def unescape_word(text: str) -> tuple[str, bool]:
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


def _digits(body: str, i: int, allowed: frozenset[str], most: int) -> int:
    """End of the run of at most ``most`` characters of ``allowed`` starting at ``i``."""
    end = i
    n = len(body)
    while end < n and end - i < most and body[end] in allowed:
        end += 1
    return end


def decode_ansi_c(body: str) -> str:
    """Decode the escapes of bash's ``$'…'`` quoting (so ``$'\\x72m'`` is seen as ``rm``).
    ``body`` is the text between the quotes."""
    if "\\" not in body:
        return body
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
            end = _digits(body, i, _HEX, 2)
            if end > i:
                out.append(chr(int(body[i:end], 16)))
                i = end
            else:
                out.append("\\x")
        elif e in "uU":
            end = _digits(body, i, _HEX, 4 if e == "u" else 8)
            if end > i:
                code = int(body[i:end], 16)
                out.append(chr(code) if code < 0x110000 else "\ufffd")
                i = end
            else:
                out.append("\\" + e)
        elif e in _OCT:
            end = _digits(body, i, _OCT, 2)
            out.append(chr(int(e + body[i:end], 8) & 0xFF))
            i = end
        elif e == "c" and i < n:
            out.append(chr(ord(body[i]) & 0x1F))
            i += 1
        else:
            out.append("\\" + e)
    return "".join(out)
