"""Sizes: code that only reads can still hang the kernel or exhaust its memory.

``sum(range(10**18))``, ``math.factorial(10**8)`` or ``re.match("(a+)+$", "a"*40+"b")`` change
nothing, yet each runs for hours inside one C call, where the interrupt RunCode's timeout sends
is never looked at; ``list(range(10**10))`` or ``np.ones((10**5, 10**5))`` fill the memory until
the kernel is killed. The analysis therefore estimates, where it can compute them, the sizes a
read-only call works on and asks (with the size in the reason) when one is over a budget:

- how many items an iterable goes through (``range``, ``itertools.product``, repetition of a
  sequence, a cross join of two frames), or an array or string a call allocates;
- how many bits an integer result has (``factorial``, ``comb``, ``pow``);
- a regular expression whose matching time can grow exponentially (a quantifier inside a
  quantifier, or repeated alternatives that can match the same character).

A size is computed from literals, ``int`` variables and the lengths of the notebook's own
containers, arrays and frames (``range(len(df))`` is the size of the data: allowed). What it
cannot compute counts as small: the budgets stop the mistakes written into the code, and
RunCode's run-time guards (timeout, memory ceiling) catch the rest.

Pure: reads nodes and asks ``Names`` for values; runs nothing of the user's.
"""

from __future__ import annotations

import ast
import importlib
import math
import re
import string
import sys
from typing import Any, Callable, Iterable

from .findings import Names
from .nodes import callee_of

#: the parser ``re`` itself uses (private, stable since Python 1.6; renamed in 3.11)
_regex_parser: Any = importlib.import_module(
    "re._parser" if sys.version_info >= (3, 11) else "sre_parse")

__all__ = ["MAX_ITEMS", "MAX_INT_BITS", "produced_items", "integer_bits", "regex_blowup",
           "REGEX_CALLS", "integer", "format_width"]

#: items an iteration may go through, or elements an allocation may hold (10**8 float64 are
#: 800 MB; a C loop over them takes seconds)
MAX_ITEMS = 100_000_000
#: bits of an integer a call may compute (``math.factorial(10**5)``, 1.5 million bits, takes
#: a third of a second; ``factorial(10**6)`` 14 s, in one C call)
MAX_INT_BITS = 4_000_000
_DEPTH = 20
_UNBOUNDED = 4294967295  # sre's MAXREPEAT: ``*``, ``+``, ``{n,}``

#: calls that match a regular expression given as first argument (or ``pattern=``/``pat=``)
REGEX_CALLS = frozenset({
    "re.match", "re.search", "re.fullmatch", "re.findall", "re.finditer", "re.sub",
    "re.subn", "re.split", "re.compile",
    "pandas_str.contains", "pandas_str.match", "pandas_str.fullmatch", "pandas_str.extract",
    "pandas_str.extractall", "pandas_str.findall", "pandas_str.count", "pandas_str.replace",
    "pandas_str.split", "pandas_str.rsplit",
    # a compiled pattern's methods: the pattern is the receiver
    "re_pattern.match", "re_pattern.search", "re_pattern.fullmatch", "re_pattern.findall",
    "re_pattern.finditer", "re_pattern.sub", "re_pattern.subn", "re_pattern.split"})


# -- values the analysis can compute ---------------------------------------------------------
def integer(node: ast.AST, names: Names, depth: int = 0) -> float | None:
    """The value of an int expression (literals, arithmetic, an ``int`` variable, ``len`` of
    a variable of known size), as a float (``inf`` when too large to compute here)."""
    if depth > _DEPTH:
        return None
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, int) and not isinstance(value, bool):
            return float(value) if abs(value) < 10 ** 300 else math.inf
        return None
    if isinstance(node, ast.Name):
        value = _namespace_value(node.id, names)
        if type(value) is int:
            return float(value) if abs(value) < 10 ** 300 else math.inf
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = integer(node.operand, names, depth + 1)
        return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
            and len(node.args) == 1 and not node.keywords:
        return length(node.args[0], names, depth + 1)
    if isinstance(node, ast.Attribute) and node.attr == "size" and isinstance(node.value,
                                                                              ast.Name):
        return _array_size(_namespace_value(node.value.id, names))
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) \
            and node.value.attr == "shape" and isinstance(node.value.value, ast.Name):
        index = integer(node.slice, names, depth + 1)
        shape = _shape_of(_namespace_value(node.value.value.id, names))
        if index is None or shape is None or not -len(shape) <= index < len(shape):
            return None
        return float(shape[int(index)])
    if isinstance(node, ast.BinOp):
        left = integer(node.left, names, depth + 1)
        right = integer(node.right, names, depth + 1)
        if left is None or right is None:
            return None
        return _arithmetic(node.op, left, right)
    return None


