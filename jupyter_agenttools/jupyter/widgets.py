"""The run panel shown by ``%%agent``: streamed text, tool calls, tool output, question cards.

The panel is displayed once, synchronously, in the cell that starts the run; everything that
happens later changes widget state (``children``, ``Output.append_stdout``, ``HTML.value``).
Nothing here calls ``print`` or ``display``: output of a background task after its cell ended
only reaches the page through widget state (jupyter-feasibility §4).

Every widget that is displayed has a fixed ``__repr__``, so the ``text/plain`` a saved
notebook keeps never changes with the run's state. Buttons carry CSS classes
(``agenttools-allow_once``, ``agenttools-always``, ``agenttools-deny``, ``agenttools-cancel``)
that the browser test and user styles can rely on.
"""

from __future__ import annotations

import html
import json
from typing import Any, Callable, Mapping

import ipywidgets as W

__all__ = [
    "RunPanel",
    "QuestionCard",
    "ToolCallView",
    "StatusLine",
    "format_input",
    "SAFETY_MARK",
]

SAFETY_MARK = "safety check: allow rules cannot silence this"

_CODE = "font-family: var(--jp-code-font-family, monospace); white-space: pre-wrap; margin: 2px 0"


def _code(text: str) -> str:
    return f'<pre style="{_CODE}">{html.escape(text)}</pre>'


def format_input(tool_input: Mapping[str, Any] | Any) -> str:
    """A tool input as a person reads it: a command as the command, anything else as JSON."""
    if isinstance(tool_input, Mapping):
        if isinstance(tool_input.get("command"), str) and len(tool_input) <= 3:
            return tool_input["command"]
        try:
            return json.dumps(tool_input, indent=1, ensure_ascii=False, sort_keys=True,
                              default=str)
        except (TypeError, ValueError):
            pass
    return repr(tool_input)


class _FixedRepr:
    """Mixin: a constant ``text/plain`` so saved notebooks diff cleanly."""

    _fixed_repr = "<agent widget>"

    def __repr__(self) -> str:
        return self._fixed_repr


class ToolCallView(_FixedRepr, W.VBox):
    """One tool call: its name and input (as code), streamed output, and the result line."""

    _fixed_repr = "<agent tool call>"

    def __init__(self, call_id: str | None, name: str, tool_input: Any):
        self.call_id = call_id
        self.title = W.HTML(f"<b>⚙ {html.escape(name)}</b>")
        self.code = W.HTML(_code(format_input(tool_input)))
        self.output = W.Output()
        self.decision = W.HTML("")
        self.status = W.HTML("")
        self.streamed = False
        super().__init__([self.title, self.code, self.decision, self.output, self.status])
        self.add_class("agenttools-tool-call")

    def show_question(self, card: "QuestionCard") -> None:
        card.code.layout.display = "none"  # the call's input is shown just above
        self.children = (self.title, self.code, self.decision, card, self.output, self.status)

    def append_output(self, text: str) -> None:
        if text:
            self.output.append_stdout(text)

    def finish(self, state: str, text: str = "", streamed: bool = False) -> None:
        """Show the result; the text only if it was not already streamed into ``output``."""
        if text and not streamed:
            self.output.append_stdout(text if text.endswith("\n") else text + "\n")
        colour = "var(--jp-success-color1, green)" if state == "success" else \
            "var(--jp-error-color1, #c00)"
        self.status.value = f'<span style="color: {colour}">→ {html.escape(state)}</span>'
        self.status.add_class(f"agenttools-result-{state}")


