"""``analyze(code)``: is a piece of Python read-only, and what files does it touch?

An allow-list over the ``ast``, in the spirit of the shell analysis: the code is read-only only
when every statement is an expression (or ``pass``), every node is of a kind walked here, every
call is a table entry whose checks pass (``tables.py``), and every object an operator, index,
format or repr touches is a library object (``kinds.py``). Anything else is not proven
read-only, with a reason naming the line and the construct. Never read-only, whatever the
types: assignment of any kind (``=``, ``+=``, ``:=``, ``del``, ``for``/``with`` targets),
imports, definitions, ``await``/``yield``, dunder names and attributes (``__builtins__``,
``x.__class__``), ``exec``/``eval``/``compile``/``__import__``, ``globals``/``locals``/``vars``,
``open`` in a write mode, unpickling, calls into ``os``/``subprocess``/``shutil``/``sys`` and the
network, names that look like credentials.

The analysis is pure: it reads the code and asks ``names`` (an oracle, see ``values.py``) what a
name stands for; it runs nothing. A second, simpler pass lists every dotted name the code
mentions (as written and resolved: ``np.save`` → ``numpy.save``) for deny and ask rules, and the
files written or deleted with a literal path, whether or not the code is read-only.
"""

from __future__ import annotations

import ast
import posixpath
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from .kinds import TRUSTED, UNKNOWN, Kind, join, kind_of_constant
from .tables import (
    ATTRIBUTES,
    FUNCTIONS,
    METHODS,
    NEVER,
    SECRET_WORDS,
    WRITER_METHODS,
    WRITERS,
    Entry,
    never_reason,
)
from .values import BuiltinNames, pandas_member

__all__ = ["analyze", "CodeAnalysis", "Effect", "Reason", "Names", "secret_word",
           "MAX_CODE_CHARS"]

MAX_CODE_CHARS = 200_000
#: built-in types, as the analysis names them, and the method family of their instances
BUILTIN_TYPES = {"function:builtins.str": "str", "function:builtins.bytes": "bytes",
                 "function:builtins.list": "list", "function:builtins.tuple": "tuple",
                 "function:builtins.dict": "dict", "function:builtins.set": "set",
                 "function:builtins.frozenset": "set", "function:builtins.int": "number",
                 "function:builtins.float": "number"}
#: the constant operands past which an operator may exhaust memory or never return (an int
#: power or shift runs in C, where no interrupt reaches it)
MAX_REPEAT = 10_000_000
MAX_EXPONENT = 10_000
#: attributes that describe a library object's structure, not its values: safe to show even
#: when the values are not (``objects_df.shape``)
STRUCTURAL = {"shape": "tuple", "ndim": "number", "size": "number", "nbytes": "number",
              "itemsize": "number", "strides": "tuple", "empty": "number", "dtypes": "pandas",
              "dtype": None}
READ_MODES = frozenset({"r", "rb", "rt", "br", "tr"})
PATH_KEYWORDS = ("path", "filepath_or_buffer", "io", "fname", "path_or_buf", "file",
                 "pathname", "top", "filename")


class Names(Protocol):
    def lookup(self, name: str) -> Kind | None: ...

    def module_attribute(self, module: str, attr: str) -> Kind | None: ...


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


def analyze(code: str, names: Names | None = None, *,
            blessed: Callable[[str], bool] | None = None) -> CodeAnalysis:
    """Analyse ``code`` (already transformed from IPython syntax, if any). ``names`` answers
    what a name is (None: only built-ins are known); ``blessed(callee)`` is True for a call an
    allow rule covers (it then counts as read-only, its result as a library value)."""
    if not isinstance(code, str):
        return CodeAnalysis(str(code), False, [Reason(
            f"expected the code as a string, got {type(code).__name__}", 0, "")])
    if len(code) > MAX_CODE_CHARS:
        return CodeAnalysis(code, False, [Reason(
            f"the code is {len(code):,} characters long, more than the {MAX_CODE_CHARS:,} "
            f"the analysis reads", 0, "")])
    try:
        tree = ast.parse(code, mode="exec")
    except SyntaxError as exc:
        where = f"line {exc.lineno}" if exc.lineno else "somewhere"
        text = f"does not parse as Python ({exc.msg}, {where})"
        return CodeAnalysis(code, False, [Reason(text, exc.lineno or 0, "")],
                            syntax_error=text)
    except (ValueError, RecursionError, MemoryError) as exc:
        return CodeAnalysis(code, False, [Reason(
            f"cannot be parsed: {type(exc).__name__}: {exc}", 0, "")])
    walker = _Walker(code, names or BuiltinNames(), blessed)
    collector = _Collector(walker)
    try:
        walker.module(tree)
        collector.visit(tree)
    except RecursionError:
        walker.fail(tree, "the code is nested too deeply to analyse")
    return CodeAnalysis(code, not walker.reasons, walker.reasons,
                        _unique(walker.effects + collector.effects),
                        _unique(collector.references), _unique(walker.blessed_used))


def _unique(items: list[Any]) -> list[Any]:
    return list(dict.fromkeys(items))


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of attributes on a name, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__") and len(name) > 4