def _arithmetic(op: ast.operator, left: float, right: float) -> float | None:
    try:
        if isinstance(op, ast.Add):
            return left + right
        if isinstance(op, ast.Sub):
            return left - right
        if isinstance(op, ast.Mult):
            return left * right
        if isinstance(op, ast.FloorDiv):
            return math.floor(left / right) if right else None
        if isinstance(op, ast.Pow):
            if right < 0:
                return 0.0
            if abs(left) <= 1:
                return abs(left)
            return math.inf if right * math.log10(abs(left)) > 300 else left ** right
        if isinstance(op, ast.LShift):
            return math.inf if right > 990 else left * 2.0 ** right
    except (OverflowError, ValueError, ZeroDivisionError):
        return math.inf
    return None


def _namespace_value(name: str, names: Names) -> Any:
    value_of: Callable[[str], Any] | None = getattr(names, "value_of", None)
    if value_of is None:
        return None
    try:
        return value_of(name)
    except Exception:  # not a variable of the notebook
        return None


def _library_class(module: str, name: str) -> Any:
    loaded = sys.modules.get(module)
    return getattr(loaded, name, None) if loaded is not None else None


def _sized(value: Any) -> float | None:
    """How many items a variable of the notebook holds, for the types whose ``len`` is
    library code (checked by exact type: a subclass may define ``__len__``)."""
    t = type(value)
    if t in (str, bytes, bytearray, list, tuple, dict, set, frozenset, range):
        return float(len(value))
    if t is _library_class("numpy", "ndarray"):
        return float(value.shape[0]) if value.ndim else None
    for name in ("DataFrame", "Series", "Index", "RangeIndex"):
        if t is _library_class("pandas", name):
            return float(len(value))
    return None


def _shape_of(value: Any) -> tuple[int, ...] | None:
    """``value.shape`` of a numpy array or pandas frame/series (exact types)."""
    t = type(value)
    if t is _library_class("numpy", "ndarray") or any(
            t is _library_class("pandas", name) for name in ("DataFrame", "Series")):
        return tuple(int(n) for n in value.shape)
    return None


def _array_size(value: Any) -> float | None:
    shape = _shape_of(value)
    return float(math.prod(shape)) if shape is not None else None


def length(node: ast.AST, names: Names, depth: int = 0) -> float | None:
    """How many items iterating ``node`` goes through, when it can be computed."""
    if depth > _DEPTH:
        return None
    if isinstance(node, ast.Constant):
        return float(len(node.value)) if isinstance(node.value, (str, bytes)) else None
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        if any(isinstance(e, ast.Starred) for e in node.elts):
            return None
        return float(len(node.elts))
    if isinstance(node, ast.Dict):
        return float(len(node.keys)) if all(k is not None for k in node.keys) else None
    if isinstance(node, ast.Name):
        return _sized(_namespace_value(node.id, names))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return _repeated(node, names, depth)
    if isinstance(node, ast.Call):
        return produced_items(node, resolve(node.func, names), names, depth + 1)
    return None


def _repeated(node: ast.BinOp, names: Names, depth: int) -> float | None:
    """``seq * n`` or ``n * seq``: the length of the sequence times n."""
    for seq, count in ((node.left, node.right), (node.right, node.left)):
        n = integer(count, names, depth + 1)
        size = length(seq, names, depth + 1) if n is not None else None
        if size is not None and n is not None:
            return max(size * n, 0.0)
    return None


def resolve(func: ast.AST, names: Names) -> str | None:
    """The canonical name of a called function written as a name or a module attribute
    (``range``, ``np.zeros``, ``itertools.product``), as the walk names it."""
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return None
    kind = names.lookup(func.id)
    for attr in reversed(parts):
        family = (kind.family or "") if kind is not None else ""
        if not family.startswith("module:"):
            return None
        kind = names.module_attribute(family[len("module:"):], attr)
    return callee_of(kind) if kind is not None else None


