"""Builtins and tools with their own syntax: echo, printf, cd, command, test, printenv, ps,
package managers' listings, gh, docker, jq, lsof, version queries; and what prints secrets or
changes the whole machine.
"""

from __future__ import annotations

from typing import Callable

from ..effects import CODE, LIST, READ, Effects, Run
from ..environment import PRINT_SAFE_VARS
from ..words import DYNAMIC, LITERAL, Word
from .base import STRINGS, Program, apply_found, options, report_scan, veto
from .scanner import REQUIRED, Option, scan

__all__ = ["SYSTEM", "DECLARATION_PRINTERS", "secret_printer", "system_change"]


def _yes(reason: str) -> Effects:
    return Effects(True, reason)


def _no(reason: str) -> Effects:
    return Effects(False, reason)


def echo(argv: list[Word]) -> Effects:
    effects = _yes("prints its arguments")
    for word in argv[1:]:
        if word.kind != DYNAMIC:
            continue
        if "${!" in word.text:
            return effects.no("indirect expansion ${!…} prints any variable")
        unsafe = [value for value in word.vars if value not in PRINT_SAFE_VARS]
        if unsafe:
            effects.env += (unsafe[0],)
            return effects.no(f"prints ${unsafe[0]}, which may hold a secret")
    return effects


def printf(argv: list[Word]) -> Effects:
    # bash's printf -v NAME assigns a variable (PATH, then the next command runs another
    # binary) and an array subscript `a[$(cmd)]` runs cmd
    first = argv[1] if len(argv) > 1 else None
    if first is not None and (first.value is None or first.value.startswith("-v")):
        name = (first.value or "")[2:] or (argv[2].value if len(argv) > 2 else None)
        # a lower-case plain name is not one bash acts on (PATH, IFS, BASH_ENV, PS4 …)
        if not (name and name.isidentifier() and name == name.lower() and
                name not in ("auto_resume", "histchars")) or first.value is None:
            return _no("printf -v assigns a shell variable (PATH, or a subscript that runs "
                       "code)")
    effects = echo(argv)
    if effects.read_only:
        effects.reason = "formats its arguments"
    return effects


def printenv(argv: list[Word]) -> Effects:
    names = [word for word in argv[1:] if not (word.value or "").startswith("-")]
    if not names:
        effects = _no("prints the whole environment, where API keys live")
        effects.env = ("*",)
        effects.secret = effects.reason
        return effects
    effects = _yes("prints harmless environment variables")
    for word in names:
        if word.value not in PRINT_SAFE_VARS:
            effects.env += (word.value or "?",)
            effects.secret = f"prints the variable {word.text!r}, which may hold a secret"
            effects.no(effects.secret)
    return effects


def cd(argv: list[Word]) -> Effects:
    effects = _yes("changes the working directory of this shell only")
    physical = False
    rest = argv[1:]
    while rest:  # options, bundled or not (`cd -Pe x`), as bash's getopt reads them
        value = rest[0].value or ""
        if value == "--":
            rest = rest[1:]
            break
        if len(value) < 2 or value[0] != "-" or rest[0].kind != LITERAL:
            break
        if any(letter not in "LPe@" for letter in value[1:]):
            effects.cwd = Word(rest[0].text, None)
            return effects.no(f"cd {value}: not a known option")
        physical = physical or "P" in value
        rest = rest[1:]
    if len(rest) > 1:
        return effects.no("cd takes one directory")
    if not rest:
        effects.cwd = Word("~", "~", tilde=True)
        return effects
    target = rest[0]
    effects.cwd = target
    if target.kind == DYNAMIC:
        effects.no("cd to a directory decided at run time")
    elif target.value == "-":
        effects.cwd = Word("~-", None)
        effects.no("cd - goes to a directory decided at run time")
    elif target.kind != LITERAL:
        effects.no("cd to a glob: where later relative names resolve is decided at run time")
    elif physical and ".." in (target.value or "").split("/"):
        # `cd -P link/..` resolves the link before `..` (the link's parent, not ours); the
        # directories are resolved lexically, as a plain `cd` does
        effects.cwd = Word(target.text, None)
        effects.no("cd -P with .. goes where the symlinks lead, decided at run time")
    return effects