class _Walker:
    def __init__(self, code: str, names: Names, blessed: Callable[[str], bool] | None):
        self.code = code
        self.names = names
        self.blessed = blessed
        self.reasons: list[Reason] = []
        self.effects: list[Effect] = []
        self.blessed_used: list[str] = []
        self.scopes: list[dict[str, Kind]] = []
        self.imports: dict[str, Kind] = {}

    # -- bookkeeping -------------------------------------------------------------------------
    def fail(self, node: ast.AST, text: str, callee: str | None = None,
             never: bool = False) -> None:
        snippet = ast.get_source_segment(self.code, node) if hasattr(node, "lineno") else None
        snippet = (snippet or "").replace("\n", " ")
        if len(snippet) > 80:
            snippet = snippet[:79] + "…"
        self.reasons.append(Reason(text, getattr(node, "lineno", 0), snippet, callee, never))

    def need(self, node: ast.AST, kind: Kind, what: str, level: str = "deep") -> None:
        ok = kind.deep if level == "deep" else kind.shallow
        if not ok:
            self.fail(node, f"{what}: `{_segment(self.code, node)}` may be an object whose "
                            f"type is not known to be library code, so this may run its code")

    # -- statements --------------------------------------------------------------------------
    def module(self, tree: ast.Module) -> None:
        body = tree.body
        for i, stmt in enumerate(body):
            if isinstance(stmt, ast.Expr):
                kind = self.expr(stmt.value)
                if i == len(body) - 1 and not kind.repr_safe:
                    self.fail(stmt.value, "its value is shown, and showing an object of "
                                          "unknown type calls its __repr__ (user code)")
            elif isinstance(stmt, ast.Pass):
                continue
            else:
                if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                    self.imported(stmt)
                self.fail(stmt, _STATEMENT_REASONS.get(
                    type(stmt).__name__, f"a {type(stmt).__name__} statement is not an "
                                         f"expression: only expressions can be read-only"))

    def imported(self, stmt: ast.Import | ast.ImportFrom) -> None:
        """Names an import binds: later reasons name what they are (``os.system``), though
        the code is not read-only anyway."""
        for alias in stmt.names:
            if isinstance(stmt, ast.Import):
                module = alias.name if alias.asname else alias.name.split(".")[0]
                self.imports[alias.asname or module] = Kind(f"module:{module}", True, False)
            elif stmt.module and not stmt.level:
                self.imports[alias.asname or alias.name] = Kind(
                    f"function:{stmt.module}.{alias.name}", True, False)

    # -- expressions -------------------------------------------------------------------------
    def expr(self, node: ast.AST) -> Kind:
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            self.fail(node, f"`{type(node).__name__}` is not a construct the analysis knows")
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.expr(child)
            return UNKNOWN
        return method(node)

    def _Constant(self, node: ast.Constant) -> Kind:
        return kind_of_constant(node.value)

    def _Name(self, node: ast.Name) -> Kind:
        name = node.id
        if _is_dunder(name):
            self.fail(node, f"`{name}` is a dunder name (a door to Python's internals)")
            return UNKNOWN
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        word = secret_word(name)
        if word is not None:
            self.fail(node, f"`{name}` looks like it holds a credential ({word!r} in its name)")
        if name in self.imports:
            return self.imports[name]
        kind = self.names.lookup(name)
        return UNKNOWN if kind is None else kind

    def _Attribute(self, node: ast.Attribute) -> Kind:
        if _is_dunder(node.attr):
            self.expr(node.value)
            self.fail(node, f"`.{node.attr}` is a dunder attribute (a door to Python's "
                            f"internals)")
            return UNKNOWN
        base = self.expr(node.value)
        return self.attribute(node, base, node.attr)

    def attribute(self, node: ast.AST, base: Kind, attr: str, calling: bool = False) -> Kind:
        family = base.family or ""
        if family.startswith("module:"):
            module = family[len("module:"):]
            key = f"{module}.{attr}"
            if key in NEVER and not calling:  # a call says why itself (and a rule may allow it)
                self.fail(node, f"`{key}`: {NEVER[key]}", callee=key)
                return UNKNOWN
            if not base.shallow:
                self.fail(node, f"module {module} defines __getattr__, which runs on this read")
                return UNKNOWN
            found = self.names.module_attribute(module, attr)
            # missing: an AttributeError at run time, named by its path for the tables
            return found if found is not None else Kind(f"function:{key}", True, False)
        if family.startswith("class:"):
            return Kind(f"function:{family[len('class:'):]}.{attr}", True, False)
        if family in BUILTIN_TYPES:
            # ``str.lower`` as a key function: an unbound method of a built-in type, deep
            # (callable by library code) only when it is a read-only one
            methods = METHODS.get(BUILTIN_TYPES[family], {})
            return Kind(f"method:{BUILTIN_TYPES[family]}.{attr}", True, attr in methods)
        if not base.shallow:
            self.fail(node, f"reading `.{attr}` of an object of unknown type may run its code "
                            f"(a property or __getattr__)")
            return UNKNOWN
        table = ATTRIBUTES.get(family, {})
        if attr in STRUCTURAL:
            return Kind(table.get(attr, STRUCTURAL[attr]), True, True)
        if attr in table:
            return Kind(table[attr], base.deep, base.deep)
        if attr in METHODS.get(family, {}):
            # a bound read-only method: library code may call it (``max(d, key=d.get)``)
            return Kind(f"method:{family}.{attr}", True, base.deep)
        if family in ("pandas", "pandas_groupby") and not pandas_member(family, attr):
            return Kind(family, base.deep, base.deep)  # a column, or an AttributeError
        # any other member (``lst.append``, ``df.pop``): readable, but never handed to code
        # that would call it, printed or called itself
        return Kind(None, True, False)

    def _Subscript(self, node: ast.Subscript) -> Kind:
        base = self.expr(node.value)
        index = self.expr(node.slice)
        if not base.shallow:
            self.fail(node, f"indexing `{_segment(self.code, node.value)}`, an object of "
                            f"unknown type, runs its __getitem__")
            return UNKNOWN
        self.need(node.slice, index, "the index is hashed or compared")
        family = base.family
        if family in ("pandas", "numpy", "str", "bytes", "pandas_groupby"):
            return Kind(family, base.deep, base.deep)
        if family in ("list", "tuple") and isinstance(node.slice, ast.Slice):
            return Kind(family, base.deep, base.deep, elem=base.elem)
        if base.elem is not None:
            return base.elem
        return Kind(None, base.deep, base.deep)

    def _Slice(self, node: ast.Slice) -> Kind:
        deep = True
        for part in (node.lower, node.upper, node.step):
            if part is not None:
                k = self.expr(part)
                deep = deep and k.deep
        return Kind("slice", True, deep)

    def _Tuple(self, node: ast.Tuple) -> Kind:
        return self._sequence(node, "tuple")

    def _List(self, node: ast.List) -> Kind:
        return self._sequence(node, "list")

    def _Set(self, node: ast.Set) -> Kind:
        kind = self._sequence(node, "set")
        if not kind.deep:
            self.fail(node, "building a set hashes its elements, whose type is not known")
        return kind

    def _sequence(self, node: Any, family: str) -> Kind:
        kinds = []
        for elt in node.elts:
            if isinstance(elt, ast.Starred):
                k = self.expr(elt.value)
                self.need(elt, k, "unpacking iterates it")
                kinds.append(k.elem or Kind(None, k.deep, k.deep))
            else:
                kinds.append(self.expr(elt))
        deep = all(k.deep for k in kinds)
        elem = None
        if kinds:
            elem = kinds[0]
            for k in kinds[1:]:
                elem = join(elem, k)
        return Kind(family, True, deep, elem=elem)

    def _Dict(self, node: ast.Dict) -> Kind:
        deep = True
        for key, value in zip(node.keys, node.values):
            v = self.expr(value)
            if key is None:
                self.need(value, v, "`**` unpacking reads the mapping")
            else:
                self.need(key, self.expr(key), "a dict key is hashed")
            deep = deep and v.deep
        return Kind("dict", True, deep)

    def _BinOp(self, node: ast.BinOp) -> Kind:
        left, right = self.expr(node.left), self.expr(node.right)
        op = type(node.op).__name__
        self.need(node.left, left, f"the {op} operator calls the operand's method")
        self.need(node.right, right, f"the {op} operator calls the operand's method")
        self.resources(node)
        return _arith(left, right, node.op)

    def resources(self, node: ast.BinOp) -> None:
        """Read-only is not enough: ``"x" * 10**10`` fills the memory, ``10**10**10`` runs in
        C where no interrupt reaches it. Large constant repeats and powers are asked about."""
        def big(operand: ast.AST, limit: int, tower: bool = False) -> bool:
            if tower and isinstance(operand, ast.BinOp) and \
                    isinstance(operand.op, (ast.Pow, ast.LShift)):
                return True  # 10 ** 10 ** 10
            value = _constant_int(operand)
            return value is not None and abs(value) > limit
        if isinstance(node.op, ast.Mult) and (big(node.left, MAX_REPEAT)
                                              or big(node.right, MAX_REPEAT)):
            self.fail(node, f"multiplies by a constant over {MAX_REPEAT:,}: it may exhaust "
                            f"the kernel's memory")
        elif isinstance(node.op, (ast.Pow, ast.LShift)) and big(node.right, MAX_EXPONENT,
                                                                  tower=True):
            self.fail(node, "a power or shift this large may never return (it runs in C, "
                            "where no interrupt reaches it)")

    def _UnaryOp(self, node: ast.UnaryOp) -> Kind:
        operand = self.expr(node.operand)
        self.need(node.operand, operand, "the operator calls the operand's method")
        if isinstance(node.op, ast.Not):
            return Kind("number", True, True)
        return Kind(operand.family, operand.shallow, operand.deep)

    def _BoolOp(self, node: ast.BoolOp) -> Kind:
        kinds = [self.expr(v) for v in node.values]
        for value, kind in zip(node.values, kinds):
            self.need(value, kind, "testing truth calls __bool__ or __len__")
        result = kinds[0]
        for k in kinds[1:]:
            result = join(result, k)
        return result

    def _Compare(self, node: ast.Compare) -> Kind:
        kinds = [self.expr(node.left)] + [self.expr(c) for c in node.comparators]
        identity = all(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops)
        if not identity:
            for value, kind in zip([node.left] + node.comparators, kinds):
                self.need(value, kind, "comparing calls __eq__/__lt__/__contains__")
        families = {k.family for k in kinds}
        for family in ("pandas", "numpy"):
            if family in families:
                return Kind(family, True, True)
        return Kind("number", True, True)

    def _IfExp(self, node: ast.IfExp) -> Kind:
        self.need(node.test, self.expr(node.test), "testing truth calls __bool__ or __len__")
        return join(self.expr(node.body), self.expr(node.orelse))

    def _JoinedStr(self, node: ast.JoinedStr) -> Kind:
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                k = self.expr(value.value)
                self.need(value.value, k, "formatting calls __format__/__str__/__repr__")
                if value.format_spec is not None:
                    self.expr(value.format_spec)
            elif not isinstance(value, ast.Constant):
                self.expr(value)
        return Kind("str", True, True)

    def _FormattedValue(self, node: ast.FormattedValue) -> Kind:
        k = self.expr(node.value)
        self.need(node.value, k, "formatting calls __format__")
        return Kind("str", True, True)

    def _NamedExpr(self, node: ast.NamedExpr) -> Kind:
        self.expr(node.value)
        self.fail(node, "the := operator assigns a variable")
        return UNKNOWN

    def _Await(self, node: ast.Await) -> Kind:
        self.expr(node.value)
        self.fail(node, "await runs a coroutine")
        return UNKNOWN

    def _Yield(self, node: Any) -> Kind:
        self.fail(node, "yield is not an expression of a read")
        return UNKNOWN

    _YieldFrom = _Yield

    def _Starred(self, node: ast.Starred) -> Kind:
        self.fail(node, "a starred expression here is an assignment target")
        return UNKNOWN

    def _Lambda(self, node: ast.Lambda) -> Kind:
        return self.lambda_body(node, [])

    def lambda_body(self, node: ast.Lambda, params: list[Kind]) -> Kind:
        """Analyse a lambda's defaults (now) and body (with ``params`` as its parameters'
        kinds; unknown where not given); the lambda itself is a value of family "lambda"
        whose body kind is in ``elem``."""
        args = node.args
        for default in list(args.defaults) + [d for d in args.kw_defaults if d is not None]:
            self.expr(default)
        names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
        if args.vararg:
            names.append(args.vararg.arg)
        if args.kwarg:
            names.append(args.kwarg.arg)
        scope = {n: (params[i] if i < len(params) else UNKNOWN) for i, n in enumerate(names)}
        self.scopes.append(scope)
        try:
            body = self.expr(node.body)
        finally:
            self.scopes.pop()
        return Kind("lambda", True, False, elem=body)

    # comprehensions ----------------------------------------------------------------------
    def _ListComp(self, node: ast.ListComp) -> Kind:
        elt = self.comprehension(node.generators, [node.elt])[0]
        return Kind("list", True, elt.deep, elem=elt)

    def _SetComp(self, node: ast.SetComp) -> Kind:
        elt = self.comprehension(node.generators, [node.elt])[0]
        self.need(node.elt, elt, "building a set hashes its elements")
        return Kind("set", True, elt.deep, elem=elt)

    def _GeneratorExp(self, node: ast.GeneratorExp) -> Kind:
        elt = self.comprehension(node.generators, [node.elt])[0]
        return Kind("generator", True, elt.deep, elem=elt)

    def _DictComp(self, node: ast.DictComp) -> Kind:
        key, value = self.comprehension(node.generators, [node.key, node.value])
        self.need(node.key, key, "a dict key is hashed")
        return Kind("dict", True, key.deep and value.deep)

    def comprehension(self, generators: list[ast.comprehension],
                      elts: list[ast.AST]) -> list[Kind]:
        self.scopes.append({})
        try:
            for gen in generators:
                if gen.is_async:
                    self.fail(gen.iter, "async comprehensions await coroutines")
                source = self.expr(gen.iter)
                if not source.shallow:
                    self.fail(gen.iter, f"iterating `{_segment(self.code, gen.iter)}`, an "
                                        f"object of unknown type, runs its __iter__")
                item = source.elem or Kind(None, source.deep, source.deep)
                if source.family == "str":
                    item = Kind("str", True, True)
                elif source.family == "range":
                    item = Kind("number", True, True)
                self.bind(gen.target, item)
                for cond in gen.ifs:
                    self.need(cond, self.expr(cond), "testing truth calls __bool__")
            return [self.expr(e) for e in elts]
        finally:
            self.scopes.pop()

    def bind(self, target: ast.AST, kind: Kind) -> None:
        if isinstance(target, ast.Name):
            if _is_dunder(target.id):
                self.fail(target, f"`{target.id}` is a dunder name")
            self.scopes[-1][target.id] = kind
        elif isinstance(target, (ast.Tuple, ast.List)):
            self.need(target, kind, "unpacking iterates each item")
            for elt in target.elts:
                self.bind(elt.value if isinstance(elt, ast.Starred) else elt,
                          Kind(None, kind.deep, kind.deep))
        else:
            self.fail(target, "a comprehension that assigns to an attribute or an item "
                              "changes that object")

    # calls ---------------------------------------------------------------------------------
    def _Call(self, node: ast.Call) -> Kind:
        func = node.func
        written = dotted(func)
        path: str | None = None  # module.attribute as reached, for the reason text
        receiver: Kind | None = None
        entry: Entry | None = None
        callee: str | None = None
        if isinstance(func, ast.Attribute) and not _is_dunder(func.attr):
            receiver = self.expr(func.value)
            family = receiver.family or ""
            if family.startswith(("module:", "class:")):
                target = self.attribute(func, receiver, func.attr, calling=True)
                callee = _callee_of(target)
                path = f"{family.split(':', 1)[1]}.{func.attr}"
                receiver = None
                entry = FUNCTIONS.get(callee) if callee is not None else None
            else:
                callee = f"{family or '?'}.{func.attr}"
                if receiver.shallow:
                    entry = METHODS.get(family, {}).get(func.attr)
        else:
            target = self.expr(func)
            callee = _callee_of(target)
            if callee is not None:
                entry = FUNCTIONS.get(callee)
        names = [n for n in (written, callee) if n and "?" not in n]
        if entry is not None:
            before = len(self.reasons)
            result = self.check_entry(node, entry, receiver, callee or "")
            if len(self.reasons) == before or not self.bless(names, before):
                return result
            self.arguments(node)  # the rule covers the call, not what its arguments do
            return TRUSTED
        if self.bless(names, len(self.reasons)):
            self.arguments(node)
            return TRUSTED
        self.arguments(node)
        reason = never_reason(callee or path or "") if (callee or path) else None
        never = reason is not None
        shown = written or callee or _segment(self.code, func)
        if reason is None:
            if receiver is not None and receiver.family and receiver.shallow:
                reason = (f"`.{func.attr}()` is not a known read-only method of "  # type: ignore[union-attr]
                          f"{receiver.family} values")
            elif receiver is not None:
                reason = (f"`{shown}()` is a method of an object of unknown type: it may run "
                          f"any code")
            else:
                reason = f"`{shown}()` is not a known read-only function"
        else:
            reason = f"`{shown}()`: {reason}"
        self.fail(node, reason, callee=written or callee, never=never)
        return UNKNOWN

    def bless(self, names: list[str], keep: int) -> bool:
        """An allow rule vouches for this call: drop the reasons found since ``keep``."""
        if self.blessed is None:
            return False
        for name in names:
            if self.blessed(name):
                del self.reasons[keep:]
                self.blessed_used.append(name)
                return True
        return False

    def arguments(self, node: ast.Call) -> list[Kind]:
        """Analyse every argument (an expression like any other); their kinds, in order."""
        kinds = []
        for arg in node.args:
            value = arg.value if isinstance(arg, ast.Starred) else arg
            kinds.append(self.expr(value))
        for kw in node.keywords:
            kinds.append(self.expr(kw.value))
        return kinds

    def check_entry(self, node: ast.Call, entry: Entry, receiver: Kind | None,
                    callee: str) -> Kind:
        check = entry.check
        shown = _segment(self.code, node.func)
        if receiver is not None:
            receiver_node = node.func.value if isinstance(node.func, ast.Attribute) else node
            self.need(receiver_node, receiver, f"`{shown}()` works on its receiver",
                      "shallow" if check == "shallow" else "deep")
        handler = getattr(self, "check_" + check)
        result = handler(node, entry, receiver, callee)
        if result is not None:
            return result
        family = entry.returns
        if family == "same":
            family = receiver.family if receiver is not None else None
        deep = receiver.deep if receiver is not None else True
        return Kind(family, True, deep)

    def _plain_args(self, node: ast.Call, what: str, level: str = "deep",
                    keywords: tuple[str, ...] | None = None) -> list[Kind]:
        kinds = []
        for arg in node.args:
            value = arg.value if isinstance(arg, ast.Starred) else arg
            kind = self.expr(value)
            self.need(value, kind, what, level)
            kinds.append(kind)
        for kw in node.keywords:
            kind = self.expr(kw.value)
            if keywords is not None and kw.arg not in keywords:
                self.fail(kw, f"the keyword {kw.arg or '**'}= is not accepted here")
            self.need(kw.value, kind, what, level)
        return kinds

    def check_deep(self, node: ast.Call, entry: Entry, receiver: Kind | None,
                   callee: str) -> Kind | None:
        kinds = self._plain_args(node, f"`{callee}` works on its arguments")
        if entry.returns == "path" and kinds and kinds[0].value is not None:
            return Kind("path", True, True, value=kinds[0].value)
        if entry.returns == "str" and callee.startswith("posixpath.") and kinds and \
                all(k.value is not None for k in kinds):
            try:
                return Kind("str", True, True, value=getattr(posixpath, callee.split(".")[-1])(
                    *[k.value for k in kinds]))
            except Exception:
                return None
        return None

    def check_shallow(self, node: ast.Call, entry: Entry, receiver: Kind | None,
                      callee: str) -> Kind | None:
        kinds = self._plain_args(node, f"`{callee}` looks at its argument", "shallow")
        if callee == "builtins.type":
            # the class of a library value has a library metaclass: its repr is safe
            trusted = len(kinds) == 1 and kinds[0].shallow
            return Kind("class:?", trusted, trusted) if trusted else UNKNOWN
        return None

    def check_print(self, node: ast.Call, entry: Entry, receiver: Kind | None,
                    callee: str) -> Kind | None:
        self._plain_args(node, "printing calls __str__", keywords=("sep", "end", "flush"))
        return None

    def check_no_buf(self, node: ast.Call, entry: Entry, receiver: Kind | None,
                     callee: str) -> Kind | None:
        self._plain_args(node, "its arguments are used",
                         keywords=("verbose", "max_cols", "memory_usage", "show_counts"))
        if node.args:
            self.fail(node, "info() with a positional argument writes into it (buf)")
        return None

    def check_attr_name(self, node: ast.Call, entry: Entry, receiver: Kind | None,
                        callee: str) -> Kind | None:
        if node.keywords or not 2 <= len(node.args) <= 3 or \
                any(isinstance(a, ast.Starred) for a in node.args):
            self.arguments(node)
            self.fail(node, f"{callee.split('.')[-1]}() needs an object and a constant "
                            f"attribute name")
            return UNKNOWN
        obj = self.expr(node.args[0])
        name_node = node.args[1]
        if not (isinstance(name_node, ast.Constant) and isinstance(name_node.value, str)):
            self.expr(name_node)
            self.fail(name_node, "the attribute name is computed at run time, so it may be a "
                                 "dunder")
            return UNKNOWN
        attr = name_node.value
        if attr.startswith("__") or not attr.isidentifier():
            self.fail(name_node, f"{attr!r} is a dunder or not a plain attribute name")
            return UNKNOWN
        if len(node.args) == 3:
            self.expr(node.args[2])
        result = self.attribute(node, obj, attr)
        return Kind("number", True, True) if callee.endswith("hasattr") else result

    def check_open(self, node: ast.Call, entry: Entry, receiver: Kind | None,
                   callee: str) -> Kind | None:
        path_node = node.args[0] if node.args else _keyword(node, "file")
        mode_node = node.args[1] if len(node.args) > 1 else _keyword(node, "mode")
        for arg in node.args[2:]:
            self.expr(arg)
            if not isinstance(arg, ast.Constant):
                self.fail(arg, "open() options must be constants")
        for kw in node.keywords:
            if kw.arg not in ("file", "mode", "encoding", "errors", "newline", "buffering"):
                self.expr(kw.value)
                self.fail(kw, f"open(..., {kw.arg}=...) is not a plain read")
            elif kw.arg not in ("file", "mode") and not isinstance(kw.value, ast.Constant):
                self.expr(kw.value)
                self.fail(kw, "open() options must be constants")
        if mode_node is not None:
            if not (isinstance(mode_node, ast.Constant) and mode_node.value in READ_MODES):
                self.expr(mode_node)
                self.fail(mode_node, "open() in a mode that is not a plain read (r, rb, rt) "
                                     "can write the file")
                return UNKNOWN
        if path_node is None:
            self.fail(node, "open() without a file")
            return UNKNOWN
        path = self.expr(path_node)
        if path.value is None or path.family not in ("str", "path"):
            self.fail(path_node, "cannot tell which file open() reads (the path is built at "
                                 "run time)")
            return UNKNOWN
        self.effects.append(Effect("read", path.value))
        binary = isinstance(mode_node, ast.Constant) and "b" in str(mode_node.value)
        return Kind("file", True, True, elem=Kind("bytes" if binary else "str", True, True))

    def check_key_func(self, node: ast.Call, entry: Entry, receiver: Kind | None,
                       callee: str) -> Kind | None:
        name = callee.split(".")[-1]
        func_index = 0 if name in ("map", "filter") else None
        iterables: list[Kind] = []
        function_nodes: list[ast.AST] = []
        for i, arg in enumerate(node.args):
            if i == func_index:
                function_nodes.append(arg)
                continue
            value = arg.value if isinstance(arg, ast.Starred) else arg
            kind = self.expr(value)
            self.need(value, kind, f"{name}() iterates and compares it")
            iterables.append(kind)
        for kw in node.keywords:
            if kw.arg == "key" and func_index is None:
                function_nodes.append(kw.value)
            elif kw.arg in ("reverse", "default", "start"):
                self.need(kw.value, self.expr(kw.value), f"{name}() uses it")
            else:
                self.expr(kw.value)
                self.fail(kw, f"{name}() does not take {kw.arg or '**'}= here")
        element = Kind(None, True, True)
        if iterables:
            first = iterables[0]
            element = first.elem or Kind(None, first.deep, first.deep)
        body = element
        for fn in function_nodes:
            if isinstance(fn, ast.Lambda):
                lam = self.lambda_body(fn, [element] * max(1, len(iterables)))
                body = lam.elem or UNKNOWN
            else:
                kind = self.expr(fn)
                callable_ok = kind.deep and (kind.family or "").startswith(
                    ("function:", "method:")) or (isinstance(fn, ast.Constant)
                                                  and fn.value is None)
                if not callable_ok:
                    self.fail(fn, f"{name}() calls this function, which is not a known "
                                  f"read-only one")
                body = Kind(None, True, True)
        if name == "sorted":
            return Kind("list", True, element.deep, elem=element)
        if name in ("min", "max"):
            return element
        if name == "map":
            return Kind("generator", True, body.deep, elem=body)
        return Kind("generator", True, element.deep, elem=element)

    def check_inplace(self, node: ast.Call, entry: Entry, receiver: Kind | None,
                      callee: str) -> Kind | None:
        flag = _keyword(node, "inplace")
        if flag is not None and not (isinstance(flag, ast.Constant) and flag.value is False):
            self.fail(flag, "inplace= changes the data in place")
        self.check_deep(node, entry, receiver, callee)
        return None

    def check_agg(self, node: ast.Call, entry: Entry, receiver: Kind | None,
                  callee: str) -> Kind | None:
        for value in list(node.args) + [kw.value for kw in node.keywords]:
            if not _constant_data(value):
                self.expr(value)
                self.fail(value, "aggregations are accepted by name only (\"mean\", "
                                 "[\"min\", \"max\"]), not as functions")
        return None

    def _path_argument(self, node: ast.Call) -> ast.AST | None:
        if node.args and not isinstance(node.args[0], ast.Starred):
            return node.args[0]
        for name in PATH_KEYWORDS:
            found = _keyword(node, name)
            if found is not None:
                return found
        return None

    def check_read_path(self, node: ast.Call, entry: Entry, receiver: Kind | None,
                        callee: str) -> Kind | None:
        path_node = self._path_argument(node)
        for arg in list(node.args) + [kw.value for kw in node.keywords]:
            if arg is path_node:
                continue
            value = arg.value if isinstance(arg, ast.Starred) else arg
            self.need(value, self.expr(value), f"`{callee}` uses its arguments")
        if path_node is None:
            if callee == "os.listdir":
                self.effects.append(Effect(entry.effect or "read", "."))
                return None
            self.fail(node, f"cannot tell which file `{callee}` reads")
            return UNKNOWN
        path = self.expr(path_node)
        if path.value is None or path.family not in ("str", "path"):
            self.fail(path_node, f"cannot tell which file `{callee}` reads (the path is built "
                                 f"at run time)")
            return UNKNOWN
        if "://" in path.value:
            self.fail(path_node, f"`{callee}` would fetch {path.value!r} over the network")
            return UNKNOWN
        target = path.value
        if callee == "glob.glob":
            target = _glob_root(target)
        self.effects.append(Effect(entry.effect or "read", target))
        return None

    def check_no_pickle(self, node: ast.Call, entry: Entry, receiver: Kind | None,
                        callee: str) -> Kind | None:
        flag = _keyword(node, "allow_pickle")
        if flag is not None and not (isinstance(flag, ast.Constant) and flag.value is False):
            self.fail(flag, "allow_pickle= lets the file run code when it is loaded")
            return UNKNOWN
        return self.check_read_path(node, entry, receiver, callee)

    def check_stat_path(self, node: ast.Call, entry: Entry, receiver: Kind | None,
                        callee: str) -> Kind | None:
        self._plain_args(node, "its arguments are used")
        if receiver is None or receiver.value is None:
            self.fail(node, "cannot tell which path this looks at (it is built at run time)")
            return UNKNOWN
        self.effects.append(Effect(entry.effect or "read", receiver.value))
        return None

    def check_call_self(self, node: ast.Call, entry: Entry, receiver: Kind | None,
                        callee: str) -> Kind | None:
        return self.check_deep(node, entry, receiver, callee)


