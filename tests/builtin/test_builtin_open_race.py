"""The file a tool opens is the file its check resolved, also when a symbolic link is swapped in
*after* the tool compared its path with the decision (``hold_to_check``) and before it opens
the file: the open itself is verified (``backends/checked_files.py``).

Deterministic: the swap is made by the test at that exact point — inside the backend's
``stat``, which the tools call after ``hold_to_check`` and before they open — never by timing.
Each attack has its twin (no swap) that keeps working, and a refused write leaves no
half-written or temporary file behind.
"""

from __future__ import annotations

import os

import pytest

from jupyter_agenttools.backends import checked_files
from jupyter_agenttools.backends.local import LocalBackend
from jupyter_agenttools.builtin import Edit, Read, Write
from jupyter_agenttools.errors import PathChangedError, ToolExecutionError


@pytest.fixture()
def tree(tmp_path):
    project, outside = tmp_path / "project", tmp_path / "outside"
    (project / "sub").mkdir(parents=True)
    outside.mkdir()
    (project / "notes.txt").write_text("plain\n")
    (project / "sub" / "notes.txt").write_text("plain\n")
    (outside / "notes.txt").write_text("secret\n")
    (outside / ".bashrc").write_text("# the user's\n")
    return project, outside


def swap_file(project, outside):
    """notes.txt becomes a link to the outside .bashrc."""
    os.unlink(project / "notes.txt")
    os.symlink(outside / ".bashrc", project / "notes.txt")


def swap_folder(project, outside):
    """sub/ becomes a link to the outside folder (which has its own notes.txt)."""
    os.rename(project / "sub", project / "sub.moved")
    os.symlink(outside, project / "sub")


class SwappingBackend(LocalBackend):
    """Swaps a link in at the tool's ``stat``: after its check, before its open."""

    def __init__(self, cwd, swap):
        super().__init__(str(cwd))
        self.swap = swap

    async def stat(self, path):
        found = await super().stat(path)
        if self.swap is not None:
            swap, self.swap = self.swap, None
            swap()
        return found


def leftovers(*folders):
    return [name for folder in folders for name in os.listdir(folder)
            if name.startswith(".agt-")]


CALLS = [
    (Read, {"file_path": "notes.txt"}, "notes.txt"),
    (Read, {"file_path": "sub/notes.txt"}, "sub/notes.txt"),
    (Write, {"file_path": "notes.txt", "content": "echo pwned\n"}, "notes.txt"),
    (Write, {"file_path": "sub/notes.txt", "content": "echo pwned\n"}, "sub/notes.txt"),
    (Write, {"file_path": "sub/new.txt", "content": "echo pwned\n"}, "sub/new.txt"),
    (Edit, {"file_path": "notes.txt", "old_string": "plain", "new_string": "echo pwned"},
     "notes.txt"),
    (Edit, {"file_path": "sub/notes.txt", "old_string": "plain", "new_string": "echo pwned"},
     "sub/notes.txt"),
]


async def _read_first(backend, project, word):
    if os.path.exists(project / word):
        await Read(backend).call(file_path=word)  # the read-before-write rule


@pytest.mark.parametrize("swapped", [True, False], ids=["swapped", "twin"])
@pytest.mark.parametrize("tool,tool_input,word", CALLS,
                         ids=[f"{c[0].__name__}:{c[2]}" for c in CALLS])
async def test_a_link_swapped_after_the_check_is_not_followed(tree, tool, tool_input, word,
                                                               swapped):
    project, outside = tree
    swap = swap_folder if word.startswith("sub/") else swap_file
    backend = SwappingBackend(project, None)
    await _read_first(backend, project, word)
    backend.swap = (lambda: swap(project, outside)) if swapped else None
    before = {p: p.read_text() for p in outside.iterdir()}
    if not swapped:
        result = await tool(backend).call(**tool_input)
        assert "pwned" not in (outside / "notes.txt").read_text()
        if tool is Read:
            assert "plain" in str(result)
        else:
            assert "pwned" in (project / word).read_text()
        return
    with pytest.raises(PathChangedError) as refused:
        await tool(backend).call(**tool_input)
    assert isinstance(refused.value, ToolExecutionError)  # reported to the model as an error
    assert "symbolic link" in str(refused.value)
    assert {p: p.read_text() for p in outside.iterdir()} == before  # nothing written there
    assert not leftovers(project, outside, *(p for p in project.iterdir() if p.is_dir()))


def test_a_final_link_is_refused_by_the_open_itself(tree):
    project, outside = tree
    checked = str(project / "notes.txt")
    swap_file(project, outside)
    with pytest.raises(PathChangedError):
        checked_files.read_checked(checked)
    with pytest.raises(PathChangedError):
        checked_files.write_checked(checked, [b"echo pwned\n"])
    assert (outside / ".bashrc").read_text() == "# the user's\n"
    assert os.path.islink(project / "notes.txt")  # the link was neither followed nor replaced


def test_a_swapped_parent_folder_is_refused_after_the_open(tree):
    project, outside = tree
    checked = str(project / "sub" / "notes.txt")
    swap_folder(project, outside)
    with pytest.raises(PathChangedError) as refused:
        checked_files.read_checked(checked)
    assert str(outside) in str(refused.value)  # says where it would have gone
    with pytest.raises(PathChangedError):
        checked_files.write_checked(checked, [b"echo pwned\n"])
    assert (outside / "notes.txt").read_text() == "secret\n"
    assert not leftovers(outside, project / "sub.moved")


