"""What the analysis knows about a value: its family and how far it can be trusted.

Almost every operation on a Python object can run code the object's class defines: ``x + 1``
calls ``__add__``, ``x[0]`` calls ``__getitem__``, ``print(x)`` calls ``__str__``, showing a
result calls ``__repr__``. Code that only *reads* is therefore read-only only when the objects it
touches are known to be library objects whose special methods change nothing. A ``Kind`` says
that, for one value:

- ``family`` names the method table that applies (``"pandas"``, ``"str"``, ``"module:numpy"``,
  ``"function:numpy.mean"``…) or is None when the exact type is not known;
- ``shallow``: the value's *own* special methods are library code (indexing a list, ``len`` of
  a DataFrame, reading an attribute of a module without ``__getattr__``);
- ``deep``: the same holds for everything the value contains, so comparing, hashing, printing,
  formatting or showing it runs no user code (a list of ints: yes; a list holding an instance
  of a class from ``__main__``: no).

``value`` keeps a known string (a literal, a ``str`` variable, a ``Path``) so file effects can
name their path; ``elem`` is the kind of the elements of a container, when known.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

__all__ = ["Kind", "UNKNOWN", "TRUSTED", "kind_of_constant", "join"]


@dataclass(frozen=True)
class Kind:
    family: str | None = None
    shallow: bool = False
    deep: bool = False
    value: str | None = None
    elem: "Kind | None" = None

    def __post_init__(self) -> None:
        if self.deep and not self.shallow:
            object.__setattr__(self, "shallow", True)

    @property
    def repr_safe(self) -> bool:
        """Showing it (``repr``) runs no user code: deep values, and functions, classes and
        lambdas whose repr Python builds from their names (shallow: of a plain type; a class
        attribute read as ``function:…`` but holding anything else is not shallow)."""
        if self.deep:
            return True
        fam = self.family or ""
        return fam.startswith(("function:", "class:", "lambda")) and self.shallow

    def with_(self, **changes: Any) -> "Kind":
        return replace(self, **changes)


#: nothing is known: every special method may be user code
UNKNOWN = Kind()
#: a library value of no known family: operators, ``print`` and ``repr`` are safe, methods are not
TRUSTED = Kind(None, True, True)

_CONSTANT_FAMILY = {bool: "number", int: "number", float: "number", complex: "number",
                    str: "str", bytes: "bytes", type(None): "none", type(...): "none"}


def kind_of_constant(value: object) -> Kind:
    family = _CONSTANT_FAMILY.get(type(value))
    if isinstance(value, str) and len(value) <= 4096:
        return Kind(family, True, True, value=value)
    return Kind(family, True, True)


def join(a: Kind, b: Kind) -> Kind:
    """The kind of a value that is one of ``a`` or ``b`` (``a or b``, ``x if c else y``)."""
    return Kind(a.family if a.family == b.family else None, a.shallow and b.shallow,
                a.deep and b.deep)