# -- what a call produces ----------------------------------------------------------------------
def _argument(node: ast.Call, index: int, keyword: str | None = None) -> ast.AST | None:
    for kw in node.keywords:
        if keyword is not None and kw.arg == keyword:
            return kw.value
    if index < len(node.args) and not any(isinstance(a, ast.Starred)
                                           for a in node.args[:index + 1]):
        return node.args[index]
    return None


def _range_length(values: list[float]) -> float | None:
    start, stop, step = (0.0, values[0], 1.0) if len(values) == 1 else (
        values[0], values[1], values[2] if len(values) > 2 else 1.0)
    if step == 0:
        return None
    span = (stop - start) / step
    if math.isnan(span):
        return None
    return max(0.0, math.ceil(span) if math.isfinite(span) else span)


def _shape(node: ast.AST | None, names: Names) -> float | None:
    """Elements of an array of the given shape (an int or a tuple of ints)."""
    if node is None:
        return None
    if isinstance(node, (ast.Tuple, ast.List)):
        dims = [integer(e, names) for e in node.elts]
        if not dims or any(d is None for d in dims):
            return None
        return math.prod(max(d, 0.0) for d in dims if d is not None)
    n = integer(node, names)
    return max(n, 0.0) if n is not None else None


def _lengths(nodes: Iterable[ast.AST], names: Names, depth: int) -> list[float | None]:
    return [length(n, names, depth + 1) for n in nodes]


def _log2_factorial(n: float) -> float:
    return math.lgamma(n + 1) / math.log(2) if n < 1e300 else math.inf


def produced_items(node: ast.Call, callee: str | None, names: Names, depth: int = 0,
                   receiver: ast.AST | None = None) -> float | None:
    """How many items (or array elements, or characters) the call goes through or builds,
    when the analysis can compute it; None when it cannot or the call is not one it sizes."""
    if callee is None or depth > _DEPTH:
        return None
    args = node.args
    if any(isinstance(a, ast.Starred) for a in args) and callee != "itertools.chain":
        return None
    first = _argument(node, 0)

    def count(position: int, keyword: str | None = None) -> float | None:
        value = _argument(node, position, keyword)
        return integer(value, names, depth + 1) if value is not None else None

    if callee in ("builtins.range", "numpy.arange") and 1 <= len(args) <= 3:
        values = [integer(a, names, depth + 1) for a in args]
        if any(v is None for v in values):
            return None
        return _range_length([v for v in values if v is not None])
    if callee in ("builtins.list", "builtins.tuple", "builtins.set", "builtins.frozenset",
                  "builtins.sorted", "builtins.reversed", "builtins.enumerate",
                  "builtins.iter", "numpy.array", "numpy.asarray", "numpy.ones_like",
                  "numpy.zeros_like", "numpy.empty_like", "numpy.full_like"):
        return length(first, names, depth + 1) if first is not None else None
    if callee in ("builtins.bytes", "builtins.bytearray"):
        return count(0) if first is not None and integer(first, names) is not None else (
            length(first, names, depth + 1) if first is not None else None)
    if callee in ("builtins.zip", "builtins.map", "builtins.filter"):
        sizes = _lengths(args[1:] if callee != "builtins.zip" else args, names, depth)
        known = [s for s in sizes if s is not None]
        return min(known) if known and len(known) == len(sizes) else None
    if callee == "itertools.product":
        sizes = _lengths(args, names, depth)
        repeat = count(99, "repeat") if _argument(node, 99, "repeat") is not None else 1.0
        if not sizes or any(s is None for s in sizes) or repeat is None:
            return None
        return _power(math.prod(s for s in sizes if s is not None), repeat)
    if callee in ("itertools.permutations", "itertools.combinations",
                  "itertools.combinations_with_replacement"):
        n = length(first, names, depth + 1) if first is not None else None
        r = count(1, "r") if _argument(node, 1, "r") is not None else (
            n if callee == "itertools.permutations" else None)
        if n is None or r is None or r < 0:
            return None
        return _arrangements(callee.rpartition(".")[2], n, r)
    if callee == "itertools.repeat":
        return count(1, "times") if _argument(node, 1, "times") is not None else math.inf
    if callee in ("itertools.count", "itertools.cycle"):
        return math.inf
    if callee == "itertools.chain":
        if any(isinstance(a, ast.Starred) for a in args):
            return None
        sizes = _lengths(args, names, depth)
        return sum(s for s in sizes if s is not None) if all(
            s is not None for s in sizes) else None
    if callee in ("numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full"):
        return _shape(_argument(node, 0, "shape"), names)
    if callee == "numpy.linspace":
        return count(2, "num")
    if callee == "numpy.eye":
        n, m = count(0, "N"), count(1, "M")
        return None if n is None else n * (m if m is not None else n)
    if callee == "numpy.identity":
        n = count(0, "n")
        return None if n is None else n * n
    if callee in ("numpy.tile", "numpy.repeat"):
        # an array of unknown size has at least one element: the repeats alone may be too many
        a = length(first, names, depth + 1) if first is not None else None
        times = _shape(_argument(node, 1, "reps"), names) if callee == "numpy.tile" \
            else count(1, "repeats")
        return None if times is None else (1.0 if a is None else a) * times
    if callee in ("str.ljust", "str.rjust", "str.center", "str.zfill", "bytes.ljust",
                  "bytes.rjust", "bytes.center", "bytes.zfill"):
        return count(0, "width")
    if callee in ("pandas.merge", "pandas.join"):
        return _cross_join(node, names, receiver)
    return None