def test_without_a_name_for_the_descriptor_the_identity_decides(tree, monkeypatch):
    # a system without /proc/self/fd or F_GETPATH: device and inode, and a link-free path
    monkeypatch.setattr(checked_files, "opened_path", lambda fd: None)
    project, outside = tree
    assert checked_files.read_checked(str(project / "notes.txt")) == b"plain\n"
    checked = str(project / "sub" / "notes.txt")
    swap_folder(project, outside)
    with pytest.raises(PathChangedError):
        checked_files.read_checked(checked)
    with pytest.raises(PathChangedError):
        checked_files.write_checked(checked, [b"x"])


def test_a_write_is_atomic_and_keeps_the_permissions(tree):
    project, _ = tree
    target = project / "notes.txt"
    os.chmod(target, 0o640)
    checked_files.write_checked(str(target), [b"new ", b"content\n"])
    assert target.read_bytes() == b"new content\n"
    assert (os.stat(target).st_mode & 0o777) == 0o640
    checked_files.write_checked(str(project / "a" / "b" / "c.txt"), [b"x"])  # parents made
    assert (project / "a" / "b" / "c.txt").read_bytes() == b"x"

    class Boom(Exception):
        pass

    def parts():
        yield b"half"
        raise Boom

    with pytest.raises(Boom):
        checked_files.write_checked(str(target), parts())
    assert target.read_bytes() == b"new content\n"  # no half-written file
    assert not leftovers(project)
    with pytest.raises(IsADirectoryError):
        checked_files.write_checked(str(project / "sub"), [b"x"])


# --- NotebookRead, NotebookEdit and Glob are held to the checked path too ----------------------

def _notebook(path):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell("x = 1", id="c1"))
    nbformat.write(nb, str(path))


class SwappingHost:
    """A notebook host whose live-document lookup (after the tool's hold, before its file I/O)
    swaps a link in."""

    def __new__(cls, swap):
        from jupyter_agenttools.builtin.notebook.host import NotebookHost

        class Host(NotebookHost):
            async def live_read(self, path):
                self.fire()
                return None

            async def live_edit(self, path, request):
                self.fire()
                return None

            def fire(self):
                if self.swap is not None:
                    swap, self.swap = self.swap, None
                    swap()

        host = Host()
        host.swap = swap
        return host


@pytest.fixture()
def notebooks(tree, monkeypatch):
    project, outside = tree
    _notebook(project / "nb.ipynb")
    _notebook(outside / "other.ipynb")
    monkeypatch.chdir(project)
    return project, outside


def swap_notebook(project, outside):
    os.unlink(project / "nb.ipynb")
    os.symlink(outside / "other.ipynb", project / "nb.ipynb")


async def _decided(tool, tool_input, project, mode="bypass"):
    from jupyter_agenttools.permission.check import prepare
    from jupyter_agenttools.permission.effects import checked_scope

    engine, _ = prepare(tool, mode=mode, cwd=project)
    decision = engine.decide(tool, tool_input)
    return decision, checked_scope


@pytest.mark.parametrize("when", ["before the hold", "after the hold", "twin"])
@pytest.mark.parametrize("which", ["NotebookRead", "NotebookEdit"])
async def test_notebook_tools_act_on_the_checked_file(notebooks, which, when):
    from jupyter_agenttools.builtin.notebook.edit import NotebookEdit
    from jupyter_agenttools.builtin.notebook.host import NotebookState
    from jupyter_agenttools.builtin.notebook.read import NotebookRead

    project, outside = notebooks
    state = NotebookState()
    host = SwappingHost(None)
    await NotebookRead(host, state).call(notebook_path="nb.ipynb")  # edits need a read first
    tool = NotebookRead(host, state) if which == "NotebookRead" else NotebookEdit(host, state)
    tool_input = {"notebook_path": "nb.ipynb"} if which == "NotebookRead" else \
        {"notebook_path": "nb.ipynb", "new_source": "import os", "cell_id": "c1"}
    decision, scope = await _decided(tool, tool_input, project)
    assert decision.behavior.value == "allow"
    before = (outside / "other.ipynb").read_text()
    if when == "before the hold":  # swapped while the question was open: hold_to_check
        swap_notebook(project, outside)
    elif when == "after the hold":  # swapped after the hold: the verified open
        host.swap = lambda: swap_notebook(project, outside)
    with scope(decision):
        if when == "twin":
            result = await tool.call(**tool_input)
            assert "x = 1" in str(result) or "import os" in (project / "nb.ipynb").read_text()
            return
        with pytest.raises(ToolExecutionError) as refused:
            await tool.call(**tool_input)
    assert "symbolic link" in str(refused.value)
    assert (outside / "other.ipynb").read_text() == before
    assert not leftovers(project, outside)


@pytest.mark.parametrize("swapped", [True, False], ids=["swapped", "twin"])
async def test_glob_is_held_to_the_checked_folder(notebooks, swapped):
    from jupyter_agenttools.builtin import Glob

    project, outside = notebooks
    tool = Glob(LocalBackend(str(project)))
    tool_input = {"pattern": "sub/*.txt"}
    decision, scope = await _decided(tool, tool_input, project, mode="default")
    assert decision.behavior.value == "allow"
    if swapped:
        swap_folder(project, outside)
    with scope(decision):
        if not swapped:
            assert "notes.txt" in str(await tool.call(**tool_input))
            return
        with pytest.raises(ToolExecutionError) as refused:
            await tool.call(**tool_input)
    assert "symbolic link changed" in str(refused.value)
