"""The walk over statements and expressions (everything but calls, which ``calls.py`` adds):
what kind of object each expression yields (``kinds.Kind``) and why a construct is not
proven read-only. Only expression statements (and ``pass``) can be read-only; every other
statement gets a reason from ``STATEMENT_REASONS``."""

from __future__ import annotations

import ast
import posixpath
from typing import Any, Callable

from . import sizes
from .findings import Effect, Names, Reason, secret_word
from .kinds import UNKNOWN, Kind, join, kind_of_constant
from .nodes import constant_int, format_problem, is_dunder, segment
from .tables import ATTRIBUTES, METHODS, NEVER, POSITIONAL_LIMITS, callable_entry
from .values import pandas_member

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
#: why a size over a budget is asked about
HANG = ("it may hang the kernel in one C call (where no interrupt reaches it) or exhaust its "
        "memory")
#: attributes that describe a library object's structure, not its values: safe to show even
#: when the values are not (``objects_df.shape``)
STRUCTURAL = {"shape": "tuple", "ndim": "number", "size": "number", "nbytes": "number",
              "itemsize": "number", "strides": "tuple", "empty": "number", "dtypes": "pandas",
              "dtype": None}

#: families whose values have no instance __dict__ (built-in types, numpy arrays and scalars,
#: paths, dates, compiled patterns): a member not in the tables is a method or property of
#: the library class, never a value user code stored on the object
MEMBERS_FROM_CLASS = frozenset({"str", "bytes", "number", "list", "tuple", "dict", "set",
                                "range", "numpy", "path", "datetime", "re_pattern", "none",
                                "pandas", "pandas_groupby"})

