"""The one table of programs that run other code: shells, wrappers and interpreters.

- **Shells** (bash, sh, dash, zsh, ksh, mksh, ash, yash, posh, tcsh, csh, fish, busybox sh,
  toybox sh …): ``-c STRING`` runs shell source (analysed in turn), a script operand runs a
  file, no operand (or ``-s``) runs standard input. Options are read the way the shells read
  them (``bash -o pipefail -c``, ``bash -xc``, ``--rcfile F`` runs F). csh, tcsh and fish
  speak another language: their source is still extracted for deny rules, but is code the
  analysis cannot vouch for.
- **Wrappers** run the rest of their argv after their own options, each with its option
  table (``nice -n5``, ``timeout -sKILL 5``, ``env -S 'cmd'``, ``stdbuf -oL``, ``xargs
  --max-ar 1`` — getopt prefix of ``--max-args``, ``script -qc``, ``su -lc``, ``sudo -u x``).
  *Transparent* wrappers (time, nice, nohup, timeout, stdbuf, env with harmless options,
  command, builtin, exec) change nothing about what runs: the inner command counts as the
  command for rules and read-only. When a wrapper's options cannot be parsed, the words after
  it are reported as an *inexact* run: every suffix may be the command, and deny/ask rules see
  each.
- **Interpreters** (python, perl, ruby, node, php, lua, R, julia, deno, bun, pwsh, osascript …)
  run code the analysis cannot read (``-c``/``-e`` code, a script file, a module, stdin);
  ``perl -i``/``ruby -i`` edit their operands in place.
"""

from __future__ import annotations

from typing import Callable

from ..effects import ARGV, CODE, READ, SCRIPT, SOURCE, STDIN, WRITE, Effects, Run
from ..environment import harmless_assignment
from ..words import DYNAMIC, LITERAL, Word, literal
from .base import maybe_reads, options
from .find import SAFE_WITH_ANY_ARGUMENTS
from .scanner import NO_ARG, OPTIONAL, REQUIRED, Option, Table, scan
from .system import pip

__all__ = ["SHELLS", "POSIX_SHELLS", "INTERPRETERS", "WRAPPERS", "TRANSPARENT",
           "RUNNERS", "runner_effects", "shell", "interpreter"]

# --- shells -------------------------------------------------------------------------------------

# shells whose language is the POSIX shell (their -c source is analysed like the command)
POSIX_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ksh93", "mksh", "oksh", "pdksh",
                          "ash", "yash", "posh", "rbash", "hush", "lksh", "bosh"})
# shells with another language: their source is extracted for deny rules only
OTHER_SHELLS = frozenset({"csh", "tcsh", "fish", "pwsh", "powershell", "nu", "elvish", "xonsh",
                          "rc", "es"})
SHELLS = POSIX_SHELLS | OTHER_SHELLS
# option letters that take the next word, per shell family
_SHELL_VALUE_LETTERS = {"posix": "oO", "csh": "", "fish": "cCdDopl"}
_BASH_LONG_VALUE = frozenset({"--rcfile", "--init-file"})
_BASH_LONG = frozenset({"--norc", "--noprofile", "--posix", "--login", "--restricted",
                        "--verbose", "--noediting", "--debugger", "--dump-strings",
                        "--dump-po-strings", "--wordexp", "--protected", "--help",
                        "--version", "--pretty-print"})


