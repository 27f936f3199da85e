"""Red-team round 5: classes found attacking the Bash decision with modes and allow rules.

Each table pairs attacks (never ALLOWed) with harmless twins (still ALLOWed), so a fix that
simply asks more is caught as well as one that misses a spelling.
"""

from __future__ import annotations

import os

import pytest

import jupyter_agenttools
from jupyter_agenttools.builtin.bash.tool import Bash
from jupyter_agenttools.permission.types import PermissionBehavior, PermissionContext

ALLOW, DENY = PermissionBehavior.ALLOW, PermissionBehavior.DENY


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    d = tmp_path_factory.mktemp("round5")
    for name in ("a", "f", "x.txt", "README.md"):
        (d / name).write_text("x\n")
    (d / "build").mkdir()
    os.symlink("/etc", d / "etclink")
    return str(d)


def decide(command: str, workdir: str, mode: str = "default", **kw):
    return jupyter_agenttools.check("Bash", {"command": command}, mode=mode, cwd=workdir, **kw)


# --- `~1`, `~+2`, `~-0`: entries of the directory stack, decided at run time ---------------
# (`pushd /; rm -rf ~1/etc` was an in-project edit to accept_edits: `~1` read as a directory
# named "~1" in the working directory)

DIR_STACK_ATTACKS = [
    "pushd /etc; pushd {cwd}; touch ~1/x",
    "pushd / ; cd {cwd}; rm -rf ~1/etc",
    "touch ~1", "rm -rf ~0/x", "mkdir ~2", "cp a ~1/b", "mv a ~1", "touch ~+1/x",
    "touch ~-0/x",
]
DIR_STACK_TWINS = ["touch ./~1", 'touch "~1"', "touch '~1/x'", "touch \\~1", "touch x~1",
                   "mkdir build/~2"]


@pytest.mark.parametrize("command", DIR_STACK_ATTACKS)
def test_accept_edits_never_allows_a_directory_stack_tilde(command, workdir):
    d = decide(command.format(cwd=workdir), workdir, mode="accept_edits")
    assert d.behavior != ALLOW, f"{command!r}: {d.reason}"


@pytest.mark.parametrize("command", DIR_STACK_TWINS)
def test_accept_edits_allows_a_quoted_or_inner_tilde(command, workdir):
    assert decide(command, workdir, mode="accept_edits").behavior == ALLOW


# --- a write whose target is decided at run time is a safety ASK whatever the rules --------
# (SPEC §9: `Bash(git status)` approved `git status > "$TMPDIR/x"`, `Bash(touch:*)` approved
# `touch {x,/etc/y}`: writes that may land outside the working directories)

RULES = {"allow": ["Bash(git status)", "Bash(npm test)", "Bash(touch:*)", "Bash(mkdir:*)",
                   "Bash(cp:*)", "Bash(tee:*)", "Bash(rm:*)", "Bash(cat:*)"]}
RUN_TIME_WRITES = [
    'git status > "$TMPDIR/x"', "git status > $X", "git status 2>$X", "git status > ${X}",
    "git status > ~-/x", "git status > ~1/x", "git status >& $X",
    "npm test > ${LOG:-/etc/motd}", "npm test > $(mktemp)", "git status | tee $OUT",
    "touch {x,/etc/y}", "touch {a,$X}", "mkdir -p {a,b}/c", "cp a $DEST", 'cp a "$HOME/$X"',
    "for f in /etc/*; do rm \"$f\"; done", "while read l; do rm \"$l\"; done < f",
    "cat a > `echo x`",
]
RUN_TIME_TWINS = [
    "git status > x.txt", "git status 2>&1", "git status > /dev/null", "npm test > build/log",
    "git status | tee out.txt", "touch file{1..3}.txt", "mkdir -p build/{a,b}",
    "cp f{,.bak}", "touch x{a,b}", "git status | tee >(cat)",
    "git status > ~+/x",  # `~+` is $PWD: the directory the command is in
]


@pytest.mark.parametrize("command", RUN_TIME_WRITES)
def test_allow_rules_never_approve_a_write_decided_at_run_time(command, workdir):
    d = decide(command, workdir, rules=RULES)
    assert d.behavior != ALLOW, f"{command!r}: {d.reason}"
    # (a protected target the words may name is a DENY: `for f in /etc/*; do rm "$f"; done`)
    assert d.reason.startswith("Safety check") or d.behavior == DENY, d.reason