STATEMENT_REASONS = {
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


class ExpressionWalker:
    """Walks a module's statements and expressions, collecting reasons and effects."""

    def __init__(self, code: str, names: Names, blessed: Callable[[str], bool] | None):
        self.code = code
        self.names = names
        self.blessed = blessed
        self.reasons: list[Reason] = []
        self.effects: list[Effect] = []
        self.blessed_used: list[str] = []
        self.scopes: list[dict[str, Kind]] = []
        self.imports: dict[str, Kind] = {}
        #: calls whose size does not matter where they stand (``len(range(10**12))``,
        #: ``x in range(10**12)``: computed without going through the items)
        self.unsized: set[int] = set()

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
            self.fail(node, f"{what}: `{segment(self.code, node)}` may be an object whose "
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
                self.fail(stmt, STATEMENT_REASONS.get(
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
        if is_dunder(name):
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
        if is_dunder(node.attr):
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
            owner = family[len("class:"):]
            if calling:  # the call is checked by name against the tables
                return Kind(f"function:{owner}.{attr}", True, False)
            # a read: a descriptor's __get__ runs, a class attribute may hold any object
            attribute = self.names.class_attribute(owner, attr) if owner != "?" else \
                f"cannot tell what reading `.{attr}` of this class runs"
            if isinstance(attribute, str):
                self.fail(node, attribute)
                return UNKNOWN
            return attribute
        if family in BUILTIN_TYPES:
            # ``str.lower`` as a key function: an unbound method of a built-in type, deep
            # (callable by library code) only when it is a read-only one
            return Kind(f"method:{BUILTIN_TYPES[family]}.{attr}", True,
                        callable_method(BUILTIN_TYPES[family], attr))
        if family.startswith(("function:", "method:", "lambda")):
            # a function's attributes are whatever was stored on it (its __dict__): reading
            # runs nothing, but the value is not known
            return UNKNOWN
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
            # when its check holds for any arguments (not ``"{0.x}".format``, ``arr.sum``)
            callable_ = callable_method(family, attr) or (
                family == "str" and attr in ("format", "format_map") and base.value is not None
                and format_problem(base.value) is None)  # "{:.2f}".format: a known template
            return Kind(f"method:{family}.{attr}", True, base.deep and callable_)
        if family in ("pandas", "pandas_groupby") and not pandas_member(family, attr):
            return Kind(family, base.deep, base.deep)  # a column, or an AttributeError
        # any other member (``lst.append``, ``df.pop``): readable, but never handed to code
        # that would call it, printed or called itself. Objects with an instance __dict__
        # (matplotlib's, files, library values of no known family) may hold anything user code
        # stored there (``fig.model = Model()``): their unknown members are unknown values
        if family in MEMBERS_FROM_CLASS:
            return Kind(None, True, False)
        return Kind(None, False, False)

    def _Subscript(self, node: ast.Subscript) -> Kind:
        base = self.expr(node.value)
        index = self.expr(node.slice)
        if not base.shallow:
            self.fail(node, f"indexing `{segment(self.code, node.value)}`, an object of "
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
        return arithmetic(left, right, node.op)

    def resources(self, node: ast.BinOp) -> None:
        """Read-only is not enough: ``"x" * 10**10`` fills the memory, ``10**10**10`` runs in
        C where no interrupt reaches it. Large constant repeats and powers are asked about,
        and so are sizes computed from variables (``s * n``, ``10 ** n``: ``sizes.py``)."""
        def big(operand: ast.AST, limit: int, tower: bool = False) -> bool:
            if tower and isinstance(operand, ast.BinOp) and \
                    isinstance(operand.op, (ast.Pow, ast.LShift)):
                return True  # 10 ** 10 ** 10
            value = constant_int(operand)
            return value is not None and abs(value) > limit
        if isinstance(node.op, ast.Mult) and (big(node.left, MAX_REPEAT)
                                              or big(node.right, MAX_REPEAT)):
            self.fail(node, f"multiplies by a constant over {MAX_REPEAT:,}: it may exhaust "
                            f"the kernel's memory")
        elif isinstance(node.op, (ast.Pow, ast.LShift)) and big(node.right, MAX_EXPONENT,
                                                                  tower=True):
            self.fail(node, "a power or shift this large may never return (it runs in C, "
                            "where no interrupt reaches it)")
        elif isinstance(node.op, ast.Mod):
            self.padding(node)
        elif isinstance(node.op, ast.Mult):
            items = sizes.length(node, self.names)
            if items is not None and items > sizes.MAX_ITEMS:
                self.fail(node, f"repeats a sequence into {_amount(items)} items, more than "
                                f"{sizes.MAX_ITEMS:,}: {HANG}")
        elif isinstance(node.op, ast.Pow):
            bits = sizes.power_bits(node.left, node.right, self.names)
            if bits is not None and bits > sizes.MAX_INT_BITS:
                self.fail(node, f"computes an integer of {_amount(bits)} bits, more than "
                                f"{sizes.MAX_INT_BITS:,}: {HANG}")

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
        for op, right in zip(node.ops, node.comparators):
            if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, ast.Call):
                self.unsized.add(id(right))  # ``in`` on a range computes, never iterates
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
        self.padding(node)
        return Kind("str", True, True)

    def padding(self, node: ast.AST) -> None:
        """A format width over the budget (``f"{x:>{10**12}}"``) builds that many characters."""
        width = sizes.format_width(node, self.names)
        if width is not None and width > sizes.MAX_ITEMS:
            self.fail(node, f"pads a formatted value to {_amount(width)} characters, more "
                            f"than {sizes.MAX_ITEMS:,}: {HANG}")

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
                    self.fail(gen.iter, f"iterating `{segment(self.code, gen.iter)}`, an "
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
            if is_dunder(target.id):
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


def callable_method(family: str, attr: str) -> bool:
    """May library code call this method of a ``family`` value with arguments the analysis
    does not see (``tables.CALLABLE_CHECKS``; no output position such as ``arr.sum``'s)?"""
    return callable_entry(METHODS.get(family, {}).get(attr)) and \
        attr not in POSITIONAL_LIMITS.get(family, {})


def arithmetic(left: Kind, right: Kind, op: ast.operator) -> Kind:
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



def _amount(value: float) -> str:
    """``about 1e+18`` / ``an unbounded number of`` for a reason's text."""
    return "an unbounded number of" if value == float("inf") else f"about {value:.2g}"