class QuestionCard(_FixedRepr, W.VBox):
    """One permission question, answered by its buttons or from code (same path).

    ``ask`` is a PendingAsk: ``tool``, ``input``, ``decision``, ``answer(choice, rule=,
    message=)``, ``answered``, ``choice``. ``settings_file`` tells where "Always allow" writes.
    """

    _fixed_repr = "<agent question>"

    def __init__(self, ask: Any, settings_file: str | None = None):
        self.ask = ask
        decision = ask.decision
        tool_name = getattr(ask.tool, "name", None) or str(ask.tool)
        safety = bool(getattr(decision, "bypass_immune", False))
        reason = getattr(decision, "reason", "") or getattr(decision, "message", "") or ""

        head = f"<b>Permission needed:</b> <code>{html.escape(tool_name)}</code>"
        if safety:
            head += (' <span class="agenttools-safety" style="color: var(--jp-error-color1, #c00);'
                     f' font-weight: bold">⚠ {SAFETY_MARK}</span>')
        self.header = W.HTML(head)
        self.code = W.HTML(_code(format_input(ask.input)))
        self.reason = W.HTML(f"<i>{html.escape(reason)}</i>" if reason else "")

        self.buttons: list[W.Button] = []
        allow = W.Button(description="Allow once", button_style="success",
                         tooltip="Run this call once")
        allow.add_class("agenttools-allow_once")
        allow.on_click(lambda _b: self._answer("allow_once"))
        self.buttons.append(allow)

        # A safety ASK never offers "Always allow" (SPEC §5.2).
        if not safety:
            where = f" (saved to {settings_file})" if settings_file else ""
            for rule in getattr(decision, "suggestions", None) or ():
                text = getattr(rule, "text", str(rule))
                b = W.Button(description=f"Always allow {text}",
                             tooltip=f"Allow {text} from now on{where}",
                             layout=W.Layout(width="auto"))
                b.add_class("agenttools-always")
                b.on_click(lambda _b, r=rule: self._answer("always", rule=r))
                self.buttons.append(b)

        self.message = W.Text(placeholder="optional message to the model",
                              layout=W.Layout(width="260px"))
        self.message.add_class("agenttools-deny-message")
        deny = W.Button(description="Deny", button_style="danger", tooltip="Refuse this call")
        deny.add_class("agenttools-deny")
        deny.on_click(lambda _b: self._answer("deny", message=self.message.value or None))
        self.buttons.append(deny)

        where_line = ""
        if not safety and settings_file and getattr(decision, "suggestions", None):
            where_line = (f'<small>"Always allow" writes to '
                          f"<code>{html.escape(settings_file)}</code></small>")
        self.where = W.HTML(where_line)
        self.status = W.HTML("")
        self.status.add_class("agenttools-answer")
        super().__init__([self.header, self.code, self.reason,
                          W.HBox(self.buttons + [self.message]), self.where, self.status],
                         layout=W.Layout(border="1px solid var(--jp-border-color1, #ccc)",
                                         padding="4px", margin="4px 0"))
        self.add_class("agenttools-question")
        if safety:
            self.add_class("agenttools-question-safety")
        self.refresh()

    def _answer(self, choice: str, **kw: Any) -> None:
        # A widget callback must not raise (the error would only reach the kernel's log):
        # a refused answer is shown on the card instead.
        try:
            self.ask.answer(choice, **{k: v for k, v in kw.items() if v is not None})
        except Exception as exc:  # AnswerError and the like
            self.status.value = f'<span style="color: #c00">{html.escape(str(exc))}</span>'
            return
        self.refresh()

    def close_unanswered(self, why: str) -> None:
        if getattr(self.ask, "answered", False):
            return
        for b in self.buttons:
            b.disabled = True
        self.message.disabled = True
        self.status.value = f"<b>Not answered:</b> {html.escape(why)}"

    def refresh(self) -> None:
        """Reflect an answer given anywhere (button, later cell, another thread)."""
        if not getattr(self.ask, "answered", False):
            return
        for b in self.buttons:
            b.disabled = True
        self.message.disabled = True
        choice = getattr(self.ask, "choice", None) or "answered"
        label = {"allow_once": "allowed once", "always": "always allowed",
                 "deny": "denied"}.get(str(choice), str(choice))
        rule = getattr(self.ask, "rule", None)
        if choice == "always" and rule is not None:
            label += f" ({getattr(rule, 'text', rule)})"
        self.status.value = f"<b>Answer:</b> {html.escape(label)}"


class StatusLine(_FixedRepr, W.HTML):
    """One line of status for background set-up (MCP connection, remote backend)."""

    _fixed_repr = "<agent status>"