def pushd(argv: list[Word]) -> Effects:
    """pushd DIR is cd DIR; without a directory, or with +N/-N, it goes to an entry of the
    directory stack (decided at run time); -n changes no directory."""
    words = [word for word in argv[1:] if word.value != "--"]
    if any(word.value == "-n" for word in words):
        return _no("pushd -n changes the directory stack")
    value = words[0].value if len(words) == 1 else None
    if not words or (value is not None and value[:1] in "+-" and value[1:].isdigit()):
        effects = _no("pushd goes to a directory of the stack, decided at run time")
        effects.cwd = Word("pushd", None)
        return effects
    return cd(argv)


def popd(argv: list[Word]) -> Effects:
    effects = _no("popd goes to a directory decided at run time")
    effects.cwd = Word("popd", None)
    return effects


def command_query(argv: list[Word]) -> Effects:
    flags = [word.value for word in argv[1:] if (word.value or "").startswith("-")]
    if any(found not in ("-v", "-V", "-p") for found in flags) or not ({"-v", "-V"} & set(flags)):
        return _no("command without -v/-V runs its argument")
    return _yes("command -v/-V only looks a name up")


def version_only(*forms: str) -> Callable[[list[Word]], Effects]:
    allowed = frozenset(forms)

    def check(argv: list[Word]) -> Effects:
        values = [word.value for word in argv[1:]]
        if len(values) == 1 and values[0] in allowed:
            return _yes("prints its version")
        return _no(f"{argv[0].value} runs code unless only asked for its version")
    return check


# options of the listing forms below that change only what is listed or how (not -H/--host:
# ssh; not --config, --userconfig, --registry: code or settings from elsewhere)
_CONDA_TAIL = ("--json --export --explicit --revisions --full-name --no-pip --md5 "
               "--show-channel-urls --canonical -c -n --name -p --prefix -e --envs -a --all "
               "-v --verbose -q --quiet -s --system --base")
_NPM_TAIL = ("--json --depth --all -a --long -l --parseable -p --global -g --omit --include "
             "--link --workspace -w --workspaces --ws --production --dev --unicode "
             "--no-unicode --package-lock-only")
_SYSTEMCTL_TAIL = ("--no-pager -l --full -a --all -t --type --state -n --lines --no-legend "
                   "--legend --plain -o --output --user --system -q --quiet --failed --value "
                   "-p --property -P --reverse -r --recursive --with-dependencies --version")


def subcommands(forms: set[tuple[str, ...]], reason: str, any_tail: bool = True,
                tail_options: str = "") -> Callable[[list[Word]], Effects]:
    """Read-only when the words after the program start with one of ``forms``, followed when
    ``any_tail`` by names and the options of ``tail_options`` (space separated, with their
    dashes; ``--name=value`` spells a value); nothing else otherwise. Other options are not
    read-only: `jupyter kernelspec list --config=x.py` runs x.py, `systemctl status -H host`
    runs ssh, `npm ls --userconfig=f` reads settings from any file."""
    ordered = sorted(forms, key=len, reverse=True)
    allowed = frozenset(tail_options.split())

    def check(argv: list[Word]) -> Effects:
        words = argv[1:]
        if any(word.kind != LITERAL for word in words):
            return _no("an argument decided at run time")
        values = tuple(word.value for word in words)
        for form in ordered:
            count = len(form)
            if values[:count] == form and (any_tail or len(values) == count):
                for value in values[count:]:
                    name = (value or "").split("=", 1)[0]
                    if name.startswith("-") and name not in allowed:
                        return _no(f"{argv[0].value} {name} is not a known listing option")
                return _yes(reason)
        return _no(f"{argv[0].value} {' '.join(value or '' for value in values[:2])} is not a "
                   "known read-only form")
    return check