def _power(base: float, exponent: float) -> float:
    try:
        return math.inf if base > 1 and exponent * math.log10(base) > 300 else base ** exponent
    except OverflowError:
        return math.inf


def _arrangements(kind: str, n: float, r: float) -> float:
    """How many tuples permutations/combinations(_with_replacement) yield, from logs."""
    if kind == "combinations_with_replacement":
        n = n + r - 1
    if r > n:
        return 0.0
    log = _log2_factorial(n) - _log2_factorial(n - r)
    if kind != "permutations":
        log -= _log2_factorial(r)
    return math.inf if log > 1000 else 2.0 ** log


def _cross_join(node: ast.Call, names: Names, receiver: ast.AST | None) -> float | None:
    """Rows of ``left.merge(right, how="cross")``: the product of the two lengths."""
    how = _argument(node, 99, "how")
    if not (isinstance(how, ast.Constant) and how.value == "cross"):
        return None
    left: ast.AST | None = receiver
    if receiver is not None:
        right = _argument(node, 0, "right" if _method(node) == "merge" else "other")
    else:
        left, right = _argument(node, 0, "left"), _argument(node, 1, "right")
    if left is None or right is None:
        return None
    a, b = length(left, names), length(right, names)
    return None if a is None or b is None else a * b


def _method(node: ast.Call) -> str | None:
    return node.func.attr if isinstance(node.func, ast.Attribute) else None


def integer_bits(node: ast.Call, callee: str | None, names: Names) -> float | None:
    """Bits of the integer an arithmetic call computes, when it can be computed."""
    def count(position: int, keyword: str | None = None) -> float | None:
        value = _argument(node, position, keyword)
        return integer(value, names) if value is not None else None

    if callee == "math.factorial":
        n = count(0)
        return _log2_factorial(n) if n is not None and n >= 0 else None
    if callee in ("math.comb", "math.perm"):
        n, k = count(0), count(1)
        if n is None or n < 0:
            return None
        if callee == "math.perm" and k is None and len(node.args) == 1:
            return _log2_factorial(n)
        if k is None or k < 0 or k > n:
            return None
        log = _log2_factorial(n) - _log2_factorial(n - k)
        return log - _log2_factorial(k) if callee == "math.comb" else log
    if callee == "builtins.pow" and len(node.args) == 2 and not node.keywords:
        return power_bits(node.args[0], node.args[1], names)
    return None


def power_bits(base: ast.AST, exponent: ast.AST, names: Names) -> float | None:
    """Bits of ``base ** exponent`` for an integer base and exponent."""
    b, e = integer(base, names), integer(exponent, names)
    if b is None or e is None or e < 0 or abs(b) <= 1:
        return None
    return e * math.log2(abs(b)) if not math.isinf(b) else math.inf


# -- format widths -----------------------------------------------------------------------------
_WIDTH = re.compile(r"(?:.?[<>=^])?[-+ ]?z?#?0?(\d+)")
_PERCENT = re.compile(r"%(?:\([^)]*\))?[-+ #0]*(\d+)")


