"""What a question card says, in plain words: its title, why it asks, and what would change.

``plain_reason`` turns the engine's decision into a sentence for a person: the decision's own
``explanation`` when it has one (contract 5), else the finding of the step that decided,
rewritten without the engine's vocabulary. ``call_title`` names the tool and its target
("Write notes/summary.md"). ``preview`` shows what a Write or Edit would change, before it is
approved (a tool may offer its own with a ``preview(tool_input, cwd)`` method).
"""

from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

from ..permission.redact import redact

__all__ = ["plain_reason", "call_title", "question_title", "preview", "Preview"]

#: what each mode does with a call no rule decided (the engine's fallback step)
_MODE_WORDS = {
    "default": "In default mode, anything that may change something needs your approval unless "
               "a rule allows it.",
    "accept_edits": "In accept_edits mode, only file edits inside the project go through on "
                    "their own; this needs your approval.",
    "explore": "Explore mode is read-only.",
    "bypass": "Bypass mode runs everything that no rule denies.",
    "dont_ask": "In dont_ask mode nobody is there to answer, so it is refused.",
}

# The tool's own finding, engine vocabulary -> plain words ("" drops the prefix).
_REWRITES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^not read-only: (\S+) is not in the read-only table$"),
     r"`\1` is not a program known to only read."),
    (re.compile(r"^not read-only: the interpreter runs code$"),
     "It runs code in an interpreter, which could do anything."),
    (re.compile(r"^not read-only: parameter expansion \$… \(its value is decided at run time\)$"),
     "It uses a `$` variable whose value is decided only when it runs."),
    (re.compile(r"^not read-only: command substitution \$\( \)$"),
     "It runs a command inside `$( )`, whose output becomes part of the command."),
    (re.compile(r"^not read-only: redirects output to (.+?) \(writes a file\)$"),
     r"It writes its output to \1."),
    (re.compile(r"^not read-only: (.+)$"), r"It may change something: \1."),
    (re.compile(r"^(Write|Edit) of (.+?) \(inside the working directories\)$"),
     "It changes a file inside the project."),
    (re.compile(r"^Safety check: (.+)$"), r"\1."),
]


def _sentence(text: str) -> str:
    text = text.strip()
    if text and text[-1] not in ".!?":
        text += "."
    return text[:1].upper() + text[1:]


def _rewrite(detail: str) -> str:
    for pattern, replacement in _REWRITES:
        if pattern.match(detail):
            return _sentence(pattern.sub(replacement, detail))
    return _sentence(detail)


def plain_reason(decision: Any, mode: str | None = None) -> str:
    """Why the engine asks (or refuses), for a person."""
    if decision is None:
        return ""
    explanation = getattr(decision, "explanation", None)
    if isinstance(explanation, str) and explanation.strip():
        return _sentence(explanation)
    step = getattr(decision, "step", None)
    reason = getattr(decision, "reason", "") or getattr(decision, "message", "") or ""
    rule = getattr(decision, "rule", None)
    if step in ("ask_rules", "deny_rules") and rule is not None:
        where = getattr(decision, "rule_source", None) or getattr(rule, "source", None)
        verb = "ask about" if step == "ask_rules" else "refuse"
        return (f"The rule `{rule.text}` says to {verb} this"
                + (f" (from {os.path.basename(str(where))})." if where and where != "session"
                   else " (set in this kernel)."))
    if step == "fallback":
        finding = ""
        for entry in getattr(decision, "trace", None) or ():
            if entry.step == "tool_check" and entry.detail:
                finding = _rewrite(entry.detail)
        mode_text = _MODE_WORDS.get(str(mode or _mode_of(reason)), "")
        if finding:
            return f"{finding} {mode_text}".strip()
        return mode_text or _sentence(reason)
    text = _rewrite(reason) if reason else ""
    if getattr(decision, "bypass_immune", False) and text:
        text += " No rule can allow this: you are asked every time."
    return text


def _mode_of(reason: str) -> str:
    m = re.match(r"^(\w+) mode\b", reason or "")
    return m.group(1) if m else ""


def call_title(tool_name: str, tool_input: Any, summary: str = "") -> str:
    """"Write notes/summary.md", "Bash: git push origin main", "Read ~/.ssh/id_rsa"; just the
    tool's name when its input has no path or command (``summary`` is not used for it)."""
    value = tool_input if isinstance(tool_input, dict) else {}
    path = value.get("file_path") or value.get("notebook_path")
    if isinstance(path, str) and path:
        return f"{tool_name} {path}"
    command = value.get("command")
    if isinstance(command, str) and command:
        first = command.strip().splitlines()[0] if command.strip() else command
        more = " …" if "\n" in command.strip() else ""
        return f"{tool_name}: {_cut(first, 100)}{more}"
    if isinstance(value.get("path"), str) and value.get("pattern") is not None:
        return f"{tool_name} {value.get('pattern')} in {value['path']}"
    return tool_name  # the card shows the whole input just below


