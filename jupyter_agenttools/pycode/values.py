"""Looking at live objects without running their code: ``describe`` (their Kind), the
namespace oracle the analysis asks about names, and ``safe_repr`` for Inspect.

How trust is decided (the same rule everywhere): by the object's exact type, read with
``type(obj)`` (``obj.__class__`` can lie), never by ``isinstance`` (a subclass may override any
special method). A type is trusted when it is a built-in type or a type defined by a known
library (numpy, pandas, datetime, decimal, fractions, pathlib, matplotlib) *and* is the very
object that library exports (``sys.modules["pandas.core.frame"].DataFrame is type(obj)``).
Containers are deep-trusted only when every element is (checked up to a budget; a bigger one
is shallow only: ``len`` yes, ``print`` no). numpy arrays and pandas objects of object dtype are
checked the same way, element by element. Functions and classes are named by their public
dotted path, checked by identity (``pandas.read_csv``), so a user function cannot pass for a
library one by setting ``__module__``.

Nothing here calls a method of the object being looked at, except library properties of
trusted library types (``ndarray.dtype``, ``DataFrame.dtypes``).
"""

from __future__ import annotations

import builtins as _builtins_module
import functools
import inspect
import reprlib
import sys
import types
from typing import Any, Mapping, TypeGuard, TypeVar, overload

from .kinds import UNKNOWN, Kind
from .tables import FUNCTIONS, LIBRARY_MODULES, callable_entry

__all__ = ["describe", "canonical_name", "NamespaceNames", "BuiltinNames", "safe_repr",
           "SafeRepr", "DEEP_BUDGET", "out_position", "callable_function", "class_attribute",
           "is_submodule"]

#: how many elements are checked before a container counts as too big to prove deep
DEEP_BUDGET = 100_000

_NONE = type(None)
_SCALARS: dict[type, str] = {bool: "number", int: "number", float: "number",
                             complex: "number", _NONE: "none", type(...): "none",
                             str: "str", bytes: "bytes", bytearray: "bytes"}
_CONTAINERS: dict[type, str] = {list: "list", tuple: "tuple", dict: "dict", set: "set",
                                frozenset: "set", range: "range"}
_FUNCTION_TYPES = (types.FunctionType, types.BuiltinFunctionType, types.MethodDescriptorType,
                   types.WrapperDescriptorType, types.ClassMethodDescriptorType)

# Library types trusted, by canonical name (see ``canonical_name``), and their family.
_LIBRARY_TYPES: dict[str, str | None] = {
    "numpy.ndarray": "numpy",
    "pandas.DataFrame": "pandas", "pandas.Series": "pandas",
    "pandas.Timestamp": "datetime", "pandas.Timedelta": "datetime",
    "pandas.api.typing.NAType": "none", "pandas.api.typing.NaTType": "none",
    "pandas.api.typing.DataFrameGroupBy": "pandas_groupby",
    "pandas.api.typing.SeriesGroupBy": "pandas_groupby",
    "pandas.api.typing.Rolling": "pandas_window", "pandas.api.typing.Expanding": "pandas_window",
    "pandas.api.typing.ExponentialMovingWindow": "pandas_window",
    "pandas.api.typing.DatetimeIndexResampler": "pandas_window",
    "datetime.datetime": "datetime", "datetime.date": "datetime", "datetime.time": "datetime",
    "datetime.timedelta": "datetime", "datetime.timezone": "datetime",
    "decimal.Decimal": "number", "fractions.Fraction": "number",
    "pathlib.PosixPath": "path", "pathlib.PurePosixPath": "path",
    "pathlib.WindowsPath": "path", "pathlib.PureWindowsPath": "path",
    "re.Pattern": "re_pattern", "re.Match": None,
    # not collections.defaultdict: reading a missing key calls its factory and inserts the key
    "collections.OrderedDict": "dict", "collections.Counter": "dict", "collections.deque": "list",
    "matplotlib.figure.Figure": "mpl", "matplotlib.axes.Axes": "mpl",
}
for _index in ("Index", "RangeIndex", "MultiIndex", "DatetimeIndex", "CategoricalIndex",
               "IntervalIndex", "PeriodIndex", "TimedeltaIndex"):
    _LIBRARY_TYPES["pandas." + _index] = "pandas"

