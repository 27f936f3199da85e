"""Glob and Grep: patterns, .gitignore, ordering, caps with notices, ripgrep and its Python
fallback giving the same answers, and no argument becoming an option."""

from __future__ import annotations

import os
import shutil

import pytest
import pytest_asyncio
from builtin_helpers import run_tool, schema_errors

from jupyter_agenttools.backends.jupyter_kernel import JupyterKernelBackend
from jupyter_agenttools.backends.local import LocalBackend
from jupyter_agenttools.builtin import Glob, Grep
from jupyter_agenttools.builtin._files import glob_regex, split_glob
from jupyter_agenttools.tools.base import ToolResultState

pytestmark = pytest.mark.asyncio(loop_scope="module")

HAS_RG = shutil.which("rg") is not None


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def kernel_backend():
    backend = await JupyterKernelBackend.start("python3")
    yield backend
    await backend.close()


@pytest_asyncio.fixture(loop_scope="module", params=["local", "jupyter_kernel"])
async def backend(request, kernel_backend, tmp_path):
    return LocalBackend(str(tmp_path)) if request.param == "local" else kernel_backend


@pytest.fixture
def tree(tmp_path):
    """A small repository: sources, an ignored build folder, a .git folder, a nested ignore."""
    files = {
        "README.md": "# needle in the readme\n",
        "src/app.py": "import os\nNEEDLE = 1\nprint(NEEDLE)\n",
        "src/util.py": "def helper():\n    return 'needle'\n",
        "src/web/page.ts": "const needle = 2;\n",
        "src/web/page.tsx": "export const x = 3;\n",
        "build/out.py": "needle = 'generated'\n",
        "logs/run.log": "needle in a log\n",
        "docs/.gitignore": "draft.md\n",
        "docs/draft.md": "needle draft\n",
        "docs/final.md": "final text\n",
        ".git/config": "needle in git internals\n",
        ".gitignore": "build/\n*.log\n",
    }
    for i, (rel, text) in enumerate(sorted(files.items())):
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        os.utime(p, ns=(10**18 + i * 10**9, 10**18 + i * 10**9))  # later name, newer file
    return tmp_path


def rel(text: str, root) -> list[str]:
    return [line.replace(f"{root}/", "") for line in text.splitlines()]


# --- Glob -----------------------------------------------------------------------------------


async def test_glob_double_star_newest_first_gitignore_aware(backend, tree):
    _, r = await run_tool(Glob(backend), pattern="**/*.py", path=str(tree))
    assert rel(r.text, tree) == ["src/util.py", "src/app.py"]  # build/ is ignored
    assert r.metadata["count"] == 2


@pytest.mark.parametrize("pattern,expected", [
    ("*.md", ["README.md"]),  # `*` stays at the top level
    ("**/*.md", ["docs/final.md", "README.md"]),  # docs/draft.md: ignored by docs/.gitignore
    ("src/**/*.{ts,tsx}", ["src/web/page.tsx", "src/web/page.ts"]),
    ("src/*/page.t?", ["src/web/page.ts"]),
    ("src/[au]*.py", ["src/util.py", "src/app.py"]),
    ("**/config", []),  # .git is never searched
    ("src/app.py", ["src/app.py"]),  # a literal path
])
async def test_glob_patterns(backend, tree, pattern, expected):
    _, r = await run_tool(Glob(backend), pattern=pattern, path=str(tree))
    if expected:
        assert rel(r.text, tree) == expected
    else:
        assert r.text.startswith("No files found matching")


async def test_glob_absolute_and_parent_patterns(backend, tree):
    _, r = await run_tool(Glob(backend), pattern=f"{tree}/src/*.py", path="/")
    assert rel(r.text, tree) == ["src/util.py", "src/app.py"]
    _, r = await run_tool(Glob(backend), pattern="../src/*.py", path=str(tree / "docs"))
    assert rel(r.text, tree) == ["src/util.py", "src/app.py"]
    _, r = await run_tool(Glob(backend), pattern="src/**/../x", path=str(tree))
    assert r.state is ToolResultState.ERROR and "'..' after a wildcard" in r.text