def question_title(tool_name: str, tool_input: Any, summary: str = "") -> str:
    """A question's title where no card shows its input beside it (the panel's list of open
    questions, a notification): ``call_title``, and for a tool whose input has no path or
    command its first argument, secrets redacted — "fetch url=https://b.example", not a bare
    "fetch" that says nothing of what is asked."""
    title = call_title(tool_name, tool_input, summary)
    value = tool_input if isinstance(tool_input, dict) else {}
    if title != tool_name or not value:
        return title
    key, first = next(iter(value.items()))
    text = first if isinstance(first, str) else json.dumps(first, ensure_ascii=False,
                                                           default=str)
    lines = text.strip().splitlines()
    shown = redact(_cut(lines[0] if lines else "", 60))[0]
    more = " …" if len(value) > 1 or len(lines) > 1 else ""
    return f"{tool_name} {key}={shown}{more}"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- previews -------------------------------------------------------------------------------------

MAX_PREVIEW_BYTES = 2_000_000
MAX_PREVIEW_LINES = 400


@dataclass
class Preview:
    """What a call would change: ``lines`` of a unified diff (or the new file's lines, all
    added), and a ``note`` when something is worth saying (binary, too big, would fail)."""

    title: str
    lines: list[str] = field(default_factory=list)
    note: str = ""
    added: int = 0
    removed: int = 0

    @property
    def text(self) -> str:
        return "".join(line if line.endswith("\n") else line + "\n" for line in self.lines)


def _read(path: str) -> tuple[str | None, str]:
    """(text, note): the file's current text, or None with why not."""
    try:
        size = os.path.getsize(path)
    except FileNotFoundError:
        return None, ""
    except OSError as exc:
        return None, f"cannot read the current file: {exc.strerror or exc}"
    if os.path.isdir(path):
        return None, "the path is a directory"
    if size > MAX_PREVIEW_BYTES:
        return None, f"the current file is large ({size:,} bytes): no preview"
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        return data.decode("utf-8"), ""
    except UnicodeDecodeError:
        return None, "the current file is not UTF-8 text: no preview"
    except OSError as exc:
        return None, f"cannot read the current file: {exc.strerror or exc}"


def _diff(old: str, new: str, name: str) -> tuple[list[str], int, int]:
    lines = list(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                      fromfile=name, tofile=name, n=3))
    added = sum(1 for x in lines if x.startswith("+") and not x.startswith("+++"))
    removed = sum(1 for x in lines if x.startswith("-") and not x.startswith("---"))
    return lines, added, removed


def _capped(result: Preview) -> Preview:
    if len(result.lines) > MAX_PREVIEW_LINES:
        hidden = len(result.lines) - MAX_PREVIEW_LINES
        result.lines = result.lines[:MAX_PREVIEW_LINES] + [f"… {hidden:,} more lines\n"]
    return result


def preview(tool: Any, tool_input: Any, cwd: str) -> Preview | None:
    """The change a Write/Edit (or a tool with its own ``preview``) would make, read from the
    kernel's file system now; None for other tools."""
    own = getattr(tool, "preview", None)
    if callable(own):
        try:
            value = own(tool_input, cwd)
        except Exception as exc:  # a tool's preview must never break its question
            return Preview("preview", note=f"no preview: {exc}")
        if value is None or isinstance(value, Preview):
            return value
        return Preview("preview", lines=str(value).splitlines(True))
    name = getattr(tool, "name", str(tool))
    if name not in ("Write", "Edit") or not isinstance(tool_input, dict):
        return None
    raw = tool_input.get("file_path")
    if not isinstance(raw, str) or not raw:
        return None
    path = os.path.normpath(os.path.join(cwd, os.path.expanduser(raw)))
    current, note = _read(path)
    if name == "Write":
        content = tool_input.get("content")
        if not isinstance(content, str):
            return None
        if current is None and not note:
            lines = [f"+{line}" for line in content.splitlines(True)]
            return _capped(Preview(f"new file {raw} ({len(lines)} lines)", lines,
                                   added=len(lines)))
        if current is None:
            return Preview(f"overwrite {raw}", note=note)
        if current == content:
            return Preview(f"{raw} unchanged", note="the new content is the same as the file's")
        lines, added, removed = _diff(current, content, raw)
        return _capped(Preview(f"overwrite {raw}: +{added} −{removed}", lines, added=added,
                               removed=removed))
    old, new = tool_input.get("old_string"), tool_input.get("new_string")
    if not isinstance(old, str) or not isinstance(new, str):
        return None
    if current is None:
        return Preview(f"edit {raw}", note=note or "the file does not exist: the edit will fail")
    crlf = "\r\n" in current and current.count("\r\n") == current.count("\n")
    text = current.replace("\r\n", "\n") if crlf else current
    old_n = old.replace("\r\n", "\n") if crlf else old
    new_n = new.replace("\r\n", "\n") if crlf else new
    found = text.count(old_n) if old_n else 0
    if found == 0:
        return Preview(f"edit {raw}", note="old_string is not in the file: the edit will fail")
    if found > 1 and not tool_input.get("replace_all"):
        return Preview(f"edit {raw}", note=f"old_string occurs {found} times and replace_all is "
                                           "off: the edit will fail")
    updated = (text.replace(old_n, new_n) if tool_input.get("replace_all")
               else text.replace(old_n, new_n, 1))
    lines, added, removed = _diff(text, updated, raw)
    return _capped(Preview(f"edit {raw}: +{added} −{removed}", lines, added=added,
                           removed=removed))