_T = TypeVar("_T")


@overload
def _is(value: object, kinds: type[_T]) -> TypeGuard[_T]: ...
@overload
def _is(value: object, kinds: tuple[type, ...]) -> bool: ...
def _is(value: object, kinds: type | tuple[type, ...]) -> bool:
    """``isinstance`` by the exact type: ``isinstance`` itself falls back to reading
    ``value.__class__``, which a property or a ``__getattribute__`` of user code answers
    (running it); ``issubclass`` of ``type(value)`` against built-in types is C code only."""
    return issubclass(type(value), kinds)


def _static_mro(t: type) -> tuple[type, ...]:
    """A class's MRO read with type's own getter (a metaclass's __getattribute__ never runs)."""
    return _TYPE_MRO.__get__(t, type)


def _static_dict(t: type) -> Mapping[str, Any]:
    return _TYPE_DICT.__get__(t, type)


def _is_one_of(t: Any, candidates: tuple[Any, ...]) -> bool:
    """``t in candidates`` by identity (``in`` would call a metaclass's ``__eq__``)."""
    return any(t is candidate for candidate in candidates)


# The type's own __module__/__qualname__ getters (C code of ``type``): a metaclass cannot
# intercept them, and for built-in types they read the C-level name.
_TYPE_MODULE = type.__dict__["__module__"]
_TYPE_QUALNAME = type.__dict__["__qualname__"]
_TYPE_MRO = type.__dict__["__mro__"]
_TYPE_DICT = type.__dict__["__dict__"]