async def test_glob_respects_the_enclosing_repository_gitignore(backend, tree):
    # Searching a subfolder still honours the repository's top-level .gitignore.
    (tree / "build" / "deep").mkdir()
    (tree / "build" / "deep" / "x.py").write_text("")
    _, r = await run_tool(Glob(backend), pattern="**/*.py", path=str(tree / "build"))
    assert r.text.startswith("No files found")


async def test_glob_cap_with_notice(tmp_path):
    for i in range(12):
        (tmp_path / f"f{i:02d}.txt").write_text("")
    _, r = await run_tool(Glob(LocalBackend(str(tmp_path)), max_results=5), pattern="*.txt")
    lines = r.text.split("\n\n")[0].splitlines()
    assert len(lines) == 5
    assert "[Showing the 5 newest of 12 matching files" in r.text and r.metadata["truncated"]


async def test_glob_defaults_to_the_backend_cwd_and_checks_the_path(tmp_path):
    (tmp_path / "a.txt").write_text("")
    _, r = await run_tool(Glob(LocalBackend(str(tmp_path))), pattern="*.txt")
    assert r.text == str(tmp_path / "a.txt")
    _, r = await run_tool(Glob(LocalBackend(str(tmp_path))), pattern="*", path="a.txt")
    assert r.state is ToolResultState.ERROR and "Directory not found" in r.text


@pytest.mark.parametrize("pattern,path,yes,no", [
    ("**/*.py", "a.py", True, False),
    ("**/*.py", "x/y/a.py", True, False),
    ("*.py", "x/a.py", False, True),
    ("a/**", "a/b/c", True, False),
    ("[!a]*", "b", True, False),
    ("[!a]*", "a", False, True),
])
async def test_glob_regex_table(pattern, path, yes, no):
    assert bool(glob_regex(pattern).match(path)) is yes and (not yes) is no


async def test_split_glob_moves_literal_prefix_into_the_folder():
    assert split_glob("src/**/*.py", "/r") == ("/r/src", "**/*.py")
    assert split_glob("/etc/*.conf", "/r") == ("/etc", "*.conf")
    assert split_glob("../x/*.py", "/r/a") == ("/r/x", "*.py")


# --- Grep -----------------------------------------------------------------------------------

ENGINES = [pytest.param(True, marks=pytest.mark.skipif(not HAS_RG, reason="rg not installed"),
                        id="ripgrep"), pytest.param(False, id="python")]


@pytest.fixture(params=ENGINES)
def engine(request):
    return request.param


async def test_grep_files_with_matches_default(backend, tree, engine):
    _, r = await run_tool(Grep(backend, use_ripgrep=engine), pattern="needle", path=str(tree))
    # case-sensitive; build/, *.log, docs/draft.md (nested .gitignore) and .git are skipped
    assert rel(r.text, tree) == ["README.md", "src/util.py", "src/web/page.ts"]


async def test_grep_content_mode_with_line_numbers_and_ignore_case(backend, tree, engine):
    _, r = await run_tool(Grep(backend, use_ripgrep=engine), pattern="needle", path=str(tree),
                          output_mode="content", **{"-i": True, "glob": "*.py"})
    assert rel(r.text, tree) == ["src/app.py:2:NEEDLE = 1", "src/app.py:3:print(NEEDLE)",
                                 "src/util.py:2:    return 'needle'"]


async def test_grep_count_mode(backend, tree, engine):
    _, r = await run_tool(Grep(backend, use_ripgrep=engine), pattern="NEEDLE",
                          path=str(tree / "src"), output_mode="count")
    assert rel(r.text, tree) == ["src/app.py:2"]


async def test_grep_context_lines(backend, tree, engine):
    _, r = await run_tool(Grep(backend, use_ripgrep=engine), pattern="NEEDLE = 1",
                          path=str(tree / "src" / "app.py"), output_mode="content",
                          **{"-C": 1})
    assert rel(r.text, tree) == ["src/app.py-1-import os", "src/app.py:2:NEEDLE = 1",
                                 "src/app.py-3-print(NEEDLE)"]


async def test_grep_head_limit_notice(tmp_path, engine):
    (tmp_path / "many.txt").write_text("".join(f"hit {i}\n" for i in range(40)))
    _, r = await run_tool(Grep(LocalBackend(str(tmp_path)), use_ripgrep=engine), pattern="hit",
                          output_mode="content", head_limit=10)
    body, notice = r.text.split("\n\n")
    assert len(body.splitlines()) == 10
    assert notice.startswith("[Showing 10 of 40 result lines")


