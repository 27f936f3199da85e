"""Files that run code later, where no one reviews them: a safety ASK in every mode that asks,
bypass included (``modes.py``, ``code_later``; the table is ``sensitive.py``'s ``later``
entries), through Write, Edit, NotebookEdit and Bash writes alike. Ordinary project files
(``Makefile``, ``conftest.py``, ``setup.py``, a project's own ``bin/`` scripts) stay ordinary
edits, and removing an environment (``rm -rf .venv``) plants no code.

Ladders: default / accept_edits / explore / bypass / dont_ask; ``!`` marks bypass_immune.
"""

from __future__ import annotations

import os

import pytest

from jupyter_agenttools.permission.check import check

MODES = ("default", "accept_edits", "explore", "bypass", "dont_ask")
CODE_LATER = "ask! ask! deny ask! deny!"
ORDINARY = "ask allow deny allow deny"  # an in-project edit

# every path is relative to the project unless it starts with ~
RUNS_CODE_LATER = [
    ".venv/lib/python3.11/site-packages/x.pth",            # `import` lines run at start
    ".venv/lib/python3.11/site-packages/sitecustomize.py",
    ".venv/lib/python3.11/site-packages/usercustomize.py",
    ".venv/bin/activate",                                  # sourced into the user's shell
    "venv/bin/activate.fish",
    "env/bin/activate",                                    # any name: the bin/activate
    ".venv/bin/python",
    ".venv/bin/python3.11",
    ".venv/bin/pip",
    ".venv/bin/jupyter",                                   # any program of the environment
    ".venv/pyvenv.cfg",                                    # names the interpreter
    "conda-env/etc/conda/activate.d/env.sh",
    "node_modules/.bin/jest",                              # npm scripts run these
    ".idea/workspace.xml",                                 # JetBrains run configurations
    ".idea/runConfigurations/tests.xml",
    ".vscode/extensions.json",                             # all of .vscode, not 3 names
    "project.code-workspace",
    ".envrc",                                              # direnv runs it on cd
    ".git/hooks/pre-commit",
    ".git/config",
    "~/.ipython/profile_default/startup/00-x.py",
    "~/.ipython/profile_work/ipython_kernel_config.py",
    "~/.ipython/extensions/evil.py",
    "ipython-dir/profile_default/ipython_config.json",     # wherever IPYTHONDIR points
    "~/.jupyter/jupyter_server_config.py",
    "~/.jupyter/jupyter_notebook_config.json",
    "~/.jupyter/custom/custom.js",
    "jupyter_server_config.py",                            # project-level config
    ".jupyter/jupyter_lab_config.py",                      # JUPYTER_CONFIG_DIR=.jupyter
    ".venv/etc/jupyter/jupyter_server_config.d/ext.json",
    ".venv/etc/jupyter/nbconfig/notebook.json",
    ".venv/share/jupyter/kernels/python3/kernel.json",    # argv runs
    "~/.local/share/jupyter/kernels/py/kernel.json",
    ".venv/share/jupyter/labextensions/x/package.json",
    "~/.pythonrc.py",
    "~/.bashrc",
]

ORDINARY_FILES = [
    "Makefile", "conftest.py", "setup.py", "noxfile.py", "src/pkg/__init__.py",
    "bin/run.sh", "scripts/activate_user.py", "docs/python.md", "tests/test_jupyter.py",
    "src/pth/notes.txt", "kernel.json",  # a kernel.json outside a kernels/ folder runs nothing
]


@pytest.fixture()
def project(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "a.txt").write_text("a")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AGENTTOOLS_USER_DIR", str(tmp_path / "user"))
    monkeypatch.setenv("AGENTTOOLS_MANAGED_SETTINGS", str(tmp_path / "managed.json"))
    monkeypatch.chdir(proj)
    return proj


def ladder(tool, tool_input, cwd, rules=None) -> str:
    out = []
    for mode in MODES:
        d = check(tool, tool_input, mode=mode, rules=rules, cwd=str(cwd))
        out.append(d.behavior.value + ("!" if d.bypass_immune else ""))
        if d.behavior.value == "ask" and d.bypass_immune:
            assert not d.suggestions, d.suggestions  # "Always allow" is never offered
    return " ".join(out)


@pytest.mark.parametrize("path", RUNS_CODE_LATER)
def test_write_of_a_file_that_runs_code_later(project, path):
    assert ladder("Write", {"file_path": path, "content": "import os\n"}, project) == CODE_LATER


