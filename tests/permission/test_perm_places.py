"""The per-decision shortcuts of the path policy give the answers of the full checks: the
protected tier's per-folder summary (siblings of one folder), a glob's matches resolved folder by
folder with the listing's entry types, one DecisionPlaces per facts object and context (a second
mode on the same facts is not answered with the first one's)."""

from __future__ import annotations

import os

import pytest

from jupyter_agenttools.permission.effects import PathEffect, check_effect, targets
from jupyter_agenttools.permission.facts import LocalFacts
from jupyter_agenttools.permission.memo import decision_scope
from jupyter_agenttools.permission.protected import DecisionPlaces, _entries_reason
from jupyter_agenttools.permission.types import (
    PermissionBehavior,
    PermissionContext,
    PermissionMode,
)


@pytest.fixture
def tree(tmp_path, monkeypatch):
    root = tmp_path.resolve()
    for d in ("home/.jupyter/agenttools", "work/proj/.agenttools", "work/proj/src",
              "work/other", "x"):
        (root / d).mkdir(parents=True)
    for f in ("work/proj/a.txt", "work/proj/b.txt", "work/proj/src/m.py"):
        (root / f).write_text("x")
    os.symlink(root / "x", root / "work/proj/to_x")
    os.symlink(root / "work/proj/missing", root / "work/proj/dangling")
    monkeypatch.setenv("AGENTTOOLS_USER_DIR", str(root / "home/.jupyter/agenttools"))
    monkeypatch.setenv("AGENTTOOLS_MANAGED_SETTINGS", str(root / "etc/managed.json"))
    return root


def _context(tree, mode="default", facts=None):
    proj = str(tree / "work/proj")
    return PermissionContext(mode=mode, cwd=proj, project_root=proj, home=str(tree / "home"),
                             working_directories=(str(tree / "work/other/deep"),),
                             facts=facts)


def _full(places: DecisionPlaces, kind: str, recursive: bool, path: str) -> str | None:
    """The tier's full check of one path (no folder summary)."""
    return _entries_reason(path, path, places.home) or \
        places._protected_in_full(kind, recursive, path)


NAMES = ["", "work", "proj", "other", "deep", ".agenttools", "home", ".jupyter", "agenttools",
         "a.txt", "src", "usr", "lib", "var", "tmp", "log", "etc", ".."]


@pytest.mark.parametrize("kind,recursive", [("write", False), ("write", True),
                                            ("delete", False), ("chmod", False)])
def test_folder_summary_answers_like_the_full_check(tree, kind, recursive):
    """Every name of many folders (the tree's, system ones, the root's children), asked in
    one decision (the summaries are made and reused) and each alone (full checks only)."""
    context = _context(tree)
    folders = [str(tree), str(tree / "work"), str(tree / "work/proj"), str(tree / "home"),
               str(tree / "home/.jupyter"), str(tree / "work/other"), "/usr", "/usr/lib",
               "/var", "/var/lib", "/etc", "/tmp", "/root"]
    paths = [f"{folder}/{name}".rstrip("/") or "/" for folder in folders for name in NAMES]
    paths += ["/" + name for name in NAMES]
    shared = DecisionPlaces(context, LocalFacts(context.cwd, context.home))
    for path in paths + paths:  # (the second round: every folder summarised)
        alone = DecisionPlaces(context, LocalFacts(context.cwd, context.home))
        assert shared._protected(kind, recursive, path, path) == \
            _full(alone, kind, recursive, path), path


def test_siblings_of_a_settings_folder_and_the_folder_holding_it(tree):
    context = _context(tree)
    places = DecisionPlaces(context, LocalFacts(context.cwd, context.home))
    proj = tree / "work/proj"
    inside = [str(proj / ".agenttools" / n) for n in ("a.json", "b", "c")]
    assert all(places._protected("write", False, p, p) for p in inside)
    # the project's other names are not protected; deleting the folder that holds the settings
    # is
    assert places._protected("delete", True, str(proj / "a.txt"), str(proj / "a.txt")) is None
    assert places._protected("delete", True, str(proj / "src"), str(proj / "src")) is None
    settings = str(proj / ".agenttools")
    assert ".agenttools" in places._protected("delete", True, settings, settings)
    assert "working directory" in places._protected("delete", True, str(tree / "work/other"),
                                                    str(tree / "work/other"))


def test_glob_matches_resolve_like_single_paths(tree):
    """A glob's matches (resolved folder by folder, entry types from the listing) are the
    paths resolve_word gives one by one: links followed or kept, kinds, existence."""
    context = _context(tree)
    for kind in ("write", "delete"):
        effect = PathEffect(kind, "*", glob=True)
        with decision_scope():
            found, complete = targets(effect, context)
        assert complete
        follow = kind != "delete"
        for target in found[1:]:
            alone = LocalFacts(context.cwd, context.home).resolve_absolute(
                target.lexical, follow, "*")
            assert (target.physical, target.lexical, target.exists, target.is_dir,
                    target.status) == (alone.physical, alone.lexical, alone.exists,
                                       alone.is_dir, alone.status)
        names = {t.lexical.rsplit("/", 1)[-1] for t in found[1:]}
        assert names == {"a.txt", "b.txt", "src", "to_x", "dangling"}
        link = next(t for t in found if t.lexical.endswith("/to_x"))
        assert link.physical == (str(tree / "x") if follow else str(tree / "work/proj/to_x"))
        assert link.is_dir


def test_listing_types_match_lstat(tree):
    facts = LocalFacts(str(tree), str(tree / "home"))
    folder = str(tree / "work/proj")
    assert facts.listdir(folder) == sorted(os.listdir(folder))
    fresh = LocalFacts(str(tree), str(tree / "home"))
    for name in os.listdir(folder):
        path = f"{folder}/{name}"
        assert (facts.readlink(path), facts.kind(path)) == (fresh.readlink(path),
                                                            fresh.kind(path)), name


def test_one_facts_object_two_modes(tree):
    """The places are per context (mode and folders), not only per facts: accept_edits on the
    same facts still allows an edit inside the project, default mode leaves it to the rules."""
    facts = LocalFacts(str(tree / "work/proj"), str(tree / "home"))
    default = _context(tree, facts=facts)
    accept = default.with_(mode=PermissionMode.ACCEPT_EDITS)
    effect = PathEffect("write", "a.txt")
    with decision_scope():
        first = check_effect(effect, default, "Edit").behavior
        second = check_effect(effect, accept, "Edit").behavior
        third = check_effect(effect, default, "Edit").behavior
    assert (first, second, third) == (PermissionBehavior.PASSTHROUGH, PermissionBehavior.ALLOW,
                                      PermissionBehavior.PASSTHROUGH)
