"""canonicalize, path_matches and inside_working_dirs, against real directories and symlinks."""

import os

import pytest

from jupyter_agenttools.permission.paths import (
    canonicalize,
    glob_reach,
    inside_working_dirs,
    lexical_path,
    path_matches,
    safe_cli_path,
)
from jupyter_agenttools.permission.types import PermissionContext


@pytest.fixture
def tree(tmp_path):
    """tmp/{home,proj/src,secret/k,other}, with symlinks proj/link → secret and
    proj/innocent.txt → secret/k, and proj/loop ↔ proj/loop2."""
    root = tmp_path.resolve()
    for d in ("home", "proj/src/sub", "secret", "other", "proj-evil"):
        (root / d).mkdir(parents=True)
    (root / "secret" / "k").write_text("key")
    (root / "proj" / "src" / "a.py").write_text("")
    os.symlink(root / "secret", root / "proj" / "link")
    os.symlink(root / "secret" / "k", root / "proj" / "innocent.txt")
    os.symlink(root / "proj" / "src", root / "other" / "into_proj")
    os.symlink(root / "proj" / "loop2", root / "proj" / "loop")
    os.symlink(root / "proj" / "loop", root / "proj" / "loop2")
    return root


@pytest.fixture
def ctx(tree):
    return PermissionContext(cwd=str(tree / "proj"), project_root=str(tree / "proj"),
                             home=str(tree / "home"))


# --- canonicalize -----------------------------------------------------------------------------

@pytest.mark.parametrize("raw,expected", [
    ("~", "home"),
    ("~/", "home"),
    ("~/notes.txt", "home/notes.txt"),
    ("a.py", "proj/a.py"),
    ("./src/../a.py", "proj/a.py"),
    ("src/./sub//x", "proj/src/sub/x"),
    ("../other/x", "other/x"),
    ("../../../../../../../../..", "/"),
    ("link/k", "secret/k"),                      # a symlinked directory
    ("link/not-yet/there.txt", "secret/not-yet/there.txt"),  # resolves the existing prefix
    ("innocent.txt", "secret/k"),                # a symlinked file
    ("link/..", "."),                            # the kernel resolves link before ".."
    ("link/../other/x", "other/x"),
    ("src/../link/../proj/a.py", "proj/a.py"),
    ("../other/into_proj/a.py", "proj/src/a.py"),
    ("src/", "proj/src"),
    ("~nosuchuser_zz9/x", "proj/~nosuchuser_zz9/x"),   # unknown ~user: a plain relative name
])
def test_canonicalize_table(tree, raw, expected):
    want = "/" if expected == "/" else str(tree) if expected == "." else str(tree / expected)
    assert canonicalize(raw, str(tree / "proj"), str(tree / "home")) == want


def test_canonicalize_absolute_and_double_slash(tree):
    cwd, home = str(tree / "proj"), str(tree / "home")
    assert canonicalize("/" + str(tree / "secret" / "k"), cwd, home) == str(tree / "secret/k")
    assert canonicalize(str(tree) + "//secret///k", cwd, home) == str(tree / "secret/k")
    assert canonicalize(str(tree / "other/../secret/k"), cwd, home) == str(tree / "secret/k")


@pytest.mark.parametrize("stream", ["/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/fd/1",
                                    "/proc/self/fd/2"])
def test_standard_streams_keep_their_name(tree, stream):
    # realpath would give the checking process's own pipe or log file
    assert canonicalize(stream, str(tree)) == stream


def test_canonicalize_symlink_loop_does_not_raise(tree):
    out = canonicalize("loop/x", str(tree / "proj"), str(tree / "home"))
    assert out.startswith(str(tree / "proj"))


def test_canonicalize_home_default_is_the_user_home(tree):
    assert canonicalize("~/x", str(tree)) == os.path.realpath(os.path.expanduser("~/x"))


def test_lexical_path_keeps_symlinks(tree):
    assert lexical_path("link/k", str(tree / "proj")) == str(tree / "proj/link/k")


