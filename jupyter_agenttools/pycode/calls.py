"""Calls: a call is read-only only when its callee is a table entry (``tables.py``) whose
check passes; the ``check_*`` methods implement the checks the entries name (their arguments,
the file a reader opens, a mode that writes…). An allow rule may vouch for a callee
(``blessed``)."""

from __future__ import annotations

import ast
import posixpath
import re

from . import sizes
from .expressions import HANG, ExpressionWalker, _amount
from .findings import Effect
from .kinds import TRUSTED, UNKNOWN, Kind
from .nodes import (
    callee_of,
    constant_data,
    dotted,
    format_problem,
    glob_root,
    is_dunder,
    keyword,
    segment,
)
from .tables import FUNCTIONS, GUARDED_KEYWORDS, METHODS, POSITIONAL_LIMITS, Entry, never_reason
from .values import callable_function, is_submodule, out_position

READ_MODES = frozenset({"r", "rb", "rt", "br", "tr"})
#: a path that starts with a URL scheme (``file:``, ``http:``, ``s3:``): pandas and numpy hand
#: it to urllib or fsspec instead of opening a local file (``file:/etc/passwd`` has no ``//``)
URL_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:")

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
        if written is not None and self.module_detour(written):
            written = None  # os.path.os.system: a rule for os.path.* must not see it
        names = [n for n in (written, callee) if n and "?" not in n]
        if entry is not None:
            before = len(self.reasons)
            result = self.check_entry(node, entry, receiver, callee or "")
            if len(self.reasons) == before or not self.bless(names, before):
                return result
            self.blessed_arguments(node)
            return TRUSTED
        if self.bless(names, len(self.reasons)):
            self.blessed_arguments(node)
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

    def module_detour(self, written: str) -> bool:
        """Does the written name reach a module through an attribute that is not its
        submodule (``os.path.os``, ``pd.io.common.os``)? Such a name is not the call's name
        for an allow rule (``RunCode(os.path.*)`` would match ``os.path.os.system``)."""
        parts = written.split(".")
        if parts[0] in self.imports:
            return False  # the code imports (and so is not read-only anyway)
        kind = self.names.lookup(parts[0]) if not is_dunder(parts[0]) else None
        for attr in parts[1:-1]:
            family = (kind.family or "") if kind is not None else ""
            if not family.startswith("module:"):
                return False
            module = family[len("module:"):]
            kind = self.names.module_attribute(module, attr)
            child = (kind.family or "") if kind is not None else ""
            if child.startswith("module:") and not is_submodule(module, attr,
                                                                 child[len("module:"):]):
                return True
        return False

    def blessed_arguments(self, node: ast.Call) -> None:
        """The rule covers the call, not what its arguments do: they are analysed as any
        other code, and a function handed to the call (``sorted(key=os.remove)``,
        ``df.apply(lst.append)``) must be one library code may call (see
        ``tables.CALLABLE_CHECKS``): the rule names the call, not what it calls back."""
        values = [a.value if isinstance(a, ast.Starred) else a for a in node.args]
        values += [kw.value for kw in node.keywords]
        # extra arguments the call passes on to the function (``df.apply(f, args=(…))``):
        # then a numpy function's output position may be reached (np.add's third argument)
        passes_on = any(kw.arg in ("args", None) for kw in node.keywords)
        for value, kind in zip(values, self.arguments(node)):
            family = kind.family or ""
            if kind.deep or not kind.shallow or family == "lambda":
                continue  # a value, a user object (the call is user code's business), a lambda
            function = callee_of(kind)
            if function and not passes_on and callable_function(function, allow_out=True):
                continue  # np.mean: one argument cannot reach its output position
            if family.startswith(("function:", "method:", "class:")) or not family:
                self.fail(value, f"`{segment(self.code, value)}` is handed to a call a rule "
                                 f"allows, which may call it: the rule does not cover what it does")

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
        self.sizes(node, callee, receiver is not None)
        self.destinations(node, entry, receiver, callee)
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

    def sizes(self, node: ast.Call, callee: str, method: bool) -> None:
        """A read-only call over a budget of items, integer bits or regex backtracking is
        asked about (``sizes.py``): it may hang or exhaust the kernel."""
        if callee == "builtins.len" and len(node.args) == 1:
            self.unsized.add(id(node.args[0]))  # len(range(10**12)) is computed, not counted
        receiver = node.func.value if method and isinstance(node.func, ast.Attribute) else None
        items = sizes.produced_items(node, callee, self.names, receiver=receiver)
        if items is not None and items > sizes.MAX_ITEMS and id(node) not in self.unsized:
            self.fail(node, f"`{callee}` goes through or builds {_amount(items)} items, more "
                            f"than {sizes.MAX_ITEMS:,}: {HANG}")
        bits = sizes.integer_bits(node, callee, self.names)
        if bits is not None and bits > sizes.MAX_INT_BITS:
            self.fail(node, f"`{callee}` computes an integer of {_amount(bits)} bits, more "
                            f"than {sizes.MAX_INT_BITS:,}: {HANG}")
        if callee == "str.format":
            self.padding(node)
        if callee in sizes.REGEX_CALLS:
            pattern = sizes.regex_pattern(node, callee, self.names)
            why = sizes.regex_blowup(pattern) if pattern is not None else None
            if why is not None:
                self.fail(node, f"the regular expression has {why}: matching it may take "
                                f"exponential time in one C call, where no interrupt reaches it")

    def destinations(self, node: ast.Call, entry: Entry, receiver: Kind | None,
                     callee: str) -> None:
        """Arguments that say where a result is written (``out=``, ``buf=``, ``inplace=``;
        numpy's positional ``out``, ``to_string``'s positional ``buf``): refused, whatever
        the entry (``tables.GUARDED_KEYWORDS``, ``POSITIONAL_LIMITS``)."""
        for kw in node.keywords:
            if kw.arg in GUARDED_KEYWORDS and not (entry.check == "inplace"
                                                   and kw.arg == "inplace"):
                harmless, why = GUARDED_KEYWORDS[kw.arg]
                if not (isinstance(kw.value, ast.Constant)
                        and any(kw.value.value is v or (isinstance(v, str) and kw.value.value == v)
                                for v in harmless)):
                    self.fail(kw, why)
        if receiver is not None:
            method = callee.rpartition(".")[2]
            limit = POSITIONAL_LIMITS.get(receiver.family or "", {}).get(method)
        else:
            limit = out_position(callee)
        if limit is not None and (len(node.args) > limit or any(
                isinstance(a, ast.Starred) for a in node.args[:limit + 1])):
            self.fail(node.args[min(limit, len(node.args) - 1)],
                      f"`{callee}` takes at most {limit} positional argument(s) here: the next "
                      f"one says where the result is written (out/buf)")

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
        if callee in ("builtins.isinstance", "builtins.issubclass") and len(node.args) == 2:
            self.class_operand(node.args[1], kinds[1], callee)
        if callee == "builtins.type":
            if len(node.args) != 1 or node.keywords:
                self.fail(node, "type() with three arguments creates a class (its bases' "
                                "__init_subclass__ and its members' __set_name__ run)")
                return UNKNOWN
            # the class of a library value has a library metaclass: its repr is safe
            trusted = len(kinds) == 1 and kinds[0].shallow
            return Kind("class:?", trusted, trusted) if trusted else UNKNOWN
        return None

    def class_operand(self, node: ast.AST, kind: Kind, callee: str) -> None:
        """isinstance's classes: each one's own metaclass decides (an abc class of user code
        runs its __subclasshook__), so a tuple of classes is checked class by class."""
        if isinstance(node, ast.Tuple):
            for element in node.elts:
                element_kind = self.expr(element)
                self.need(element, element_kind, f"`{callee}` asks each class", "shallow")
                self.class_operand(element, element_kind, callee)
        elif kind.family == "tuple" and not kind.deep:
            self.need(node, kind, f"`{callee}` asks each class in it")

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
                # a numpy function with an output position (np.sqrt's second argument) is
                # fine when it gets fewer arguments: one per iterable for map, one for key=
                function = callee_of(kind) if kind.shallow else None
                position = out_position(function) if function else None
                if not callable_ok and position is not None and kind.shallow and \
                        position >= max(1, len(iterables)) and callable_function(
                            function, allow_out=True):  # type: ignore[arg-type]
                    callable_ok = True
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
        for kw in node.keywords:
            if kw.arg in ("root_dir", "dir_fd") and not (
                    isinstance(kw.value, ast.Constant) and kw.value.value is None):
                self.fail(kw, f"{kw.arg}= moves the folder `{callee}` reads to one the analysis "
                              f"does not check")
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
        if callee.startswith(("pandas.", "numpy.")) and URL_SCHEME.match(path.value):
            self.fail(path_node, f"`{callee}` would open {path.value!r} as a URL (file:, http:…), "
                                 f"not as a local path")
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
        kinds = self._plain_args(node, "its arguments are used")
        if receiver is None or receiver.value is None:
            self.fail(node, "cannot tell which path this looks at (it is built at run time)")
            return UNKNOWN
        target = receiver.value
        if callee.endswith((".glob", ".rglob")):
            # the pattern may climb out of the folder (``Path(".").glob("../../etc/*")``):
            # the search starts at the pattern's fixed part, joined to the folder
            if not kinds or kinds[0].value is None:
                self.fail(node, "cannot tell which folder this searches (the pattern is built at "
                                "run time)")
                return UNKNOWN
            target = posixpath.join(target, glob_root(kinds[0].value))
        self.effects.append(Effect(entry.effect or "read", target))
        return None

    def check_finite(self, node: ast.Call, entry: Entry, receiver: Kind | None,
                     callee: str) -> Kind | None:
        self._plain_args(node, f"`{callee}` works on its arguments")
        if len(node.args) + len(node.keywords) < 2 or any(
                isinstance(a, ast.Starred) for a in node.args):
            self.fail(node, f"`{callee}` without a count never ends: consuming it loops in C, "
                            f"where no interrupt reaches")
        return None

    def check_format(self, node: ast.Call, entry: Entry, receiver: Kind | None,
                     callee: str) -> Kind | None:
        """``template.format(...)``: a field may read attributes and items of the arguments
        (``"{0.__init__.__globals__}"``): only plain fields of a known template pass."""
        self._plain_args(node, "formatting calls __format__/__str__/__repr__")
        template = receiver.value if receiver is not None else None
        if template is None:
            self.fail(node, "the format template is not known, and its fields may read any "
                            "attribute of the values (`{0.__class__}`)")
            return UNKNOWN
        problem = format_problem(template)
        if problem is not None:
            self.fail(node, problem)
            return UNKNOWN
        return None

    def check_call_self(self, node: ast.Call, entry: Entry, receiver: Kind | None,
                        callee: str) -> Kind | None:
        return self.check_deep(node, entry, receiver, callee)