def format_width(node: ast.AST, names: Names) -> float | None:
    """The largest field width a formatting expression pads to: an f-string's
    ``{x:>{10**12}}``, ``"{:>1000000000000}".format(x)``, ``"%1000000000000d" % x``; None when
    there is none it can read."""
    widths: list[float] = []
    if isinstance(node, ast.JoinedStr):
        for part in node.values:
            if isinstance(part, ast.FormattedValue) and isinstance(part.format_spec,
                                                                    ast.JoinedStr):
                widths += _spec_widths(_spec_text(part.format_spec, names))
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and isinstance(node.func.value, ast.Constant) \
            and isinstance(node.func.value.value, str):
        try:
            fields = list(string.Formatter().parse(node.func.value.value))
        except ValueError:
            return None
        for _text, _field, spec, _conversion in fields:
            if spec:
                widths += _spec_widths(spec)
    elif isinstance(node, ast.BinOp) and isinstance(node.left, ast.Constant) \
            and isinstance(node.left.value, str):
        widths += [float(m.group(1)) for m in _PERCENT.finditer(node.left.value)]
    return max(widths) if widths else None


def _spec_text(spec: ast.JoinedStr, names: Names) -> str:
    parts = []
    for part in spec.values:
        if isinstance(part, ast.Constant):
            parts.append(str(part.value))
        elif isinstance(part, ast.FormattedValue):
            value = integer(part.value, names)
            parts.append("9" * 20 if value is not None and value > 1e19 else
                         str(int(value)) if value is not None else "")
    return "".join(parts)


def _spec_widths(spec: str) -> list[float]:
    match = _WIDTH.match(spec)
    return [float(match.group(1))] if match else []


# -- regular expressions -----------------------------------------------------------------------
def regex_pattern(node: ast.Call, callee: str, names: Names) -> str | bytes | None:
    """The pattern a regex call matches with, when it is a literal or a str variable (None
    for ``str.replace(..., regex=False)``-style literal matching)."""
    if callee in ("pandas_str.replace", "pandas_str.split", "pandas_str.rsplit"):
        regex = _argument(node, 99, "regex")
        if not (isinstance(regex, ast.Constant) and regex.value is True):
            return None  # pandas treats the pattern as a literal string (or guesses by length)
    if callee in ("pandas_str.contains", "pandas_str.match", "pandas_str.fullmatch"):
        regex = _argument(node, 99, "regex")
        if isinstance(regex, ast.Constant) and regex.value is False:
            return None
    value: ast.AST | None
    if callee.startswith("re_pattern."):
        value = node.func.value if isinstance(node.func, ast.Attribute) else None
    else:
        value = _argument(node, 0, "pattern" if callee.startswith("re.") else "pat")
    if isinstance(value, ast.Constant) and isinstance(value.value, (str, bytes)):
        return value.value
    if isinstance(value, ast.Name):
        found = _namespace_value(value.id, names)
        if type(found) is re.Pattern:  # compiled by the user: its source pattern
            found = found.pattern
        if type(found) in (str, bytes):
            return found
    return None


def regex_blowup(pattern: str | bytes) -> str | None:
    """Why matching ``pattern`` may take exponential time (backtracking), or None.

    Two shapes, the ones behind most real ReDoS reports: a repeated group whose body is
    itself an unbounded repeat plus optional parts (``(a+)+``, ``(\\w+\\s?)*``), and a
    repeated alternation whose branches can start with the same character (``(a|aa)*``,
    ``(\\w|\\d)+``). A repeated body with a mandatory separator (``(\\d+,)*``) is linear."""
    if len(pattern) > 10_000:
        return None
    try:
        parsed = _regex_parser.parse(pattern)
    except Exception:  # not a valid pattern: ``re`` says so at once
        return None
    return _blowup(list(parsed), 0)


def _op(item: Any) -> str:
    return str(item[0])


def _blowup(items: list[Any], depth: int) -> str | None:
    if depth > 50:
        return None
    for op, av in items:
        name = str(op)
        if name in ("MAX_REPEAT", "MIN_REPEAT"):
            low, high, body = av
            body_items = _unwrap(list(body))
            if high == _UNBOUNDED:
                if _nested_repeat(body_items):
                    return "a quantifier inside a quantifier (like `(a+)+`)"
                if _overlapping_branches(body_items) or _optional_overlap(body_items):
                    return "repeated alternatives that can match the same text (like `(a|aa)*`)"
            found = _blowup(list(body), depth + 1)
        elif name == "SUBPATTERN":
            found = _blowup(list(av[-1]), depth + 1)
        elif name == "BRANCH":
            found = next((f for f in (_blowup(list(b), depth + 1) for b in av[1]) if f), None)
        elif name in ("ASSERT", "ASSERT_NOT"):
            found = _blowup(list(av[1]), depth + 1)
        elif name == "ATOMIC_GROUP":
            found = None  # atomic: no backtracking into it
        else:
            found = None
        if found:
            return found
    return None