def shell(argv: list[Word]) -> Effects:
    name = _base(argv[0].value or "sh")
    language = "sh" if name in POSIX_SHELLS else name
    values = [word.value for word in argv[1:]]
    if values in (["--version"], ["-c", "--version"]):
        return Effects(True, "prints its version")
    effects = Effects(False, f"{name} runs shell code")
    if name in ("fish", "pwsh", "powershell", "nu", "elvish", "xonsh"):
        return _long_option_shell(name, argv, effects, language)
    family = "csh" if name in ("csh", "tcsh") else "posix"
    value_letters = _SHELL_VALUE_LETTERS[family]
    command = False
    stdin = False
    exact = True
    words = argv[1:]
    i = 0
    count = len(words)
    while i < count:
        word = words[i]
        value = word.value or ""
        if word.kind == DYNAMIC:
            exact = False
            break
        if value in ("-", "--"):
            i += 1
            break
        if value.startswith("--"):
            option = value.split("=", 1)[0]
            if option in _BASH_LONG_VALUE:
                file = literal(value.split("=", 1)[1]) if "=" in value else (
                    words[i + 1] if i + 1 < count else None)
                if file is not None:
                    effects.runs.append(Run(SCRIPT, name, argv=[file], language=language))
                    effects.add(READ, file)
                i += 1 if "=" in value else 2
                continue
            if option not in _BASH_LONG:
                exact = False
            i += 1
            continue
        if value[:1] in ("-", "+") and len(value) > 1:
            take = 0
            for letter in value[1:]:
                if letter == "c" and value[0] == "-":
                    command = True
                elif letter == "s":
                    stdin = True
                elif letter in value_letters:
                    take += 1
            i += 1 + take
            continue
        break
    operands = words[i:] if i <= count else []
    if not exact:
        effects.runs.append(Run(CODE, name, language=language, exact=False, argv=words))
        return effects
    if command:
        if not operands:
            return effects
        source = operands[0]
        if source.kind != LITERAL:
            effects.runs.append(Run(CODE, name, language=language))
        else:
            effects.runs.append(Run(SOURCE, name, source=source.value, language=language))
    elif stdin or not operands:
        effects.runs.append(Run(STDIN, name, language=language))
    else:
        effects.runs.append(Run(SCRIPT, name, argv=[operands[0]], language=language))
        effects.add(READ, operands[0])
    return effects


_FISH = options("ilnNPv", "dDo", "interactive login no-execute no-config print-rusage-self "
                "private version help", "debug debug-output features debug-stack-frames",
                special={"-c|--command": Option(REQUIRED, "", "", "command"),
                         "-C|--init-command": Option(REQUIRED, "", "", "command"),
                         "-p|--profile": Option(REQUIRED, "writes", "writes a profile"),
                         "--profile-startup": Option(REQUIRED, "writes", "writes a profile")},
                permute=False, complete=False)


def _long_option_shell(name: str, argv: list[Word], effects: Effects, language: str) -> Effects:
    """fish (getopt_long) and the PowerShell-style ``-Command``/``-c``/``-File`` shells."""
    if name == "fish":
        parsed = scan(argv, _FISH, 1)
        commands = parsed.tagged("command")
        for found in commands:
            if found.word is not None and found.word.kind == LITERAL:
                effects.runs.append(Run(SOURCE, name, source=found.word.value, language=language))
            else:
                effects.runs.append(Run(CODE, name, language=language))
        if parsed.problems:
            effects.runs.append(Run(CODE, name, language=language, exact=False, argv=argv[1:]))
        elif not commands:
            if parsed.operands:
                effects.runs.append(Run(SCRIPT, name, argv=parsed.operands[:1], language=language))
            else:
                effects.runs.append(Run(STDIN, name, language=language))
        return effects
    words = argv[1:]
    for k, word in enumerate(words):
        value = (word.value or "").lower()
        if value in ("-c", "-command", "-e", "--command", "-ec", "-encodedcommand") and \
                k + 1 < len(words):
            rest = words[k + 1:]
            if all(word.kind == LITERAL for word in rest):
                effects.runs.append(Run(SOURCE, name,
                                        source=" ".join(word.value or "" for word in rest),
                                        language=language))
            else:
                effects.runs.append(Run(CODE, name, language=language))
            return effects
    effects.runs.append(Run(CODE, name, language=language, exact=False, argv=words))
    return effects


# --- interpreters -------------------------------------------------------------------------------

class _Interpreter:
    """``code``: options whose value is program text; ``values``: other options with a value
    (attached or the next word); ``in_place``: an option editing the operands; ``module``:
    options naming a module to run."""

    __slots__ = ("code", "values", "in_place", "module", "language")

    def __init__(self, language: str, code: str = "", values: str = "", in_place: str = "",
                 module: str = "") -> None:
        self.language = language
        self.code = frozenset(code.split())
        self.values = frozenset(values.split())
        self.in_place = frozenset(in_place.split())
        self.module = frozenset(module.split())


