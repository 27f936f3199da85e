"""Calls: a call is read-only only when its callee is a table entry (``tables.py``) whose
check passes; the ``check_*`` methods implement the checks the entries name (their arguments,
the file a reader opens, a mode that writes…). An allow rule may vouch for a callee
(``blessed``)."""

from __future__ import annotations

import ast
import posixpath

from .expressions import ExpressionWalker
from .findings import Effect
from .kinds import TRUSTED, UNKNOWN, Kind
from .nodes import callee_of, constant_data, dotted, glob_root, is_dunder, keyword, segment
from .tables import FUNCTIONS, METHODS, Entry, never_reason

READ_MODES = frozenset({"r", "rb", "rt", "br", "tr"})
PATH_KEYWORDS = ("path", "filepath_or_buffer", "io", "fname", "path_or_buf", "file",
                 "pathname", "top", "filename")


class Walker(ExpressionWalker):
    """The whole walk: expressions and calls."""

    def _Call(self, node: ast.Call) -> Kind:
        func = node.func
        written = dotted(func)
        path: str | None = None  # module.attribute as reached, for the reason text
        receiver: Kind | None = None
        entry: Entry | None = None
        callee: str | None = None
        if isinstance(func, ast.Attribute) and not is_dunder(func.attr):
            receiver = self.expr(func.value)
            family = receiver.family or ""
            if family.startswith(("module:", "class:")):
                target = self.attribute(func, receiver, func.attr, calling=True)
                callee = callee_of(target)
                path = f"{family.split(':', 1)[1]}.{func.attr}"
                receiver = None
                entry = FUNCTIONS.get(callee) if callee is not None else None
            else:
                callee = f"{family or '?'}.{func.attr}"
                if receiver.shallow:
                    entry = METHODS.get(family, {}).get(func.attr)
        else:
            target = self.expr(func)
            callee = callee_of(target)
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
        shown = written or callee or segment(self.code, func)
        if reason is None:
            if (receiver is not None and isinstance(func, ast.Attribute) and receiver.family
                    and receiver.shallow):
                reason = (f"`.{func.attr}()` is not a known read-only method of "
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
        shown = segment(self.code, node.func)
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
        path_node = node.args[0] if node.args else keyword(node, "file")
        mode_node = node.args[1] if len(node.args) > 1 else keyword(node, "mode")
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
        flag = keyword(node, "inplace")
        if flag is not None and not (isinstance(flag, ast.Constant) and flag.value is False):
            self.fail(flag, "inplace= changes the data in place")
        self.check_deep(node, entry, receiver, callee)
        return None

    def check_agg(self, node: ast.Call, entry: Entry, receiver: Kind | None,
                  callee: str) -> Kind | None:
        for value in list(node.args) + [kw.value for kw in node.keywords]:
            if not constant_data(value):
                self.expr(value)
                self.fail(value, "aggregations are accepted by name only (\"mean\", "
                                 "[\"min\", \"max\"]), not as functions")
        return None

    def _path_argument(self, node: ast.Call) -> ast.AST | None:
        if node.args and not isinstance(node.args[0], ast.Starred):
            return node.args[0]
        for name in PATH_KEYWORDS:
            found = keyword(node, name)
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
            target = glob_root(target)
        self.effects.append(Effect(entry.effect or "read", target))
        return None

    def check_no_pickle(self, node: ast.Call, entry: Entry, receiver: Kind | None,
                        callee: str) -> Kind | None:
        flag = keyword(node, "allow_pickle")
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