@pytest.mark.parametrize("raw,message", [
    (None, "got NoneType"),
    (5, "got int"),
    (b"/etc/passwd", "got bytes"),
    (["a"], "got list"),
    ("", "empty"),
    ("a\x00b", "NUL"),
    ("/tmp/\ud800", "surrogate"),
])
def test_canonicalize_odd_input_is_a_clear_value_error(tree, raw, message):
    with pytest.raises(ValueError, match=message):
        canonicalize(raw, str(tree))


def test_canonicalize_survives_hostile_sizes(tree):
    assert canonicalize("a/" * 20_000, str(tree)).startswith(str(tree))
    assert canonicalize("x" * 10_000, str(tree)).startswith(str(tree))
    # surrogate-escaped bytes are a real (non-UTF-8) file name, not an error
    assert canonicalize("f\udcff", str(tree)) == str(tree / "f\udcff")


# --- path_matches: gitignore semantics --------------------------------------------------------

# pattern, path relative to proj, allow reading (broad=False), deny/ask reading (broad=True)
GITIGNORE = [
    ("*.py", "a.py", True, True),
    ("*.py", "src/sub/a.py", True, True),          # no slash: any depth
    ("*.py", "a.pyc", False, False),
    ("src/*.py", "src/a.py", True, True),
    ("src/*.py", "src/sub/a.py", False, False),     # * stays in its segment
    ("src/*", "src/sub/a.py", False, True),         # deny: a matched directory covers its content
    ("src/**", "src/sub/a.py", True, True),         # ** spans segments
    ("src/**", "src", True, True),
    ("src/**", "srcx/a.py", False, False),
    ("src/**/*.py", "src/a.py", True, True),        # ** may be zero segments
    ("src/**/*.py", "src/x/y/a.py", True, True),
    ("src/**/*.py", "src/x/y/a.txt", False, False),
    ("**/sub/*.py", "src/sub/a.py", True, True),
    ("src/?.py", "src/a.py", True, True),
    ("src/?.py", "src/ab.py", False, False),
    ("src/[ab].py", "src/b.py", True, True),
    ("src/[!ab].py", "src/b.py", False, False),
    ("src/[!ab].py", "src/c.py", True, True),
    ("src/", "src/sub/x", True, True),              # trailing slash: the directory and below
    ("./a.py", "a.py", True, True),                 # ./ anchors at the project root
    ("./a.py", "src/a.py", False, False),
    ("a.py", "src/a.py", True, True),
    ("src/a.py", "x/src/a.py", False, False),       # a slash inside: anchored at the root
    ("src/*.PY", "src/a.py", False, True),          # deny/ask ignore case
    ("**", "src/sub/a.py", True, True),
    ("src/**", "../other/a.py", False, False),
    ("src/**", "src/../../secret/k", False, False),  # .. is normalised before matching
]


@pytest.mark.parametrize("pattern,rel,allow,deny", GITIGNORE)
def test_gitignore_semantics(ctx, pattern, rel, allow, deny):
    assert path_matches(pattern, rel, ctx, broad=False) is allow
    assert path_matches(pattern, rel, ctx, broad=True) is deny


def test_anchors(ctx, tree):
    home = tree / "home"
    (home / "notes").mkdir()
    assert path_matches("~/notes/**", str(home / "notes/a.md"), ctx, broad=False)
    assert not path_matches("~/notes/**", str(tree / "proj/notes/a.md"), ctx, broad=False)
    # Claude Code's "/x" is relative to the project; "//abs" is absolute
    assert not path_matches(str(tree / "secret") + "/*", str(tree / "secret/k"), ctx,
                            broad=False)
    assert path_matches("/" + str(tree / "secret") + "/*", str(tree / "secret/k"), ctx,
                        broad=False)
    # deny/ask read "/x" both ways: a copied absolute deny rule still bites
    assert path_matches(str(tree / "secret") + "/*", str(tree / "secret/k"), ctx, broad=True)
    # a relative pattern is relative to the project root, not to the cwd
    sub = ctx.with_(cwd=str(tree / "proj/src"))
    assert path_matches("src/*.py", "a.py", sub, broad=False)