def _constant_int(node: ast.AST, depth: int = 0) -> int | None:
    """The value of an int expression made of literals (``10**10``, ``1_000 * 1_000``), or None;
    a power too large to compute here counts as huge."""
    if isinstance(node, ast.Constant):
        value = node.value
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _constant_int(node.operand, depth + 1)
        return -inner if inner is not None else None
    if not isinstance(node, ast.BinOp) or depth > 20:
        return None
    left, right = _constant_int(node.left, depth + 1), _constant_int(node.right, depth + 1)
    if left is None or right is None:
        return None
    if isinstance(node.op, ast.Add):
        return left + right
    if isinstance(node.op, ast.Sub):
        return left - right
    if isinstance(node.op, ast.Mult):
        return left * right if max(abs(left), abs(right)) < 10 ** 30 else 10 ** 30
    if isinstance(node.op, ast.Pow):
        return left ** right if 0 <= right <= 64 and abs(left) < 10 ** 6 else 10 ** 30
    return None


def _callee_of(kind: Kind) -> str | None:
    family = kind.family or ""
    for prefix in ("function:", "class:"):
        if family.startswith(prefix):
            name = family[len(prefix):]
            return None if name == "?" else name
    return None


def _keyword(node: ast.Call, name: str) -> ast.AST | None:
    for kw in node.keywords:
        if kw.arg == name:
            return kw.value
    return None


