"""Skills: folders holding a ``SKILL.md`` with YAML front matter (``name``, ``description``).

Only names, descriptions and folders reach the system prompt; the model reads a body through
the ``Skill`` tool (tools/meta.py). A skill that cannot be loaded raises SkillError naming the
file: it is never skipped silently, because a skill that quietly disappears is worse than one
that fails loudly at setup.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import SkillError

__all__ = ["Skill", "load_skill", "load_skills", "SKILL_FILE"]

SKILL_FILE = "SKILL.md"


@dataclass(frozen=True)
class Skill:
    """A loaded skill; ``path`` is its folder, ``body`` the markdown after the front matter."""

    name: str
    description: str
    path: Path
    body: str

    @property
    def file(self) -> Path:
        return self.path / SKILL_FILE


def load_skill(skill_file: str | os.PathLike[str]) -> Skill:
    """Parse one SKILL.md; SkillError (with the file path) if it is unreadable or incomplete."""
    path = Path(skill_file)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SkillError(f"{path}: cannot read the skill file: {exc}") from None
    text = text.lstrip("\ufeff")
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise SkillError(f"{path}: expected YAML front matter starting with '---' on the first "
                         f"line (with name: and description:), got {lines[0][:40]!r}"
                         if lines else f"{path}: the file is empty; expected YAML front matter")
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        raise SkillError(f"{path}: the front matter is not closed by a '---' line")
    import yaml

    try:
        meta = yaml.safe_load("".join(lines[1:end]))
    except yaml.YAMLError as exc:
        raise SkillError(f"{path}: invalid YAML front matter: {exc}") from None
    if not isinstance(meta, dict):
        raise SkillError(f"{path}: expected the front matter to be a mapping with name: and "
                         f"description:, got {type(meta).__name__}")
    for key in ("name", "description"):
        value = meta.get(key)
        if not isinstance(value, str) or not value.strip():
            raise SkillError(f"{path}: front matter field {key!r} is required and must be a "
                             f"non-empty string, got {value!r}")
    body = "".join(lines[end + 1:]).strip("\n")
    return Skill(meta["name"].strip(), " ".join(meta["description"].split()),
                 path.parent.resolve(), body)


def load_skills(path: str | os.PathLike[str], scan_subfolders: bool = False) -> list[Skill]:
    """The skills under ``path``: its own SKILL.md and, with ``scan_subfolders``, every
    SKILL.md below it (sorted by folder). ``path`` may also name a SKILL.md directly."""
    root = Path(path).expanduser()
    if root.is_file():
        return [load_skill(root)]
    if not root.is_dir():
        raise SkillError(f"{root}: no such skill folder")
    files: list[Path] = []
    if (root / SKILL_FILE).is_file():
        files.append(root / SKILL_FILE)
    if scan_subfolders:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            if Path(dirpath) != root and SKILL_FILE in filenames:
                files.append(Path(dirpath) / SKILL_FILE)
    if not files:
        where = "in it or its subfolders" if scan_subfolders else (
            "in it (pass scan_subfolders=True to look below it)")
        raise SkillError(f"{root}: no {SKILL_FILE} {where}")
    skills = [load_skill(f) for f in files]
    seen: dict[str, Path] = {}
    for skill in skills:
        if skill.name in seen:
            raise SkillError(f"{skill.file}: duplicate skill name {skill.name!r} "
                             f"(also in {seen[skill.name] / SKILL_FILE})")
        seen[skill.name] = skill.path
    return skills