def test_relative_pattern_without_project_root_uses_cwd(tree):
    c = PermissionContext(cwd=str(tree / "other"), home=str(tree / "home"))
    assert path_matches("docs/*", str(tree / "other/docs/x"), c, broad=False)
    assert not path_matches("docs/*", str(tree / "proj/docs/x"), c, broad=False)


@pytest.mark.parametrize("dodge", [
    "{t}/other/../secret/k",
    "{t}/proj/../secret/./k",
    "/{t}/secret/k",                 # //abs
    "{t}//secret//k",
    "{t}/SECRET/k",                  # case-insensitive file systems
    "{t}/proj/link/k",               # a symlinked directory into /secret
    "{t}/proj/innocent.txt",         # a symlinked file into /secret
    "link/k",                        # relative, through the symlink
    "innocent.txt",
    "{t}/secret/sub/deeper/k",       # below a directory the pattern names
])
def test_deny_cannot_be_dodged(ctx, tree, dodge):
    pattern = f"{tree}/secret/*"
    assert path_matches(pattern, dodge.format(t=tree), ctx, broad=True)


def test_deny_on_a_symlink_name_still_applies(ctx, tree):
    # a deny on the link's own location also catches the path spelled through the link
    assert path_matches("link/**", "link/k", ctx, broad=True)


def test_pattern_through_a_symlink_is_resolved(ctx, tree):
    # the literal part of the pattern is canonicalised like the path
    assert path_matches(f"/{tree}/proj/link/*", str(tree / "secret/k"), ctx, broad=False)


@pytest.mark.parametrize("escape", [
    "src/../../secret/k",
    "src/../../../../../../etc/passwd",
    "{t}/proj/link/k",               # symlink out of the allowed tree
])
def test_allow_cannot_be_stretched(ctx, tree, escape):
    assert not path_matches("src/**", escape.format(t=tree), ctx, broad=False)
    assert not path_matches("**", escape.format(t=tree), ctx, broad=False)


def test_symlink_out_of_project_is_not_allowed_by_project_rule(ctx, tree):
    assert not path_matches("**", "link/k", ctx, broad=False)
    assert not path_matches("**", "innocent.txt", ctx, broad=False)
    assert path_matches("**", "src/a.py", ctx, broad=False)


@pytest.mark.parametrize("pattern", ["", "a\x00b", "src/*/../x", 5])
def test_unusable_patterns_raise_value_error(ctx, pattern):
    with pytest.raises(ValueError):
        path_matches(pattern, "a.py", ctx)


def test_default_reading_is_the_plain_glob(ctx):
    assert path_matches("src/*", "src/a.py", ctx)
    assert not path_matches("src/*", "src/sub/a.py", ctx)
    assert not path_matches("src/*.PY", "src/a.py", ctx)


def test_pattern_escapes_via_bracket_class(ctx, tree):
    (tree / "proj" / "a[1]").mkdir()
    assert path_matches("a[[]1]/**", "a[1]/x", ctx, broad=False)
    assert not path_matches("a[[]1]/**", "a1/x", ctx, broad=False)


# --- inside_working_dirs ----------------------------------------------------------------------

@pytest.mark.parametrize("rel,inside", [
    ("a.py", True),
    (".", True),
    ("src/sub/new-file", True),
    ("{t}/proj", True),
    ("{t}/proj/", True),
    ("{t}/proj-evil/x", False),        # a prefix of the name is not a parent
    ("{t}/proj-evil", False),
    ("..", False),
    ("{t}/other/x", False),
    ("{t}/extra/x", True),             # additional working directory
    ("link/k", False),                 # a symlink inside the project pointing out
    ("{t}/other/into_proj/a.py", True),  # a symlink outside pointing in
    ("src/../../secret/k", False),
    ("link/../proj-evil/x", False),    # link/.. is the parent of /secret, not the project
    ("link/../proj/a.py", True),
    ("/", False),
    ("a\x00b", False),
    (None, True),                      # Glob/Grep without path: the cwd
])
def test_inside_working_dirs(tree, rel, inside):
    (tree / "extra").mkdir()
    c = PermissionContext(cwd=str(tree / "proj"), working_directories=(str(tree / "extra"),),
                          home=str(tree / "home"))
    path = rel.format(t=tree) if isinstance(rel, str) else rel
    assert inside_working_dirs(path, c) is inside