_PYTHON = _Interpreter("python", "-c", "-W -X --check-hash-based-pycs", module="-m")
_PERL = _Interpreter("perl", "-e -E", "-I -M -m -x -0 -l -C -d -D", in_place="-i")
_RUBY = _Interpreter("ruby", "-e", "-I -r -C -E -F -K -T -W -x -0", in_place="-i")
_NODE = _Interpreter("javascript", "-e --eval -p --print", "-r --require --import "
                     "--input-type --loader --experimental-loader -C --conditions")
_INTERPRETER_SPECS = {
    "python": _PYTHON, "python2": _PYTHON, "python3": _PYTHON, "pypy": _PYTHON,
    "pypy3": _PYTHON, "ipython": _PYTHON, "ipython3": _PYTHON,
    "perl": _PERL, "ruby": _RUBY, "irb": _RUBY, "node": _NODE, "nodejs": _NODE,
    "bun": _Interpreter("javascript", "-e --eval -p --print", "-r --preload"),
    "deno": _Interpreter("javascript", "eval", ""),
    "php": _Interpreter("php", "-r", "-d -c -z", module="-f"),
    "lua": _Interpreter("lua", "-e", "-l"), "luajit": _Interpreter("lua", "-e", "-l -j -O"),
    "Rscript": _Interpreter("r", "-e --expr", ""), "R": _Interpreter("r", "-e", "-f"),
    "julia": _Interpreter("julia", "-e -E --eval --print", "-L --load -J -C -O -p -t"),
    "tclsh": _Interpreter("tcl"), "wish": _Interpreter("tcl"),
    "osascript": _Interpreter("applescript", "-e", "-l"),
    "guile": _Interpreter("scheme", "-c", "-l -e"), "racket": _Interpreter("racket", "-e",
                                                                           "-l -t -r"),
    "sbcl": _Interpreter("lisp", "--eval", "--load"), "ghci": _Interpreter("haskell", "-e"),
    "runghc": _Interpreter("haskell"), "scala": _Interpreter("scala", "-e"),
    "groovy": _Interpreter("groovy", "-e"), "jshell": _Interpreter("java"),
    "swift": _Interpreter("swift", "-e"), "elixir": _Interpreter("elixir", "-e"),
    "erl": _Interpreter("erlang", "-eval"), "ocaml": _Interpreter("ocaml"),
    "gawk-never": _Interpreter("awk"),
}
INTERPRETERS = frozenset(_INTERPRETER_SPECS) - {"gawk-never"}


def _base(name: str) -> str:
    return name.rsplit("/", 1)[-1] if "/" in name else name


def _interpreter_spec(name: str) -> _Interpreter | None:
    spec = _INTERPRETER_SPECS.get(name)
    if spec is None:
        stem = name.rstrip("0123456789.")
        spec = _INTERPRETER_SPECS.get(stem)
    return spec


def interpreter(argv: list[Word]) -> Effects:
    name = argv[0].value or "?"
    spec = _interpreter_spec(name) or _Interpreter(name)
    values = [word.value for word in argv[1:]]
    if len(values) == 1 and values[0] in _VERSION_FORMS.get(spec.language, ()):
        return Effects(True, "prints its version")
    if spec.language == "python" and values[:1] == ["-m"] and values[1:2] in (["pip"],
                                                                            ["pip3"]):
        return pip([literal("pip")] + argv[3:])
    effects = Effects(False, "the interpreter runs code")
    words = argv[1:]
    i = 0
    count = len(words)
    in_place = False
    while i < count:
        word = words[i]
        value = word.value or ""
        if word.kind == DYNAMIC:
            effects.runs.append(Run(CODE, name, language=spec.language, exact=False))
            return effects
        if value == "--":
            i += 1
            break
        if value == "-" or not value.startswith("-"):
            break
        option = value.split("=", 1)[0]
        if option in spec.code or any(value.startswith(letter) and len(letter) == 2 and
                                      len(value) > 2 for letter in spec.code) or (
                spec.language in ("perl", "ruby") and not value.startswith("--") and
                any(letter[1] in value[1:] for letter in spec.code)):
            effects.runs.append(Run(CODE, name, language=spec.language))
            if spec.language in ("perl", "ruby") and "i" in value[1:].split("e", 1)[0]:
                in_place = True
            # perl/ruby: the code is the next word (or the rest of the bundle after e)
            i += 2
            while i < count and (words[i].value or "").startswith("-") and \
                    spec.language in ("perl", "ruby") and words[i].value != "--":
                if any(letter in (words[i].value or "")[1:2] for letter in ("e", "E")):
                    i += 2
                else:
                    i += 1
            _in_place_operands(effects, words[i:], in_place)
            return effects
        if option in spec.module:
            effects.runs.append(Run(CODE, name, language=spec.language))
            return effects
        if option in spec.in_place or (spec.in_place and not value.startswith("--") and
                                       "i" in value[1:]):
            in_place = True
        if option in spec.values and "=" not in value and len(value) == len(option):
            i += 2
            continue
        i += 1
    operands = words[i:]
    if operands and operands[0].value != "-":
        effects.runs.append(Run(SCRIPT, name, argv=operands[:1], language=spec.language))
        effects.add(READ, operands[0])
        _in_place_operands(effects, operands[1:], in_place)
        maybe_reads(operands, effects, 1)
    else:
        effects.runs.append(Run(STDIN, name, language=spec.language))
    return effects


