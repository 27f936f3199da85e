"""The one table of secret and sensitive paths: what reading or writing a path means."""

import os

import pytest

from jupyter_agenttools.permission.sensitive import (
    CREDENTIAL,
    SECRET,
    TABLE,
    glob_to_regex,
    is_key_or_credential,
    read_verdict,
    secret_reason,
    sensitive_write_reason,
)

H = "/home/u"
C, S, N = CREDENTIAL, SECRET, None

# path -> read verdict (CREDENTIAL: safety ASK, SECRET: plain ASK, None: not a secret)
SECRETS = [
    ("/home/u/.ssh/id_rsa", C),
    ("/home/u/.ssh/id_ed25519", C),
    ("/home/u/.ssh/id_ecdsa_sk", C),
    ("/home/u/.ssh/work_laptop", C),          # a key with a custom name
    ("/home/u/.ssh/id_rsa.pub", N),           # public key: meant to be shared
    ("/home/u/.ssh/known_hosts", S),          # reveals hosts, no key material
    ("/home/u/.ssh/known_hosts.old", S),
    ("/home/u/.ssh/authorized_keys", S),
    ("/home/u/.ssh/config", S),
    ("/home/u/.ssh", S),                      # the directory: grep -r would read the keys
    ("/home/u/.ssh/sub/deploy", S),
    ("/srv/backup/id_rsa", C),                # a key anywhere
    ("/other/.ssh/id_ed25519", C),
    ("/proj/.env", C),
    ("/proj/.env.local", C),
    ("/proj/.env.production", C),
    ("/proj/config/prod.env", C),
    ("/proj/.envrc", C),
    ("/proj/.env.example", N),                # committed templates hold no real values
    ("/proj/.env.sample", N),
    ("/proj/.env.template", N),
    ("/proj/.env.local.example", N),
    ("/proj/environment.yml", N),
    ("/proj/certs/server.pem", C),
    ("/proj/certs/server.key", C),
    ("/proj/certs/client.p12", C),
    ("/proj/certs/client.pfx", C),
    ("/proj/CERTS/SERVER.PEM", C),            # case-insensitive file systems
    ("/home/u/.aws/credentials", C),
    ("/home/u/.aws/config", S),
    ("/home/u/.aws/sso/cache/abc.json", C),
    ("/home/u/.config/gcloud/application_default_credentials.json", C),
    ("/home/u/.config/gcloud/credentials.db", C),
    ("/home/u/.azure/accessTokens.json", C),
    ("/home/u/.kube/config", C),
    ("/home/u/.docker/config.json", C),
    ("/home/u/.netrc", C),
    ("/home/u/.git-credentials", C),
    ("/home/u/.config/gh/hosts.yml", C),
    ("/home/u/.npmrc", C),
    ("/proj/.npmrc", C),
    ("/home/u/.pypirc", C),
    ("/home/u/.gnupg/private-keys-v1.d/ABC.key", C),
    ("/home/u/.gnupg/pubring.kbx", C),
    ("/home/u/.password-store/bank.gpg", C),
    ("/home/u/.local/share/keyrings/login.keyring", C),
    ("/home/u/.local/share/jupyter/runtime/kernel-1.json", C),
    ("/home/u/.jupyter/jupyter_server_token", C),
    ("/etc/shadow", C),
    ("/etc/sudoers", S),
    ("/proc/123/environ", C),
    ("/proc/self/environ", C),
    ("/proc/77/task/78/environ", C),          # what realpath makes of /proc/thread-self
    ("/home/u/.bash_history", S),
    ("/proj/terraform.tfstate", C),
    # red-team findings
    ("/run/secrets/db_password", C),
    ("/var/run/secrets/kubernetes.io/serviceaccount/token", C),
    ("/home/u/.local/share/jupyter/notebook_secret", C),
    ("/home/u/.vault-token", C),
    ("/proj/.dockercfg", C),
    ("/home/u/.m2/settings.xml", C),
    ("/home/u/.gradle/gradle.properties", C),
    ("/proc/1/root/etc/shadow", C),
    ("/proj/.htpasswd", C),
    ("/home/u/.psql_history", S),
    ("/proj/terraform.tfvars", S),
    ("/home/u/.jupyter/jupyter_server_config.json", S),
    ("/home/u/.curlrc", S),
    # ordinary files
    ("/proj/src/app.py", N),
    ("/proj/README.md", N),
    ("/home/u/.bashrc", N),                   # a sensitive *write*, not a secret
    ("/etc/passwd", N),
    ("/etc/hosts", N),
    ("/proj/keys.py", N),
    ("/proj/monkey.txt", N),
    ("/proj/.environment", N),
    ("/proj/docs/ssh.md", N),
    ("/proj/src/envy.py", N),
]


