"""What the Python analysis reports: ``CodeAnalysis`` (read-only or not, with reasons naming
line and construct), the file ``Effect``s of the code, and ``Names``, the oracle the analysis
asks what a name stands for (``values.py`` implements it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from .kinds import Kind
from .tables import SECRET_WORDS


class Names(Protocol):
    def lookup(self, name: str) -> Kind | None: ...

    def module_attribute(self, module: str, attr: str) -> Kind | None: ...

    def class_attribute(self, owner: str, attr: str) -> Kind | str:
        """``owner.attr`` read (not called) on a class known by its canonical name: its
        Kind, or why reading it may run code."""
        ...


@dataclass(frozen=True)
class Effect:
    kind: str  # "read" | "search" | "write" | "delete"
    path: str | None  # as written; None when the code builds it at run time
    recursive: bool = False  # the whole tree below path (shutil.rmtree, copytree)


@dataclass(frozen=True)
class Reason:
    text: str
    line: int
    snippet: str
    callee: str | None = None  # a named call an allow rule ``RunCode(callee)`` could cover
    #: the tables list the callee as never read-only (exec, os.*, pickle…): never suggested
    never: bool = False


@dataclass
class CodeAnalysis:
    code: str
    read_only: bool
    reasons: list[Reason] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    blessed: list[str] = field(default_factory=list)  # callees an allow rule vouched for
    syntax_error: str | None = None
    #: path-like constants past the ones checked as possible writes (code that is not
    #: read-only and names more paths than are checked: it cannot be described)
    unchecked_paths: int = 0

    @property
    def reads(self) -> list[Effect]:
        return [e for e in self.effects if e.kind in ("read", "search")]

    @property
    def writes(self) -> list[Effect]:
        return [e for e in self.effects if e.kind in ("write", "delete")]

    def explain(self, limit: int = 3) -> str:
        if self.read_only:
            return "read-only: " + (", ".join(f"reads {e.path}" for e in self.reads)
                                    or "only reads values")
        parts = [f"line {r.line}: {r.text}" for r in self.reasons[:limit]]
        more = len(self.reasons) - limit
        if more > 0:
            parts.append(f"and {more} more")
        return "; ".join(parts)


def secret_word(name: str) -> str | None:
    low = name.lower()
    for word in SECRET_WORDS:
        if word in low:
            return word
    return None