def _unwrap(items: list[Any]) -> list[Any]:
    """A group's contents instead of the group (``((a+))`` is ``a+``)."""
    while len(items) == 1 and _op(items[0]) == "SUBPATTERN":
        items = list(items[0][1][-1])
    return items


def _optional(item: Any) -> bool:
    name = _op(item)
    if name in ("MAX_REPEAT", "MIN_REPEAT"):
        return item[1][0] == 0
    return name in ("AT", "ASSERT", "ASSERT_NOT")


def _nested_repeat(items: list[Any]) -> bool:
    repeats = [i for i in items if _op(i) in ("MAX_REPEAT", "MIN_REPEAT")
               and (i[1][1] == _UNBOUNDED or i[1][1] > 1)]
    inner = [i for i in repeats if i[1][1] == _UNBOUNDED]
    if not inner:
        return False
    return all(_optional(i) or i in inner for i in items)


def _overlapping_branches(items: list[Any]) -> bool:
    if len(items) != 1 or _op(items[0]) != "BRANCH":
        return False
    firsts = [_first(list(branch)) for branch in items[0][1][1]]
    for i, a in enumerate(firsts):
        for b in firsts[i + 1:]:
            if a is not None and b is not None and a & b:
                return True
    return False


def _optional_overlap(items: list[Any]) -> bool:
    """``(a|aa)*``, which the parser turns into ``(a(?:|a))*``: an optional part that can
    start with what the body starts with, so a run of the text splits in many ways."""
    head = _first(items)
    if head is None:
        return False
    for item in items[1:]:
        op, av = item
        name = str(op)
        if name == "BRANCH" and sum(1 for branch in av[1] if not branch) > 1:
            return True  # ``(a|a)+`` is parsed as ``(a(?:|))+``: two ways each time
        if name == "BRANCH" and any(not branch for branch in av[1]):
            parts = [_first(list(b)) for b in av[1] if b]
        elif name in ("MAX_REPEAT", "MIN_REPEAT") and av[0] == 0:
            parts = [_first(list(av[2]))]
        else:
            continue
        if any(p is not None and p & head for p in parts):
            return True
    return False


_SAMPLE = range(256)


def _first(items: list[Any]) -> frozenset[int] | None:
    """The characters (of the first 256) a branch can start with; None when unknown."""
    items = _unwrap(items)
    if not items:
        return None
    op, av = items[0]
    name = str(op)
    if name == "LITERAL":
        return frozenset({av})
    if name == "ANY":
        return frozenset(_SAMPLE) - {10}
    if name == "IN":
        chars = frozenset(c for c in _SAMPLE if _in_set(av, c))
        return chars
    if name in ("MAX_REPEAT", "MIN_REPEAT") and av[0] > 0:
        return _first(list(av[2]))
    if name == "SUBPATTERN":
        return _first(list(av[-1]))
    if name == "BRANCH":
        parts = [_first(list(b)) for b in av[1]]
        if any(p is None for p in parts):
            return None
        return frozenset().union(*[p for p in parts if p is not None])
    return None


_CATEGORIES: dict[str, Callable[[str], bool]] = {
    "CATEGORY_DIGIT": str.isdigit, "CATEGORY_NOT_DIGIT": lambda c: not c.isdigit(),
    "CATEGORY_SPACE": str.isspace, "CATEGORY_NOT_SPACE": lambda c: not c.isspace(),
    "CATEGORY_WORD": lambda c: c.isalnum() or c == "_",
    "CATEGORY_NOT_WORD": lambda c: not (c.isalnum() or c == "_"),
}


def _in_set(members: list[Any], code: int) -> bool:
    char = chr(code)
    negate = False
    hit = False
    for op, av in members:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL" and av == code:
            hit = True
        elif name == "RANGE" and av[0] <= code <= av[1]:
            hit = True
        elif name == "CATEGORY" and _CATEGORIES.get(str(av), lambda c: False)(char):
            hit = True
    return hit != negate