_VERSION_FORMS = {"python": ("--version", "-V", "-VV"), "javascript": ("--version", "-v"),
                  "ruby": ("--version",), "perl": ("--version", "-v"),
                  "php": ("--version", "-v"), "lua": ("-v",), "julia": ("--version", "-v"),
                  "r": ("--version",)}


def _in_place_operands(effects: Effects, operands: list[Word], in_place: bool) -> None:
    if in_place:
        for word in operands:
            effects.add(WRITE, word)
            effects.add(READ, word)
        effects.no("edits files in place")


# --- wrappers -------------------------------------------------------------------------------

class Wrapper:
    """``table``: the wrapper's options; ``skip``: operands before the command (timeout's
    duration, chroot's directory, flock's file); ``transparent``: changes nothing about
    what runs; ``source_options``: options whose value is shell source (``su -c``);
    ``no_command``: options after which nothing is run (``sudo -l``, ``ionice -p``)."""

    __slots__ = ("table", "skip", "transparent", "reason", "source_options", "no_command",
                 "default")

    def __init__(self, reason: str, table: Table, skip: int = 0, transparent: bool = False,
                 source_options: tuple[str, ...] = (), no_command: tuple[str, ...] = (),
                 default: str = "") -> None:
        self.reason = reason
        self.table = table
        self.skip = skip
        self.transparent = transparent
        self.source_options = source_options
        self.no_command = no_command
        self.default = default


def _w(letters: str = "", letter_values: str = "", flags: str = "", values: str = "",
       optional: str = "", special: dict[str, Option] | None = None,
       complete: bool = True, same: str = "", numbers: bool = False) -> Table:
    return options(letters, letter_values, flags, values, optional, same, special,
                   permute=False, complete=complete, numbers=numbers)


_SOURCE = Option(REQUIRED, "", "", "source")
_NONE = _w(complete=True)
_OPAQUE = _w(complete=False)
_RUN_HELP = "help version"