@pytest.mark.parametrize("path,kind", SECRETS)
def test_secret_table(path, kind):
    verdict = read_verdict(path, H)
    assert (verdict[0] if verdict else None) == kind
    reason = secret_reason(path, H)
    assert (reason is not None) == (kind is not None)
    if reason:
        assert len(reason) > 8  # a real sentence, shown to the user
    assert is_key_or_credential(path, H) == (kind == CREDENTIAL)


def test_the_secret_table_is_big_enough():
    assert len(SECRETS) >= 30


@pytest.mark.parametrize("path,sensitive", [
    ("/home/u/.bashrc", True),
    ("/home/u/.bash_profile", True),
    ("/home/u/.profile", True),
    ("/home/u/.zshrc", True),
    ("/home/u/.zprofile", True),
    ("/home/u/.config/fish/config.fish", True),
    ("/home/u/.ssh/authorized_keys", True),
    ("/home/u/.ssh/id_rsa.pub", True),        # fine to read, not to write
    ("/home/u/.ssh/config", True),
    ("/proj/.env", True),
    ("/proj/.env.local", True),
    ("/proj/.env.example", False),            # templates are edited legitimately
    ("/proj/.git/hooks/pre-commit", True),
    ("/proj/.git/config", True),
    ("/proj/sub/.git/HEAD", True),
    ("/home/u/.gitconfig", True),
    ("/home/u/.aws/credentials", True),
    ("/home/u/.netrc", True),
    ("/etc/cron.d/job", True),
    ("/etc/hosts", True),
    ("/var/spool/cron/crontabs/u", True),
    ("/home/u/.config/autostart/x.desktop", True),
    ("/home/u/.local/bin/git", True),
    ("/proj/.agenttools/settings.json", True),
    ("/proj/.agenttools/settings.local.json", True),
    ("/home/u/.jupyter/agenttools/settings.json", True),
    ("/home/u/.ipython/profile_default/startup/00-x.py", True),
    ("/home/u/.ipython/profile_default/ipython_config.py", True),
    ("/home/u/.ipython/profile_work/ipython_kernel_config.py", True),
    ("/home/u/.jupyter/jupyter_server_config.py", True),
    ("/proj/lib/python3.11/site-packages/evil.pth", True),
    ("/usr/local/bin/python", True),
    ("/dev/null", False),                     # no false safety ASK on > /dev/null
    ("/dev/stderr", False),
    ("/proc/4242/fd/pipe:[70459]", False),    # realpath of /dev/stdout in a piped checker
    ("/proc/4242/fd/3", True),
    ("/proj/src/app.py", False),
    ("/proj/build/out.o", False),
    ("/proj/.gitignore", False),
    ("/proj/.github/workflows/ci.yml", False),
    ("/tmp/scratch.txt", False),
    ("/home/u/notes/todo.md", False),
])
def test_sensitive_writes(path, sensitive):
    reason = sensitive_write_reason(path, H)
    assert (reason is not None) == sensitive, reason


def test_own_settings_moved_by_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("AGENTTOOLS_USER_DIR", str(tmp_path / "cfg"))
    monkeypatch.setenv("AGENTTOOLS_MANAGED_SETTINGS", str(tmp_path / "m.json"))
    assert sensitive_write_reason(str(tmp_path / "cfg" / "anything.json"), H)
    assert sensitive_write_reason(str(tmp_path / "cfg" / "sub" / "settings.JSON"), H)
    assert sensitive_write_reason(str(tmp_path / "m.json"), H)
    assert sensitive_write_reason(str(tmp_path / "cfgx" / "a.json"), H) is None


