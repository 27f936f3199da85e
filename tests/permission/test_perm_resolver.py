"""The one path resolver against the real kernel and the real bash, on real symlinks.

Oracles: ``os.stat`` of the path as written (the kernel's namei) must name the same file as the
resolver's answer; ``bash -c 'cd …; pwd -P'`` must land where ``base`` words lead; loops are
ELOOP for the kernel and "loop" for the resolver."""

from __future__ import annotations

import errno
import os
import subprocess

import pytest

from jupyter_agenttools.permission import resolver
from jupyter_agenttools.permission.facts import LocalFacts, PrefetchedFacts


@pytest.fixture
def tree(tmp_path):
    root = tmp_path.resolve()
    for d in ("home/.ssh", "home/.config/gh", "proj/src/deep", "other/x"):
        (root / d).mkdir(parents=True)
    (root / "home/.ssh/id_rsa").write_text("k")
    (root / "home/.config/gh/hosts.yml").write_text("t")
    (root / "home/notes").write_text("h")
    (root / "proj/notes").write_text("p")
    (root / "proj/src/deep/f").write_text("f")
    (root / "other/x/y").write_text("y")
    links = {
        "proj/keys": root / "home/.ssh",            # absolute target
        "proj/up": "../other",                      # relative target
        "proj/src/deep/back": "../../../home",      # relative, several levels
        "proj/chain1": "chain2",                    # a chain of links
        "proj/chain2": "src/deep",
        "proj/loop1": "loop2",                      # a loop
        "proj/loop2": "loop1",
        "proj/self": ".",                           # points at its own folder
        "proj/dangling": "nowhere/file",
        "other/x/esc": "/" + str(root / "home").lstrip("/") + "/.config",
    }
    for name, target in links.items():
        os.symlink(target, root / name)
    return root


WORDS = [
    "notes", "keys/id_rsa", "keys/../notes", "keys/../.config/gh/hosts.yml", "up/x/y",
    "up/x/../x/y", "src/deep/back/notes", "src/deep/back/../proj/notes", "chain1/f",
    "chain1/../deep/f", "self/self/self/notes", "./keys/./id_rsa", "up/x/esc/gh/hosts.yml",
    "up/x/esc/../notes", "src//deep///f", "src/deep/", "keys/", "../proj/keys/../notes",
]


@pytest.mark.parametrize("word", WORDS)
def test_resolution_names_the_file_the_kernel_opens(tree, word):
    facts = LocalFacts(str(tree / "proj"), str(tree / "home"))
    got = facts.resolve_word(word)
    kernel = os.stat(os.path.join(str(tree / "proj"), word))
    resolved = os.stat(got.physical)
    assert (kernel.st_dev, kernel.st_ino) == (resolved.st_dev, resolved.st_ino), got
    assert got.known and got.exists
    assert not os.path.islink(got.physical)
    assert got.physical == os.path.realpath(os.path.join(str(tree / "proj"), word))


@pytest.mark.parametrize("word", ["loop1", "loop1/x", "keys/../loop-free/../../proj/loop2/a"])
def test_loops_are_bounded_and_reported(tree, word):
    facts = LocalFacts(str(tree / "proj"), str(tree / "home"))
    path = os.path.join(str(tree / "proj"), word)
    if "loop-free" not in word:
        with pytest.raises(OSError) as info:
            os.stat(path)
        assert info.value.errno == errno.ELOOP
    got = facts.resolve_word(word)
    assert got.status == "loop" or not got.exists


def test_a_long_chain_is_cut_at_forty_links(tmp_path):
    for i in range(45):
        os.symlink(f"l{i + 1}", tmp_path / f"l{i}")
    (tmp_path / "l45").write_text("end")
    readlink = LocalFacts(str(tmp_path)).readlink
    assert resolver.resolve(str(tmp_path / "l5"), readlink)[1] == "ok"    # 40 links: fine
    assert resolver.resolve(str(tmp_path / "l0"), readlink)[1] == "loop"  # 45: ELOOP
    with pytest.raises(OSError):
        os.stat(tmp_path / "l0")


