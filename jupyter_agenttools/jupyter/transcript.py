"""A run written out as plain Markdown: what stays in the notebook after the run.

The live panel is an ipywidgets tree: its state lives in the kernel, so a saved notebook keeps
only ``<agent run panel>`` of it (and after a reload without the kernel, an error). When a run
ends, the panel's output is replaced by a :class:`RunTranscript` — the final answer as Markdown
and a compact transcript (one line per tool call, its output folded) — as ``text/markdown``
with a ``text/plain`` twin, which JupyterLab, nbconvert and GitHub all show.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

__all__ = ["RunTranscript", "ANSWER_WORDS"]

#: how an answer reads in the transcript
ANSWER_WORDS = {
    "allow_once": "you allowed it once",
    "allow_session": "you allowed it for this session",
    "always": "you always allow it",
    "deny": "you denied it",
}

#: what a saved notebook keeps of one tool's output
MAX_KEPT_LINES = 200
MAX_KEPT_CHARS = 10_000


@dataclass
class _Call:
    call_id: str
    name: str
    summary: str = ""
    state: str = ""
    output: str = ""
    #: the whole output's size (``output`` keeps only its start)
    total_chars: int = 0
    total_lines: int = 0
    asked: bool = False
    safety: bool = False
    answer: str = ""
    rule: str | None = None
    message: str | None = None
    by_rule: str | None = None
    denied_reason: str = ""


@dataclass
class _Text:
    turn: int
    text: str = ""


@dataclass
class _Story:
    items: list[Any] = field(default_factory=list)
    calls: dict[str, _Call] = field(default_factory=dict)
    end: str = "running"
    result: str = ""
    questions: int = 0


def _summary(name: str, tool_input: Any, raw: str = "") -> str:
    """The call's target ("notes/summary.md", the command), else its input in one line."""
    import json

    from .explain import call_title

    value = tool_input if isinstance(tool_input, dict) else {}
    title = call_title(name, value)
    if title != name:
        return title[len(name):].lstrip(": ").strip()
    if value:
        text = json.dumps(value, ensure_ascii=False, default=str)
    else:
        text = raw or ""
    return text if len(text) <= 100 else text[:99] + "…"


def _story(run: Any) -> _Story:
    story = _Story()
    call: _Call | None
    for ev in list(getattr(run, "events", ())):
        kind = getattr(ev, "kind", "")
        if kind == "text_delta":
            last = story.items[-1] if story.items else None
            if isinstance(last, _Text) and last.turn == ev.turn:
                last.text += ev.text
            else:
                story.items.append(_Text(ev.turn, ev.text))
        elif kind == "tool_call_started":
            call = _Call(ev.call_id, ev.name, summary=_summary(ev.name, {}, ev.raw_input))
            story.calls[ev.call_id] = call
            story.items.append(call)
        elif kind == "permission_decision":
            call = story.calls.get(ev.call_id)
            if call is not None:
                call.summary = _summary(ev.name, ev.input)
                d = ev.decision
                if d is not None and str(d.behavior) == "allow" and d.rule is not None:
                    call.by_rule = d.rule.text
                if d is not None and str(d.behavior) == "deny":
                    call.denied_reason = d.message or d.reason or ""
        elif kind == "ask":
            ask = ev.ask
            call = story.calls.get(getattr(ask, "call_id", ""))
            story.questions += 1
            if call is not None:
                call.asked = True
                call.safety = bool(getattr(ask, "safety", False))
        elif kind == "ask_answered":
            call = story.calls.get(ev.call_id)
            if call is not None:
                call.answer, call.rule, call.message = ev.choice, ev.rule, ev.message
        elif kind == "tool_chunk":
            call = story.calls.get(ev.call_id)
            chunk = ev.chunk
            if call is not None and chunk is not None:
                _add_output(call, "".join(b.get("text", "") for b in chunk.content
                                          if b.get("type") == "text"))
        elif kind == "tool_result":
            call = story.calls.get(ev.call_id)
            if call is not None:
                call.state = ev.state
                if not call.total_chars:
                    _add_output(call, ev.text)
        elif kind == "run_finished":
            story.end, story.result = "done", ev.result or ""
        elif kind == "run_failed":
            story.end = f"failed: {ev.error}"
        elif kind == "run_cancelled":
            story.end = f"cancelled: {ev.reason}" if ev.reason else "cancelled"
    # the final answer is shown once, as the answer, not also as the last text of the story
    if story.result and story.items and isinstance(story.items[-1], _Text) and \
            story.items[-1].text.strip() == story.result.strip():
        story.items.pop()
    return story


