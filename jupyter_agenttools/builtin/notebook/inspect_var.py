"""Inspect: a variable's type, shape/length and a bounded repr, without running user code.

The name is looked up in the notebook's namespace (a dict), dotted parts with
``inspect.getattr_static`` (no property, no ``__getattr__`` runs: a property is reported as
such, not read). The repr is shown only when ``pycode.safe_repr`` can prove it runs no user
code: the object's exact type is a built-in or a known library type (checked by identity
against the library's own export) and, for containers, arrays and frames of objects, so is
every element (checked up to a budget); a user class's ``__repr__`` is never called. ``len``
and ``shape`` are read only for those same types.
"""

from __future__ import annotations

import inspect as _inspect
import re
import types
from typing import TYPE_CHECKING, Any, Mapping

from ...errors import ToolExecutionError
from ...pycode import describe, safe_repr, secret_word
from ...pycode.values import canonical_name
from ...tools.base import Tool, ToolChunk
from ...tools.redact import hidden_note, redact
from .host import NotebookHost

if TYPE_CHECKING:
    from ...permission.types import PermissionContext, PermissionDecision

__all__ = ["Inspect"]

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
REPR_LIMIT = 4000


class Inspect(Tool):
    name = "Inspect"
    description = (
        "Look at one variable of the notebook (or an attribute path like model.coef_): its "
        "type, shape or length, and its value as text (bounded). It never runs code of the "
        "user's classes, so the value of objects whose repr is user code is not shown; use "
        "RunCode for more.")
    input_schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 300,
                     "pattern": NAME.pattern,
                     "description": "A variable name, or name.attribute…"},
        },
        "required": ["name"],
        "additionalProperties": False,
    }
    read_only = True
    concurrency_safe = True
    rule_argument = "name"
    #: a quick look at the namespace: on the kernel's loop, like the cells that change it
    call_in_thread = False

    def __init__(self, host: NotebookHost | None = None):
        self.host = host if host is not None else NotebookHost()

    def is_read_only(self, tool_input: Mapping[str, Any] | None = None) -> bool:
        name = (tool_input or {}).get("name")
        return isinstance(name, str) and secret_word(name) is None

    def check_permissions(self, tool_input: Mapping[str, Any],
                          context: "PermissionContext") -> "PermissionDecision":
        from ...permission.types import PermissionDecision

        name = tool_input.get("name")
        word = secret_word(name) if isinstance(name, str) else None
        if word is not None:
            return PermissionDecision.ask(
                f"{self.name}: {name!r} looks like it holds a credential ({word!r} in its name)",
                message=f"Show the value of {name} to the model? Its name suggests a secret.")
        return PermissionDecision.passthrough(f"{self.name} of {name!r}")

    def call(self, name: str) -> ToolChunk:
        if not isinstance(name, str) or not NAME.match(name):
            raise ToolExecutionError(f"expected a variable name such as df or model.coef_, got "
                                     f"{name!r}")
        namespace = self.host.namespace or {}
        root, *attrs = name.split(".")
        if root not in namespace:
            near = sorted(k for k in namespace if not k.startswith("_"))[:30]
            raise ToolExecutionError(f"{root!r} is not defined in the notebook. Defined: "
                                     f"{', '.join(near) or 'nothing yet'}.")
        value = namespace[root]
        for i, attr in enumerate(attrs):
            where = ".".join([root] + attrs[:i + 1])
            if attr.startswith("__"):
                raise ToolExecutionError(f"{where}: dunder attributes are not inspected.")
            try:
                found = _inspect.getattr_static(value, attr)
            except AttributeError:
                raise ToolExecutionError(f"{where} does not exist (as a stored attribute; "
                                         f"computed ones are not read).") from None
            if _is_descriptor(found):
                raise ToolExecutionError(
                    f"{where} is computed by code ({type(found).__name__}) when read, so "
                    f"Inspect does not read it; use RunCode.")
            value = found
        # a harmless name may hold a key (``cfg = dict(os.environ)``): values that look like
        # secrets are hidden from the model (``tools/redact.py``)
        text, hidden = redact(_report(name, value))
        if hidden:
            text += "\n" + hidden_note(hidden)
        return ToolChunk.text(text, metadata={"name": name, "secrets_hidden": len(hidden)})


#: C-level callables: reading them on a class or an instance runs nothing of user code
_ROUTINES = (types.FunctionType, types.BuiltinFunctionType, types.MethodType,
             types.MethodDescriptorType, types.WrapperDescriptorType,
             types.ClassMethodDescriptorType, types.MethodWrapperType)
_TYPE_MRO = type.__dict__["__mro__"]
_TYPE_DICT = type.__dict__["__dict__"]


def _is_descriptor(obj: Any) -> bool:
    """Reading it on its owner runs code (a property, a descriptor of user code). Decided by
    ``type(obj)`` and type's own getters: ``isinstance`` would read ``obj.__class__`` and a
    metaclass's ``__getattribute__`` would answer ``t.__mro__`` (both user code)."""
    t = type(obj)
    if t is staticmethod or t is classmethod or issubclass(t, _ROUTINES):
        return False
    return any("__get__" in _TYPE_DICT.__get__(k, type)
               for k in _TYPE_MRO.__get__(t, type) if k is not object)


def _type_name(value: Any) -> str:
    t = type(value)
    name = canonical_name(t)
    if name is not None:
        return name.removeprefix("builtins.")
    module = type.__dict__["__module__"].__get__(t, type)
    qualname = type.__dict__["__qualname__"].__get__(t, type)
    return f"{module}.{qualname}"


def _report(name: str, value: Any) -> str:
    kind = describe(value)
    lines = [f"name: {name}", f"type: {_type_name(value)}"]
    if kind.shallow and kind.family in ("numpy", "pandas"):
        try:
            lines.append(f"shape: {tuple(value.shape)}")
            dtypes = getattr(value, "dtypes", None)
            if dtypes is not None and kind.family == "pandas" and hasattr(dtypes, "items"):
                shown = [f"{c}: {d}" for c, d in list(dtypes.items())[:40]]
                lines.append("dtypes: " + ", ".join(shown)
                             + (" …" if len(dtypes) > 40 else ""))
            elif getattr(value, "dtype", None) is not None:
                lines.append(f"dtype: {value.dtype}")
        except Exception as exc:  # a library attribute that fails is reported
            lines.append(f"shape: unavailable ({type(exc).__name__})")
    elif kind.shallow and kind.family in ("list", "tuple", "dict", "set", "str", "bytes",
                                           "range"):
        lines.append(f"len: {len(value)}")
    family = kind.family or ""
    if family.startswith(("function:", "class:")) or issubclass(type(value), _ROUTINES):
        doc = _inspect.getattr_static(value, "__doc__", None)
        if isinstance(doc, str) and doc.strip():
            lines.append("doc: " + doc.strip().splitlines()[0][:200])
    text, how = safe_repr(value, REPR_LIMIT)
    if text is None:
        lines.append(f"value: {how}")
    else:
        lines.append(f"value ({how}):")
        lines.append(text)
    return "\n".join(lines)