@pytest.mark.parametrize("command", RUN_TIME_TWINS)
def test_allow_rules_approve_writes_known_to_stay_inside(command, workdir):
    d = decide(command, workdir, rules=RULES)
    assert d.behavior == ALLOW, f"{command!r}: {d.reason}"


# --- the library, start-up file or directory a dangerous assignment names ------------------

ASSIGNED = [
    ("export LD_PRELOAD=/tmp/x.so; ls", "/tmp/x.so"),
    ("LD_PRELOAD=/tmp/x.so ls", "/tmp/x.so"),
    ("declare -x LD_PRELOAD=/tmp/a.so; ls", "/tmp/a.so"),
    ("BASH_ENV=./evil.sh bash -c ls", "./evil.sh"),
    ("LD_LIBRARY_PATH=/opt/a:/tmp/b ls", "/tmp/b"),
    ("PYTHONSTARTUP=x.py python -i", "x.py"),
]


@pytest.mark.parametrize("command, path", ASSIGNED)
def test_a_dangerous_assignment_names_what_it_loads(command, path, workdir):
    effects = Bash().path_effects({"command": command}, PermissionContext(cwd=workdir))
    assert ("read", path) in [(e.kind, e.path) for e in effects]


@pytest.mark.parametrize("command", ["LANG=C ls", "TZ=UTC date", "export A=1; ls",
                                     "NODE_OPTIONS=--max-old-space-size=4096 node -v"])
def test_a_harmless_or_option_valued_assignment_names_no_path(command, workdir):
    effects = Bash().path_effects({"command": command}, PermissionContext(cwd=workdir))
    assert effects == ()


def test_a_key_in_an_assignment_is_a_safety_ask(workdir):
    d = decide("BASH_ENV=~/.ssh/id_rsa bash -c ls", workdir)
    assert d.behavior != ALLOW and d.reason.startswith("Safety check"), d.reason
    assert "id_rsa" in d.reason


def test_a_write_through_proc_self_names_the_path_as_written(workdir):
    # the reason used to name /proc/self or /proc/<pid> depending on a set's order
    d = decide("ls >/proc/self/fd/1x", workdir)
    assert d.behavior != ALLOW
    assert "/proc/self/fd/1x" in d.reason and f"/proc/{os.getpid()}" not in d.reason


# --- `$PWD` and `~+` name the directory the command is in (after its `cd`s) -----------------
# (bypass allowed `cd / && rm -rf $PWD`: the protected tier did not see through `$PWD`)

PWD_PROTECTED = [
    "cd / && rm -rf $PWD", 'cd /; rm -rf "$PWD"', "cd /; rm -rf ${PWD}", "cd / && rm -rf ~+",
    "cd /etc && rm -rf ~+", "cd /etc; rm -rf $PWD/passwd", "cd ~; rm -rf $PWD",
    "cd; rm -rf ~+", "cd /; chmod -R 777 $PWD", "rm -rf ~+/..", 'rm -rf "$PWD"/..',
    "cd ..; rm -rf ~+", "chmod -R 000 ~+/..",
]
PWD_RUN_TIME = [
    # PWD named otherwise than by expanding it: `$PWD` is then decided at run time
    "PWD=/etc; touch $PWD/x", "read PWD; touch $PWD/x", "unset PWD; touch $PWD/x",
    "touch ${PWD:-/etc}/x", "touch $PWD$X", "cd /tmp; touch ~+/x",
]


@pytest.mark.parametrize("command", PWD_PROTECTED)
def test_bypass_denies_destroying_a_protected_directory_named_by_pwd(command, workdir):
    d = decide(command, workdir, mode="bypass")
    assert d.behavior == DENY, f"{command!r}: {d.reason}"


@pytest.mark.parametrize("command", PWD_RUN_TIME)
def test_accept_edits_never_allows_pwd_it_cannot_follow(command, workdir):
    d = decide(command, workdir, mode="accept_edits")
    assert d.behavior != ALLOW, f"{command!r}: {d.reason}"


@pytest.mark.parametrize("command", ["rm -rf $PWD/build", "cd build && rm -rf ~+/x",
                                     "rm -rf ~+/build"])
def test_bypass_allows_removing_inside_the_working_directory_by_pwd(command, workdir):
    assert decide(command, workdir, mode="bypass").behavior == ALLOW


