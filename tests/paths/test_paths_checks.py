"""The file tools' checks: check_read, check_write, the read-only fast path, rule matching and
suggestions, over the ladder of modes."""

import os

import pytest

from jupyter_agenttools.permission.paths import (
    check_read,
    check_write,
    match_path_rule,
    path_matches,
    read_is_fast_path_safe,
    suggest_path_rules,
)
from jupyter_agenttools.permission.types import (
    PermissionBehavior,
    PermissionContext,
    PermissionMode,
    PermissionRule,
)

ALLOW, ASK, PASS = PermissionBehavior.ALLOW, PermissionBehavior.ASK, PermissionBehavior.PASSTHROUGH
MODES = list(PermissionMode)


@pytest.fixture
def tree(tmp_path):
    root = tmp_path.resolve()
    for d in ("home/.ssh", "home/.aws", "home/notes", "proj/src", "proj/.git/hooks", "outside/d",
              "proj-evil"):
        (root / d).mkdir(parents=True)
    (root / "home/.ssh/id_rsa").write_text("KEY")
    (root / "proj/src/a.py").write_text("")
    (root / "proj/.env").write_text("TOKEN=x")
    os.symlink(root / "home/.ssh/id_rsa", root / "proj/notes.txt")    # innocent name, a key
    os.symlink(root / "home/.ssh", root / "proj/keys")                # a directory of keys
    os.symlink(root / "outside", root / "proj/out")                   # leaves the project
    os.symlink(root / "home/.bashrc", root / "proj/rc")               # a profile, not yet there
    return root


def context(tree, mode=PermissionMode.DEFAULT):
    return PermissionContext(mode=mode, cwd=str(tree / "proj"), project_root=str(tree / "proj"),
                             home=str(tree / "home"))


# path (relative to proj, or {t}/…), read verdict, read is a safety ASK
READS = [
    ("src/a.py", ALLOW, False),
    ("src/new.py", ALLOW, False),
    (".", ALLOW, False),
    (None, ALLOW, False),                       # Glob/Grep without a path: the cwd
    (".env", ASK, True),
    ("{t}/home/.ssh/id_rsa", ASK, True),
    ("~/.ssh/id_rsa", ASK, True),
    ("notes.txt", ASK, True),                   # a symlink to a key
    ("keys/id_rsa", ASK, True),
    ("keys", ASK, True),                        # the key directory itself (grep -r)
    ("~/.ssh/known_hosts", ASK, True),          # a secret: no allow rule silences it
    ("~/.aws/credentials", ASK, True),
    ("{t}/outside/d/x.txt", ASK, False),
    ("out/d/x.txt", ASK, False),                # a symlink out of the project
    ("{t}/proj-evil/x", ASK, False),
    ("../proj-evil/x", ASK, False),
    ("~/notes/todo.md", ASK, False),
    ("src/../../outside/x", ASK, False),
    ("keys/../notes/todo.md", ASK, False),      # keys → ~/.ssh, so keys/.. is the home
    ("a\x00b", ASK, False),                     # bad input: asks, never allows, never raises
    (5, ASK, False),
    ("\ud800", ASK, False),
]


def _p(tree, rel):
    return rel.format(t=tree) if isinstance(rel, str) else rel


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rel,behavior,safety", READS)
def test_check_read(tree, mode, rel, behavior, safety):
    d = check_read(_p(tree, rel), context(tree, mode))
    assert d.behavior is behavior, d.reason
    assert d.bypass_immune is safety
    assert d.reason
    if d.behavior is ALLOW:
        assert read_is_fast_path_safe(_p(tree, rel), context(tree, mode))


@pytest.mark.parametrize("rel,behavior,safety", READS)
def test_fast_path_only_for_plain_reads_inside(tree, rel, behavior, safety):
    assert read_is_fast_path_safe(_p(tree, rel), context(tree)) is (behavior is ALLOW)


def test_outside_read_asks_with_a_narrow_suggestion(tree):
    d = check_read(str(tree / "outside/d/x.txt"), context(tree), "Read")
    assert [r.text for r in d.suggestions] == [f"Read(/{tree}/outside/d/**)"]
    assert not d.bypass_immune


def test_secret_reads_get_no_suggestion(tree):
    assert check_read(".env", context(tree)).suggestions == []
    assert check_read("~/.ssh/known_hosts", context(tree)).suggestions == []


def test_read_reason_shows_where_a_symlink_goes(tree):
    d = check_read("notes.txt", context(tree))
    assert "notes.txt" in d.reason and "id_rsa" in d.reason