WRAPPERS: dict[str, Wrapper] = {
    "time": Wrapper("times a command", _w(
        "apqvV", "f", "append portability quiet verbose " + _RUN_HELP, "format",
        special={"-o|--output": Option(REQUIRED, "writes", "writes the timing to a file")}),
        transparent=True),
    "nice": Wrapper("runs a command at another priority", _w(
        "", "n", _RUN_HELP, "adjustment", numbers=True), transparent=True),
    "nohup": Wrapper("runs a command immune to hangups", _w("", "", _RUN_HELP),
                     transparent=True),
    "timeout": Wrapper("runs a command with a time limit", _w(
        "pfv", "sk", "preserve-status foreground verbose " + _RUN_HELP,
        "signal kill-after"), skip=1, transparent=True),
    "stdbuf": Wrapper("runs a command with other stdio buffering", _w(
        "", "ioe", _RUN_HELP, "input output error"), transparent=True),
    "command": Wrapper("runs a command bypassing functions", _w("p"), transparent=True),
    "builtin": Wrapper("runs a shell builtin", _NONE, transparent=True),
    "exec": Wrapper("replaces the shell with a command", _w(
        "cl", "", special={"-a": Option(REQUIRED, "", "", "argv0")}), transparent=True),
    "sudo": Wrapper("runs a command as another user", _w(
        "AbEHiKklnPSsVvB", "CDghpRrtTUu",
        "askpass background bell login remove-timestamp reset-timestamp list "
        "non-interactive preserve-groups stdin shell validate " + _RUN_HELP,
        "close-from chdir group host prompt chroot role type command-timeout other-user "
        "user", "preserve-env",
        special={"-e|--edit": Option(NO_ARG, "", "", "edit")}),
        no_command=("-l", "--list", "-v", "--validate", "-k", "-K", "--reset-timestamp",
                    "--remove-timestamp", "-V", "--version", "--help")),
    "doas": Wrapper("runs a command as another user", _w("Lns", "uC"),
                    no_command=("-L", "-C")),
    "run0": Wrapper("runs a command as another user", _OPAQUE),
    "pkexec": Wrapper("runs a command as another user", _w(
        "", "", "disable-internal-agent keep-cwd " + _RUN_HELP, "user")),
    "su": Wrapper("runs a shell as another user", options(
        "flmpP", "gGsw", "fast login preserve-environment pty " + _RUN_HELP,
        "group supp-group shell whitelist-environment",
        special={"-c|--command": _SOURCE, "--session-command": _SOURCE})),
    "runuser": Wrapper("runs a command as another user", options(
        "flmpP", "gGswu", "fast login preserve-environment pty " + _RUN_HELP,
        "group supp-group shell whitelist-environment user",
        special={"-c|--command": _SOURCE, "--session-command": _SOURCE})),
    "xargs": Wrapper("runs a command with arguments read from its input", _w(
        "0prtxo", "dEILnPs",
        "null interactive no-run-if-empty verbose exit open-tty show-limits " + _RUN_HELP,
        "delimiter max-args max-procs max-chars process-slot-var", "eof replace max-lines",
        special={"-a|--arg-file": Option(REQUIRED, "reads", "reads the arguments from a "
                                                           "file"),
                 "-e": Option(OPTIONAL), "-i": Option(OPTIONAL), "-l": Option(OPTIONAL)}),
        default="echo"),
    "parallel": Wrapper("runs commands in parallel with arguments from its input", _OPAQUE),
    "setsid": Wrapper("runs a command in a new session", _w(
        "cfw", "", "ctty fork wait " + _RUN_HELP)),
    "ionice": Wrapper("runs a command at another I/O priority", _w(
        "tu", "cnpP", "ignore " + _RUN_HELP, "class classdata pid pgid uid"),
        no_command=("-p", "-P", "-u", "--pid", "--pgid", "--uid")),
    "chrt": Wrapper("runs a command with another scheduling policy", _w(
        "abdefimorRv", "TPD", complete=False), skip=1, no_command=("-p", "-m")),
    "taskset": Wrapper("runs a command on some CPUs", _w("acpV", complete=False), skip=1,
                       no_command=("-p",)),
    "flock": Wrapper("runs a command holding a lock", _w(
        "sxeunoFh", "wE", "shared exclusive unlock nonblock close no-fork verbose "
        + _RUN_HELP, "timeout conflict-exit-code",
        special={"-c|--command": _SOURCE}), skip=1),
    "unbuffer": Wrapper("runs a command without buffering", _w("p")),
    "watch": Wrapper("runs a command repeatedly", _w(
        "bcegptwrq", "n", "beep color no-color chgexit errexit precise no-title no-wrap "
        "no-rerun " + _RUN_HELP, "interval", "differences",
        special={"-x|--exec": Option(NO_ARG, "", "", "exec"),
                 "-d": Option(OPTIONAL)}, complete=False)),
    "script": Wrapper("records a terminal session", options(
        "aefqh", "EImoT", "append return flush force quiet " + _RUN_HELP,
        "echo log-in log-out log-io log-timing logging-format output-limit", "timing",
        special={"-c|--command": _SOURCE, "-O": Option(REQUIRED), "-B": Option(REQUIRED),
                 "-t": Option(OPTIONAL)})),
    "chroot": Wrapper("runs a command in another root directory", _w(
        "", "", "skip-chdir " + _RUN_HELP, "userspec groups"), skip=1),
    "strace": Wrapper("traces a command's system calls", _OPAQUE),
    "ltrace": Wrapper("traces a command's library calls", _OPAQUE),
    "valgrind": Wrapper("runs a command under a debugger", _OPAQUE),
    "catchsegv": Wrapper("runs a command", _NONE),
    "nsenter": Wrapper("runs a command in other namespaces", _OPAQUE),
    "unshare": Wrapper("runs a command in new namespaces", _OPAQUE),
    "firejail": Wrapper("runs a command in a sandbox", _OPAQUE),
    "proot": Wrapper("runs a command in another root", _OPAQUE),
    "fakeroot": Wrapper("runs a command as a fake root", _OPAQUE),
    "torsocks": Wrapper("runs a command through Tor", _OPAQUE),
    "proxychains": Wrapper("runs a command through proxies", _OPAQUE),
    "proxychains4": Wrapper("runs a command through proxies", _OPAQUE),
    "dbus-run-session": Wrapper("runs a command in a D-Bus session", _OPAQUE),
    "xvfb-run": Wrapper("runs a command with a virtual display", _OPAQUE),
    "systemd-run": Wrapper("runs a command as a systemd unit", _OPAQUE),
    "entr": Wrapper("runs a command when files change", _OPAQUE),
    "caffeinate": Wrapper("runs a command keeping the machine awake", _OPAQUE),
    "gdb": Wrapper("runs a command under a debugger", _OPAQUE),
    "coproc": Wrapper("runs a command as a coprocess", _OPAQUE),
    "busybox": Wrapper("runs one of its applets", _OPAQUE),
    "toybox": Wrapper("runs one of its applets", _OPAQUE),
}
TRANSPARENT = frozenset(name for name, word in WRAPPERS.items() if word.transparent)
# `X run CMD`: tools that run a command in their environment (and may install packages)
_RUN_SUBCOMMAND = frozenset({"uv", "poetry", "pipenv", "conda", "mamba", "micromamba", "pixi",
                             "hatch", "pdm", "rye", "npm", "pnpm", "yarn"})
