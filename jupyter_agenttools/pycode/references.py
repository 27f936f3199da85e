"""The second, simpler pass: every dotted name the code mentions (as written and resolved,
``np.save`` → ``numpy.save``) for deny and ask rules, and the files written or deleted with a
literal path (for Edit/Write rules and the protected paths), whether or not the code is
read-only."""

from __future__ import annotations

import ast

from .calls import READ_MODES
from .expressions import ExpressionWalker
from .findings import Effect
from .nodes import dotted, is_dunder, keyword
from .tables import WRITER_METHODS, WRITERS


class ReferenceCollector(ast.NodeVisitor):
    """Every dotted name mentioned (for deny/ask rules), and literal-path writes and deletes
    (for Edit/Write rules and the protected paths), read-only or not."""

    def __init__(self, walker: ExpressionWalker):
        self.walker = walker
        self.aliases: dict[str, str] = {}
        self.references: list[str] = []
        self.effects: list[Effect] = []
        self.path_constants: list[str] = []  # string constants that look like paths

    def resolve(self, text: str) -> str | None:
        root, _, rest = text.partition(".")
        base = self.aliases.get(root)
        if base is None:
            kind = self.walker.names.lookup(root) if not is_dunder(root) else None
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

    def visit_Constant(self, node: ast.Constant) -> None:
        value = node.value
        if type(value) is str and 0 < len(value) <= 4096 and looks_like_path(value):
            self.path_constants.append(value)

    def possible_writes(self, known: list[Effect]) -> list[Effect]:
        """Code that is not read-only may write any path it names: every path-like string
        constant not already an effect becomes a possible write, so the protected tier (the
        agent's settings and audit, wholesale destruction), sensitive paths and Edit deny rules
        see it, however the code reaches it (``Path(p).write_text``, ``os.symlink(x, p)``,
        ``__import__("os").remove(p)``). Only a path built at run time escapes: such code is
        never read-only, and bypass mode is the user's choice to run it."""
        seen = {e.path for e in known}
        return [Effect("write", path) for path in dict.fromkeys(self.path_constants)
                if path not in seen]

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
            mode = node.args[1] if len(node.args) > 1 else keyword(node, "mode")
            if mode is not None and not (isinstance(mode, ast.Constant)
                                         and mode.value in READ_MODES):
                self.effects.append(Effect("write", self.literal(first or
                                                                 keyword(node, "file"))))
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
            if first is not None or keyword(node, "path_or_buf") is not None:
                self.effects.append(Effect(kind, self.literal(first or keyword(
                    node, "path_or_buf"))))


#: how many path-like constants of one piece of code are checked as possible writes (each is
#: resolved, ~0.05 ms): past it the tool cannot describe the code (RunCode asks, bypass too)
MAX_POSSIBLE_WRITES = 1024


def looks_like_path(text: str) -> bool:
    """A string that names a file the way code writes one: with a slash, or starting with
    ``.``, ``~`` or ``/`` (``".env"``, ``"~/.bashrc"``, ``".agenttools/settings.json"``)."""
    return ("/" in text or text[0] in ".~") and "\n" not in text and "\x00" not in text \
        and "://" not in text