def test_working_directory_given_through_a_symlink(tree):
    c = PermissionContext(cwd=str(tree / "other" / "into_proj"), home=str(tree / "home"))
    assert inside_working_dirs(str(tree / "proj/src/a.py"), c)
    assert not inside_working_dirs(str(tree / "proj/a.py"), c)


# --- helpers for the tools --------------------------------------------------------------------

@pytest.mark.parametrize("raw,safe", [
    ("-rf", "./-rf"),
    ("--pre=sh", "./--pre=sh"),
    ("-", "./-"),
    ("src", "src"),
    ("/abs/-x", "/abs/-x"),
    ("./-x", "./-x"),
])
def test_safe_cli_path(raw, safe):
    assert safe_cli_path(raw) == safe
    assert not safe_cli_path(raw).startswith("-")


def test_safe_cli_path_refuses_non_paths():
    with pytest.raises(ValueError):
        safe_cli_path(None)


@pytest.mark.parametrize("pattern,base,reach", [
    ("**/*.py", None, "proj"),
    ("src/**/*.py", None, "proj/src"),
    ("../*", None, "."),
    ("../../*", "src", "."),
    ("*/../../x*", "src", "proj"),
    ("{t}/secret/*", None, "secret"),
    ("link/*", None, "secret"),
    ("*", "link/..", "."),                       # the kernel's "..", not the spelling's
    ("a.py", None, "proj"),
])
def test_glob_reach(ctx, tree, pattern, base, reach):
    got = glob_reach(pattern.format(t=tree), base, ctx)
    assert got == (str(tree) if reach == "." else str(tree / reach))


def test_deny_also_reads_a_leading_slash_as_claude_code_does(ctx, tree):
    # Claude Code's "/x" is relative to the project root, for every rule
    assert path_matches("/src/*.py", "src/a.py", ctx, broad=True)
    assert path_matches("/src/*.py", "src/a.py", ctx, broad=False)
    # "//x" is only absolute
    assert not path_matches("//src/*.py", "src/a.py", ctx, broad=True)


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_SEGS = st.lists(st.sampled_from(["..", ".", "", "proj", "link", "secret", "k", "other",
                                  "into_proj", "src", "a.py", "SECRET", "innocent.txt"]),
                 min_size=1, max_size=7)


@settings(max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(segs=_SEGS, absolute=st.booleans())
def test_property_deny_follows_the_real_file_and_allow_never_leaves(ctx, tree, segs, absolute):
    path = ("/" + str(tree) + "/" if absolute else "") + "/".join(segs)
    if not path:
        return
    real = os.path.realpath(os.path.join(ctx.cwd, path))
    if real == str(tree / "secret") or real.startswith(str(tree / "secret") + "/"):
        assert path_matches(f"{tree}/secret/**", path, ctx, broad=True)
        assert path_matches(f"{tree}/secret", path, ctx, broad=True)
    if path_matches("src/**", path, ctx, broad=False):
        assert real == str(tree / "proj/src") or real.startswith(str(tree / "proj/src") + "/")
    if inside_working_dirs(path, ctx):
        assert real == str(tree / "proj") or real.startswith(str(tree / "proj") + "/")


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pattern=st.one_of(st.text(max_size=30),
                         st.lists(st.sampled_from(["*", "**", "?", "[", "]", "[!a]", "[z-a]",
                                                   "a", "..", ".", "~", "", "\\", "(", "$"]),
                                  max_size=8).map("/".join)),
       broad=st.booleans())
def test_fuzz_patterns_only_ever_raise_value_error(ctx, pattern, broad):
    try:
        path_matches(pattern, "src/a.py", ctx, broad=broad)
    except ValueError:
        pass