# download a package and run it
_DOWNLOAD_AND_RUN = frozenset({"npx", "pnpx", "bunx", "uvx", "pipx"})

_ENV = _w("i0v", "uC", "ignore-environment null debug list-signal-handling " + _RUN_HELP,
          "unset chdir", "block-signal default-signal ignore-signal",
          special={"-S|--split-string": Option(REQUIRED, "", "", "split"),
                   "-a|--argv0": Option(REQUIRED, "", "", "argv0"),
                   "-P": Option(REQUIRED, "", "", "path")}, same="-C=--chdir")


def env(argv: list[Word]) -> Effects:
    """env [OPTION]... [NAME=VALUE]... [COMMAND [ARG]...]: without a command it prints the
    environment; ``-S`` splits a string into the command; ``-C DIR`` runs it elsewhere."""
    parsed = scan(argv, _ENV, 1)
    effects = Effects(True, "runs a command with environment changes")
    transparent = True
    if parsed.found:
        # kept from the first analysis: env with options is not seen through by allow rules
        # or the read-only check (deny rules still see the command it runs)
        effects.no(f"env {parsed.found[0].name} changes the environment or how the command runs")
        transparent = False
    if parsed.problems:
        effects.runs.append(Run(ARGV, "env", argv=argv[1:], exact=False))
        effects.no(f"env {parsed.problems[0]}")
        return effects
    operands = list(parsed.operands)
    k = 0
    while k < len(operands):
        word = operands[k]
        value = word.value or ""
        if word.kind == LITERAL and "=" in value and \
                value.split("=", 1)[0].replace("_", "a").isalnum() and not value[0].isdigit():
            name = value.split("=", 1)[0]
            if not harmless_assignment(name):
                effects.no(f"{name}=… changes what runs or what it reads")
                transparent = False
            k += 1
            continue
        break
    command = operands[k:]
    for found in parsed.found:
        tag = found.option.tag
        if tag == "split":
            if found.word is not None and found.word.kind == LITERAL:
                effects.runs.append(Run(SOURCE, "env", source=found.word.value,
                                        language="env-split"))
            else:
                effects.runs.append(Run(CODE, "env", language="env-split"))
            effects.no("env -S splits a string into the command")
        elif tag in ("argv0", "path"):
            effects.no(f"env {found.name} changes which program runs or what it sees")
        elif found.name in ("-C",):
            effects.no("env -C runs the command in another directory")
            if found.word is not None:
                effects.cwd = found.word
    if not command:
        if not parsed.tagged("split"):
            effects.no("prints the whole environment, where API keys live")
            effects.env = ("*",)
            effects.secret = "prints the whole environment, where API keys live"
        return effects
    effects.runs.append(Run(ARGV, "env", argv=command, transparent=transparent))
    return effects


