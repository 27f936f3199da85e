"""Small questions about ``ast`` nodes the analysis asks everywhere: the dotted name of an
attribute chain, a keyword argument, the value of a constant expression, a short source
excerpt for a reason."""

from __future__ import annotations

import ast
import re
import string

from .kinds import Kind

#: a format field the analysis accepts: a position or a name, then items (``{0[1]}``,
#: ``{rows[0]}``), never ``.attr`` (``{0.__class__}``, a property of a user object)
PLAIN_FIELD = re.compile(r"(\d*|[A-Za-z_]\w*)(\[[^\].]*\])*")


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


def is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__") and len(name) > 4


def constant_int(node: ast.AST, depth: int = 0) -> int | None:
    """The value of an int expression made of literals (``10**10``, ``1_000 * 1_000``), or None;
    a power too large to compute here counts as huge."""
    if isinstance(node, ast.Constant):
        value = node.value
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = constant_int(node.operand, depth + 1)
        return -inner if inner is not None else None
    if not isinstance(node, ast.BinOp) or depth > 20:
        return None
    left, right = constant_int(node.left, depth + 1), constant_int(node.right, depth + 1)
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


def callee_of(kind: Kind) -> str | None:
    family = kind.family or ""
    for prefix in ("function:", "class:"):
        if family.startswith(prefix):
            name = family[len(prefix):]
            return None if name == "?" else name
    return None


def keyword(node: ast.Call, name: str) -> ast.AST | None:
    for kw in node.keywords:
        if kw.arg == name:
            return kw.value
    return None


def constant_data(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(constant_data(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and constant_data(k) for k in node.keys) and \
            all(constant_data(v) for v in node.values)
    return False


def glob_root(pattern: str) -> str:
    parts = []
    for part in pattern.split("/"):
        if any(c in part for c in "*?[{"):
            break
        parts.append(part)
    root = "/".join(parts)
    return root or ("/" if pattern.startswith("/") else ".")


def segment(code: str, node: ast.AST) -> str:
    text = ast.get_source_segment(code, node) or type(node).__name__
    text = text.replace("\n", " ")
    return text if len(text) <= 60 else text[:59] + "…"


def format_problem(template: str, depth: int = 0) -> str | None:
    """Why a ``str.format`` template is not plain (a field reading an ``.attr``), or None."""
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError as exc:
        return f"the format template does not parse ({exc})"
    for _, field, spec, _ in parts:
        if field is None:
            continue
        if not PLAIN_FIELD.fullmatch(field):
            return (f"the format field {{{field}}} reads an attribute of a value (only names, "
                    f"positions and [items] are accepted)")
        if spec and "{" in spec:
            if depth > 2:
                return "the format template nests fields too deeply"
            problem = format_problem(spec, depth + 1)
            if problem is not None:
                return problem
    return None
