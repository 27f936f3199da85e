"""Plain displayable results of the magics: every one shows as HTML in a notebook and as
aligned text where only ``text/plain`` is kept (nbval compares it, a terminal prints it)."""

from __future__ import annotations

import html
from typing import Any

__all__ = ["DecisionReport", "Table", "Help"]


class Table:
    """Rows shown as an HTML table and as aligned text (the form nbval compares)."""

    def __init__(self, headers: list[str], rows: list[list[Any]], title: str = "",
                 html_short: dict[str, Any] | None = None):
        self.headers = headers
        self.rows = [["" if c is None else str(c) for c in r] for r in rows]
        self.title = title
        #: column -> function giving the shorter text the HTML form shows (the whole value is
        #: its tooltip), e.g. a time of day for a full timestamp
        self.html_short = html_short or {}

    def __len__(self) -> int:
        return len(self.rows)

    def _repr_html_(self) -> str:
        left = 'style="text-align:left"'  # JupyterLab right-aligns table cells by default
        head = "".join(f"<th {left}>{html.escape(h)}</th>" for h in self.headers)
        body = "".join("<tr>" + "".join(self._html_cell(h, c) for h, c in zip(self.headers, r))
                       + "</tr>" for r in self.rows)
        cap = f"<caption>{html.escape(self.title)}</caption>" if self.title else ""
        return f'<table class="agenttools-table">{cap}<tr>{head}</tr>{body}</table>'

    def _html_cell(self, header: str, value: str) -> str:
        if not value:  # no empty code box
            return '<td style="text-align:left"></td>'
        short = self.html_short.get(header)
        if short is None:
            return f'<td style="text-align:left"><code>{html.escape(value)}</code></td>'
        return (f'<td style="text-align:left;white-space:nowrap" title="{html.escape(value)}">'
                f'<code>{html.escape(short(value))}</code></td>')

    def __repr__(self) -> str:
        if not self.rows:
            return (self.title + ": " if self.title else "") + "(none)"
        widths = [max(len(h), *(len(r[i]) for r in self.rows)) for i, h in enumerate(self.headers)]
        lines = [self.title] if self.title else []
        lines.append("  ".join(h.ljust(w) for h, w in zip(self.headers, widths)).rstrip())
        for r in self.rows:
            lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        return "\n".join(lines)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(repr(self))


class DecisionReport:
    """A PermissionDecision with its six-step trace, as HTML and as text."""

    def __init__(self, tool_name: str, summary: str, mode: str, decision: Any):
        self.tool_name = tool_name
        self.summary = summary
        self.mode = mode
        self.decision = decision

    @property
    def behavior(self) -> str:
        return str(self.decision.behavior)

    def _verdict(self) -> str:
        d = self.decision
        v = str(d.behavior).upper()
        if getattr(d, "bypass_immune", False):
            v += " (safety: allow rules cannot silence this)"
        return v

    def _facts(self) -> list[tuple[str, str]]:
        d = self.decision
        facts = [("reason", d.reason or d.message or "")]
        if d.step:
            facts.append(("decided by", d.step))
        if d.rule is not None:
            facts.append(("rule", f"{d.rule.text} ({d.rule_source or d.rule.source or 'session'})"))
        if d.suggestions:
            facts.append(("suggestions", ", ".join(r.text for r in d.suggestions)))
        return facts

    def __repr__(self) -> str:
        lines = [f"{self.tool_name}: {self.summary}", f"mode {self.mode} -> {self._verdict()}"]
        lines += [f"{k}: {v}" for k, v in self._facts() if v]
        trace = list(self.decision.trace or ())
        if trace:
            w = max(len(t.step) for t in trace)
            ow = max(len(str(t.outcome)) for t in trace)
            for i, t in enumerate(trace, 1):
                lines.append(f"  {i} {t.step.ljust(w)}  {str(t.outcome).ljust(ow)}  {t.detail}"
                             .rstrip())
        return "\n".join(lines)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(repr(self))

    def _repr_html_(self) -> str:
        e = html.escape
        colour = {"allow": "green", "deny": "#c00"}.get(self.behavior, "#b60")
        out = [f'<div class="agenttools-decision"><div><b>{e(self.tool_name)}</b>: '
               f"<code>{e(self.summary)}</code></div>",
               f'<div>mode <code>{e(self.mode)}</code> → '
               f'<b style="color:{colour}">{e(self._verdict())}</b></div>']
        out += [f"<div>{e(k)}: {e(v)}</div>" for k, v in self._facts() if v]
        rows = "".join(f"<tr><td>{i}</td><td>{e(t.step)}</td><td>{e(str(t.outcome))}</td>"
                       f"<td>{e(t.detail)}</td></tr>"
                       for i, t in enumerate(self.decision.trace or (), 1))
        if rows:
            out.append("<table><tr><th>#</th><th>step</th><th>outcome</th><th>detail</th></tr>"
                       f"{rows}</table>")
        out.append("</div>")
        return "".join(out)


class Help:
    """Help text: Markdown in a notebook, the same text as plain text elsewhere."""

    def __init__(self, markdown: str, text: str):
        self.markdown = markdown
        self.text = text

    def _repr_markdown_(self) -> str:
        return self.markdown

    def __repr__(self) -> str:
        return self.text

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(self.text)