# procps ps (`ps --help all`). Options are allow-listed because ps re-reads a command line it
# cannot parse the SysV way BSD-style (`ps -axe` is `ps axe`, `ps -uxe` too when there is no
# user "xe"), and the BSD flag `e` prints every process's environment, where API keys live.
_PS_SYSV_FLAGS = frozenset("AaedNfFjlMwyZcHLmPTV")
_PS_SYSV_VALUES = frozenset("CGgOopqstUuk")
_PS_BSD_FLAGS = frozenset("axTrjlsuvXfwchnSmHLVZ")  # not `e`: the environment
_PS_BSD_VALUES = frozenset("OopqtUk")
_PS_LONG_FLAGS = frozenset({"--forest", "--headers", "--no-headers", "--cumulative", "--help",
                            "--version", "--deselect", "--context", "--info"})
_PS_LONG_VALUES = frozenset({"--pid", "--ppid", "--quick-pid", "--sid", "--tty", "--user",
                             "--User", "--group", "--Group", "--sort", "--format", "--cols",
                             "--columns", "--width", "--rows", "--lines"})


def ps(argv: list[Word]) -> Effects:
    words = argv[1:]
    i = 0
    while i < len(words):
        value = words[i].value
        i += 1
        if value is None:
            return _no("an argument decided at run time")
        if value.startswith("--"):
            name = value.split("=", 1)[0]
            if name in _PS_LONG_VALUES:
                i += "=" not in value  # the value is the next word
            elif name not in _PS_LONG_FLAGS:
                return _no(f"ps {name} is not a known listing option")
            continue
        if value.replace(",", "").isdigit():
            continue  # process ids
        dash = value.startswith("-")
        flags = _PS_SYSV_FLAGS if dash else _PS_BSD_FLAGS
        takes = _PS_SYSV_VALUES if dash else _PS_BSD_VALUES
        letters = value[1:] if dash else value
        if not letters:
            return _no("ps: an empty option")
        for position, letter in enumerate(letters):
            if letter in takes:
                attached = letters[position + 1:]
                if not attached:
                    i += 1  # the value is the next word
                elif "e" in attached:
                    # `-uxe`: a value ps may fail to look up, then re-read as BSD flags
                    return _no("ps: an attached value ps may re-read as flags (e shows "
                               "every process's environment)")
                break
            if letter not in flags:
                if letter == "e" and not dash:
                    return _no("ps e shows the environment of every process, where API "
                               "keys live")
                return _no(f"ps {value}: {letter!r} is not a known listing option (ps "
                           "may then re-read the options BSD-style, where e shows "
                           "environments)")
    return _yes("lists processes")


_NVIDIA_OK = frozenset({"-L", "--list-gpus", "-q", "--query", "-x", "--xml-format", "-d",
                        "--display", "-i", "--id", "-u", "--unit", "--query-gpu",
                        "--query-compute-apps", "--query-accounted-apps",
                        "--query-supported-clocks", "--format", "-h", "--help", "--version",
                        "topo", "-m", "--matrix", "-a"})
_NVIDIA_VALUE = frozenset({"-d", "--display", "-i", "--id"})


def nvidia_smi(argv: list[Word]) -> Effects:
    i = 1
    while i < len(argv):
        value = argv[i].value
        i += 1
        if value is None:
            return _no("an argument decided at run time")
        name = value.split("=", 1)[0]
        if name not in _NVIDIA_OK:
            return _no(f"nvidia-smi {name} is not a listing option (it may change GPU "
                       "settings, loop, or write a file)")
        if name in _NVIDIA_VALUE and "=" not in value:
            i += 1
    return _yes("nvidia-smi listing/query only")


_PIP_SUBS = frozenset({"list", "show", "freeze", "check"})
_PIP = options(
    "voqlue", "", "verbose outdated uptodate editable local user not-required "
    "exclude-editable include-editable pre files disable-pip-version-check no-color quiet "
    "isolated no-input no-cache-dir all path-never", "format exclude timeout cache-dir",
    special={
        "--log": veto("writes a log file", REQUIRED),
        "--log-file": veto("writes a log file", REQUIRED),
        "--report": veto("writes a report file", REQUIRED),
        "--path": veto("reads another tree", REQUIRED),
        "--python": veto("runs another interpreter", REQUIRED),
        **{k: veto("contacts a server the command names", REQUIRED)
           for k in ("-i|--index-url", "--extra-index-url", "-f|--find-links", "--proxy",
                     "--trusted-host", "--client-cert", "--cert")},
    }, complete=False)