def test_a_final_symlink_is_kept_for_deletes(tree):
    facts = LocalFacts(str(tree / "proj"), str(tree / "home"))
    assert facts.resolve_word("keys", follow_last=False).physical == str(tree / "proj/keys")
    assert facts.resolve_word("keys/", follow_last=False).physical == str(tree / "home/.ssh")
    assert facts.resolve_word("keys", follow_last=True).physical == str(tree / "home/.ssh")
    # the parent is still resolved: rm up/x/esc removes the link inside other/x
    assert facts.resolve_word("up/x/esc", follow_last=False).physical == \
        str(tree / "other/x/esc")


@pytest.mark.parametrize("base", [("src",), ("keys",), ("keys", ".."), ("src/deep/back", ".."),
                                  ("up", "x", "esc"), ("chain1", "../.."), ("~", "notes/..")])
def test_cd_words_land_where_bash_does(tree, base):
    facts = LocalFacts(str(tree / "proj"), str(tree / "home"))
    script = " && ".join(f"cd {w!r}" if w != "~" else "cd ~" for w in base) + " && pwd -P"
    bash = subprocess.run(["bash", "-c", script], cwd=tree / "proj", capture_output=True,
                          text=True, env={"HOME": str(tree / "home"), "PATH": os.environ["PATH"]})
    if bash.returncode != 0:  # bash refused (cd into a file): the resolver still gives a place
        return
    where = resolver.shell_cwd(facts.cwd, base, facts.home, {}, facts.readlink)
    assert where == bash.stdout.strip()


def test_home_user_and_double_slash(tree):
    facts = LocalFacts(str(tree / "proj"), str(tree / "home"))
    assert facts.resolve_word("~/notes").physical == str(tree / "home/notes")
    assert facts.resolve_word("~").physical == str(tree / "home")
    assert facts.resolve_word("//" + str(tree).lstrip("/") + "/proj/notes").physical == \
        str(tree / "proj/notes")
    assert facts.resolve_word("~root/x").physical == os.path.expanduser("~root") + "/x"
    assert facts.resolve_word("~no-such-user-xyz/x").physical == \
        str(tree / "proj/~no-such-user-xyz/x")
    assert facts.resolve_word("rel", base=None).status == "unknown"


def test_prefetched_facts_replay_the_same_walk(tree, monkeypatch):
    """What a remote kernel sends (gather_facts run there) replays to the same answers as
    asking the file system directly; a question outside the answer is PathFactsMissing."""
    from jupyter_agenttools.errors import PathFactsMissing

    monkeypatch.setenv("HOME", str(tree / "home"))
    requests = [[w, [], True, False] for w in WORDS] + [["a", ["keys", ".."], True, False],
                                                        ["~/.ss?/*", [], True, True]]
    remote = PrefetchedFacts(resolver.gather_facts(requests, [str(tree / "proj")],
                                                   cwd=str(tree / "proj")))
    local = LocalFacts(str(tree / "proj"), str(tree / "home"))
    for word in WORDS:
        assert remote.resolve_word(word) == local.resolve_word(word)
    # bash's cd is logical: cd keys; cd .. is back in proj (the kernel's keys/.. is home)
    assert remote.resolve_word("a", ["keys", ".."]).physical == str(tree / "proj/a")
    matches, complete = remote.expand("~/.ss?/*")
    assert complete and [m.physical for m in matches] == [str(tree / "home/.ssh/id_rsa")]
    with pytest.raises(PathFactsMissing):
        remote.resolve_word("other/x/y")


async def test_file_tools_act_on_the_path_their_check_resolved(tree):
    """keys -> ~/.ssh: the check of keys/../notes resolves to ~/notes, so Read reads ~/notes
    and Write writes there (a lexical tidy-up would have acted on proj/notes)."""
    from jupyter_agenttools.backends.local import LocalBackend
    from jupyter_agenttools.builtin import Read, Write
    from jupyter_agenttools.permission.paths import resolve_path
    from jupyter_agenttools.permission.types import PermissionContext

    backend = LocalBackend(str(tree / "proj"))
    context = PermissionContext(cwd=str(tree / "proj"), home=str(tree / "home"))
    checked = resolve_path("keys/../notes", context).physical
    assert checked == str(tree / "home/notes")
    chunk = await Read(backend).call("keys/../notes")
    assert chunk.metadata["file_path"] == checked and "h" in chunk.content[0]["text"]
    written = await Write(backend).call("keys/../fresh.txt", "new")
    assert written.metadata["file_path"] == str(tree / "home/fresh.txt")
    assert (tree / "home/fresh.txt").read_text() == "new"
    assert not (tree / "proj/fresh.txt").exists()