@pytest.mark.parametrize("path", RUNS_CODE_LATER)
def test_edit_of_a_file_that_runs_code_later(project, path):
    target = os.path.expanduser(path) if path.startswith("~") else str(project / path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w") as f:
        f.write("a = 1\n")
    tool_input = {"file_path": path, "old_string": "a = 1", "new_string": "import os"}
    assert ladder("Edit", tool_input, project) == CODE_LATER


@pytest.mark.parametrize("command", [
    "echo 'import os' > .venv/lib/python3.11/site-packages/a.pth",
    "cp a.txt .venv/bin/activate",
    "echo x | tee .venv/lib/python3.11/site-packages/sitecustomize.py",
    "echo x > node_modules/.bin/jest",
    "echo '<x/>' > .idea/workspace.xml",
    "cp a.txt .venv/bin/python",
    "mv a.txt ~/.ipython/profile_default/startup/00.py",
    "chmod +x .venv/bin/pip",                   # making it executable plants it too
    "echo x >> .envrc",
    "cp a.txt .venv/share/jupyter/kernels/py/kernel.json",
])
def test_bash_write_of_a_file_that_runs_code_later(project, command):
    assert ladder("Bash", {"command": command}, project) == CODE_LATER


@pytest.mark.parametrize("path", [".ipython/profile_default/startup/x.ipynb",
                                  ".idea/scratch.ipynb"])
def test_notebook_edit_of_a_file_that_runs_code_later(project, path):
    tool_input = {"notebook_path": path, "new_source": "import os", "edit_mode": "insert"}
    assert ladder("NotebookEdit", tool_input, project) == CODE_LATER


def test_allow_rules_do_not_silence_it(project):
    rules = {"allow": ["Edit(**)", "Write", "Bash(cp:*)"]}
    assert ladder("Write", {"file_path": ".venv/bin/activate", "content": "x"}, project,
                  rules) == CODE_LATER
    assert ladder("Bash", {"command": "cp a.txt .venv/bin/activate"}, project,
                  rules) == CODE_LATER


@pytest.mark.parametrize("path", ORDINARY_FILES)
def test_ordinary_project_files_stay_ordinary_edits(project, path):
    assert ladder("Write", {"file_path": path, "content": "x"}, project) == ORDINARY


@pytest.mark.parametrize("command", ["rm -rf .venv", "rm -rf node_modules", "rm -rf .idea",
                                     "rm .venv/bin/activate"])
def test_removing_plants_no_code_bypass_allows_it(project, command):
    d = check("Bash", {"command": command}, mode="bypass", cwd=str(project))
    assert d.behavior.value == "allow", d.reason


# System-wide files that run code later (an agent running as root, as in many containers): the
# generic "/etc/**, /usr/** system configuration" entries came first in the table and hid these
# (and the Jupyter/.pth entries under /etc and /usr) from the bypass question.
OUTSIDE = "ask! ask! deny ask! deny!"  # outside the project: accept_edits asks too
SYSTEM_CODE_LATER = [
    "/etc/profile", "/etc/profile.d/proxy.sh", "/etc/bash.bashrc", "/etc/zsh/zshrc",
    "/etc/environment", "/etc/ld.so.preload", "/etc/ld.so.conf.d/x.conf", "/etc/crontab",
    "/etc/cron.d/job", "/etc/cron.daily/job", "/etc/systemd/system/x.service",
    "/etc/init.d/x", "/etc/rc.local", "/etc/sudoers", "/etc/sudoers.d/agent",
    "/usr/local/bin/ls", "/usr/bin/git", "/bin/sh", "/usr/lib/x86_64-linux-gnu/libc.so.6",
    "/usr/lib/python3/dist-packages/x.pth", "/usr/local/lib/python3.11/site-packages/x.pth",
    "/etc/jupyter/jupyter_server_config.py",
    "/usr/local/etc/jupyter/jupyter_server_config.d/x.json",
    "/usr/share/jupyter/kernels/python3/kernel.json",
    "/usr/local/share/jupyter/labextensions/x/package.json",
]
SYSTEM_DATA = ["/etc/hosts", "/usr/share/doc/x.txt", "/etc/motd"]  # sensitive, no code


@pytest.mark.parametrize("path", SYSTEM_CODE_LATER)
def test_a_system_file_that_runs_code_later(project, path):
    assert ladder("Write", {"file_path": path, "content": "x"}, project) == OUTSIDE
    assert ladder("Bash", {"command": f"echo x >> {path}"}, project) == OUTSIDE


@pytest.mark.parametrize("path", SYSTEM_DATA)
def test_other_system_files_stay_writes_bypass_allows(project, path):
    d = check("Write", {"file_path": path, "content": "x"}, mode="bypass", cwd=str(project))
    assert d.behavior.value == "allow", d.reason
    d = check("Write", {"file_path": path, "content": "x"}, mode="default", cwd=str(project))
    assert d.behavior.value == "ask" and d.bypass_immune, d.reason