def pip(argv: list[Word]) -> Effects:
    values = [word.value for word in argv[1:]]
    if values in (["--version"], ["-V"]):
        return _yes("prints its version")
    if not values or values[0] not in _PIP_SUBS:
        effects = _no("only pip list/show/freeze/check are read-only")
        if values and values[0] in ("install", "download", "search", "index", "wheel"):
            effects.network = f"pip {values[0]} downloads packages"
        return effects
    parsed = scan(argv, _PIP, 2)
    effects = _yes(f"pip {values[0]} only lists installed packages")
    if parsed.problems:
        effects.no(f"pip {values[0]} {parsed.problems[0]}")
    apply_found(parsed, effects, f"pip {values[0]}")
    if parsed.loose:
        effects.no("pip: an argument decided at run time")
    return effects


def python(argv: list[Word]) -> Effects:
    values = [word.value for word in argv[1:]]
    if len(values) == 1 and values[0] in ("--version", "-V", "-VV"):
        return _yes("prints its version")
    if len(values) >= 2 and values[0] == "-m" and values[1] in ("pip", "pip3"):
        return pip([Word("pip", "pip")] + argv[3:])
    return _no("the interpreter runs code")


_GH_READ = {("pr", "list"), ("pr", "view"), ("pr", "status"), ("pr", "diff"), ("pr", "checks"),
            ("issue", "list"), ("issue", "view"), ("issue", "status"), ("repo", "view"),
            ("run", "list"), ("run", "view"), ("release", "list"), ("release", "view"),
            ("auth", "status")}


def gh(argv: list[Word]) -> Effects:
    values = [word.value for word in argv[1:]]
    if None in values:
        return _no("an argument decided at run time")
    if values in (["--version"], ["version"]):
        return _yes("prints its version")
    if len(values) >= 2 and (values[0], values[1]) in _GH_READ:
        for word_value in (value or "" for value in values):  # no None: checked above
            name = word_value.split("=", 1)[0]
            # pflag: `-th` bundles -t, `--web=true` spells --web
            if name in ("--web", "--show-token") or (
                    word_value.startswith("-") and not word_value.startswith("--") and
                    ("t" in name[1:] or "w" in name[1:])):
                return _no("opens a browser or prints the token")
        effects = _yes(f"gh {values[0]} {values[1]} only reads")
        effects.network = "gh talks to GitHub"
        return effects
    effects = _no("not a read-only gh command")
    effects.network = "gh talks to GitHub"
    return effects


def docker(argv: list[Word]) -> Effects:
    values = [word.value for word in argv[1:]]
    if values and values[0] in ("ps", "images", "version", "--version") and None not in values:
        return _yes("docker listing")
    return _no("not a read-only docker command")


_JQ = options(
    "cnjaCMSsreRh", "",
    "compact-output null-input join-output ascii-output color-output monochrome-output "
    "sort-keys slurp raw-output exit-status raw-input tab seq stream stream-errors "
    "unbuffered raw-output0 help version args jsonargs",
    "indent",
    special={
        "--arg": Option(REQUIRED, "", "", "two"),
        "--argjson": Option(REQUIRED, "", "", "two"),
        "--slurpfile": Option(REQUIRED, "", "", "two-file"),
        "--rawfile": Option(REQUIRED, "", "", "two-file"),
        "-f|--from-file": veto("reads its program from a file that can't be reviewed here",
                               REQUIRED),
        "-L": veto("loads jq modules from a directory", REQUIRED),
    }, complete=False)
_JQ_ENV = ("$ENV", "$__prog_args", "input_filename")