def wrapper(argv: list[Word]) -> Effects:
    name = _base(argv[0].value or "?")
    spec = WRAPPERS[name]
    effects = Effects(spec.transparent or name == "xargs", f"{name} {spec.reason}")
    if name in ("busybox", "toybox"):
        rest = argv[1:]
        if rest and rest[0].kind == LITERAL and not (rest[0].value or "").startswith("-"):
            effects.runs.append(Run(ARGV, name, argv=rest))
        elif rest:
            effects.runs.append(Run(ARGV, name, argv=rest, exact=False))
        effects.no(f"{name} applets are not the system's programs")
        return effects
    if name == "command" and any((word.value or "").startswith("-") and word.value not in
                                 ("-p", "--") for word in argv[1:2]):
        from_query = True
    else:
        from_query = False
    if from_query:
        return Effects(False, "command -v/-V")  # handled by the system table
    parsed = scan(argv, spec.table, 1)
    for found in parsed.found:
        if found.option.effect == "writes" and found.word is not None:
            effects.add(WRITE, found.word)
            effects.no(f"{name} {found.name}: {found.option.reason}")
        elif found.option.effect == "reads" and found.word is not None:
            effects.add(READ, found.word)
    if parsed.problems or parsed.loose:
        effects.no(f"{name}: " + (parsed.problems[0] if parsed.problems else
                                  "an option decided at run time"))
        effects.runs.append(Run(ARGV, name, argv=argv[1:], exact=False))
        return effects
    if any(found.name in spec.no_command for found in parsed.found):
        effects.no(f"{name} {parsed.found[0].name}")
        return effects
    sources = [found for found in parsed.found if found.option.tag == "source"]
    operands = parsed.operands[spec.skip:]
    if name == "sudo" and parsed.has("-e"):
        for word in parsed.operands:
            effects.add(WRITE, word)
        effects.no("sudo -e edits files as another user")
        return effects
    if name in ("sudo", "doas") and parsed.has("-s", "--shell", "-i", "--login"):
        if operands:
            if all(word.kind == LITERAL for word in operands):
                effects.runs.append(Run(SOURCE, name,
                                        source=" ".join(word.value or "" for word in operands),
                                        language="sh"))
            else:
                effects.runs.append(Run(CODE, name, language="sh"))
        else:
            effects.runs.append(Run(STDIN, name, language="sh"))
        effects.no(f"{name} runs a shell as another user")
        return effects
    if name == "watch" and not parsed.tagged("exec"):
        if operands:
            if all(word.kind == LITERAL for word in operands):
                effects.runs.append(Run(SOURCE, name,
                                        source=" ".join(word.value or "" for word in operands),
                                        language="sh"))
            else:
                effects.runs.append(Run(CODE, name, language="sh"))
        effects.no("watch runs a command repeatedly")
        return effects
    if sources:
        for found in sources:
            if found.word is not None and found.word.kind == LITERAL:
                effects.runs.append(Run(SOURCE, name, source=found.word.value, language="sh"))
            else:
                effects.runs.append(Run(CODE, name, language="sh"))
        if name == "script":
            for word in parsed.operands:
                effects.add(WRITE, word)  # the typescript file
        effects.no(f"{name} runs shell code")
        return effects
    if name in ("su", "runuser") and not (name == "runuser" and parsed.has("-u", "--user")):
        effects.runs.append(Run(STDIN, name, language="sh"))
        effects.no(f"{name} runs a shell as another user")
        return effects
    if name == "script":
        effects.runs.append(Run(STDIN, name, language="sh"))
        for word in parsed.operands:
            effects.add(WRITE, word)
        effects.no("script runs an interactive shell and writes a typescript")
        return effects
    if name == "flock" and parsed.operands[:1]:
        effects.add(WRITE, parsed.operands[0])  # the lock file is created
    if not operands:
        if spec.default:
            operands = [literal(spec.default)]
        elif name == "exec":
            return effects  # `exec 3>f`: only redirections
        else:
            effects.no(f"{name} without a command")
            return effects
    # `exec -a NAME` changes argv[0], which multi-call programs (busybox) dispatch on
    transparent = spec.transparent and not any(found.option.tag == "argv0"
                                               for found in parsed.found)
    effects.runs.append(Run(ARGV, name, argv=operands, transparent=transparent))
    if not transparent and spec.transparent:
        effects.no(f"{name} -a changes the name the program sees")
    if name == "xargs":
        inner = operands[0].value
        if inner not in SAFE_WITH_ANY_ARGUMENTS:
            effects.no("xargs runs a command whose arguments come from the input; only "
                       f"{', '.join(sorted(SAFE_WITH_ANY_ARGUMENTS))} are safe with any arguments")
        else:
            effects.reason = f"xargs {inner}: safe with any extra arguments"
        return effects
    if not spec.transparent:
        effects.no(f"{name} {spec.reason}")
    return effects