async def test_grep_no_match_and_bad_regex(tmp_path, engine):
    (tmp_path / "a.txt").write_text("text\n")
    grep = Grep(LocalBackend(str(tmp_path)), use_ripgrep=engine)
    _, r = await run_tool(grep, pattern="absent")
    assert r.text.startswith("No matches for 'absent'") and not r.is_error
    _, r = await run_tool(grep, pattern="(unclosed")
    assert r.state is ToolResultState.ERROR and "Search failed" in r.text


async def test_grep_skips_binary_files(tmp_path, engine):
    (tmp_path / "bin.dat").write_bytes(b"\x00\x01needle\x00")
    (tmp_path / "t.txt").write_text("needle\n")
    _, r = await run_tool(Grep(LocalBackend(str(tmp_path)), use_ripgrep=engine), pattern="needle")
    assert rel(r.text, tmp_path) == ["t.txt"]


async def test_grep_arguments_never_become_options(tmp_path, engine):
    # A pattern and a path that look like options are searched for / in, never obeyed.
    marker = tmp_path / "pwned"
    (tmp_path / "--pre=touch").mkdir()
    (tmp_path / "--pre=touch" / "f.txt").write_text("--files\n")
    grep = Grep(LocalBackend(str(tmp_path)), use_ripgrep=engine)
    _, r = await run_tool(grep, pattern="--files", path="--pre=touch", output_mode="content")
    assert rel(r.text, tmp_path) == ["--pre=touch/f.txt:1:--files"]
    _, r = await run_tool(grep, pattern="-e", path=f"--pre={marker}")
    assert r.state is ToolResultState.ERROR and "does not exist" in r.text
    assert not marker.exists()


async def test_grep_engines_agree(tree):
    if not HAS_RG:
        pytest.skip("rg not installed")
    backend = LocalBackend(str(tree))
    for kwargs in ({}, {"output_mode": "content", "-C": 1}, {"output_mode": "count", "-i": True},
                   {"output_mode": "content", "-n": False, "glob": "src/**/*.ts"}):
        _, a = await run_tool(Grep(backend, use_ripgrep=True), pattern="needle|NEEDLE", **kwargs)
        _, b = await run_tool(Grep(backend, use_ripgrep=False), pattern="needle|NEEDLE", **kwargs)
        assert a.text == b.text, kwargs


async def test_grep_schema():
    grep = Grep(LocalBackend())
    assert schema_errors(grep, {"pattern": "x", "output_mode": "lines"})
    assert schema_errors(grep, {"pattern": ""})
    assert schema_errors(grep, {"pattern": "x", "-A": -1})
    assert not schema_errors(grep, {"pattern": "x", "-i": True, "-C": 2, "head_limit": 0})


async def test_grep_over_a_folder_never_prints_secret_files(tmp_path, engine):
    """A folder search skips .env, keys and credentials (naming one as the path is a Read
    permission question instead); ordinary files are still searched. (.env templates may be
    skipped too: ripgrep's exclude globs cannot re-include them without whitelisting.)"""
    files = {".env": "API_KEY=needle-secret\n", ".env.local": "needle-local\n",
             "deploy/id_rsa": "needle-key\n", "certs/server.pem": "needle-pem\n",
             ".env.example": "API_KEY=needle-template\n", "app.py": "needle = 1\n",
             "glob_target.env": "x\n"}
    for rel_path, text in files.items():
        (tmp_path / rel_path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel_path).write_text(text)
    grep = Grep(LocalBackend(str(tmp_path)), use_ripgrep=engine)
    _, r = await run_tool(grep, pattern="needle", output_mode="content")
    assert "secret" not in r.text and "needle-local" not in r.text
    assert "needle-key" not in r.text and "needle-pem" not in r.text
    assert "app.py:1:needle = 1" in r.text
    # the caller's own glob cannot pull a secret back in
    _, r = await run_tool(grep, pattern="needle", output_mode="content", glob=".env*")
    assert "secret" not in r.text and "needle-local" not in r.text