class RunPanel(_FixedRepr, W.VBox):
    """The whole run: a status line with a Cancel button, then the transcript."""

    _fixed_repr = "<agent run panel>"

    def __init__(self, title: str = "agent", on_cancel: Callable[[], Any] | None = None,
                 settings_file: str | None = None):
        self.settings_file = settings_file
        self.status = W.HTML(f"<b>{html.escape(title)}</b>: starting")
        self.status.add_class("agenttools-status")
        self.cancel_button = W.Button(description="Cancel", tooltip="Cancel this run",
                                      button_style="warning")
        self.cancel_button.add_class("agenttools-cancel")
        self._on_cancel = on_cancel
        self.cancel_button.on_click(lambda _b: self._cancel())
        self.transcript = W.VBox([])
        self.transcript.add_class("agenttools-transcript")
        self._title = title
        self._text: W.Output | None = None  # the assistant text block being streamed
        self._calls: dict[str, ToolCallView] = {}
        self._cards: dict[str, QuestionCard] = {}
        super().__init__([W.HBox([self.status, self.cancel_button]), self.transcript])
        self.add_class("agenttools-panel")

    # -- transcript --------------------------------------------------------------------------
    def _append(self, widget: W.Widget) -> None:
        self.transcript.children = (*self.transcript.children, widget)

    def add_text(self, delta: str) -> None:
        if not delta:
            return
        if self._text is None:
            self._text = W.Output()
            self._text.add_class("agenttools-text")
            self._append(self._text)
        self._text.append_stdout(delta)

    def end_text(self) -> None:
        if self._text is not None:
            self._text.append_stdout("\n")
        self._text = None

    def start_tool(self, call_id: str | None, name: str, tool_input: Any) -> ToolCallView:
        self.end_text()
        key = call_id or f"call-{len(self._calls)}"
        view = self._calls.get(key)
        if view is None:
            view = ToolCallView(call_id, name, tool_input)
            self._calls[key] = view
            self._append(view)
        return view

    def tool_view(self, call_id: str | None) -> ToolCallView | None:
        return self._calls.get(call_id) if call_id else None

    def add_question(self, ask: Any) -> QuestionCard:
        key = str(getattr(ask, "id", id(ask)))
        card = self._cards.get(key)
        if card is None:
            self.end_text()
            card = QuestionCard(ask, self.settings_file)
            self._cards[key] = card
            view = self.tool_view(getattr(ask, "call_id", None))
            if view is not None:  # the question sits with its call, above the call's output
                view.show_question(card)
            else:
                self._append(card)
        return card

    @property
    def cards(self) -> list[QuestionCard]:
        return list(self._cards.values())

    def refresh_cards(self) -> None:
        for card in self._cards.values():
            card.refresh()

    def add_note(self, text: str, css: str = "agenttools-note") -> None:
        self.end_text()
        note = W.HTML(f"<i>{html.escape(text)}</i>")
        note.add_class(css)
        self._append(note)

    # -- status ------------------------------------------------------------------------------
    def set_status(self, text: str, final: bool = False) -> None:
        self.status.value = f"<b>{html.escape(self._title)}</b>: {html.escape(text)}"
        if final:
            self.cancel_button.disabled = True
            self.cancel_button.layout.display = "none"
            self.end_text()

    # -- following a run ---------------------------------------------------------------------
    def bind(self, run: Any) -> None:
        """Follow an AgentRun: every event (past ones replayed) updates the panel."""
        self.run = run
        self.set_status("running")
        run.add_listener(self.handle_event)

    def handle_event(self, event: Any) -> None:
        kind = getattr(event, "kind", "")
        handler = getattr(self, f"_on_{kind}", None)
        if handler is not None:
            handler(event)

    def _on_text_delta(self, ev: Any) -> None:
        self.add_text(ev.text)

    def _on_tool_call_started(self, ev: Any) -> None:
        raw = ev.raw_input
        try:
            shown = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            shown = raw
        self.start_tool(ev.call_id, ev.name, shown if isinstance(shown, dict) else {"raw": raw})

    def _on_permission_decision(self, ev: Any) -> None:
        view = self.tool_view(ev.call_id) or self.start_tool(ev.call_id, ev.name, ev.input)
        view.code.value = _code(format_input(ev.input))
        d = ev.decision
        if d is None:
            return
        text = str(d.behavior)
        if d.step:
            text += f" at {d.step}"
        if d.rule is not None:
            text += f" by {d.rule.text}"
        view.decision.value = f"<small>permission: {html.escape(text)}</small>"

    def _on_ask(self, ev: Any) -> None:
        self.set_status("waiting for your answer")
        self.add_question(ev.ask)

    def _on_ask_answered(self, ev: Any) -> None:
        self.refresh_cards()
        if not getattr(self.run, "pending", None):
            self.set_status("running")

    def _on_tool_chunk(self, ev: Any) -> None:
        view = self.tool_view(ev.call_id)
        chunk = ev.chunk
        if view is None or chunk is None:
            return
        text = "".join(b.get("text", "") for b in chunk.content if b.get("type") == "text")
        if text:
            view.streamed = True
            view.append_output(text)

    def _on_tool_result(self, ev: Any) -> None:
        view = self.tool_view(ev.call_id) or self.start_tool(ev.call_id, ev.name, {})
        view.finish(ev.state, ev.text, streamed=view.streamed)

    def _on_run_finished(self, ev: Any) -> None:
        self.set_status("done", final=True)

    def _on_run_failed(self, ev: Any) -> None:
        self.add_note(f"failed: {ev.error}", "agenttools-error")
        self.set_status("failed", final=True)

    def _on_run_cancelled(self, ev: Any) -> None:
        self.set_status("cancelled", final=True)
        for card in self._cards.values():
            card.close_unanswered("run cancelled")

    def _cancel(self) -> None:
        if self._on_cancel is not None:
            try:
                self._on_cancel()
            except Exception as exc:
                self.add_note(f"cancel failed: {exc}", "agenttools-error")
                return
        self.cancel_button.disabled = True
