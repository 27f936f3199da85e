"""The one table of secret and sensitive paths, shared by the file tools and the Bash analysis.

Every entry is a gitignore-style pattern with a reason, and two verdicts:

- ``read``: ``CREDENTIAL`` (a private key or a credential file: reading it is a *safety* ASK),
  ``SECRET`` (reveals something private, e.g. which hosts you log in to: a plain ASK that an
  allow rule may silence), ``OK`` (explicitly harmless, e.g. a ``.pub`` key or ``.env.example``,
  which stops later entries from matching) or ``None`` (no opinion);
- ``write``: ``SENSITIVE`` (writing there can run code, change credentials or change the agent's
  own permissions: a safety ASK), ``OK`` or ``None``.

For each question the first entry with an opinion that matches decides.

Pattern anchors: ``~/…`` is relative to the home directory given by the caller, ``/…`` is
absolute, ``**/…`` or a pattern without ``/`` matches at any depth. ``*`` and ``?`` stay inside
one path segment, ``**`` spans segments, ``[…]`` is a character class; a trailing ``/**`` means
"everything below" and also matches the directory itself (so ``grep -r x ~/.ssh`` is caught).
Matching ignores case: on case-insensitive file systems ``~/.SSH/id_rsa`` is the same file.

Decisions worth knowing (each is in the table with its reason):

- ``~/.ssh``: ``*.pub`` public keys are fine to read; ``known_hosts``, ``authorized_keys`` and
  ``config`` are SECRET (they reveal hosts, users and key paths, no key material); any *other*
  file there is treated as a private key (keys often have custom names such as ``~/.ssh/work``).
- ``.env`` and ``.env.*`` are credentials (API keys live there), except the committed templates
  ``.env.example``, ``.env.sample``, ``.env.template``, ``.env.dist`` and ``.env.defaults``,
  which hold no real values by convention and which the agent legitimately edits.
- Writes: shell start-up files, ``~/.ssh``, ``.git/`` (hooks run code), git/npm/pip config,
  autostart and cron, ``/etc``, ``~/.local/bin`` (on ``PATH``: a file there shadows commands),
  IPython/Jupyter start-up and config files (code at kernel start), and this product's own
  settings (an agent must not edit its own permissions).
- Files that *run code later*, where no one reviews them, are marked ``later`` (``_later``):
  shell start-up files, ``.git``, IDE folders (``.vscode``, ``.idea``), IPython/Jupyter config,
  start-up scripts and kernel specs, ``.pth``/``sitecustomize.py``, a virtual environment's
  interpreter, pip and activate script, ``node_modules/.bin``, ``.envrc``. Writing one is a
  safety ASK in bypass mode too (``runs_code_later_reason``; ``modes.py``). Ordinary project
  source (``Makefile``, ``conftest.py``, ``setup.py``) runs too, but the user reads and
  commits it: it stays an ordinary edit.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "OK",
    "SECRET",
    "CREDENTIAL",
    "SENSITIVE",
    "Entry",
    "TABLE",
    "secret_reason",
    "sensitive_write_reason",
    "runs_code_later_reason",
    "is_key_or_credential",
    "read_verdict",
    "glob_to_regex",
    "search_exclude_globs",
]

OK = "ok"
SECRET = "secret"
CREDENTIAL = "credential"
SENSITIVE = "sensitive"


@dataclass(frozen=True)
class Entry:
    pattern: str
    reason: str
    read: str | None = None
    write: str | None = None
    #: writing it makes code run later, where no one reviews it (a start-up file, a hook, an
    #: interpreter): a safety ASK in bypass mode too (``runs_code_later_reason``)
    later: bool = False


_C, _S, _W = CREDENTIAL, SECRET, SENSITIVE


def _e(pattern: str, reason: str, read: str | None = None, write: str | None = None) -> Entry:
    return Entry(pattern, reason, read, write)


def _later(pattern: str, reason: str, read: str | None = None) -> Entry:
    """A file that runs code later: a sensitive write that bypass mode asks about too."""
    return Entry(pattern, reason, read, SENSITIVE, later=True)


_ENV_TEMPLATES = ("example", "sample", "template", "dist", "defaults")

TABLE: tuple[Entry, ...] = (
    # --- exemptions first (first opinion wins) ---------------------------------------------
    _later("**/.git/**", "a .git directory: hooks and config run code on git commands"),
    *(_e(f"/dev/{n}", "the null device or a standard stream", write=OK)
      for n in ("null", "zero", "stdout", "stderr", "stdin", "tty", "fd/[012]", "pts/*")),
    # what realpath makes of /dev/stdout in the *checking* process: a pipe or socket, not a file
    _e("/proc/*/fd/pipe:*", "a pipe (a standard stream resolved by realpath)", write=OK),
    _e("/proc/*/fd/socket:*", "a socket (a standard stream resolved by realpath)", write=OK),
    _e("**/.ssh/*.pub", "an SSH public key: fine to read; writing in .ssh changes who can "
       "log in", read=OK, write=_W),
    *(_e(f".env.{t}", "a committed .env template without real values", read=OK, write=OK)
      for t in _ENV_TEMPLATES),
    *(_e(f".env.*.{t}", "a committed .env template without real values", read=OK, write=OK)
      for t in _ENV_TEMPLATES),
    # --- SSH ---------------------------------------------------------------------------------
    _e("~/.ssh/known_hosts*", "lists the hosts you connect to", read=_S, write=_W),
    _e("~/.ssh/authorized_keys*", "lists who may log in to this machine (writing it grants "
       "login)", read=_S, write=_W),
    _e("~/.ssh/config", "SSH client config: hosts, users, key paths, ProxyCommand", read=_S,
       write=_W),
    _e("~/.ssh/*", "a file in ~/.ssh: treated as an SSH private key", read=_C, write=_W),
    _e("~/.ssh/**", "the SSH directory holds private keys", read=_S, write=_W),
    _e("id_rsa", "an SSH private key", read=_C, write=_W),
    _e("id_dsa", "an SSH private key", read=_C, write=_W),
    _e("id_ecdsa", "an SSH private key", read=_C, write=_W),
    _e("id_ed25519", "an SSH private key", read=_C, write=_W),
    _e("id_ecdsa_sk", "an SSH private key", read=_C, write=_W),
    _e("id_ed25519_sk", "an SSH private key", read=_C, write=_W),
    _e("**/.ssh/id_*", "an SSH private key", read=_C, write=_W),
    # --- dotenv ------------------------------------------------------------------------------
    _e(".env", "a .env file holds API keys and passwords", read=_C, write=_W),
    _e(".env.*", "a .env file holds API keys and passwords", read=_C, write=_W),
    _e("*.env", "an env file holds API keys and passwords", read=_C, write=_W),
    _later(".envrc", "direnv file: secrets, and shell code run on cd", read=_C),
    # --- key material by extension -----------------------------------------------------------
    _e("*.pem", "PEM file: private keys or certificates", read=_C, write=_W),
    _e("*.key", "a private key file", read=_C, write=_W),
    _e("*.p12", "PKCS#12 key store", read=_C, write=_W),
    _e("*.pfx", "PKCS#12 key store", read=_C, write=_W),
    _e("*.jks", "Java key store", read=_C, write=_W),
    _e("*.keystore", "a key store", read=_C, write=_W),
    _e("*.ppk", "PuTTY private key", read=_C, write=_W),
    _e("*.kdbx", "KeePass password database", read=_C, write=_W),
    # --- cloud and tool credentials ----------------------------------------------------------
    _e("~/.aws/credentials", "AWS access keys", read=_C, write=_W),
    _e("~/.aws/config", "AWS profiles; may hold credential_process commands", read=_S,
       write=_W),
    _e("~/.aws/**", "AWS CLI state: SSO tokens and cached credentials", read=_C, write=_W),
    _e("**/.aws/credentials", "AWS access keys", read=_C, write=_W),
    _e("~/.config/gcloud/**", "Google Cloud credentials and access tokens", read=_C, write=_W),
    _e("application_default_credentials.json", "Google Cloud application credentials",
       read=_C, write=_W),
    _e("service-account*.json", "a cloud service-account key", read=_C, write=_W),
    _e("~/.azure/**", "Azure CLI tokens", read=_C, write=_W),
    _e("~/.kube/config", "Kubernetes cluster credentials", read=_C, write=_W),
    _e("~/.kube/**", "Kubernetes config and cached tokens", read=_S, write=_W),
    _e("kubeconfig", "Kubernetes cluster credentials", read=_C, write=_W),
    _e("~/.docker/config.json", "Docker registry credentials", read=_C, write=_W),
    _e(".netrc", "login names and passwords for remote hosts", read=_C, write=_W),
    _e("_netrc", "login names and passwords for remote hosts", read=_C, write=_W),
    _e(".git-credentials", "stored git passwords and tokens", read=_C, write=_W),
    _e("~/.config/git/credentials", "stored git passwords and tokens", read=_C, write=_W),
    _e("~/.config/gh/hosts.yml", "GitHub CLI OAuth token", read=_C, write=_W),
    _e("~/.config/gh/**", "GitHub CLI config", read=_S, write=_W),
    _e("~/.config/hub", "GitHub token of hub", read=_C, write=_W),
    _e(".npmrc", "npm registry auth token", read=_C, write=_W),
    _e(".yarnrc.yml", "yarn registry auth token", read=_S, write=_W),
    _e(".pypirc", "PyPI upload token", read=_C, write=_W),
    _e("~/.config/pip/pip.conf", "pip index URLs, may embed credentials", read=_S, write=_W),
    _e("~/.pip/pip.conf", "pip index URLs, may embed credentials", read=_S, write=_W),
    _e("~/.gem/credentials", "RubyGems API key", read=_C, write=_W),
    _e("~/.cargo/credentials*", "crates.io token", read=_C, write=_W),
    _e("~/.terraform.d/credentials.tfrc.json", "Terraform Cloud token", read=_C, write=_W),
    _e("~/.config/rclone/rclone.conf", "cloud storage credentials", read=_C, write=_W),
    _e("~/.s3cfg", "S3 access keys", read=_C, write=_W),
    _e("~/.boto", "cloud access keys", read=_C, write=_W),
    _e("~/.databrickscfg", "Databricks token", read=_C, write=_W),
    _e("~/.config/openai/**", "OpenAI API key", read=_C, write=_W),
    _e("~/.huggingface/token", "Hugging Face token", read=_C, write=_W),
    _e("~/.cache/huggingface/token", "Hugging Face token", read=_C, write=_W),
    _e("~/.kaggle/kaggle.json", "Kaggle API key", read=_C, write=_W),
    _e("~/.pgpass", "PostgreSQL passwords", read=_C, write=_W),
    _e("~/.my.cnf", "MySQL passwords", read=_C, write=_W),
    _e("credentials.json", "a credentials file", read=_C, write=_W),
    _e("secrets.yaml", "a secrets file", read=_C, write=_W),
    _e("secrets.yml", "a secrets file", read=_C, write=_W),
    _e("secrets.json", "a secrets file", read=_C, write=_W),
    _e("*.tfstate", "Terraform state holds secrets in clear", read=_C),
    _e("*.tfstate.backup", "Terraform state holds secrets in clear", read=_C),
    _e("*.tfvars", "Terraform variable values, usually the deployment's secrets", read=_S),
    _e("~/.vault-token", "HashiCorp Vault token", read=_C, write=_W),
    _e(".dockercfg", "legacy Docker registry credentials", read=_C, write=_W),
    _e("~/.m2/settings.xml", "Maven repository server passwords", read=_C, write=_W),
    _e("~/.m2/settings-security.xml", "Maven master password", read=_C, write=_W),
    _e("~/.gradle/gradle.properties", "Gradle publishing and signing credentials", read=_C,
       write=_W),
    _e("token.json", "an OAuth token file (Google API quick-starts)", read=_C, write=_W),
    _e(".htpasswd", "web server password hashes", read=_C, write=_W),
    _e("wp-config.php", "WordPress database password and keys", read=_S),
    _e("~/.wgetrc", "wget config: may hold http/ftp passwords", read=_S, write=_W),
    _e("~/.curlrc", "curl config: may hold user:password and headers with tokens", read=_S,
       write=_W),
    _e("/run/secrets/**", "container secrets (Docker, Kubernetes) mounted as files", read=_C),
    _e("/var/run/secrets/**", "container secrets: the Kubernetes service-account token",
       read=_C),
    # --- password stores, keyrings, browsers ------------------------------------------------
    _e("~/.gnupg/**", "GPG private keys", read=_C, write=_W),
    _e("~/.password-store/**", "pass password store", read=_C, write=_W),
    _e("~/.local/share/keyrings/**", "GNOME keyring", read=_C, write=_W),
    _e("~/.config/keybase/**", "Keybase keys", read=_C, write=_W),
    _e("~/.mozilla/**", "browser profiles: saved passwords and cookies", read=_C, write=_W),
    _e("~/.config/google-chrome/**", "browser profile: saved passwords and cookies", read=_C,
       write=_W),
    _e("~/.config/chromium/**", "browser profile: saved passwords and cookies", read=_C,
       write=_W),
    _e("~/Library/Keychains/**", "macOS keychains", read=_C, write=_W),
    # --- Jupyter runtime tokens --------------------------------------------------------------
    _e("~/.local/share/jupyter/runtime/**", "Jupyter server and kernel tokens/keys", read=_C,
       write=_W),
    _e("~/Library/Jupyter/runtime/**", "Jupyter server and kernel tokens/keys", read=_C,
       write=_W),
    _e("~/.jupyter/*token*", "a Jupyter token", read=_C, write=_W),
    _e("notebook_secret", "Jupyter's cookie secret: forges login cookies", read=_C, write=_W),
    _later("~/.jupyter/jupyter_*_config.json", "Jupyter server config: password hash and "
           "token; extensions loaded at start", read=_S),
    # --- system secrets ----------------------------------------------------------------------
    _e("/etc/shadow", "password hashes", read=_C, write=_W),
    _e("/etc/gshadow", "group password hashes", read=_C, write=_W),
    _e("/etc/shadow-", "password hashes (backup)", read=_C, write=_W),
    _later("/etc/sudoers", "who may run what as root: a rule there runs commands as root",
           read=_S),
    _later("/etc/sudoers.d/**", "who may run what as root: a rule there runs commands as root",
           read=_S),
    _e("/etc/ssh/ssh_host_*_key", "SSH host private key", read=_C, write=_W),
    _e("/etc/ssl/private/**", "TLS private keys", read=_C, write=_W),
    _e("/proc/**/environ", "a process environment: API keys live there", read=_C),
    _e("/proc/**/mem", "a process's memory", read=_C),
    _e("/proc/**/cmdline", "a process command line may carry tokens", read=_S),
    _e("/proc/*/root/**", "another process's view of / (reaches /etc/shadow and keys)",
       read=_C),
    # --- write-only sensitivity: code that runs later ---------------------------------------
    _later("~/.bashrc", "shell start-up file: runs in every new shell"),
    _later("~/.bash_profile", "shell start-up file: runs at login"),
    _later("~/.bash_login", "shell start-up file: runs at login"),
    _later("~/.bash_logout", "shell file: runs at logout"),
    _later("~/.profile", "shell start-up file: runs at login"),
    _later("~/.zshrc", "shell start-up file: runs in every new shell"),
    _later("~/.zshenv", "shell start-up file: runs in every zsh"),
    _later("~/.zprofile", "shell start-up file: runs at login"),
    _later("~/.zlogin", "shell start-up file: runs at login"),
    _later("~/.config/fish/**", "fish shell configuration: runs in every new shell"),
    _later("~/.inputrc", "readline configuration (key bindings can run commands)"),
    _e("~/.bash_history", "shell history: may contain typed secrets", read=_S, write=_W),
    _e("~/.zsh_history", "shell history: may contain typed secrets", read=_S, write=_W),
    _e("~/.python_history", "Python history: may contain typed secrets", read=_S),
    *(_e(f"~/.{n}_history", "a client history: may contain typed passwords", read=_S, write=_W)
      for n in ("psql", "mysql", "sqlite", "node_repl", "rediscli", "mongo", "dbshell")),
    _later("~/.gitconfig", "git configuration: aliases, hooks path, credential helpers"),
    _later("~/.config/git/**", "git configuration: aliases, hooks path, credential helpers"),
    _e(".gitmodules", "submodule URLs are fetched by git", write=_W),
    _later("~/.config/autostart/**", "programs started at login"),
    _later("~/.config/systemd/**", "user services started by systemd"),
    _later("~/Library/LaunchAgents/**", "programs started at login (macOS)"),
    _later("/var/spool/cron/**", "crontabs run commands on a schedule"),
    _later("~/.local/bin/**", "on PATH: a file there shadows commands"),
    _later("~/bin/**", "on PATH: a file there shadows commands"),
    # (`git config --system`: its aliases and helpers run on every git command of every user)
    _later("/etc/gitconfig", "system git configuration: aliases, hooks path, credential helpers"),
    _e("/boot/**", "boot files", write=_W),
    _e("/dev/**", "device files", write=_W),
    _e("/sys/**", "kernel interfaces", write=_W),
    _e("/proc/**", "kernel interfaces", write=_W),
    _e("~/.config/pip/**", "pip configuration (index URLs)", write=_W),
    _e("~/.condarc", "conda configuration (channels)", write=_W),
    _later("~/.ipython/profile_*/startup/**", "IPython start-up scripts run in every kernel"),
    _later("~/.ipython/profile_*/ipython_*config.py", "IPython config is Python run at start"),
    _later("~/.ipython/profile_*/ipython_*config.json",
           "IPython config: extensions loaded at start"),
    _later("~/.jupyter/**", "Jupyter config is Python run at server start"),
    _later("~/Library/Jupyter/**", "Jupyter data: kernels specs run commands"),
    _later("~/.local/share/jupyter/kernels/**", "kernel specs name the command a kernel runs"),
    _later("~/.local/share/jupyter/nbextensions/**", "notebook extensions run in the browser"),
    _later("~/.config/jupyter/**", "Jupyter config is Python run at server start"),
    _later("ipython_config.py", "IPython config is Python run at start"),
    _later("jupyter_*_config.py", "Jupyter config is Python run at server start"),
    _later("jupyter_*_config.json", "Jupyter config: extensions loaded at start"),
    _later("sitecustomize.py", "Python imports it at every start"),
    _later("usercustomize.py", "Python imports it at every start"),
    _later("*.pth", "site-packages .pth lines starting with import run at every Python start"),
    # --- more files that run code later (issue 13; a safety ASK in bypass too: session 6) ---
    _later("~/.bash_aliases", "shell alias file: sourced by every new shell"),
    _later("~/.aliases", "shell alias file: sourced by every new shell"),
    _later("~/.kshrc", "shell start-up file"),
    _later("~/.cshrc", "shell start-up file"),
    _later("~/.tcshrc", "shell start-up file"),
    _later("~/.xprofile", "runs at graphical login"),
    _later("~/.xinitrc", "runs when X starts"),
    _later("~/.xsessionrc", "runs at graphical login"),
    _later("~/.pam_environment", "environment of every login"),
    _later("~/.config/environment.d/**", "environment of every user service"),
    _later("~/.tmux.conf", "tmux runs the commands it names"),
    _later("~/.vimrc", "vim runs it at start"),
    _later("~/.config/nvim/**", "neovim runs it at start"),
    _later("~/.emacs", "emacs runs it at start"),
    _later("~/.emacs.d/**", "emacs runs it at start"),
    _later(".Rprofile", "R runs it at start"),
    _later("**/.husky/**", "git hooks managed by husky run on commit"),
    _later("**/.githooks/**", "a hooks folder git may be configured to run"),
    _later(".pre-commit-config.yaml", "pre-commit runs the hooks it names on commit"),
    _later("**/.vscode/tasks.json", "VS Code tasks run commands (some when the folder opens)"),
    _later("**/.vscode/launch.json", "VS Code launch configurations run programs"),
    _later("**/.vscode/settings.json", "VS Code settings choose interpreters and terminals"),
    _later("**/share/jupyter/kernels/**", "kernel specs name the command a kernel runs"),
    _later("**/jupyter/kernels/*/kernel.json", "a kernel spec names the command a kernel runs"),
    _later("**/jupyter_*_config.d/**", "Jupyter config fragments load extensions at start"),
    _later("**/.ipython/profile_*/startup/**", "IPython start-up scripts run in every kernel"),
    _later("**/.ipython/profile_*/ipython_*config.py", "IPython config is Python run at start"),
    _later("~/.gradle/init.d/**", "Gradle init scripts run in every build"),
    _later("~/.gradle/init.gradle", "a Gradle init script runs in every build"),
    _later("**/.mvn/**", "Maven extensions and JVM options load in every build"),
    _later("**/.cargo/config.toml", "cargo config can wrap the compiler (runs a program)"),
    _later("**/.cargo/config", "cargo config can wrap the compiler (runs a program)"),
    _later("~/.npm-init.js", "npm init runs it"),
    _later("**/.git", "a .git file or folder: its config and hooks run code on git commands"),
    # --- more files that run code later (session 6: environments, IDEs, Jupyter) -----------
    # a project's virtual environment and node_modules are written by installers (pip, npm:
    # Bash commands, asked as such), not by hand: an agent's edit there goes unreviewed and
    # runs at the user's next `activate`, `python`, `pytest`, `npm test`
    # (names, not globs such as bin/python*: the sandbox turns a glob after a folder into the
    # whole folder, and a project's own bin/ must stay writable there)
    *(_later(f"**/bin/{name}", "a virtual environment's activate script: sourced into the "
             "user's shell")
      for name in ("activate", "activate.fish", "activate.csh", "activate.nu", "activate.ps1",
                   "Activate.ps1", "activate.bat", "activate_this.py")),
    *(_later(f"**/bin/{name}", "an environment's interpreter or pip: runs for every python "
             "command or install")
      for name in ("python", "python3", *(f"python3.{minor}" for minor in range(6, 16)),
                   "pip", "pip3", *(f"pip3.{minor}" for minor in range(6, 16)))),
    _later("**/.venv/bin/**", "a virtual environment's programs (jupyter, pytest…) run in "
           "place of the real ones once it is activated"),
    _later("**/venv/bin/**", "a virtual environment's programs (jupyter, pytest…) run in "
           "place of the real ones once it is activated"),
    _later("**/.venv/Scripts/**", "a virtual environment's programs (Windows layout) run once "
           "it is activated"),
    _later("**/venv/Scripts/**", "a virtual environment's programs (Windows layout) run once "
           "it is activated"),
    _later("pyvenv.cfg", "a virtual environment's config: its home names the interpreter that "
           "runs"),
    _later("**/etc/conda/activate.d/**", "conda runs these scripts when the environment is "
           "activated"),
    _later("**/etc/conda/deactivate.d/**", "conda runs these scripts when the environment is "
           "deactivated"),
    _later("**/node_modules/.bin/**", "npm scripts and npx run the programs linked here"),
    _later("~/.pythonrc", "the usual PYTHONSTARTUP file: runs at every interactive Python "
           "start"),
    _later("~/.pythonrc.py", "the usual PYTHONSTARTUP file: runs at every interactive Python "
           "start"),
    _later("**/.idea/**", "JetBrains project settings: run configurations, before-launch tasks "
           "and the project interpreter run programs"),
    _later("**/.vscode/**", "VS Code folder settings: tasks run commands (some when the folder "
           "opens), extensions and interpreters are chosen here"),
    _later("*.code-workspace", "a VS Code workspace: its settings, tasks and launch "
           "configurations run programs"),
    _later("**/.ipython/profile_*/ipython_*config.json", "IPython config: extensions loaded at "
           "start"),
    _later("**/profile_*/startup/**", "IPython start-up scripts (a profile wherever IPYTHONDIR "
           "points) run in every kernel"),
    _later("**/profile_*/ipython_*config.*", "IPython config (a profile wherever IPYTHONDIR "
           "points): Python run, extensions loaded at start"),
    _later("**/.ipython/**", "IPython's folder: start-up scripts, config and extensions run in "
           "every kernel"),
    _later("**/.jupyter/**", "a Jupyter config folder (JUPYTER_CONFIG_DIR): config is Python "
           "run at server start, custom.js runs in the browser"),
    _later("**/etc/jupyter/**", "Jupyter config of an environment: loaded at server and kernel "
           "start"),
    _later("**/share/jupyter/labextensions/**", "JupyterLab extensions run in the browser with "
           "the server's rights"),
    _later("**/share/jupyter/nbextensions/**", "notebook extensions run in the browser with "
           "the server's rights"),
    # --- system-wide files that run code later (an agent running as root, in a container) ----
    _later("/etc/profile", "system shell start-up file: runs at every login"),
    _later("/etc/profile.d/**", "system shell start-up scripts: run at every login"),
    _later("/etc/bash.bashrc", "system bash start-up file: runs in every new shell"),
    _later("/etc/bashrc", "system bash start-up file: runs in every new shell"),
    _later("/etc/zsh/**", "system zsh start-up files: run in every zsh"),
    _later("/etc/zshrc", "system zsh start-up file: runs in every new shell"),
    _later("/etc/zshenv", "system zsh start-up file: runs in every zsh"),
    _later("/etc/zprofile", "system zsh start-up file: runs at login"),
    _later("/etc/environment", "environment of every login (PATH, LD_PRELOAD)"),
    _later("/etc/ld.so.preload", "libraries loaded into every program that starts"),
    _later("/etc/ld.so.conf", "where every program's libraries are looked up"),
    _later("/etc/ld.so.conf.d/**", "where every program's libraries are looked up"),
    _later("/etc/crontab", "runs commands on a schedule"),
    _later("/etc/cron.*/**", "runs commands on a schedule"),
    _later("/etc/anacrontab", "runs commands on a schedule"),
    _later("/etc/systemd/**", "system services and timers started by systemd"),
    _later("/etc/init.d/**", "services started at boot"),
    _later("/etc/rc.local", "runs at boot"),
    _later("/etc/xdg/autostart/**", "programs started at every graphical login"),
    _later("/usr/local/bin/**", "on PATH before the system's programs: a file there shadows "
           "commands"),
    _later("/usr/local/sbin/**", "on root's PATH: a file there shadows commands"),
    _later("/usr/bin/**", "system programs on PATH: replacing one changes what every command "
           "runs"),
    _later("/usr/sbin/**", "system programs on root's PATH"),
    _later("/bin/**", "system programs on PATH"),
    _later("/sbin/**", "system programs on root's PATH"),
    *(_later(f"{folder}/**", "system libraries: loaded into the programs that run")
      for folder in ("/usr/lib", "/usr/lib64", "/usr/libexec", "/lib", "/lib64")),
    # (after the entries above: a file that runs code later under /etc or /usr — a kernel spec,
    # a .pth, Jupyter config — keeps that reading; first opinion wins)
    # (/bin, /sbin, /lib, /lib64 are wholly covered by the later entries above)
    _e("/etc/**", "system configuration", write=_W),
    _e("/usr/**", "system programs and libraries", write=_W),
    # --- this product's own permissions ------------------------------------------------------
    _e("**/.agenttools/settings*.json", "agenttools permission settings: an agent must not "
       "change its own permissions", write=_W),
    _e("**/agenttools/settings*.json", "agenttools permission settings: an agent must not "
       "change its own permissions", write=_W),
    _e("**/agenttools/managed-settings.json", "agenttools managed permission settings",
       write=_W),
    _e("**/.agenttools/audit.jsonl", "the permission audit log", write=_W),
    _e("**/.claude/settings*.json", "an agent's permission settings", write=_W),
)

_GLOB_CHARS = frozenset("*?[")


def glob_to_regex(pattern: str) -> str:
    """Translate a gitignore-style glob to a regex body (no anchors) matching full paths.

    ``*`` / ``?`` stay in one segment, ``**`` as a whole segment spans zero or more segments,
    ``[...]`` is a class (``[!...]`` negates), other characters are literal.
    """
    out: list[str] = []
    segments = pattern.split("/")
    n = len(segments)
    for i, seg in enumerate(segments):
        last = i == n - 1
        if seg == "**":
            if last:
                # "a/**": everything below a (the "/" was already emitted)
                if out and out[-1] == "/":
                    out[-1] = "(?:/.*)?"
                else:
                    out.append(".*")
            elif not out or out[-1] == "/":
                out.append("(?:[^/]*/)*")  # "**/": zero or more whole segments
            elif out[-1] != "(?:[^/]*/)*":  # (a repeated "**/" adds nothing)
                out.append("[^/]*/")
            continue
        out.append(_segment_regex(seg))
        if not last:
            out.append("/")
    return "".join(out)


def _segment_regex(seg: str) -> str:
    out: list[str] = []
    i, n = 0, len(seg)
    while i < n:
        c = seg[i]
        if c == "*":
            while i + 1 < n and seg[i + 1] == "*":
                i += 1
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = i + 1
            if j < n and seg[j] in "!^":
                j += 1
            if j < n and seg[j] == "]":
                j += 1
            while j < n and seg[j] != "]":
                j += 1
            if j >= n:  # no closing bracket: a literal "["
                out.append(re.escape(c))
            else:
                body = seg[i + 1:j]
                neg = body[:1] in ("!", "^")
                if neg:
                    body = body[1:]
                body = "".join(c if c == "-" else re.escape(c) for c in body if c != "/")
                cls = f"[{'^/' if neg else ''}{body}]" if body or neg else "(?!)"
                try:
                    re.compile(cls)
                except re.error:  # a reversed range such as [z-a]: the text is literal
                    cls = re.escape(seg[i:j + 1])
                out.append(cls)
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


@dataclass(frozen=True)
class _Compiled:
    """The table for one home directory, indexed so a lookup tries only a few regexes.

    Each entry is filed under one cheap key the path must have if the entry can match it:
    ``("n", basename)``, ``("e", extension)``, ``("a", a literal ancestor directory)`` or
    ``("s", a literal segment anywhere)``; entries with no such key are always tried.
    """

    index: dict[str, dict[str, tuple[int, ...]]]  # key kind -> key -> entry indexes
    always: tuple[int, ...]
    regexes: tuple[re.Pattern[str], ...]  # one per entry, full-path match
    seg_keys: frozenset[str]


def _anchor(pattern: str, home: str) -> str:
    if pattern.startswith("~/"):
        home = re.sub(r"([*?\[])", r"[\1]", home.rstrip("/"))  # a home with glob characters
        return home + pattern[1:]
    if pattern.startswith("/"):
        return pattern
    if pattern.startswith("**/"):
        return "/" + pattern
    return "/**/" + pattern  # no slash: any depth


def _literal(segment: str) -> bool:
    return segment != "" and not _GLOB_CHARS.intersection(segment)


def _key(full: str) -> tuple[str, str] | None:
    segs = full.lower().split("/")[1:]
    last = segs[-1]
    if _literal(last):
        return ("n", last)
    tail = last.rsplit(".", 1)
    if len(tail) == 2 and _literal(tail[1]) and last != "**":
        return ("e", tail[1])
    if segs[0] != "**":  # anchored: the longest literal leading directory
        lead = []
        for seg in segs[:-1]:
            if not _literal(seg):
                break
            lead.append(seg)
        if lead:
            return ("a", "/" + "/".join(lead))
    for seg in segs[:-1]:
        if _literal(seg):
            return ("s", seg)
    return None


@lru_cache(maxsize=16)
def _compile(home: str) -> _Compiled:
    index: dict[str, dict[str, list[int]]] = {"n": {}, "e": {}, "a": {}, "s": {}}
    always: list[int] = []
    regexes = []
    for idx, entry in enumerate(TABLE):
        full = _anchor(entry.pattern, home)
        regexes.append(re.compile(glob_to_regex(full) + r"\Z", re.IGNORECASE | re.DOTALL))
        key = _key(full)
        if key is None:
            always.append(idx)
        else:
            index[key[0]].setdefault(key[1], []).append(idx)
    frozen = {kind: {k: tuple(v) for k, v in d.items()} for kind, d in index.items()}
    return _Compiled(frozen, tuple(always), tuple(regexes), frozenset(index["s"]))


def _normal(path: object, home: str) -> str | None:
    """A normalised absolute-looking path, or None for input that is not a path at all."""
    if not isinstance(path, str) or not path or "\x00" in path:
        return None
    if path == "~" or path.startswith("~/"):
        path = home.rstrip("/") + path[1:]
    path = os.path.normpath(path)
    if path.startswith("//"):
        path = "/" + path.lstrip("/")
    if not path.startswith("/"):
        # relative: the caller should have canonicalised; rooting it lets the any-depth
        # patterns see its segments (over-matching a home pattern is the safe side)
        path = "/" if path == "." else "/" + path
    return path


def _candidates(low: str, table: _Compiled) -> list[int]:
    index = table.index
    found: list[int] = list(table.always)
    base = low[low.rfind("/") + 1:]
    hit = index["n"].get(base)
    if hit:
        found.extend(hit)
    dot = base.rfind(".")
    if dot >= 0:
        hit = index["e"].get(base[dot + 1:])
        if hit:
            found.extend(hit)
    anc = index["a"]
    i = low.find("/", 1)
    while i != -1:
        hit = anc.get(low[:i])
        if hit:
            found.extend(hit)
        i = low.find("/", i + 1)
    hit = anc.get(low)
    if hit:
        found.extend(hit)
    segs = index["s"]
    if not table.seg_keys.isdisjoint(low.split("/")):
        for seg in low.split("/"):
            hit = segs.get(seg)
            if hit:
                found.extend(hit)
    found.sort()
    return found


def _first(path: object, home: object, column: str) -> Entry | None:
    if not isinstance(path, str):
        return None
    if not isinstance(home, str) or not home.startswith("/") or "\x00" in home:
        home = os.path.expanduser("~")
    return _first_str(path, home, column)


@lru_cache(maxsize=8192)
def _first_str(path: str, home: str, column: str) -> Entry | None:
    # A pure function of its strings (the table is constant, no file system access), so the
    # Bash analysis asking about the same words again costs a dictionary lookup.
    norm = _normal(path, home)
    if norm is None:
        return None
    table = _compile(os.path.normpath(home))
    for i in _candidates(norm.lower(), table):
        verdict = getattr(TABLE[i], column)
        if verdict is not None and table.regexes[i].match(norm):
            return TABLE[i] if verdict != OK else None
    return None


def read_verdict(path: str, home: str) -> tuple[str, str] | None:
    """``(CREDENTIAL|SECRET, reason)`` when reading ``path`` may leak a secret, else None."""
    entry = _first(path, home, "read")
    return (entry.read, entry.reason) if entry is not None and entry.read else None


def secret_reason(path: str, home: str) -> str | None:
    """Why reading ``path`` would reveal a secret, or None. Never raises."""
    entry = _first(path, home, "read")
    return entry.reason if entry is not None else None


def is_key_or_credential(path: str, home: str) -> bool:
    """True for private keys and credential files: reading them is a safety ASK."""
    entry = _first(path, home, "read")
    return entry is not None and entry.read == CREDENTIAL


def runs_code_later_reason(path: str, home: str) -> str | None:
    """Why writing ``path`` makes code run later where no one reviews it (a shell start-up
    file, a git hook, an interpreter, IPython/Jupyter start-up…: the entries marked
    ``later``), or None. Such a write is a safety ASK in bypass mode too. Never raises."""
    entry = _first(path, home, "write")
    return entry.reason if entry is not None and entry.later else None


def sensitive_write_reason(path: str, home: str) -> str | None:
    """Why writing ``path`` is dangerous (runs code later, changes credentials or the agent's
    own permissions), or None. Never raises."""
    entry = _first(path, home, "write")
    if entry is not None:
        return entry.reason
    return _own_settings_reason(path)


def _own_settings_reason(path: object) -> str | None:
    """The settings locations moved by environment variables (see permission/settings.py).
    Settings files are JSON: other names are not looked at (keeps this off the hot path)."""
    if not isinstance(path, str) or not path[-5:].lower() == ".json":
        return None
    user_dir = os.environ.get("AGENTTOOLS_USER_DIR")
    managed = os.environ.get("AGENTTOOLS_MANAGED_SETTINGS")
    if not (user_dir or managed) or "\x00" in path:
        return None
    norm = os.path.normpath(path)
    if user_dir and "\x00" not in user_dir:
        d = os.path.normpath(os.path.expanduser(user_dir))
        if norm == d or norm.startswith(d.rstrip("/") + "/"):
            return "agenttools user settings: an agent must not change its own permissions"
    if managed and "\x00" not in managed and norm == os.path.normpath(managed):
        return "agenttools managed settings: an agent must not change its own permissions"
    return None


@lru_cache(maxsize=1)
def search_exclude_globs() -> tuple[str, ...]:
    """ripgrep ``--glob`` arguments (``!pattern``) that keep secret files out of a recursive
    search, for the Grep tool: ``rg --hidden`` over a project would otherwise print the lines
    of its ``.env``. Home-anchored entries become any-depth ones (``~/.aws/**`` →
    ``!**/.aws/**``); absolute system entries are left out (such searches ask anyway)."""
    out: dict[str, None] = {}
    for entry in TABLE:
        if entry.read not in (SECRET, CREDENTIAL):
            continue
        pattern = entry.pattern
        if pattern.startswith("~/"):
            pattern = "**/" + pattern[2:]
        elif pattern.startswith("/"):
            continue
        out.setdefault("!" + pattern, None)
    return tuple(out)