# path, what check_write says: "protected" (DENY in every mode), "safety" (a safety ASK in
# every mode: sensitive, or outside the working directories), "inside" (accept_edits: ALLOW;
# otherwise PASSTHROUGH, the rules and the fallback decide)
WRITES = [
    ("src/a.py", "inside"),
    ("src/new/deep/file.py", "inside"),
    ("{t}/outside/d/x.txt", "outside"),
    ("out/d/x.txt", "outside"),                 # through a symlink: outside
    ("../proj-evil/x", "outside"),
    ("keys/../notes/new.md", "outside"),        # the kernel's "..": outside, not proj/notes
    (".env", "sensitive"),
    (".env.production", "sensitive"),
    (".git/hooks/pre-commit", "sensitive"),
    (".git/config", "sensitive"),
    (".agenttools/settings.json", "protected"),       # its own permissions
    (".agenttools/settings.local.json", "protected"),
    (".agenttools/audit.jsonl", "protected"),
    ("rc", "sensitive"),                        # a symlink to ~/.bashrc
    ("notes.txt", "sensitive"),                 # a symlink to a key
    ("~/.bashrc", "sensitive"),
    ("~/.zshrc", "sensitive"),
    ("~/.ssh/authorized_keys", "sensitive"),
    ("~/.gitconfig", "sensitive"),
    ("~/.ipython/profile_default/startup/00.py", "sensitive"),
    ("/etc/cron.d/x", "sensitive"),
    ("/dev/sda", "protected"),
    ("/dev/null", "harmless"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rel,expected", WRITES)
def test_check_write_ladder(tree, mode, rel, expected):
    d = check_write(_p(tree, rel), context(tree, mode))
    if expected == "protected":
        assert d.behavior is PermissionBehavior.DENY and "protected" in d.reason, d.reason
    elif expected == "sensitive":
        assert d.behavior is ASK and d.bypass_immune, d.reason
        assert "sensitive" in d.reason
    elif expected == "outside":
        assert d.behavior is ASK and d.bypass_immune, d.reason
        assert "outside the working directories" in d.reason
    elif expected == "harmless":
        assert d.behavior is ALLOW, d.reason
    elif mode is PermissionMode.ACCEPT_EDITS:
        assert d.behavior is ALLOW, d.reason
    else:  # default/explore/bypass/dont_ask inside: the engine's rules and fallback decide
        assert d.behavior is PASS, d.reason
        assert not d.bypass_immune


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("bad", [None, "", 5, "a\x00b", "\ud800", ["x"]])
def test_check_write_bad_path_asks(tree, mode, bad):
    d = check_write(bad, context(tree, mode))
    assert d.behavior is ASK and d.reason


# --- rules ------------------------------------------------------------------------------------

def rule(text, behavior="allow"):
    return PermissionRule.parse(text, behavior)


@pytest.mark.parametrize("text,rel,allow_matches,deny_matches", [
    ("Read", "anything", True, True),
    ("Read(src/**)", "src/a.py", True, True),
    ("Read(src/*)", "src/x/a.py", False, True),
    ("Read(src/**)", "src/../../outside/x", False, False),
    ("Read(src/**)", "out/d/x", False, False),
    ("Read(/{t}/outside/**)", "out/d/x", True, True),  # //abs
    ("Read({t}/outside/**)", "out/d/x", False, True),    # /x is the project's (deny: both)
    # the pattern is canonicalised like the path: out/ resolves to outside/ for both
    ("Read(out/**)", "out/d/x", True, True),
    ("Read(out/**)", "{t}/outside/d/x", True, True),
    ("Read(/{t}/OUTSIDE/**)", "{t}/outside/x", False, True),
    ("Read(*.py)", "src/a.py", True, True),
    ("Read(src/**)", "a\x00b", False, True),            # unusable path: deny side matches
])
def test_match_path_rule(tree, text, rel, allow_matches, deny_matches):
    ctx = context(tree)
    text = text.format(t=tree)
    path = _p(tree, rel)
    assert match_path_rule(rule(text, "allow"), path, ctx) is allow_matches
    assert match_path_rule(rule(text, "deny"), path, ctx) is deny_matches
    assert match_path_rule(rule(text, "ask"), path, ctx) is deny_matches


def test_broken_pattern_matches_nothing(tree):
    r = PermissionRule("Read", "src/*/../x", PermissionBehavior.DENY)
    assert match_path_rule(r, "src/a.py", context(tree)) is False


# --- suggestions ------------------------------------------------------------------------------

OVER_BROAD = {"**", "/**", "~/**", "/", "~", "./**", "*", "/*"}


@pytest.mark.parametrize("tool", ["Read", "Write", "Edit", "Glob", "Grep"])
@pytest.mark.parametrize("rel", [
    "{t}/outside/d/x.txt", "{t}/outside/x.txt", "{t}/x.txt", "/x", "/etc/hostname", "/tmp/x",
    "~/x.txt", "~/notes/todo.md", "~", "/", "src/a.py", "a.py", ".", "{t}", "{t}/outside",
    "out/d/x.txt",
])
def test_suggestions_are_never_over_broad_and_match(tree, tool, rel):
    ctx = context(tree)
    path = _p(tree, rel)
    home = str(tree / "home")
    for r in suggest_path_rules(tool, path, ctx):
        assert r.tool == tool and r.behavior is ALLOW
        spec = r.specifier
        assert spec not in OVER_BROAD
        assert spec.rstrip("/*") not in ("", home, "~", str(tree), os.path.dirname(home))
        assert spec.rstrip("/*").count("/") >= 1 or not spec.startswith("/")
        # the suggestion covers the call it was made for …
        assert match_path_rule(r, path, ctx), (spec, path)
        # … and not the home directory or the root
        assert not match_path_rule(r, home + "/unrelated", ctx)
        assert not match_path_rule(r, "/unrelated", ctx)


@pytest.mark.parametrize("tool,rel,expected", [
    ("Read", "{t}/outside/d/x.txt", "Read(/{t}/outside/d/**)"),
    ("Edit", "src/a.py", "Edit(src/**)"),
    ("Write", "a.py", "Write(./a.py)"),             # at the project root: the file only
    ("Read", "{t}/x.txt", "Read(/{t}/x.txt)"),       # the directory holds the home: the file only
    ("Read", "~/x.txt", "Read(/{t}/home/x.txt)"),
    ("Read", "/x", "Read(//x)"),
    ("Grep", "{t}/outside/d", "Grep(/{t}/outside/d/**)"),
])
def test_suggestion_shapes(tree, tool, rel, expected):
    rules = suggest_path_rules(tool, _p(tree, rel), context(tree))
    assert [r.text for r in rules] == [expected.format(t=tree)]


@pytest.mark.parametrize("tool", ["Read", "Edit", "Write", "Grep"])
@pytest.mark.parametrize("rel", [".env", "~/.ssh/id_rsa", "~/.bashrc", ".git/config",
                                 "notes.txt", "keys", ".agenttools/settings.json", "a\x00b", 3])
def test_no_suggestion_for_sensitive_or_bad_paths(tree, tool, rel):
    assert suggest_path_rules(tool, _p(tree, rel), context(tree)) == []


def test_suggestion_escapes_glob_characters(tree):
    (tree / "outside" / "we[ir]d*").mkdir()
    path = str(tree / "outside" / "we[ir]d*" / "f.txt")
    (r,) = suggest_path_rules("Read", path, context(tree))
    assert match_path_rule(r, path, context(tree))
    assert not path_matches(r.specifier, str(tree / "outside" / "wid" / "f.txt"),
                            context(tree), broad=False)


def test_without_project_root_suggestions_are_absolute(tree):
    c = PermissionContext(cwd=str(tree / "proj"), home=str(tree / "home"))
    assert [r.text for r in suggest_path_rules("Edit", "src/a.py", c)] == \
        [f"Edit(/{tree}/proj/src/**)"]


def test_double_star_covers_the_root_itself(tree):
    assert match_path_rule(rule("Grep(**)"), None, context(tree))
    assert match_path_rule(rule("Grep(**)"), "src", context(tree))
    assert not match_path_rule(rule("Grep(**)"), "..", context(tree))


def test_a_file_in_the_cwd_is_suggested_alone(tree):
    c = PermissionContext(cwd=str(tree / "proj"), home=str(tree / "home"))
    assert [r.text for r in suggest_path_rules("Edit", "a.py", c)] == [f"Edit(/{tree}/proj/a.py)"]


# --- fuzz: odd input never raises, never allows something unsafe ------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_SEGMENT = st.sampled_from(["..", ".", "", "~", "-rf", ".env", ".ssh", "id_rsa", "src", "a.py",
                            "link", "*", "**", "[x", "\x00", "\ud800", "ß", " ", "\n"])