def _constant_data(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(_constant_data(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _constant_data(k) for k in node.keys) and \
            all(_constant_data(v) for v in node.values)
    return False


def _glob_root(pattern: str) -> str:
    parts = []
    for part in pattern.split("/"):
        if any(c in part for c in "*?[{"):
            break
        parts.append(part)
    root = "/".join(parts)
    return root or ("/" if pattern.startswith("/") else ".")


def _segment(code: str, node: ast.AST) -> str:
    text = ast.get_source_segment(code, node) or type(node).__name__
    text = text.replace("\n", " ")
    return text if len(text) <= 60 else text[:59] + "…"


def _arith(left: Kind, right: Kind, op: ast.operator) -> Kind:
    families = (left.family, right.family)
    deep = left.deep and right.deep
    for family in ("pandas", "numpy"):
        if family in families:
            return Kind(family, True, deep)
    if left.family == "path" and isinstance(op, ast.Div):
        value = None
        if left.value is not None and right.value is not None:
            value = posixpath.join(left.value, right.value)
        return Kind("path", True, deep, value=value)
    if families == ("number", "number"):
        return Kind("number", True, deep)
    if left.family == "str" and isinstance(op, ast.Mod):
        return Kind("str", True, deep)
    if left.family == right.family and left.family in ("str", "bytes", "list", "tuple", "set"):
        value = None
        if left.family == "str" and isinstance(op, ast.Add) and left.value is not None \
                and right.value is not None:
            value = left.value + right.value
        return Kind(left.family, True, deep, value=value)
    return Kind(None, True, deep)


_STATEMENT_REASONS = {
    "Assign": "assigns a variable, an attribute or an item (changes state)",
    "AugAssign": "an augmented assignment (+= …) changes a variable or the object in place",
    "AnnAssign": "assigns a variable",
    "Delete": "del removes a variable, an attribute or an item",
    "Import": "an import runs the module's code and binds names",
    "ImportFrom": "an import runs the module's code and binds names",
    "FunctionDef": "defines a function (binds a name; decorators run code)",
    "AsyncFunctionDef": "defines a function (binds a name; decorators run code)",
    "ClassDef": "defines a class (runs its body and decorators, binds a name)",
    "For": "a for loop assigns its loop variable",
    "AsyncFor": "an async for loop assigns its loop variable and awaits",
    "While": "a loop: only single expressions are analysed",
    "If": "an if statement: only single expressions are analysed",
    "With": "with runs the context manager's __enter__/__exit__ and may bind a name",
    "AsyncWith": "async with runs code and awaits",
    "Try": "try/except: only single expressions are analysed",
    "TryStar": "try/except*: only single expressions are analysed",
    "Raise": "raise: only single expressions are analysed",
    "Global": "global changes how names bind",
    "Nonlocal": "nonlocal changes how names bind",
    "Assert": "assert: only single expressions are analysed",
    "Match": "match binds names",
    "Return": "return outside a function",
    "Break": "break outside a loop",
    "Continue": "continue outside a loop",
}


class _Collector(ast.NodeVisitor):
    """Every dotted name mentioned (for deny/ask rules), and literal-path writes and deletes
    (for Edit/Write rules and the protected paths), read-only or not."""

    def __init__(self, walker: _Walker):
        self.walker = walker
        self.aliases: dict[str, str] = {}
        self.references: list[str] = []
        self.effects: list[Effect] = []

    def resolve(self, text: str) -> str | None:
        root, _, rest = text.partition(".")
        base = self.aliases.get(root)
        if base is None:
            kind = self.walker.names.lookup(root) if not _is_dunder(root) else None
            family = (kind.family or "") if kind is not None else ""
            if family.startswith(("module:", "function:", "class:")):
                base = family.split(":", 1)[1]
        if base is None or base == "?":
            return None
        return f"{base}.{rest}" if rest else base

    def add(self, text: str) -> None:
        self.references.append(text)
        resolved = self.resolve(text)
        if resolved is not None:
            self.references.append(resolved)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.aliases[alias.asname or alias.name.split(".")[0]] = (
                alias.name if alias.asname else alias.name.split(".")[0])
            self.references.append(alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = ("." * node.level) + (node.module or "")
        for alias in node.names:
            full = f"{module}.{alias.name}"
            self.aliases[alias.asname or alias.name] = full
            self.references.append(full)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        text = dotted(node)
        if text is not None:
            self.add(text)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        self.add(node.id)

    def visit_Call(self, node: ast.Call) -> None:
        name = dotted(node.func)
        if name is not None:
            resolved = self.resolve(name) or name
            if resolved in ("getattr", "builtins.getattr") and len(node.args) >= 2 and \
                    isinstance(node.args[1], ast.Constant) and \
                    isinstance(node.args[1].value, str):
                base = dotted(node.args[0])
                if base is not None:
                    self.add(f"{base}.{node.args[1].value}")
            self.write_effects(node, name, resolved)
        self.generic_visit(node)

    def literal(self, node: ast.AST | None) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            kind = self.walker.names.lookup(node.id)
            return kind.value if kind is not None and kind.family == "str" else None
        if isinstance(node, ast.Call) and dotted(node.func) in ("Path", "pathlib.Path") \
                and node.args:
            return self.literal(node.args[0])
        return None

    def write_effects(self, node: ast.Call, name: str, resolved: str) -> None:
        first = node.args[0] if node.args else None
        if resolved in ("open", "builtins.open") or name == "open":
            mode = node.args[1] if len(node.args) > 1 else _keyword(node, "mode")
            if mode is not None and not (isinstance(mode, ast.Constant)
                                         and mode.value in READ_MODES):
                self.effects.append(Effect("write", self.literal(first or
                                                                 _keyword(node, "file"))))
            return
        kind = WRITERS.get(resolved)
        if kind is not None:
            tree = resolved in ("shutil.rmtree", "os.removedirs")
            self.effects.append(Effect(kind, self.literal(first), recursive=tree))
            if resolved.split(".")[-1] in ("rename", "replace", "move", "copy", "copy2",
                                          "copyfile", "copytree") and len(node.args) > 1:
                self.effects.append(Effect("write", self.literal(node.args[1]),
                                           recursive=resolved.endswith("copytree")))
            return
        if isinstance(node.func, ast.Attribute):
            method = node.func.attr
            kind = WRITER_METHODS.get(method)
            if kind is None:
                return
            receiver = node.func.value
            receiver_path = self.literal(receiver)
            path_methods = ("write_text", "write_bytes", "touch", "mkdir", "unlink", "rmdir",
                            "rename", "replace")
            if method in path_methods:
                if receiver_path is not None or isinstance(receiver, ast.Call):
                    self.effects.append(Effect(kind, receiver_path))
                if method in ("rename", "replace") and first is not None and \
                        receiver_path is not None:
                    self.effects.append(Effect("write", self.literal(first)))
                return
            if first is not None or _keyword(node, "path_or_buf") is not None:
                self.effects.append(Effect(kind, self.literal(first or _keyword(
                    node, "path_or_buf"))))