def _add_output(call: _Call, text: str) -> None:
    if not text:
        return
    if len(call.output) < MAX_KEPT_CHARS:
        call.output += text[:MAX_KEPT_CHARS - len(call.output)]
    call.total_chars += len(text)
    call.total_lines += text.count("\n")


def _outcome(call: _Call) -> str:
    parts = []
    if call.asked:
        if call.answer:
            words = ANSWER_WORDS.get(call.answer, call.answer)
            if call.rule and call.answer in ("always", "allow_session"):
                words += f" ({call.rule})"
            if call.message:
                words += f': "{call.message}"'
            parts.append(("safety question; " if call.safety else "asked; ") + words)
        else:
            parts.append("asked; not answered")
    elif call.by_rule:
        parts.append(f"allowed by {call.by_rule}")
    elif call.denied_reason:
        parts.append(f"denied: {call.denied_reason}")
    return "; ".join(parts)


def _mark(state: str) -> str:
    # plain symbols every font has (emoji may be missing where notebooks are rendered)
    return {"success": "✓", "error": "✗", "denied": "⊘", "interrupted": "■"}.get(state, "…")


def _lines(call: _Call) -> int:
    """How many lines the whole output has (a last line without a newline counts)."""
    ends_open = bool(call.output) and call.total_chars == len(call.output) and \
        not call.output.endswith("\n")
    return call.total_lines + (1 if ends_open or (call.total_chars and not call.total_lines)
                               else 0)


def _kept(call: _Call) -> tuple[str, str]:
    """(the part a saved notebook keeps, a note on what was left out)."""
    lines = call.output.splitlines(True)
    kept = "".join(lines[:MAX_KEPT_LINES]).rstrip("\n")
    left = call.total_chars - len(kept)
    more = _lines(call) - min(len(lines), MAX_KEPT_LINES)
    if left <= 1 or more <= 0:
        return call.output.rstrip("\n"), ""
    return kept, f"… {more:,} more lines ({left:,} characters) not kept in the notebook"


class RunTranscript:
    """The Markdown and plain-text form of a run (see the module docstring)."""

    def __init__(self, run: Any, title: str = "agent_run", note: str = ""):
        self.run = run
        self.title = title
        self.note = note

    def _head(self, story: _Story) -> str:
        calls = len(story.calls)
        bits = [story.end]
        if calls:
            bits.append(f"{calls} tool call{'s' if calls != 1 else ''}")
        if story.questions:
            bits.append(f"{story.questions} question{'s' if story.questions != 1 else ''}")
        return " · ".join(bits)

    def markdown(self) -> str:
        story = _story(self.run)
        e = html.escape
        out = [f"**{e(self.title)}** · {e(self._head(story))}"]
        if self.note:
            out.append(f"<small>{e(self.note)}</small>")
        for item in story.items:
            if isinstance(item, _Text):
                if item.text.strip():
                    out.append(item.text.strip())
                continue
            line = f"{_mark(item.state)} **{e(item.name)}**"
            if item.summary:
                line += f" <code>{e(item.summary)}</code>"
            outcome = _outcome(item)
            if outcome:
                line += f" — {e(outcome)}"
            out.append(line)
            if item.output.strip():
                kept, note = _kept(item)
                count = _lines(item)
                label = f"output, {count:,} line{'s' if count != 1 else ''}"
                # (JupyterLab gives paragraphs a bottom margin only: without one of its own the
                # folded output would sit against the next call, as if it were that call's)
                out.append('<details style="margin-bottom: 0.5em">'
                           f"<summary>{label}</summary><pre>{e(kept)}</pre>"
                           + (f"<small>{e(note)}</small>" if note else "") + "</details>")
        if story.result.strip():
            if len(out) > 1:
                out.append("---")  # the answer apart from the steps that led to it
            out.append(story.result.strip())
        return "\n\n".join(out) + "\n"

    def text(self) -> str:
        story = _story(self.run)
        out = [f"{self.title} · {self._head(story)}"]
        if self.note:
            out.append(self.note)
        for item in story.items:
            if isinstance(item, _Text):
                if item.text.strip():
                    out.append(item.text.strip())
                continue
            outcome = _outcome(item)
            out.append(f"{_mark(item.state)} {item.name} {item.summary}"
                       + (f" — {outcome}" if outcome else ""))
            if item.output.strip():
                lines = item.output.rstrip("\n").splitlines()
                out.extend(f"    {line}" for line in lines[:3])
                if _lines(item) > 3:
                    out.append(f"    … {_lines(item) - 3:,} more lines")
        if story.result.strip():
            out.append("")
            out.append(story.result.strip())
        return "\n".join(out)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/markdown": self.markdown(), "text/plain": self.text()}

    def __repr__(self) -> str:
        return self.text()