@functools.lru_cache(maxsize=1024)
def out_position(canonical: str) -> int | None:
    """How many positional arguments a numpy function takes before ``out`` (``np.add(a, b,
    out)``: 2; ``np.sum(a, axis, dtype, out)``: 3), from its signature; None when it has no
    positional ``out`` or is not a numpy function."""
    if not canonical.startswith("numpy."):
        return None
    module, _, name = canonical.rpartition(".")
    d = _module_dict(module)
    function = d.get(name) if d is not None else None
    if function is None:
        return None
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return 0  # no signature to read: no positional argument may be an output
    for index, parameter in enumerate(parameters):
        if parameter.name == "out" and parameter.kind in (
                parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
            return index
    return None


def callable_function(canonical: str, allow_out: bool = False) -> bool:
    """May library code call this function with arguments the analysis never sees (``map``,
    ``sorted(key=…)``, ``groupby``)? Only when its table check holds for any deep arguments
    and it has no output position (``tables.CALLABLE_CHECKS``; ``allow_out``: the caller
    checked the number of arguments against the output position itself)."""
    return callable_entry(FUNCTIONS.get(canonical)) and (
        allow_out or out_position(canonical) is None)


def is_submodule(parent: str, attr: str, child: str) -> bool:
    """``parent.attr`` is the module ``child`` as a part of the same package (``plt.style``
    is matplotlib.style) or as its registered submodule (``os.path`` is posixpath, registered
    as ``sys.modules["os.path"]``), not another package the parent merely imported
    (``posixpath.os``, ``pandas.io.common.np``)."""
    if parent.split(".")[0] == child.split(".")[0]:
        return True
    module = sys.modules.get(f"{parent}.{attr}")
    return module is not None and module is sys.modules.get(child)


def _module_dict(name: str) -> dict[str, Any] | None:
    module = sys.modules.get(name)
    if type(module) is not types.ModuleType:
        return None
    return module.__dict__


def _type_key(t: type) -> tuple[str, str] | None:
    try:
        module, qualname = _TYPE_MODULE.__get__(t, type), _TYPE_QUALNAME.__get__(t, type)
    except (AttributeError, TypeError):
        return None
    if type(module) is not str or type(qualname) is not str:  # a class may store any object
        return None
    return module, qualname


def _safe_metaclass(t: type) -> bool:
    """A class whose metaclass is ``type`` or a known library one (abc, enum, numpy)."""
    meta = type(t)
    if meta is type:
        return True
    key = _type_key(meta)
    if key is None or key[0].split(".")[0] not in ("abc", "enum", "numpy"):
        return False
    d = _module_dict(key[0])
    return d is not None and d.get(key[1]) is meta


def _real_library_type(t: type) -> str | None:
    """The family of a trusted library type ("?" for a trusted one without methods), or None."""
    name = canonical_name(t)
    if name is None:
        return None
    if name in _LIBRARY_TYPES:
        return _LIBRARY_TYPES[name] or "?"
    numpy = _module_dict("numpy")
    generic = numpy.get("generic") if numpy else None
    if _is(generic, type) and issubclass(t, generic) and name.startswith("numpy."):
        return "numpy"  # a numpy scalar (float64, int32, bool_, …)
    if name.startswith("matplotlib."):
        return "?"  # other matplotlib objects (Line2D, Text…): library code, unknown methods
    return None


def canonical_name(obj: Any) -> str | None:
    """The public dotted name of a function, class or module, checked by identity: the
    shortest module path under the object's ``__module__`` that exports it (so
    ``pandas.io.parsers.readers.read_csv`` is ``pandas.read_csv``), or None."""
    t = type(obj)
    module: object
    name: object
    if t is types.ModuleType:
        name = obj.__dict__.get("__name__")
        if type(name) is str and sys.modules.get(name) is obj:
            return name
        return None
    if _is(obj, type):
        if not _safe_metaclass(obj):
            return None
        key = _type_key(obj)
        if key is None:
            return None
        module, name = key
    elif _is(obj, _FUNCTION_TYPES) or _is_ufunc(obj):
        # C-level attributes of these types (no user code runs to read them)
        module = getattr(obj, "__module__", None)
        name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
        if module is None and _is(obj, types.BuiltinFunctionType):
            owner = getattr(obj, "__self__", None)
            module = canonical_name(owner) if type(owner) is types.ModuleType else None
        if _is_ufunc(obj) and type(obj) is _module_dict("numpy").get("ufunc"):  # type: ignore[union-attr]
            module, name = "numpy", getattr(obj, "__name__", None)
    else:
        return None
    if type(module) is not str or type(name) is not str or "<" in name:
        return None
    parts = module.split(".")
    if "." in name:  # a method: Class.method, found through its class
        owner_name, _, attr = name.rpartition(".")
        if "." in owner_name:
            return None
        for n in range(1, len(parts) + 1):
            d = _module_dict(".".join(parts[:n]))
            owner = d.get(owner_name) if d is not None else None
            if _is(owner, type) and _static_dict(owner).get(attr) is obj:
                return f"{'.'.join(parts[:n])}.{name}"
        return None
    for n in range(1, len(parts) + 1):
        prefix = ".".join(parts[:n])
        d = _module_dict(prefix)
        if d is not None and d.get(name) is obj:
            return f"{prefix}.{name}"
    return None


_PANDAS_CLASSES = {"pandas": ("DataFrame", "Series", "Index"),
                   "pandas_groupby": ("api.typing.DataFrameGroupBy",
                                      "api.typing.SeriesGroupBy")}


def pandas_member(family: str, attr: str) -> bool:
    """Is ``attr`` a method or property of pandas' own classes (so ``df.attr`` is not a
    column)? Looked up on the classes, statically: nothing runs."""
    import inspect

    for path in _PANDAS_CLASSES.get(family, ()):
        module, _, name = ("pandas." + path).rpartition(".")
        d = _module_dict(module)
        cls = d.get(name) if d is not None else None
        if not _is(cls, type):
            return True  # pandas is not there as expected: assume the worst
        try:
            inspect.getattr_static(cls, attr)
            return True
        except AttributeError:
            continue
    return False


def _is_ufunc(obj: Any) -> bool:
    """A numpy ufunc (``np.sqrt``) or array-function dispatcher (``np.mean`` in numpy 2)."""
    numpy = _module_dict("numpy")
    if not numpy:
        return False
    t = type(obj)
    if t is numpy.get("ufunc"):
        return True
    core = _module_dict("numpy._core._multiarray_umath")
    return core is not None and core.get("_ArrayFunctionDispatcher") is t


class _Budget:
    def __init__(self, n: int):
        self.left = n

    def spend(self, n: int = 1) -> bool:
        self.left -= n
        return self.left >= 0


def describe(value: Any, budget: int = DEEP_BUDGET) -> Kind:
    """The Kind of a live value (see the module docstring for the rule)."""
    return _describe(value, _Budget(budget), 0, set())


def _describe(value: Any, budget: _Budget, depth: int, seen: set[int]) -> Kind:
    t = type(value)
    # the tables are keyed by built-in types, whose metaclass is type: looking up any other
    # class would hash it with its metaclass's __hash__ (user code)
    plain_type = type(t) is type
    family = _SCALARS.get(t) if plain_type else None
    if family is not None:
        text = value if t is str and len(value) <= 4096 else None
        return Kind(family, True, True, value=text)
    family = _CONTAINERS.get(t) if plain_type else None
    if family is not None:
        return _container(value, family, budget, depth, seen)
    if t is types.ModuleType:
        name = canonical_name(value)
        if name is None:
            return UNKNOWN
        top = name.split(".")[0]
        library = top in LIBRARY_MODULES or name in LIBRARY_MODULES
        # a module-level __getattr__ runs code on attribute reads
        plain = "__getattr__" not in value.__dict__
        return Kind(f"module:{name}", library or plain, library)
    is_class = _is(value, type)
    if is_class or _is(value, _FUNCTION_TYPES) or _is_ufunc(value):
        prefix = "class:" if is_class else "function:"
        if is_class and not _safe_metaclass(value):
            return UNKNOWN  # its metaclass's code runs for repr, calls, attribute reads
        # a class whose metaclass defines how isinstance/issubclass decide (abc: its
        # __subclasshook__ and those of every subclass, user code included) is not a plain
        # operand: isinstance(x, SomeABC) may run user code
        plain = not is_class or (
            type(value).__instancecheck__ is type.__instancecheck__  # type: ignore[comparison-overlap]
            and type(value).__subclasscheck__ is type.__subclasscheck__)  # type: ignore[comparison-overlap]
        name = canonical_name(value)
        if name is None:
            # a user function or class: its repr is Python's own, calling it is user code
            return Kind(prefix + "?", plain, False)
        known = callable_function(name) or callable_function(f"builtins.{name}")
        return Kind(prefix + name, plain, known)
    if t is types.MethodType:
        # a bound method's repr shows (and so calls the repr of) the object it is bound to
        return Kind("method:?", True, False)
    family = _real_library_type(t)
    if family is not None:
        return _library_value(value, family, budget, depth, seen)
    return UNKNOWN


def _container(value: Any, family: str, budget: _Budget, depth: int,
               seen: set[int]) -> Kind:
    if family == "range":
        return Kind("range", True, True, elem=Kind("number", True, True))
    if id(value) in seen or depth > 20:
        return Kind(family, True, False)
    seen.add(id(value))
    try:
        items: Any = value.items() if family == "dict" else value
        if not budget.spend(len(value)):
            return Kind(family, True, False)
        kinds: list[Kind] = []
        for item in items:
            parts = item if family == "dict" else (item,)
            for part in parts:
                k = _describe(part, budget, depth + 1, seen)
                if not k.deep:
                    return Kind(family, True, False)
                kinds.append(k)
                if budget.left < 0:
                    return Kind(family, True, False)
        elem = None
        if family != "dict":
            families = {k.family for k in kinds}
            elem = Kind(families.pop() if len(families) == 1 else None, True, True)
        return Kind(family, True, True, elem=elem)
    finally:
        seen.discard(id(value))


def _library_value(value: Any, family: str, budget: _Budget, depth: int,
                   seen: set[int]) -> Kind:
    if family == "?":
        return Kind(None, True, True)
    if family == "numpy":
        return Kind("numpy", True, _array_deep(value, budget, depth, seen)
                    if hasattr(value, "flat") and bool(getattr(value, "ndim", 0)) else True)
    if family in ("pandas", "pandas_groupby", "pandas_window"):
        obj = value if family == "pandas" else getattr(value, "obj", None)
        return Kind(family, True, obj is not None and _pandas_deep(obj, budget, depth, seen))
    if family == "path":
        return Kind("path", True, True, value=str(value))
    return Kind(family, True, True)


def _array_deep(array: Any, budget: _Budget, depth: int, seen: set[int]) -> bool:
    dtype = array.dtype
    if type(array).__name__ != "ndarray":  # a numpy scalar
        return dtype.kind != "O"
    if dtype.kind != "O":
        return dtype.fields is None or all(f[0].kind != "O" for f in dtype.fields.values())
    if not budget.spend(int(array.size)):
        return False
    return all(_describe(x, budget, depth + 1, seen).deep for x in array.flat)


#: pandas' own instance attributes that hold only pandas internals (the data manager, flags,
#: caches): the other ones (``_attrs``, ``_name``, ``_names``, anything user code stored with
#: ``df.x = …``) are shown or read and must be trusted values too
_PANDAS_INTERNALS = frozenset({"_mgr", "_flags", "_cache", "_id", "_range", "_codes",
                               "_levels", "_references", "_item_cache", "_data", "_freq"})


def _pandas_extras_deep(obj: Any, budget: _Budget, depth: int, seen: set[int]) -> bool:
    """A Series's name, an index's names, ``df.attrs``, attributes stored on the object: a
    repr shows them (``Name: …``), ``df.x`` reads them."""
    try:
        stored = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        return True
    for key, value in stored.items():
        if type(key) is not str or key in _PANDAS_INTERNALS:
            continue
        if not _describe(value, budget, depth + 1, seen).deep:
            return False
    return True


def _pandas_deep(obj: Any, budget: _Budget, depth: int, seen: set[int]) -> bool:
    """Every value and label is a trusted scalar (object columns are checked one by one), and
    so is what the object shows or stores besides (names, attrs, stored attributes)."""
    parts = [obj]
    for axis in ("index", "columns"):
        try:
            part = object.__getattribute__(obj, axis)
        except AttributeError:
            continue
        if _real_library_type(type(part)) is not None:
            parts.append(part)
    if not all(_pandas_extras_deep(p, budget, depth, seen) for p in parts):
        return False
    name = canonical_name(type(obj))
    if name == "pandas.DataFrame":
        for i, dtype in enumerate(obj.dtypes):
            if not _values_deep(obj.iloc[:, i].array, dtype, budget, depth, seen):
                return False
        return (_values_deep(obj.columns, obj.columns.dtype, budget, depth, seen)
                and _values_deep(obj.index, obj.index.dtype, budget, depth, seen))
    if name == "pandas.Series":
        return (_values_deep(obj.array, obj.dtype, budget, depth, seen)
                and _values_deep(obj.index, obj.index.dtype, budget, depth, seen))
    return _values_deep(obj, getattr(obj, "dtype", None), budget, depth, seen)  # an Index


def _values_deep(values: Any, dtype: Any, budget: _Budget, depth: int,
                 seen: set[int]) -> bool:
    if dtype is None:
        return False
    dtype_module = (_type_key(type(dtype)) or ("", ""))[0]
    if dtype_module.split(".")[0] not in ("numpy", "pandas"):
        return False  # a third-party extension dtype: its code is not known
    if getattr(dtype, "name", "") in ("str", "string"):
        return True  # pandas keeps only str (or missing) values in a string column
    if getattr(dtype, "name", "") == "category":
        categories = dtype.categories
        return _values_deep(categories, categories.dtype, budget, depth, seen)
    if getattr(dtype, "kind", "O") != "O":
        return True
    if not budget.spend(len(values)):
        return False
    return all(_describe(x, budget, depth + 1, seen).deep for x in values)


# --- the namespace oracle ----------------------------------------------------------------------


class BuiltinNames:
    """The oracle outside a kernel: only Python's built-ins are known (every other name is
    unknown, so methods called on it are not proven read-only)."""

    def lookup(self, name: str) -> Kind | None:
        return _builtin_kind(name)

    def module_attribute(self, module: str, attr: str) -> Kind | None:
        d = _module_dict(module)
        if d is None or attr not in d:
            return None
        return describe(d[attr])

    def value_of(self, name: str) -> Any:
        raise KeyError(name)

    def class_attribute(self, owner: str, attr: str) -> Kind | str:
        return class_attribute(owner, attr)


#: descriptor types of C code whose ``__get__`` on a class returns a function or itself
_PLAIN_DESCRIPTORS = (types.FunctionType, types.BuiltinFunctionType,
                      types.MethodDescriptorType, types.WrapperDescriptorType,
                      types.ClassMethodDescriptorType, types.MemberDescriptorType,
                      types.GetSetDescriptorType, staticmethod, classmethod, property)


def class_attribute(owner: str, attr: str) -> Kind | str:
    """What reading ``Class.attr`` gives, for a class known by its canonical name, looked up
    statically (nothing runs): a Kind, or the reason reading it may run code (a descriptor
    whose ``__get__`` is not C code, a class that cannot be found)."""
    module, _, name = owner.rpartition(".")
    d = _module_dict(module) if module else None
    cls = d.get(name) if d is not None else None
    if not _is(cls, type) or not _safe_metaclass(cls):
        return f"cannot tell what reading `.{attr}` of this class runs"
    try:
        value = inspect.getattr_static(cls, attr)
    except AttributeError:
        return UNKNOWN  # an AttributeError (the metaclass is a library one)
    kind = type(value)
    if _is_one_of(kind, _PLAIN_DESCRIPTORS):
        if kind is staticmethod or kind is classmethod:
            inner = value.__func__
            if not _is(inner, (types.FunctionType, types.BuiltinFunctionType)):
                return f"`.{attr}` wraps an object whose code runs when it is read"
        if kind is property:
            return Kind(None, True, False)  # the property object itself
        return Kind(f"function:{owner}.{attr}", True, False)
    if type(kind) is not type and not _safe_metaclass(kind):
        return f"`.{attr}` holds an object whose class has a metaclass of unknown code"
    if any("__get__" in _static_dict(k) for k in _static_mro(kind)) and \
            _real_library_type(kind) is None:
        return f"reading `.{attr}` runs the __get__ of a descriptor of unknown type"
    return describe(value)


def _builtin_kind(name: str) -> Kind | None:
    value = _builtins_module.__dict__.get(name, _MISSING)
    if value is _MISSING:
        return None
    if callable(value) and not _is(value, type(_builtin_kind)):
        if _ORIGINAL_BUILTINS.get(name) is not value:
            return UNKNOWN  # builtins was patched after this module was imported
        known = callable_function(f"builtins.{name}")
        return Kind(f"function:builtins.{name}", True, known)
    if value is None or value is True or value is False or value is ...:
        return Kind("none", True, True)
    return describe(value)


_MISSING = object()
# The built-ins as they were when this module was imported (the extension loads before the
# agent runs anything): a built-in replaced later is not trusted.
_ORIGINAL_BUILTINS = dict(vars(_builtins_module))


class NamespaceNames(BuiltinNames):
    """The oracle inside a kernel: names of ``namespace`` (the notebook's ``user_ns``), then
    the built-ins. Each name is described once per analysis."""

    def __init__(self, namespace: Mapping[str, Any], budget: int = DEEP_BUDGET):
        self.namespace = namespace
        self.budget = budget
        self._cache: dict[str, Kind | None] = {}

    def lookup(self, name: str) -> Kind | None:
        if name in self._cache:
            return self._cache[name]
        if name in self.namespace:
            value = self.namespace[name]
            if name == "display" and _is_ipython_display(value):
                kind: Kind | None = Kind("function:IPython.core.display_functions.display",
                                         True, True)
            elif name == "open" and _is_ipython_open(value):
                kind = _builtin_kind("open")  # IPython's open: refuses fds 0-2, then io.open
            else:
                kind = describe(value, self.budget)
        else:
            kind = _builtin_kind(name)
        self._cache[name] = kind
        return kind

    def value_of(self, name: str) -> Any:
        return self.namespace[name]


def _is_ipython_open(value: Any) -> bool:
    module = _module_dict("IPython.core.interactiveshell")
    return module is not None and module.get("_modified_open") is value


def _is_ipython_display(value: Any) -> bool:
    return canonical_name(value) in ("IPython.core.display_functions.display",
                                     "IPython.display.display")


# --- safe repr (Inspect) --------------------------------------------------------------------


class SafeRepr(reprlib.Repr):
    """reprlib with room for library reprs (a DataFrame's own repr is already bounded by
    pandas' display options) and huge ints that do not blow up."""

    def __init__(self, limit: int):
        super().__init__()
        self.maxstring = min(limit, 2000)
        self.maxother = limit
        self.maxlist = self.maxtuple = self.maxset = self.maxfrozenset = 50
        self.maxdict = 30
        self.maxlevel = 4
        self.maxlong = 200

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 4000:
            return f"<int of {x.bit_length()} bits>"
        return super().repr_int(x, level)


def safe_repr(value: Any, limit: int = 4000) -> tuple[str | None, str]:
    """``(text, how)``: a bounded repr when calling it runs no user code, else ``(None, why)``.

    ``how`` says what was decided: "library repr", "built-in repr", or the reason for
    refusing."""
    kind = describe(value)
    if not kind.repr_safe:
        t = type(value)
        module, qualname = _type_key(t) or ("?", "?")
        if _real_library_type(t) is not None or _is_one_of(t, tuple(_CONTAINERS)):
            return None, (f"not shown: a {module}.{qualname} holding values whose type is not "
                          f"a known library type (their repr could run any code), or too many "
                          f"to check")
        owner = _repr_owner(t)
        owner_key = _type_key(owner) if owner is not None else None
        if owner_key is not None and owner is not object and owner is t:
            return None, (f"not shown: {qualname}.__repr__ is defined in module {module}, "
                          f"not a known library, so calling it could run any code")
        return None, (f"not shown: {module}.{qualname} is not a known library type (a class "
                      f"of user code, even one built on a library type, decides how it is "
                      f"shown), so its repr could run any code")
    if kind.family and kind.family.startswith("module:") and not kind.deep:
        name = kind.family[len("module:"):]
        return f"<module {name!r}>", "built from its name"
    try:
        text = SafeRepr(limit).repr(value)
    except Exception as exc:  # a library repr that fails is reported, not raised
        return None, f"its repr raised {type(exc).__name__}: {exc}"
    if len(text) > limit:
        text = text[:limit] + f"… [{len(text) - limit:,} more characters]"
    return text, "library repr" if kind.family in ("numpy", "pandas") else "built-in repr"


def _repr_owner(t: type) -> type | None:
    for klass in _static_mro(t):
        if "__repr__" in _static_dict(klass):
            return klass
    return None