def jq(argv: list[Word]) -> Effects:
    # --arg NAME VALUE / --slurpfile NAME FILE take two words: the scanner sees the name as
    # the value, so the second word is taken here
    words: list[Word] = [argv[0]]
    second: list[tuple[str, Word]] = []
    i = 1
    while i < len(argv):
        word = argv[i]
        if word.value in ("--arg", "--argjson", "--slurpfile", "--rawfile") and i + 2 < len(argv):
            words.append(word)
            words.append(argv[i + 1])
            second.append((word.value, argv[i + 2]))
            i += 3
            continue
        words.append(word)
        i += 1
    parsed = scan(words, _JQ, 1)
    effects = _yes("jq filters JSON; it cannot write files or run commands")
    report_scan(parsed, _JQ, effects, "jq")
    for option, word in second:
        if option in ("--slurpfile", "--rawfile"):
            effects.add(READ, word)
    operands = parsed.operands
    if parsed.has("-f", "--from-file"):
        files = operands
    else:
        if not operands:
            if not parsed.has("-n", "--null-input"):
                return effects.no("jq without a program")
            return effects
        program = operands[0]
        files = operands[1:]
        if program.kind != LITERAL:
            return effects.no("the jq program is decided at run time")
        text = program.value or ""
        compact = text.replace(" ", "").replace("\t", "").replace("\n", "")
        if any(k.replace(" ", "") in compact for k in _JQ_ENV) or _word_in(text, "env"):
            effects.env = ("*",)
            effects.no("the jq program reads the environment, where API keys live")
        for module in ("include", "import", "modulemeta", "get_search_list"):
            if _word_in(text, module):
                effects.no("the jq program loads a module that can't be reviewed here")
    if parsed.has("--args", "--jsonargs"):
        files = []
    for word in files:
        effects.add(READ, word)
        if word.kind == DYNAMIC:
            effects.no("jq reads a file named at run time")
    return effects


def _word_in(text: str, word: str) -> bool:
    """``word`` appears in ``text`` as a whole identifier (linear scan)."""
    start = 0
    count = len(word)
    while True:
        k = text.find(word, start)
        if k < 0:
            return False
        before = text[k - 1] if k > 0 else " "
        after = text[k + count] if k + count < len(text) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return True
        start = k + 1


def lsof(argv: list[Word]) -> Effects:
    """lsof's options start with ``-`` or ``+``; ``-r``/``+r`` repeat forever."""
    effects = _yes("lists open files")
    for word in argv[1:]:
        value = word.value
        if value is None:
            return effects.no("an argument decided at run time")
        if value[:1] in ("-", "+") and not value.startswith("--") and "r" in value[1:2]:
            return effects.no(f"lsof {value[:2]} repeats forever")
        if value[:1] == "+" and value[1:2] in ("D", "d") and len(value) == 2:
            continue
    return effects


def test(argv: list[Word]) -> Effects:
    effects = _yes("evaluates a condition")
    words = argv[1:]
    for k, word in enumerate(words):
        if word.value == "-v":
            return effects.no("test -v evaluates an array subscript, which can run commands")
        if word.kind == DYNAMIC and k + 1 < len(words) and words[k].text.startswith("-"):
            return effects.no("an operator decided at run time")
    return effects


# --- secrets and machine-wide changes ---------------------------------------------------------

