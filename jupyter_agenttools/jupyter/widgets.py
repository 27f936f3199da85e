"""The run panel shown by ``%%agent``: streamed text, tool calls, tool output, question cards.

The panel is displayed once, synchronously, in the cell that starts the run; everything that
happens later changes widget state (``children``, ``Output.append_stdout``, ``HTML.value``).
Nothing here calls ``print`` or ``display``: output of a background task after its cell ended
only reaches the page through widget state (jupyter-feasibility §4) — with one exception: when
the run ends, the panel's own output is replaced (``update_display``) by the run's plain
Markdown transcript (:mod:`.transcript`), which is what a saved notebook keeps.

Every widget that is displayed has a fixed ``__repr__``, so the ``text/plain`` a saved
notebook keeps never changes with the run's state. Buttons carry CSS classes
(``agenttools-allow_once``, ``agenttools-allow_session``, ``agenttools-always``,
``agenttools-deny``, ``agenttools-cancel``) that the browser tests, the labextension's keyboard
shortcuts and user styles rely on.
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING, Any, Callable, Mapping

import ipywidgets as W

from .explain import call_title, plain_reason, preview

if TYPE_CHECKING:
    from ..agent import events
    from ..agent.run import AgentRun, PendingAsk

__all__ = [
    "RunPanel",
    "QuestionCard",
    "ToolCallView",
    "StatusLine",
    "format_input",
    "SAFETY_MARK",
]

SAFETY_MARK = "safety check: allow rules cannot silence this"

_CODE = ("font-family: var(--jp-code-font-family, monospace); white-space: pre-wrap; "
         "overflow-wrap: anywhere; margin: 2px 0")
#: a tool's output longer than this many lines is shown in a scroll box with "show all"
LONG_OUTPUT_LINES = 15
#: how much streamed output one call keeps in the kernel's widget state
MAX_STREAMED_CHARS = 200_000


def _code(text: str) -> str:
    return f'<pre style="{_CODE}">{html.escape(text)}</pre>'


def format_input(tool_input: Mapping[str, Any] | Any) -> str:
    """A tool input as a person reads it: a command as the command; anything else one
    ``key: value`` per line, with text values shown as text (real line breaks, no escapes)."""
    if isinstance(tool_input, Mapping):
        if isinstance(tool_input.get("command"), str) and len(tool_input) <= 3:
            return tool_input["command"]
        lines = []
        for key, value in tool_input.items():
            if isinstance(value, str):
                if "\n" in value:
                    body = "\n".join("  " + x for x in value.rstrip("\n").split("\n"))
                    lines.append(f"{key}: |\n{body}")
                else:
                    lines.append(f"{key}: {value}")
            else:
                try:
                    lines.append(f"{key}: {json.dumps(value, ensure_ascii=False, default=str)}")
                except (TypeError, ValueError):
                    lines.append(f"{key}: {value!r}")
        return "\n".join(lines)
    return repr(tool_input)


def _diff_html(lines: list[str]) -> str:
    colours = {"+": "var(--jp-success-color0, #1a7f37)", "-": "var(--jp-error-color0, #cf222e)",
               "@": "var(--jp-info-color0, #0550ae)"}
    out = []
    for line in lines:
        text = html.escape(line.rstrip("\n"))
        colour = None if line.startswith(("+++", "---")) else colours.get(line[:1])
        out.append(f'<span style="color: {colour}">{text}</span>' if colour else text)
    return (f'<pre class="agenttools-diff" style="{_CODE}; max-height: 22em; overflow: auto; '
            f'border-left: 3px solid var(--jp-border-color2, #ddd); padding-left: 6px">'
            + "\n".join(out) + "</pre>")


class _FixedRepr:
    """Mixin: a constant ``text/plain`` so saved notebooks diff cleanly."""

    _fixed_repr = "<agent widget>"

    def __repr__(self) -> str:
        return self._fixed_repr


class ToolCallView(_FixedRepr, W.VBox):
    """One tool call: its name and input (as code), streamed output, and the result line.

    Output longer than LONG_OUTPUT_LINES lines sits in a scroll box; "show all" unfolds it."""

    _fixed_repr = "<agent tool call>"

    def __init__(self, call_id: str | None, name: str, tool_input: Any):
        self.call_id = call_id
        self.name = name
        self.title = W.HTML(self._title_html(tool_input))
        self.code = W.HTML(_code(format_input(tool_input)))
        self.output = W.Output()
        self.output.add_class("agenttools-output")
        self.show_all = W.Button(description="show all", tooltip="Show the whole output",
                                 layout=W.Layout(width="auto", display="none"))
        self.show_all.add_class("agenttools-show-all")
        self.show_all.on_click(lambda _b: self._toggle())
        self.decision = W.HTML("")
        self.status = W.HTML("")
        self.streamed = False
        self._lines = 0
        self._chars = 0
        self._folded = False
        super().__init__([self.title, self.code, self.decision, self.output, self.show_all,
                          self.status])
        self.add_class("agenttools-tool-call")

    def _title_html(self, tool_input: Any) -> str:
        title = call_title(self.name, tool_input if isinstance(tool_input, dict) else {})
        return f"<b>⚙ {html.escape(title)}</b>"

    def set_input(self, tool_input: Any) -> None:
        self.title.value = self._title_html(tool_input)
        self.code.value = _code(format_input(tool_input))

    def show_question(self, card: "QuestionCard") -> None:
        self.code.layout.display = "none"  # the card shows the input (or its diff)
        self.children = (self.title, self.code, self.decision, card, self.output,
                         self.show_all, self.status)

    def append_output(self, text: str) -> None:
        if not text:
            return
        if self._chars >= MAX_STREAMED_CHARS:
            return
        if self._chars + len(text) > MAX_STREAMED_CHARS:
            text = text[:MAX_STREAMED_CHARS - self._chars] + \
                "\n… (the rest is not shown here; the result below has the end)\n"
        self._chars += len(text)
        self.output.append_stdout(text)
        self._lines += text.count("\n")
        if self._lines > LONG_OUTPUT_LINES and not self._folded:
            self._fold()

    def _fold(self) -> None:
        self._folded = True
        self.output.layout.max_height = "16em"
        self.output.layout.overflow = "auto"
        self.show_all.layout.display = None

    def _toggle(self) -> None:
        folded = self.output.layout.max_height is not None
        self.output.layout.max_height = None if folded else "16em"
        self.show_all.description = "fold" if folded else "show all"

    def finish(self, state: str, text: str = "", streamed: bool = False) -> None:
        """Show the result; the text only if it was not already streamed into ``output``."""
        if text and not streamed:
            self.append_output(text if text.endswith("\n") else text + "\n")
        colour = "var(--jp-success-color1, green)" if state == "success" else \
            "var(--jp-error-color1, #c00)"
        self.status.value = f'<span style="color: {colour}">→ {html.escape(state)}</span>'
        self.status.add_class(f"agenttools-result-{state}")


class QuestionCard(_FixedRepr, W.VBox):
    """One permission question, answered by its buttons or from code (same path).

    ``ask`` is a PendingAsk: ``tool``, ``input``, ``decision``, ``answer(choice, rule=,
    message=)``, ``answered``, ``choice``. ``settings_file`` is where "Always allow" writes,
    ``mode`` the engine's mode (for the plain-words reason), ``cwd`` where relative paths of
    the diff preview start, ``hint`` a sentence added to the reason (what the project's
    untrusted settings would have done with this call), and ``untrusted`` says the project's
    settings wait for trust: a rule "Always allow" saves there counts only once it is trusted;
    ``trust_changed``: they wait because they changed since the user trusted them.
    """

    _fixed_repr = "<agent question>"

    def __init__(self, ask: PendingAsk, settings_file: str | None = None, mode: str | None = None,
                 cwd: str = ".", hint: str = "", untrusted: bool = False,
                 trust_changed: bool = False):
        self.ask = ask
        self.untrusted = untrusted
        # the words for "counts only once you trust": trusted once and changed since, or never
        self._trust_again = " again" if untrusted and trust_changed else ""
        decision = ask.decision
        tool_name = getattr(ask.tool, "name", None) or str(ask.tool)
        safety = bool(getattr(decision, "bypass_immune", False))
        tool_input = ask.input if isinstance(ask.input, dict) else {}

        head = ('<span class="agenttools-question-title"><b>Permission needed:</b> '
                f"{html.escape(call_title(tool_name, tool_input, getattr(ask, 'summary', '')))}"
                "</span>")
        if safety:
            head += (' <span class="agenttools-safety" style="color: var(--jp-error-color1, #c00);'
                     f' font-weight: bold">⚠ {SAFETY_MARK}</span>')
        self.header = W.HTML(head)
        self.header.add_class("agenttools-question-header")
        change = preview(getattr(ask, "tool_obj", None) or tool_name, tool_input, cwd)
        if change is not None:
            body = f"<div><small><b>{html.escape(change.title)}</b></small></div>"
            if change.note:
                body += f"<div><small><i>{html.escape(change.note)}</i></small></div>"
            if change.lines:
                body += _diff_html(change.lines)
            self.code = W.HTML(body)
            self.code.add_class("agenttools-preview")
        else:
            self.code = W.HTML(_code(format_input(ask.input)))
        why = " ".join(part for part in (plain_reason(decision, mode), hint) if part)
        self.reason = W.HTML(f'<span class="agenttools-why">{html.escape(why)}</span>'
                             if why else "")

        suggestions = [] if safety else list(getattr(decision, "suggestions", None) or ())
        self.rules = suggestions
        if len(suggestions) > 1:
            self.rule_choice: W.Widget = W.Dropdown(
                options=[(getattr(r, "text", str(r)), i) for i, r in enumerate(suggestions)],
                value=0, layout=W.Layout(width="auto", max_width="100%"))
        else:
            text = getattr(suggestions[0], "text", str(suggestions[0])) if suggestions else ""
            self.rule_choice = W.HTML(f"<code>{html.escape(text)}</code>" if text else "")
        self.rule_choice.add_class("agenttools-rule-choice")

        self.buttons: list[W.Button] = []
        allow = self._button("Allow once", "allow_once", "Run this call once [1]", "success")
        self.buttons.append(allow)
        if suggestions:
            self.buttons.append(self._button(
                "Allow for this session", "allow_session",
                "Allow calls matching the rule until the kernel restarts [2]", "info"))
            where = f" (saved to {settings_file})" if settings_file else ""
            if untrusted:
                where += (f"; it counts once you trust this folder{self._trust_again} "
                          "(%agent trust)")
            self.buttons.append(self._button(
                "Always allow", "always", f"Allow calls matching the rule from now on{where} [3]",
                ""))
        self.message = W.Text(placeholder="message to the model (optional)",
                              layout=W.Layout(flex="1 1 12em", min_width="8em"))
        self.message.add_class("agenttools-deny-message")
        deny = self._button("Deny", "deny", "Refuse this call; the message reaches the model [4]",
                            "danger")
        self.buttons.append(deny)

        rule_line = W.HBox([W.HTML("<small>Rule:</small>"), self.rule_choice],
                           layout=W.Layout(display="flex" if suggestions else "none",
                                           flex_flow="row wrap", align_items="center",
                                           grid_gap="6px"))
        rule_line.add_class("agenttools-rule-line")
        where_line = ""
        if suggestions:
            file_text = (f"<code>{html.escape(settings_file)}</code>" if settings_file
                         else "this kernel only")
            held = ("this folder's settings changed since you trusted them" if self._trust_again
                    else "this folder is not trusted yet")
            trust_note = (f" — {held}, so a saved rule counts only once you trust it"
                          f"{self._trust_again} (%agent trust)" if untrusted else "")
            where_line = ('<small>"Always allow" saves the rule to ' + file_text + trust_note
                          + '; "for this session" keeps it until the kernel restarts. '
                          'Keys: 1 once · 2 session · 3 always · 4 deny.</small>')
        elif not safety:
            where_line = "<small>Keys: 1 allow once · 4 deny.</small>"
        self.where = W.HTML(where_line)
        self.where.add_class("agenttools-where")
        self.status = W.HTML("")
        self.status.add_class("agenttools-answer")
        buttons = W.HBox(self.buttons + [self.message],
                         layout=W.Layout(flex_flow="row wrap", grid_gap="4px",
                                         align_items="center"))
        buttons.add_class("agenttools-buttons")
        super().__init__([self.header, self.code, self.reason, rule_line, buttons, self.where,
                          self.status],
                         layout=W.Layout(border="1px solid var(--jp-border-color1, #ccc)",
                                         padding="4px 6px", margin="4px 0"))
        self.add_class("agenttools-question")
        self.add_class(f"agenttools-ask-{getattr(ask, 'id', 'x')}")  # the panel's "Show"
        if safety:
            self.add_class("agenttools-question-safety")
        self.refresh()

    def _button(self, label: str, choice: str, tooltip: str, style: str) -> W.Button:
        button = W.Button(description=label, tooltip=tooltip, button_style=style,
                          layout=W.Layout(width="auto"))
        button.add_class(f"agenttools-{choice}")
        button.add_class("agenttools-answer-button")
        button.on_click(lambda _b: self._click(choice))
        return button

    def chosen_rule(self) -> Any:
        if not self.rules:
            return None
        if isinstance(self.rule_choice, W.Dropdown):
            return self.rules[self.rule_choice.value or 0]
        return self.rules[0]

    def _click(self, choice: str) -> None:
        if choice in ("always", "allow_session"):
            self._answer(choice, rule=self.chosen_rule())
        elif choice == "deny":
            self._answer("deny", message=self.message.value or None)
        else:
            self._answer(choice)

    def _answer(self, choice: str, **kw: Any) -> None:
        # A widget callback must not raise (the error would only reach the kernel's log):
        # a refused answer is shown on the card instead.
        try:
            self.ask.answer(choice, **{k: v for k, v in kw.items() if v is not None})
        except Exception as exc:  # AnswerError and the like
            self.status.value = f'<span style="color: #c00">{html.escape(str(exc))}</span>'
            return
        self.refresh()

    def _disable(self) -> None:
        for b in self.buttons:
            b.disabled = True
        self.message.disabled = True
        if isinstance(self.rule_choice, W.Dropdown):
            self.rule_choice.disabled = True

    def close_unanswered(self, why: str) -> None:
        if getattr(self.ask, "answered", False):
            return
        self._disable()
        self.add_class("agenttools-question-closed")
        self.status.value = f"<b>Not answered:</b> {html.escape(why)}"

    def refresh(self) -> None:
        """Reflect an answer given anywhere (button, later cell, another thread)."""
        if not getattr(self.ask, "answered", False):
            return
        self._disable()
        self.add_class("agenttools-question-answered")
        choice = getattr(self.ask, "choice", None) or "answered"
        label = {"allow_once": "allowed once", "allow_session": "allowed for this session",
                 "always": "always allowed", "deny": "denied"}.get(str(choice), str(choice))
        rule = getattr(self.ask, "rule", None)
        if choice in ("always", "allow_session") and rule is not None:
            label += f" ({getattr(rule, 'text', rule)})"
        if choice == "always" and self.untrusted:
            label += (f"; saved, counts once you trust this folder{self._trust_again} "
                      "(%agent trust)")
        message = getattr(self.ask, "message", None)
        if choice == "deny" and message:
            label += f': "{message}"'
        self.status.value = f"<b>Answer:</b> {html.escape(label)}"


class StatusLine(_FixedRepr, W.HTML):
    """One line of status for background set-up (MCP connection, remote backend)."""

    _fixed_repr = "<agent status>"


class RunPanel(_FixedRepr, W.VBox):
    """The whole run: a status line with a Cancel button, then the transcript.

    ``show()`` displays it (with a display id); when the run ends, that output is replaced by
    the run's Markdown transcript, which survives saving the notebook. ``hint(ask)`` adds a
    sentence to a question's reason, ``untrusted()`` says the project waits for trust and
    ``trust_changed()`` that it waits because its settings changed since (see QuestionCard)."""

    _fixed_repr = "<agent run panel>"

    def __init__(self, title: str = "agent", on_cancel: Callable[[], Any] | None = None,
                 settings_file: str | None = None, mode: str | None = None,
                 cwd: str = ".", note: str = "", hint: Callable[[Any], str] | None = None,
                 untrusted: Callable[[], bool] | None = None,
                 trust_changed: Callable[[], bool] | None = None):
        self.settings_file = settings_file
        self.hint = hint
        self.untrusted = untrusted
        self.trust_changed = trust_changed
        self.mode = mode
        self.cwd = cwd
        self.note = note
        self.status = W.HTML(f"<b>{html.escape(title)}</b>: starting")
        self.status.add_class("agenttools-status")
        self.cancel_button = W.Button(description="Cancel", tooltip="Cancel this run",
                                      button_style="warning", layout=W.Layout(width="auto"))
        self.cancel_button.add_class("agenttools-cancel")
        self._on_cancel = on_cancel
        self.cancel_button.on_click(lambda _b: self._cancel())
        self.note_line = W.HTML(f"<small>{html.escape(note)}</small>" if note else "")
        self.note_line.add_class("agenttools-conversation")
        self.transcript = W.VBox([])
        self.transcript.add_class("agenttools-transcript")
        self._title = title
        self._text: W.Output | None = None  # the assistant text block being streamed
        self._calls: dict[str, ToolCallView] = {}
        self._cards: dict[str, QuestionCard] = {}
        self._handle: Any = None
        self.final: Any = None
        self.run: AgentRun | None = None
        super().__init__([W.HBox([self.status, self.cancel_button]), self.note_line,
                          self.transcript])
        self.add_class("agenttools-panel")

    # -- display -----------------------------------------------------------------------------
    def show(self) -> None:
        """Display the panel in the current cell; its output is replaced when the run ends."""
        from IPython.display import display

        self._handle = display(self, display_id=True)
        if self.final is not None:  # the run ended before it was shown
            self._handle.update(self.final)

    def _replace_by_transcript(self) -> None:
        from .transcript import RunTranscript

        self.final = RunTranscript(self.run, self._title, self.note)
        if self._handle is not None:
            try:
                self._handle.update(self.final)
            except Exception:  # no display machinery (plain Python): the widgets stay
                pass

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

    def add_question(self, ask: PendingAsk) -> QuestionCard:
        key = str(getattr(ask, "id", id(ask)))
        card = self._cards.get(key)
        if card is None:
            self.end_text()
            card = QuestionCard(ask, self.settings_file, mode=self.mode, cwd=self.cwd,
                                hint=self.hint(ask) if self.hint is not None else "",
                                untrusted=self.untrusted is not None and self.untrusted(),
                                trust_changed=(self.trust_changed is not None
                                               and self.trust_changed()))
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
    def bind(self, run: AgentRun) -> None:
        """Follow an AgentRun: every event (past ones replayed) updates the panel."""
        self.run = run
        self.set_status("running")
        run.add_listener(self.handle_event)

    def handle_event(self, event: events.Event) -> None:
        kind = getattr(event, "kind", "")
        handler = getattr(self, f"_on_{kind}", None)
        if handler is not None:
            handler(event)

    def _on_text_delta(self, ev: events.TextDelta) -> None:
        self.add_text(ev.text)

    def _on_tool_call_started(self, ev: events.ToolCallStarted) -> None:
        raw = ev.raw_input
        try:
            shown = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            shown = raw
        self.start_tool(ev.call_id, ev.name, shown if isinstance(shown, dict) else {"raw": raw})

    def _on_permission_decision(self, ev: events.PermissionDecided) -> None:
        view = self.tool_view(ev.call_id) or self.start_tool(ev.call_id, ev.name, ev.input)
        view.set_input(ev.input)
        d = ev.decision
        if d is None:
            return
        behavior = str(d.behavior)
        if behavior == "allow" and d.rule is not None:
            text = f"allowed by {d.rule.text}"
        elif behavior == "allow":
            text = "allowed"
        elif behavior == "deny":
            text = "denied: " + plain_reason(d, self.mode)
        else:
            text = ""
        view.decision.value = f"<small>{html.escape(text)}</small>" if text else ""

    def _on_ask(self, ev: events.AskEvent) -> None:
        self.set_status("waiting for your answer")
        if ev.ask is not None:
            self.add_question(ev.ask)

    def _on_ask_answered(self, ev: events.AskAnswered) -> None:
        self.refresh_cards()
        if not getattr(self.run, "pending", None):
            self.set_status("running")

    def _on_tool_chunk(self, ev: events.ToolChunkEvent) -> None:
        view = self.tool_view(ev.call_id)
        chunk = ev.chunk
        if view is None or chunk is None:
            return
        text = "".join(b.get("text", "") for b in chunk.content if b.get("type") == "text")
        if text:
            view.streamed = True
            view.append_output(text)

    def _on_tool_result(self, ev: events.ToolResultEvent) -> None:
        view = self.tool_view(ev.call_id) or self.start_tool(ev.call_id, ev.name, {})
        view.finish(ev.state, ev.text, streamed=view.streamed)

    def _on_run_finished(self, ev: events.RunFinished) -> None:
        self.set_status("done", final=True)
        self._replace_by_transcript()

    def _on_run_failed(self, ev: events.RunFailed) -> None:
        self.add_note(f"failed: {ev.error}", "agenttools-error")
        self.set_status("failed", final=True)
        self._replace_by_transcript()

    def _on_run_cancelled(self, ev: events.RunCancelled) -> None:
        reason = getattr(ev, "reason", "") or "cancelled"
        self.set_status(f"cancelled: {reason}", final=True)
        for card in self._cards.values():
            card.close_unanswered(f"run {reason}")
        self._replace_by_transcript()

    def _cancel(self) -> None:
        if self._on_cancel is not None:
            try:
                self._on_cancel()
            except Exception as exc:
                self.add_note(f"cancel failed: {exc}", "agenttools-error")
                return
        self.cancel_button.disabled = True
