"""`git config` writes: a key known to hold data (``shell/programs/git_config.py``,
``DATA_KEYS``) set in the repository's config is an ordinary change of the repository (bypass
allows it); every other key, a key the analysis cannot read, an unknown option, ``--edit``,
and any write of ``~/.gitconfig`` / ``/etc/gitconfig`` stay a write of a file that runs code
later: a safety ASK in bypass too. Reads stay read-only.

Ladders: default / accept_edits / bypass / dont_ask; ``!`` marks bypass_immune.
"""

from __future__ import annotations

import subprocess

import pytest

from jupyter_agenttools.permission.check import check
from jupyter_agenttools.shell.programs.git import git
from jupyter_agenttools.shell.programs.git_config import DATA_KEYS, data_key_reason
from jupyter_agenttools.shell.words import literal

MODES = ("default", "accept_edits", "bypass", "dont_ask")
DATA = "ask ask allow deny"            # a change of the repository, like `git commit`
CODE_LATER = "ask! ask! ask! deny!"    # a write of a file that runs code later
READ = "allow allow allow allow"

DATA_WRITES = [
    "git config user.name 'Ada Lovelace'",
    "git config user.email ada@example.com",
    "git config --local user.name x",
    "git config --add user.email a@b.c",
    "git config --replace-all user.email a@b.c",
    "git config --unset user.name",
    "git config --unset-all user.email",
    "git config set user.name x",
    "git config unset user.name",
    "git config --bool pull.rebase true",
    "git config --type=bool rebase.autoStash true",
    "git config -t bool merge.ff false",
    "git config user.signingkey ABCDEF12",
    "git config init.defaultBranch main",
    "git config color.ui auto",
    "git config color.diff.meta 'blue bold'",
    "git config advice.detachedHead false",
    "git config push.default simple",
    "git config branch.main.remote origin",
    "git config branch.feature/x.y.merge refs/heads/feature/x.y",   # dots in the branch name
    "git config remote.origin.url https://example.com/r.git",
    "git config remote.origin.url git@example.com:r.git",
    "git config remote.origin.fetch '+refs/heads/*:refs/remotes/origin/*'",
    "git config USER.NAME x",                          # section and variable ignore case
    "git -C sub config user.name x",
    "git config log.date iso",
    "git config status.short true",
    "git config diff.algorithm histogram",
    "git remote add o https://example.com/r.git",       # remote.o.url and .fetch
    "git remote set-url o git@example.com:r.git",
    "git branch --set-upstream-to=origin/main",         # branch.<name>.remote and .merge
]

CODE_WRITES = [
    "git config core.pager less",
    "git config core.fsmonitor ./x.sh",
    "git config core.hooksPath hooks",
    "git config core.sshCommand 'ssh -i k'",
    "git config core.editor vim",
    "git config core.askPass ./p",
    "git config alias.st '!sh -c x'",
    "git config credential.helper store",
    "git config include.path ../x",
    "git config includeIf.gitdir:~/.path ../x",
    "git config filter.lfs.clean 'sh x'",
    "git config diff.pdf.textconv ./conv",
    "git config diff.external ./d",
    "git config merge.ours.driver ./m",
    "git config gpg.program ./g",
    "git config sequence.editor ./e",
    "git config uploadpack.packObjectsHook ./h",
    "git config url.https://evil/.insteadOf https://github.com/",
    "git config remote.origin.uploadpack ./u",
    "git config remote.origin.receivepack ./u",
    "git config remote.origin.vcs x",                   # runs git-remote-x
    "git config remote.origin.url 'ext::sh -c x'",      # a transport helper
    "git config remote.origin.url 'x::y'",
    "git config protocol.ext.allow always",
    "git config http.proxy http://p",
    "git config help.autocorrect immediate",            # runs a guessed command
    "git config format.pretty '%G?'",                   # %G runs gpg
    "git config log.showSignature true",                # runs gpg
    "git config init.templateDir ./t",
    "git config commit.gpgSign true",
    "git config diff.color.textconv y",                 # a driver named color
    "git config --unset core.fsmonitor",
    "git config $KEY value",                            # decided at run time
    "git config 'user.*' x",                            # git refuses it; not read here
    "git config user.name$X x",
    "git config --frobnicate user.name x",              # an option not known here
    "git config --glo user.name x",                     # an abbreviation: not resolved
    "git config -e",                                    # opens the editor on the file
    "git config --edit",
    "git config --rename-section user core",
    "git config --global user.name x",                  # ~/.gitconfig: any key
    "git config --global core.pager x",
    "git config --system user.name x",                  # /etc/gitconfig
    "git config --system core.pager x",
    "git config set user.name x --global",              # an option after an operand
    "git config --file .git/config user.name x",
    "git remote add o 'ext::sh -c x'",                   # remote.o.url: a transport helper
    "git remote set-url o 'x::y'",
    "git remote add o $URL",
]

