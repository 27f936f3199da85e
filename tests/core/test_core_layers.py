"""The import graph follows the layering declared in ``jupyter_agenttools/layers.txt``.

Every ``import`` and ``from … import`` of every module is read with ``ast`` — at module level,
inside functions and under ``if TYPE_CHECKING`` alike — and each import from one part of the
package into another must be declared. ``shell`` and ``pycode`` are pure analyzers: they import
nothing of ``permission``, ``builtin`` or ``backends``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import jupyter_agenttools

PACKAGE = Path(jupyter_agenttools.__file__).parent
NAME = PACKAGE.name
DECLARATION = PACKAGE / "layers.txt"


def _declaration(text: str) -> dict[str, set[str]]:
    allowed: dict[str, set[str]] = {}
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        source, colon, targets = line.partition(":")
        if not colon or not source.strip() or " " in source.strip():
            raise ValueError(f"layers.txt:{n}: expected 'part: parts…', got {raw!r}")
        allowed.setdefault(source.strip(), set()).update(targets.split())
    return allowed


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _exists(module: str) -> bool:
    rel = Path(*module.split("."))
    base = PACKAGE.parent / rel
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import of the package in ``path``."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                candidate = f"{target}.{alias.name}"
                found.append((node.lineno, candidate if _exists(candidate) else target))
    return [(line, name) for line, name in found
            if name == NAME or name.startswith(NAME + ".")]


def _part(module: str) -> tuple[str, str]:
    """(part, part.module) of a module name inside the package."""
    pieces = module.split(".")[1:]
    if not pieces:
        return "__init__", "__init__"
    return pieces[0], ".".join(pieces[:2])


def _violations() -> list[str]:
    allowed = _declaration(DECLARATION.read_text(encoding="utf-8"))
    out: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = _module_name(path)
        part, module = _part(source)
        if path.name == "__init__.py" and source == NAME:
            part = module = "__init__"
        permitted = allowed.get(part, set()) | allowed.get(module, set())
        if part not in allowed:
            out.append(f"{path.relative_to(PACKAGE.parent)}: part {part!r} is not declared")
            continue
        for line, target in _imports(path):
            target_part, target_module = _part(target)
            if target == NAME:
                target_part = target_module = "__init__"
            if target_part == part:
                continue
            if "*" in permitted or target_part in permitted or target_module in permitted:
                continue
            out.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {part} imports {target}, "
                       f"not declared in layers.txt")
    return out


def test_the_import_graph_follows_the_declared_layers() -> None:
    problems = _violations()
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("analyzer", ["shell", "pycode"])
def test_the_analyzers_import_no_engine_tool_or_backend(analyzer: str) -> None:
    allowed = _declaration(DECLARATION.read_text(encoding="utf-8"))
    assert analyzer in allowed
    forbidden = {"permission", "builtin", "backends", "tools", "gates", "agent", "jupyter"}
    assert not {t.split(".")[0] for t in allowed[analyzer]} & forbidden, allowed[analyzer]


@pytest.mark.parametrize("source, imported", [
    ("def f():\n    from ..permission.types import PermissionRule\n", "permission.types"),
    ("if TYPE_CHECKING:\n    from ..builtin import Bash\n", "builtin"),
    ("import jupyter_agenttools.backends.local\n", "backends.local"),
    ("from .. import permission\n", "permission"),
])
def test_a_violation_in_any_form_is_found(tmp_path, monkeypatch, source: str,
                                          imported: str) -> None:
    """The checker itself: a function-local, TYPE_CHECKING, absolute or package import from
    shell/ into the engine is reported."""
    probe = PACKAGE / "shell" / "_layer_probe.py"
    probe.write_text(source, encoding="utf-8")
    try:
        problems = [p for p in _violations() if "_layer_probe.py" in p]
    finally:
        probe.unlink()
    assert problems and imported in problems[0], problems


def test_the_declaration_is_well_formed() -> None:
    with pytest.raises(ValueError, match="layers.txt:1"):
        _declaration("shell errors\n")
    allowed = _declaration(DECLARATION.read_text(encoding="utf-8"))
    parts = {p.name if p.is_dir() else p.stem for p in PACKAGE.iterdir()
             if (p.is_dir() and (p / "__init__.py").is_file()) or p.suffix == ".py"}
    assert parts - {"__init__"} <= set(allowed) | {"__init__"}, parts - set(allowed)