def run_subcommand(argv: list[Word]) -> Effects | None:
    """``uv run CMD``, ``poetry run CMD`` …: the command after ``run`` and its options."""
    name = _base(argv[0].value or "")
    values = [word.value for word in argv[1:3]]
    if name in _RUN_SUBCOMMAND and values[:1] in (["run"], ["exec"]) and len(argv) > 2:
        effects = Effects(False, f"{name} run runs a command in its environment")
        if name in ("uv", "npm", "pnpm", "yarn", "pixi", "hatch"):
            effects.network = f"{name} run may download packages"
        if name in ("npm", "pnpm", "yarn") and values[0] == "run":
            return None  # a package script: code from package.json
        effects.runs.append(Run(ARGV, name, argv=argv[2:], exact=False))
        return effects
    if name in _DOWNLOAD_AND_RUN:
        effects = Effects(False, f"{name} downloads a package and runs it")
        effects.network = effects.reason
        effects.runs.append(Run(CODE, name, language="package"))
        effects.runs.append(Run(ARGV, name, argv=argv[1:], exact=False))
        return effects
    return None


def eval_(argv: list[Word]) -> Effects:
    words = argv[1:]
    effects = Effects(False, "eval runs its arguments as shell code")
    if words and all(word.kind == LITERAL for word in words):
        effects.runs.append(Run(SOURCE, "eval", source=" ".join(word.value or "" for word in words),
                                language="sh", same_shell=True))
    elif words:
        effects.runs.append(Run(CODE, "eval", language="sh"))
    return effects


def source(argv: list[Word]) -> Effects:
    name = argv[0].value
    effects = Effects(False, f"{name} runs a file as shell code in this shell")
    if len(argv) > 1:
        effects.runs.append(Run(SCRIPT, name or ".", argv=argv[1:2], language="sh",
                                same_shell=True))
        effects.add(READ, argv[1])
    return effects


def _run_subcommand_or_unknown(argv: list[Word]) -> Effects | None:
    return run_subcommand(argv)


# name -> handler for every program that runs other code
RUNNERS: dict[str, Callable[[list[Word]], Effects | None]] = {
    **{name: shell for name in SHELLS},
    **{name: wrapper for name in WRAPPERS},
    **{name: interpreter for name in INTERPRETERS},
    **{name: run_subcommand for name in _RUN_SUBCOMMAND | _DOWNLOAD_AND_RUN},
    "env": env, "eval": eval_, ".": source, "source": source,
}


def runner_effects(argv: list[Word]) -> Effects | None:
    """The effects of a program that runs other code, or None if it is not one."""
    name = _base(argv[0].value or "")
    handler = RUNNERS.get(name)
    if handler is None and _interpreter_spec(name) is not None:
        handler = interpreter  # python3.11, pypy3.10 …
    return handler(argv) if handler is not None else None