@pytest.mark.parametrize("command", ["touch ~+/x", "mkdir -p ~+/build/y", "ls ~+"])
def test_accept_edits_follows_the_working_directory_spelled_by_tilde_plus(command, workdir):
    assert decide(command, workdir, mode="accept_edits").behavior == ALLOW


# --- where `cd`, `pushd` and `rmdir -p` really go -------------------------------------------
# (accept_edits allowed `cd -P etclink/.. && touch x`, which writes /x: -P resolves the link
# before `..`; `cd -Pe` was not read as an option at all; `CDPATH=/etc cd x`, `HOME=/etc cd`
# and `pushd +1` go elsewhere; `rmdir -p /abs/proj/build` also removes the project's parents)

CD_ATTACKS = [
    "cd -P etclink/.. && touch x", "cd -Pe etclink/.. && touch x", "cd -eP etclink/.. && touch x",
    "cd -LP etclink/.. && touch x", "cd -P -- etclink/.. && touch x", "cd -x build && touch x",
    "CDPATH=/etc cd x && touch y", "HOME=/etc cd && touch x", "pushd +1 && touch x",
    "pushd -1 && touch x", "pushd -0 && touch x", "pushd && touch x",
    "rmdir -p {cwd}/build", "rmdir --parents {cwd}/build", "rmdir -vp {cwd}/build",
    "rmdir --par {cwd}/build", "rmdir -p ~+/build", "cd build && rmdir -p ~+",
]
CD_TWINS = [
    "cd -P build && touch x", "cd -L etclink/.. && touch x", "cd etclink/.. && touch x",
    "pushd build && touch x", "pushd -- build && touch x", "LANG=C cd build && touch x",
    "rmdir -p build/a/b", "rmdir {cwd}/build", "rmdir --parents build/a",
]


@pytest.mark.parametrize("command", CD_ATTACKS)
def test_accept_edits_follows_cd_pushd_and_rmdir_parents(command, workdir):
    d = decide(command.format(cwd=workdir), workdir, mode="accept_edits")
    assert d.behavior != ALLOW, f"{command!r}: {d.reason}"


@pytest.mark.parametrize("command", CD_TWINS)
def test_accept_edits_allows_cd_and_rmdir_inside(command, workdir):
    d = decide(command.format(cwd=workdir), workdir, mode="accept_edits")
    assert d.behavior == ALLOW, f"{command!r}: {d.reason}"


# --- git in an embedded bare repository -------------------------------------------------------
# (accept_edits let the agent write sub/HEAD, sub/config [core] fsmonitor=…, mkdir sub/objects
# sub/refs as plain project files; `git -C sub status` was then read-only and ran fsmonitor)

@pytest.fixture(scope="module")
def project_with_bare_repo(tmp_path_factory):
    d = tmp_path_factory.mktemp("bare_project")
    sub = d / "sub"
    (sub / "objects").mkdir(parents=True)
    (sub / "refs").mkdir()
    (sub / "wt").mkdir()
    (sub / "HEAD").write_text("ref: refs/heads/main\n")
    (sub / "config").write_text("[core]\n\tbare = false\n\tworktree = wt\n"
                                "\tfsmonitor = touch pwned\n")
    (d / "plain" / "deep").mkdir(parents=True)
    (d / "linked").mkdir()
    (d / "linked" / "HEAD").write_text("x\n")  # a file named HEAD alone is no repository
    (d / "nested" / ".git").mkdir(parents=True)
    return str(d)


BARE_ATTACKS = ["git -C sub status", "cd sub && git status", "cd sub; git log -p",
                "git -C sub diff", "cd sub/wt && git status", "git -C sub/wt log",
                "git --bare log", "git --bare status"]
BARE_TWINS = ["git status", "git log", "git -C plain/deep log", "cd plain && git status",
              "git -C linked status", "git -C nested status"]


@pytest.mark.parametrize("mode", ["default", "accept_edits"])
@pytest.mark.parametrize("command", BARE_ATTACKS)
def test_git_in_an_embedded_bare_repository_is_not_read_only(command, mode,
                                                              project_with_bare_repo):
    d = decide(command, project_with_bare_repo, mode=mode)
    assert d.behavior != ALLOW, f"{command!r}: {d.reason}"


@pytest.mark.parametrize("command", BARE_TWINS)
def test_git_beside_an_embedded_bare_repository_stays_read_only(command,
                                                                project_with_bare_repo):
    d = decide(command, project_with_bare_repo)
    assert d.behavior == ALLOW, f"{command!r}: {d.reason}"