_SECRET_COMMANDS: list[tuple[tuple[str, ...], str]] = [
    (("gh", "auth", "token"), "gh auth token prints your GitHub token"),
    (("aws", "configure", "get"), "prints AWS credentials"),
    (("aws", "configure", "export-credentials"), "prints AWS credentials"),
    (("aws", "sts", "get-session-token"), "prints AWS credentials"),
    (("aws", "ecr", "get-login-password"), "prints AWS credentials"),
    (("gcloud", "auth", "print-access-token"), "prints a Google Cloud token"),
    (("gcloud", "auth", "print-identity-token"), "prints a Google Cloud token"),
    (("gcloud", "auth", "application-default", "print-access-token"),
     "prints a Google Cloud token"),
    (("gcloud", "config", "config-helper"), "prints a Google Cloud token"),
    (("az", "account", "get-access-token"), "prints an Azure token"),
    (("kubectl", "get", "secret"), "prints Kubernetes secrets"),
    (("kubectl", "get", "secrets"), "prints Kubernetes secrets"),
    (("security", "find-generic-password"), "prints a keychain password"),
    (("security", "find-internet-password"), "prints a keychain password"),
    (("op", "read"), "prints a stored secret"), (("op", "item", "get"), "prints a stored secret"),
    (("vault", "read"), "prints a stored secret"),
    (("vault", "kv", "get"), "prints a stored secret"),
    (("secret-tool", "lookup"), "prints a stored secret"),
    (("keyring", "get"), "prints a stored secret"),
    (("heroku", "auth:token"), "prints a stored secret"),
    (("npm", "token", "list"), "prints a stored secret"),
    (("doppler", "secrets"), "prints a stored secret"),
]
# bash's declaration builtins: with no name (or only -p/-x) each prints variables with their
# values (`readonly -p`, `local` in a function too); one set for both readings of such a
# command — a plain command (the fast path) and tree-sitter's declaration_command (the walk)
DECLARATION_PRINTERS = frozenset({"export", "declare", "typeset", "readonly", "local"})
_PRINTERS = frozenset(first for words, _ in _SECRET_COMMANDS for first in words[:1]) | {
    "env", "printenv", "export", "declare", "typeset", "readonly", "local", "set", "compgen",
    "gh", "git", "kubectl", "pass"}
PRINTER_NAMES = _PRINTERS
# the entries of _SECRET_COMMANDS by program name, in table order
_SECRET_COMMANDS_OF: dict[str, list[tuple[tuple[str, ...], str]]] = {}
for _entry in _SECRET_COMMANDS:
    _SECRET_COMMANDS_OF.setdefault(_entry[0][0], []).append(_entry)


def secret_printer(argv: list[Word]) -> str:
    """Why this command prints credentials or the environment ("" if it does not)."""
    if not argv or argv[0].value is None:
        return ""
    name = argv[0].value
    if name not in _PRINTERS and not name.startswith("docker-credential-"):
        return ""
    rest = [word.value for word in argv[1:]]
    if name in ("env", "printenv") and not [value for value in rest if value is None or not
                                            value.startswith("-")]:
        return "prints the whole environment, where API keys live"
    if name == "printenv":
        bad = [value for value in rest if value is None or (not value.startswith("-") and
                                                            value not in PRINT_SAFE_VARS)]
        if bad:
            return f"prints the variable {bad[0] or '(decided at run time)'}, " \
                   "which may hold a secret"
    if name in DECLARATION_PRINTERS and all(
            value in ("-p", "-x", "-px", "-xp") for value in rest):
        if name in ("readonly", "local"):
            return "prints shell variables with their values, API keys included"
        return "prints the exported environment, where API keys live"
    if name in ("set", "compgen") and (not rest or rest in (["-e"], ["-v"], ["-o", "posix"])):
        return "prints every shell variable, API keys included"
    plain = [value for value in rest if value is not None and not value.startswith("-")]
    if name == "gh" and plain[:2] == ["auth", "status"] and any(
            value in ("-t", "--show-token") for value in rest):
        return "prints your GitHub token"
    if name == "git" and any(value is not None and value.startswith("credential")
                             for value in rest) and any(value in ("fill", "get") for value in rest):
        return "git credential prints stored passwords"
    if name == "kubectl" and plain[:2] == ["config", "view"] and "--raw" in rest:
        return "prints cluster credentials"
    if name == "pass" and plain and plain[0] not in ("ls", "list", "find", "search", "grep",
                                                     "init", "git", "help", "version"):
        return "prints a stored secret"
    if name.startswith("docker-credential-") and "get" in rest:
        return "prints registry credentials"
    for words, why in _SECRET_COMMANDS_OF.get(name, ()):
        if tuple(plain[:len(words) - 1]) == words[1:]:
            return why
    return ""


