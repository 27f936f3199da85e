"""Skills: loading SKILL.md folders, broken skills, subfolders, the prompt block, Skill tool."""

from __future__ import annotations

import pytest

from jupyter_agenttools.errors import SkillError
from jupyter_agenttools.tools.skills import load_skills
from jupyter_agenttools.tools.toolkit import Toolkit


def write_skill(folder, text):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    return folder


VALID = """---
name: csv-summary
description: >
  Summarise a CSV file:
  columns, types, missing values.
license: MIT
---

# CSV summary

1. Read the file with pandas.
2. Report the shape.
"""


def test_valid_skill(tmp_path):
    folder = write_skill(tmp_path / "csv", VALID)
    [skill] = load_skills(folder)
    assert skill.name == "csv-summary"
    assert skill.description == "Summarise a CSV file: columns, types, missing values."
    assert skill.path == folder.resolve()
    assert skill.body.startswith("# CSV summary") and skill.body.endswith("Report the shape.")
    assert load_skills(folder / "SKILL.md") == [skill]  # the file itself works too


BROKEN = [
    ("no front matter", "# Just markdown\n", "front matter"),
    ("unclosed", "---\nname: a\ndescription: b\n", "not closed"),
    ("missing name", "---\ndescription: b\n---\nbody", "'name' is required"),
    ("missing description", "---\nname: a\n---\nbody", "'description' is required"),
    ("empty description", "---\nname: a\ndescription: '  '\n---\nbody", "'description'"),
    ("name not a string", "---\nname: [1, 2]\ndescription: b\n---\nbody", "'name'"),
    ("bad yaml", "---\nname: a: b: c\ndescription: [\n---\nbody", "invalid YAML"),
    ("a list, not a mapping", "---\n- a\n- b\n---\nbody", "mapping"),
    ("empty file", "", "empty"),
]


@pytest.mark.parametrize("label,text,error", BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_skill_is_reported_with_its_path(tmp_path, label, text, error):
    folder = write_skill(tmp_path / "bad", text)
    with pytest.raises(SkillError, match=error) as info:
        load_skills(folder)
    assert str(folder / "SKILL.md") in str(info.value)


def test_subfolders(tmp_path):
    write_skill(tmp_path, "---\nname: root\ndescription: the root skill\n---\nroot body")
    write_skill(tmp_path / "b" / "deep", "---\nname: deep\ndescription: nested\n---\ndeep")
    write_skill(tmp_path / "a", "---\nname: alpha\ndescription: first\n---\nalpha")
    write_skill(tmp_path / ".hidden", "---\nname: hidden\ndescription: no\n---\nx")
    (tmp_path / "c").mkdir()  # a folder without a skill is fine
    assert [s.name for s in load_skills(tmp_path)] == ["root"]
    assert [s.name for s in load_skills(tmp_path, scan_subfolders=True)] == [
        "root", "alpha", "deep"]


def test_a_broken_subfolder_skill_fails_the_scan(tmp_path):
    write_skill(tmp_path / "good", "---\nname: good\ndescription: fine\n---\nok")
    write_skill(tmp_path / "bad", "---\nname: bad\n---\nno description")
    with pytest.raises(SkillError, match=r"bad/SKILL.md"):
        load_skills(tmp_path, scan_subfolders=True)


def test_duplicate_names(tmp_path):
    write_skill(tmp_path / "a", "---\nname: same\ndescription: one\n---\n")
    write_skill(tmp_path / "b", "---\nname: same\ndescription: two\n---\n")
    with pytest.raises(SkillError, match="duplicate skill name 'same'"):
        load_skills(tmp_path, scan_subfolders=True)
    tk = Toolkit(skills=[tmp_path / "a"])
    with pytest.raises(SkillError, match="already loaded"):
        tk.add_skill(tmp_path / "b")


@pytest.mark.parametrize("scan,error", [(False, "scan_subfolders=True"), (True, "subfolders")])
def test_folder_without_skills(tmp_path, scan, error):
    with pytest.raises(SkillError, match=error):
        load_skills(tmp_path, scan_subfolders=scan)
    with pytest.raises(SkillError, match="no such skill folder"):
        load_skills(tmp_path / "missing")


def test_system_prompt_block_lists_names_descriptions_folders_never_bodies(tmp_path):
    csv = write_skill(tmp_path / "csv", VALID)
    other = write_skill(tmp_path / "other", "---\nname: other\ndescription: x\n---\nSECRET BODY")
    tk = Toolkit()
    assert tk.system_prompt_block() == ""
    tk.add_skill(tmp_path, scan_subfolders=True)
    block = tk.system_prompt_block()
    assert "Skills are not tools; read one with the Skill tool" in block
    assert "- csv-summary: Summarise a CSV file: columns, types, missing values." in block
    assert str(csv.resolve()) in block and str(other.resolve()) in block
    assert "SECRET BODY" not in block and "Read the file with pandas" not in block
    assert [s["name"] for s in tk.schemas()] == ["Skill"]
    tk.remove_skill("other")
    tk.remove_skill("csv-summary")
    assert tk.schemas() == [] and tk.system_prompt_block() == ""