_PATHS = st.one_of(
    st.text(max_size=40),
    st.lists(_SEGMENT, max_size=8).map("/".join),
    st.lists(_SEGMENT, max_size=8).map(lambda s: "/" + "/".join(s)),
    st.none(), st.integers(), st.binary(max_size=8),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(path=_PATHS, mode=st.sampled_from(MODES))
def test_fuzz_checks_never_raise_and_never_allow_the_unsafe(tree, path, mode):
    c = context(tree, mode)
    d = check_read(path, c)
    if d.behavior is ALLOW:
        assert read_is_fast_path_safe(path, c)
        assert not (isinstance(path, str) and (path == "~" or path.startswith("~/")))
        canonical = os.path.realpath(os.path.join(c.cwd, path)) if path else c.cwd
        assert canonical == str(tree / "proj") or canonical.startswith(str(tree / "proj") + "/")
    w = check_write(path, c)
    assert w.behavior in (ALLOW, ASK, PASS)
    if w.behavior is ALLOW:
        assert mode is PermissionMode.ACCEPT_EDITS
    for tool in ("Read", "Edit", "Grep"):
        for r in suggest_path_rules(tool, path, c):
            assert r.specifier not in OVER_BROAD
            assert match_path_rule(r, path, c)
    for text in ("Read(src/**)", "Read(**)", "Read(~/.ssh/*)"):
        match_path_rule(rule(text, "deny"), path, c)
        match_path_rule(rule(text, "allow"), path, c)