@pytest.mark.parametrize("path", [
    "/home/u/../u/.ssh/./id_rsa",   # not canonical
    "/home/u//.ssh//id_rsa",
    "//home/u/.ssh/id_rsa",
    "~/.ssh/id_rsa",                # ~ expanded against the given home
    ".ssh/id_rsa",                  # relative: the any-depth patterns still apply
])
def test_robust_to_non_canonical_paths(path):
    assert is_key_or_credential(path, H)


@pytest.mark.parametrize("path", [None, 5, b"/home/u/.netrc", "", "a\x00b", "\ud800", "-rf",
                                  "--color=auto", "x" * 100_000, "/" * 5000])
def test_odd_input_never_raises(path):
    secret_reason(path, H)
    sensitive_write_reason(path, H)
    is_key_or_credential(path, H)


@pytest.mark.parametrize("home", [None, "", "relative", "/home/u/", "/home/u[1]", 7])
def test_odd_home_never_raises(home):
    secret_reason("/home/u/.ssh/id_rsa", home)
    assert is_key_or_credential("/x/.ssh/id_rsa", home)


def test_home_with_glob_characters_is_literal():
    assert is_key_or_credential("/home/u[1]/.ssh/work", "/home/u[1]")
    assert not is_key_or_credential("/home/u1/.ssh/work", "/home/u[1]")


def test_home_is_not_fixed():
    assert is_key_or_credential("/Users/ann/.kube/config", "/Users/ann")
    assert not is_key_or_credential("/Users/ann/.kube/config", "/home/u")
    # the home-independent name still catches it
    assert is_key_or_credential("/x/.aws/credentials", "/home/u")


def test_every_entry_has_a_reason_and_an_opinion():
    for entry in TABLE:
        assert entry.reason.strip(), entry
        assert entry.read or entry.write, entry


@pytest.mark.parametrize("glob,path,expected", [
    ("/a/*.py", "/a/x.py", True),
    ("/a/*.py", "/a/b/x.py", False),
    ("/a/**/x.py", "/a/x.py", True),
    ("/a/**/x.py", "/a/b/c/x.py", True),
    ("/a/**", "/a", True),
    ("/a/**", "/a/b/c", True),
    ("/a/**", "/ab", False),
    ("/a/?", "/a/b", True),
    ("/a/?", "/a/bc", False),
    ("/a/[bc]", "/a/c", True),
    ("/a/[!bc]", "/a/c", False),
    ("/a/[!bc]", "/a/d", True),
    ("/a/[", "/a/[", True),          # unclosed bracket: a literal
    ("/a.b", "/aXb", False),         # regex metacharacters are literal
    ("/a/**/**/b", "/a/b", True),    # repeated ** adds nothing
    ("/a/[z-a]", "/a/[z-a]", True),  # a reversed range is literal text, not an error
    ("/a/[z-a]", "/a/m", False),
    ("/a/[a-c]", "/a/b", True),
    ("/a/[]]", "/a/]", True),
])
def test_glob_to_regex(glob, path, expected):
    import re

    assert (re.match(glob_to_regex(glob) + r"\Z", path) is not None) == expected


def test_search_exclude_globs_keep_secrets_out_of_ripgrep(tmp_path):
    import shutil
    import subprocess

    from jupyter_agenttools.permission.sensitive import search_exclude_globs

    rg = shutil.which("rg")
    if rg is None:
        pytest.skip("ripgrep is not installed")
    files = {
        "a.py": False, "src/b.txt": False,
        ".env.example": True,  # a template: readable with Read, but the ".env.*" glob skips it
        ".env": True, "sub/.env.local": True, "certs/x.pem": True, ".ssh/id_rsa": True,
        ".aws/credentials": True, "deploy/id_ed25519": True, ".netrc": True,
    }
    for rel in files:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("NEEDLE\n")
    argv = [rg, "--no-config", "--hidden", "--files-with-matches"]
    for g in search_exclude_globs():
        argv += ["--glob", g]
    out = subprocess.run(argv + ["-e", "NEEDLE", "--", str(tmp_path)], capture_output=True,
                         text=True, timeout=60)
    found = {os.path.relpath(line, tmp_path) for line in out.stdout.splitlines()}
    assert out.returncode == 0, out.stderr
    assert found == {rel for rel, secret in files.items() if not secret}