_POWER = frozenset({"shutdown", "reboot", "halt", "poweroff"})
SYSTEM_NAMES = _POWER | {"init", "telinit", "systemctl", "kill", "pkill", "killall", "crontab"}


def system_change(argv: list[Word]) -> str:
    """Why this command changes the whole machine ("" when it does not)."""
    name = argv[0].value if argv else None
    values = [word.value for word in argv[1:]]
    if name in _POWER or (name in ("init", "telinit") and values[:1] in (["0"], ["6"])) or (
            name == "systemctl" and any(value in ("poweroff", "reboot", "halt", "kexec")
                                        for value in values)):
        return f"{name} shuts down or restarts the machine"
    if name in ("kill", "pkill", "killall") and "-1" in values:
        return f"{name} -1 signals every process"
    if name == "crontab" and not any(value in ("-l",) for value in values):
        return "crontab installs or removes scheduled commands"
    return ""


SYSTEM: dict[str, Callable[[list[Word]], Effects]] = {
    "echo": echo, "printf": printf, "printenv": printenv, "cd": cd, "pushd": pushd,
    "popd": popd, "command": command_query, "ps": ps, "nvidia-smi": nvidia_smi,
    "pip": pip, "pip3": pip, "gh": gh,
    "docker": docker, "jq": jq, "lsof": lsof, "test": test, "[": test,
    "conda": subcommands({("list",), ("info",), ("env", "list"), ("--version",), ("-V",)},
                         "conda listing", tail_options=_CONDA_TAIL),
    "mamba": subcommands({("list",), ("info",), ("env", "list"), ("--version",)},
                         "mamba listing", tail_options=_CONDA_TAIL),
    "npm": subcommands({("ls",), ("list",), ("--version",), ("-v",), ("view",),
                        ("outdated",)}, "npm listing", tail_options=_NPM_TAIL),
    # not `jupyter server list`: it prints the servers' access tokens
    "jupyter": subcommands({("--version",), ("--paths",), ("kernelspec", "list"),
                            ("lab", "--version")}, "jupyter listing",
                           tail_options="--json --debug"),
    "ip": subcommands({("addr",), ("address",), ("a",), ("link",), ("l",), ("route",),
                       ("r",), ("neigh",), ("-br", "addr"), ("-br", "a"), ("-br", "link"),
                       ("addr", "show"), ("address", "show"), ("link", "show"),
                       ("route", "show"), ("a", "s"), ("-4", "addr"), ("-6", "addr")},
                      "ip listing", any_tail=False),
    "ifconfig": subcommands({(), ("-a",)}, "lists network interfaces", any_tail=False),
    "systemctl": subcommands({("status",), ("list-units",), ("list-unit-files",),
                              ("is-active",), ("is-enabled",), ("is-failed",),
                              ("list-timers",), ("--version",)}, "systemctl query",
                             tail_options=_SYSTEMCTL_TAIL),
    "timedatectl": subcommands({(), ("status",)}, "prints time settings", any_tail=False),
    "hostnamectl": subcommands({(), ("status",)}, "prints host settings", any_tail=False),
    "dmesg": Program("prints kernel messages", options(
        "HklrtTuxdSFLV", "fs",
        special={k: veto(why) for k, why in (
            ("-c|--read-clear", "clears the ring buffer"), ("-C|--clear", "clears the ring "
                                                                     "buffer"),
            ("-D|--console-off", "changes logging"), ("-E|--console-on", "changes logging"),
            ("-w|--follow", "waits forever"), ("-W|--follow-new", "waits forever"))} |
        {"-n|--console-level": veto("sets the console level", REQUIRED)},
        complete=False), STRINGS),
    "nvcc": version_only("--version", "-V"),
    "java": version_only("--version", "-version"),
    "go": version_only("version"),
    "cargo": version_only("--version", "-V"),
    "rustc": version_only("--version", "-V"),
    "gcc": version_only("--version"),
    "make": version_only("--version", "-v"),
    "cmake": version_only("--version"),
    "uv": version_only("--version", "-V"),
}

_ = (CODE, LIST, Run)