READS = [
    "git config --get user.name",
    "git config user.name",
    "git config get user.name",
    "git config --get-all user.email",
]


@pytest.fixture()
def repo(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "sub").mkdir()
    subprocess.run(["git", "init", "-q", str(proj)], check=False, capture_output=True)
    (proj / ".git").mkdir(exist_ok=True)
    (proj / ".git" / "config").touch()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AGENTTOOLS_USER_DIR", str(tmp_path / "user"))
    monkeypatch.setenv("AGENTTOOLS_MANAGED_SETTINGS", str(tmp_path / "managed.json"))
    monkeypatch.chdir(proj)
    return proj


def ladder(command: str, cwd) -> str:
    out = []
    for mode in MODES:
        d = check("Bash", {"command": command}, mode=mode, cwd=str(cwd))
        out.append(d.behavior.value + ("!" if d.bypass_immune else ""))
    return " ".join(out)


@pytest.mark.parametrize("command", DATA_WRITES)
def test_a_data_key_is_an_ordinary_change(repo, command):
    assert ladder(command, repo) == DATA


@pytest.mark.parametrize("command", CODE_WRITES)
def test_any_other_key_runs_code_later(repo, command):
    assert ladder(command, repo) == CODE_LATER


@pytest.mark.parametrize("command", READS)
def test_reads_stay_read_only(repo, command):
    assert ladder(command, repo) == READ


def test_a_value_that_is_the_text_of_an_option_is_a_write(repo):
    # git stops at the first operand: this sets user.name to "--global" (a data key)
    assert ladder("git config user.name --global", repo) == DATA
    assert ladder("git config core.pager --global", repo) == CODE_LATER


def test_file_names_the_file_written(repo):
    # an ordinary project file, whatever the key: it runs nothing until included (include.*
    # is not a data key) or named by git -c / GIT_CONFIG (not allowed either)
    assert ladder("git config --file team.gitconfig user.name x", repo) == "ask ask allow deny"
    assert ladder("git config -f ~/.gitconfig user.name x", repo) == CODE_LATER


def test_the_analysis_reports_no_path_and_names_the_key():
    effects = git([literal(w) for w in ("git", "config", "user.name", "x")])
    assert not effects.read_only and not effects.paths[1:], effects
    assert "user.name" in effects.reason
    effects = git([literal(w) for w in ("git", "config", "core.pager", "x")])
    assert [(a.kind, a.word.value) for a in effects.writes()] == [("write", ".git/config")]


@pytest.mark.parametrize("key", ["core.pager", "alias.x", "remote.o.vcs", "x", ".name",
                                 "user.", "user.na me", "user.\nname", "9.name"])
def test_not_data_keys(key):
    assert data_key_reason(key, "v") is None


def test_every_entry_has_a_reason():
    assert all(reason.strip() for reason in DATA_KEYS.values())
    assert all(key == tuple(part.lower() for part in key) for key in DATA_KEYS)
