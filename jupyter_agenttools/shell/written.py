"""Scripts written earlier in the same command and then run: their text is code it runs.

``echo 'rm -rf ~' > s.sh; bash s.sh``, ``cat > s.sh <<'EOF' … EOF`` then ``source s.sh`` or
``./s.sh``: the script a later command runs was written by the command itself, with a text
the analysis can read. That text is analysed as the shell code it is (``Run(SOURCE)``), next
to the unknown script run the command had already (additive: a file the analysis mistakes
for another, after a ``cd``, only adds code to look at).

What a write leaves in a file is known for ``echo`` and ``printf`` of literal words (no
escapes, no format directives) and for a here-document or here-string fed to ``cat`` or
``tee``; ``>`` replaces what the file held, ``>>`` appends. Anything else writes a text the
analysis cannot know (the script stays an unknown one).
"""

from __future__ import annotations

from .effects import SCRIPT, SOURCE, Run
from .syntax import Command
from .words import LITERAL, Word

__all__ = ["written_files", "add_script_runs"]

_OUTPUT = frozenset({">", ">|", ">>", "&>", "&>>"})
_HERE = frozenset({"<<", "<<-", "<<<"})
# runners whose script is shell code (`. x`, `source x`, `bash x` …)
_SHELL_LANGUAGE = "sh"


def _path_key(word: Word | None) -> str | None:
    if word is None or word.kind != LITERAL or not word.value:
        return None
    value = word.value
    while value.startswith("./"):
        value = value[2:].lstrip("/")
    return value or None


def _printed(cmd: Command) -> str | None:
    """The text ``cmd`` writes on its standard output, when the analysis knows it."""
    argv = cmd.argv
    if not argv or argv[0].kind != LITERAL:
        return None
    name = argv[0].value
    if name == "echo":
        words = argv[1:]
        newline = "\n"
        if words and words[0].value == "-n":
            words, newline = words[1:], ""
        if any(w.kind != LITERAL for w in words):
            return None
        values = [w.value or "" for w in words]
        if values and values[0].startswith("-") or any("\\" in v for v in values):
            return None  # -e / -E, escapes: not worth reading
        return " ".join(values) + newline
    if name == "printf":
        if len(argv) != 2 or argv[1].kind != LITERAL:
            return None
        value = argv[1].value or ""
        if "%" in value or "\\" in value or value.startswith("-"):
            return None
        return value
    if name in ("cat", "tee"):
        for r in cmd.redirects:
            if r.op in _HERE and r.target is not None and r.target.value is not None:
                return r.target.value + ("\n" if r.op == "<<<" else "")
    return None


def _script_word(cmd: Command) -> tuple[Word, str] | None:
    """The script file ``cmd`` runs as shell code, and its runner."""
    effects = cmd.effects
    if effects is None:
        return None
    for run in effects.runs:
        if run.how == SCRIPT and run.language == _SHELL_LANGUAGE and run.argv:
            return run.argv[0], run.runner
    argv = cmd.argv
    if argv and argv[0].kind == LITERAL and "/" in (argv[0].value or ""):
        return argv[0], argv[0].value or ""  # `./s.sh`: run as a program
    return None


def written_files(records: list[Command]) -> dict[str, list[str | None]]:
    """Every text each file may hold once written by the command (None: unknown text). Each
    write is one more possibility: where a script is run relative to the writes is not asked
    (additive)."""
    files: dict[str, list[str | None]] = {}
    if not any(r.op in _OUTPUT for cmd in records for r in cmd.redirects) and \
            not any(cmd.argv and cmd.argv[0].value == "tee" for cmd in records):
        return files
    for cmd in records:
        targets: list[tuple[str, bool]] = []
        for r in cmd.redirects:
            if r.op in _OUTPUT and (r.fd is None or r.fd == "1"):
                path = _path_key(r.target)
                if path is not None:
                    targets.append((path, r.op.endswith(">>")))
        if cmd.argv and cmd.argv[0].value == "tee":
            append = any(w.value in ("-a", "--append") for w in cmd.argv[1:])
            for w in cmd.argv[1:]:
                path = _path_key(w)
                if path is not None and not path.startswith("-"):
                    targets.append((path, append))
        if not targets:
            continue
        text = _printed(cmd)
        for path, append in targets:
            variants = files.setdefault(path, [])
            before = (variants[-1] if variants else "") if append else ""
            variants.append(before + text if before is not None and text is not None
                            else None)
    return files


def add_script_runs(cmd: Command, files: dict[str, list[str | None]]) -> bool:
    """The texts the script ``cmd`` runs may hold, as shell code it runs (module docstring);
    whether one was added."""
    found = _script_word(cmd)
    if found is None or cmd.effects is None:
        return False
    key = _path_key(found[0])
    variants = files.get(key) if key is not None else None
    if not variants:
        return False
    effects = cmd.effects
    added = False
    for text in dict.fromkeys(variants):
        if not text or (text.startswith("#!") and "sh" not in text.split("\n", 1)[0]):
            continue  # unknown, empty, or another language's script
        effects.runs.append(Run(SOURCE, found[1], source=text, language="sh"))
        added = True
    if added:
        effects.no(f"runs {found[0].text[:40]}, written earlier in the command")
    return added
