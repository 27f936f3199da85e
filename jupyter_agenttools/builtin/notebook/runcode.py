"""RunCode: run Python in the user's kernel and return its output, result and figures.

The permission decision lives here (``pycode`` stays pure): the code is analysed with the
notebook's namespace as the oracle (``pycode.analyze``). Read-only code whose file reads are
harmless (inside the working directories, no secret) takes the engine's read-only fast path;
read-only code that reads elsewhere gets the Read tool's verdict for those paths; anything not
proven read-only is a question (a safety question when it writes a sensitive path), with the
reasons in plain words. ``RunCode(...)`` rules: see ``pycode/rules.py``.

The analysis a decision used is checked again just before the code runs: if the namespace
changed in between so that the code is no longer read-only, the call is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from ...errors import ToolExecutionError
from ...pycode import CodeAnalysis, NamespaceNames, analyze
from ...pycode.rules import allow_rule_analysis, deny_rule_matches, glob_matcher
from ...tools.base import Tool, ToolChunk, ToolResultState, text_block
from ...tools.redact import hidden_note, redact, refuse_hidden_secret
from .execute import execute
from .host import NotebookHost

if TYPE_CHECKING:
    from ...permission.types import PermissionContext, PermissionDecision, PermissionRule

__all__ = ["RunCode", "DEFAULT_TIMEOUT", "MAX_TIMEOUT"]

DEFAULT_TIMEOUT = 30.0
MAX_TIMEOUT = 600.0
IMAGE_MIMES = ("image/png", "image/jpeg", "image/gif", "image/webp")


class RunCode(Tool):
    name = "RunCode"
    description = (
        "Run Python code in the user's notebook kernel (the one you live in): it sees and "
        "changes the notebook's variables, like a cell the user runs. Returns what it prints "
        "(stdout, stderr), the value of the last expression (as the notebook would show it), "
        "figures and other displayed outputs, or the error. Code that only reads (df.head(), "
        "len(x), df.describe(), print of values) runs without a question; anything that may "
        "change state asks the user first. timeout (seconds, default 30) interrupts the code. "
        "IPython syntax (%magic, !command) works. Use Inspect to look at one variable.")
    input_schema = {
        "type": "object",
        "properties": {
            "code": {"type": "string", "minLength": 1, "description": "The Python code to run."},
            "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_TIMEOUT,
                        "description": f"Seconds before the code is interrupted (default "
                                       f"{DEFAULT_TIMEOUT:g})."},
        },
        "required": ["code"],
        "additionalProperties": False,
    }
    read_only = False
    concurrency_safe = False
    rule_argument = "code"
    effects_complete = False

    def __init__(self, host: NotebookHost | None = None):
        self.host = host if host is not None else NotebookHost()
        self._verdicts: dict[str, bool] = {}  # code -> read-only, as last decided

    # -- analysis ----------------------------------------------------------------------------
    def names(self) -> Any:
        namespace = self.host.namespace
        return NamespaceNames(namespace) if namespace is not None else None

    def analysis(self, tool_input: Mapping[str, Any]) -> CodeAnalysis:
        """The analysis of this call's code (once per permission decision)."""
        code = tool_input.get("code")
        if not isinstance(code, str):
            return analyze(code)  # type: ignore[arg-type]  # a clear "expected a string"
        from ...permission.memo import current_memo

        memo = current_memo()
        key = ("RunCode.analysis", code)
        if memo is not None and key in memo:
            return memo[key]
        try:
            transformed = self.host.transform(code)
        except Exception:  # IPython could not transform it: analyse what was given
            transformed = code
        result = analyze(transformed, self.names())
        if memo is not None:
            memo[key] = result
        return result

    def is_read_only(self, tool_input: Mapping[str, Any] | None = None,
                     context: "PermissionContext | None" = None) -> bool:
        """Proven read-only, and every file it reads is a harmless read (inside the working
        directories, no secret: the Read tool's fast path)."""
        analysis = self.analysis(tool_input or {})
        self._remember(tool_input or {}, analysis.read_only)
        if not analysis.read_only:
            return False
        if not analysis.reads:
            return True
        if context is None:
            return False
        return self._reads_are_harmless(analysis, context)

    def _remember(self, tool_input: Mapping[str, Any], read_only: bool) -> None:
        code = tool_input.get("code")
        if isinstance(code, str):
            if len(self._verdicts) > 256:
                self._verdicts.clear()
            self._verdicts[code] = read_only

    def check_permissions(self, tool_input: Mapping[str, Any],
                          context: "PermissionContext") -> "PermissionDecision":
        from ...permission.effects import check_effect, check_effects
        from ...permission.types import PermissionDecision

        analysis = self.analysis(tool_input)
        self._remember(tool_input, analysis.read_only)
        # a write to a sensitive path is a safety question whatever else the code does
        for effect in analysis.writes:
            if effect.path is not None:
                d = check_effect(_path_effect(effect), context, self.name)
                if d.bypass_immune:
                    return d
        if analysis.read_only:
            reads = [_path_effect(e) for e in analysis.reads if e.path is not None]
            if not reads:
                return PermissionDecision.allow(f"{self.name}: read-only code")
            return check_effects(reads, context, self.name)
        why = analysis.explain()
        return PermissionDecision.ask(
            f"{self.name}: not proven read-only: {why}",
            message=f"Run this code in your kernel? It is not proven read-only: {why}",
            suggestions=self.suggest_rules(tool_input, context))

    def match_rule(self, rule: "PermissionRule", tool_input: Mapping[str, Any],
                   context: "PermissionContext") -> bool:
        """Allow rules vouch for the calls they name; deny and ask rules match a dotted name
        the code mentions (``pycode/rules.py``)."""
        from ...permission.types import PermissionBehavior

        if rule.specifier is None:
            return True
        code = tool_input.get("code")
        if not isinstance(code, str):
            return False
        if rule.behavior is PermissionBehavior.ALLOW:
            try:
                transformed = self.host.transform(code)
            except Exception:
                transformed = code
            vouched = allow_rule_analysis(rule.specifier, transformed, self.names())
            if not vouched.read_only:
                return False
            # the rule names calls, not files: what the code reads is checked as when no rule
            # is involved (``model.predict(X); open("/etc/hostname").read()`` asks)
            return self._reads_are_harmless(vouched, context)
        return deny_rule_matches(rule.specifier, self.analysis(tool_input))

    def _reads_are_harmless(self, analysis: CodeAnalysis,
                            context: "PermissionContext") -> bool:
        from ...permission.effects import check_effect
        from ...permission.types import PermissionBehavior

        return all(e.path is not None and check_effect(
            _path_effect(e), context, self.name).behavior is PermissionBehavior.ALLOW
            for e in analysis.reads)

    def suggest_rules(self, tool_input: Mapping[str, Any],
                      context: "PermissionContext") -> list["PermissionRule"]:
        """``RunCode(callee)`` when allowing that one named call makes the code read-only
        (never for imports, assignments or anything else a rule cannot vouch for)."""
        from ...permission.types import PermissionRule

        analysis = self.analysis(tool_input)
        if analysis.read_only:
            return []
        if any(r.never for r in analysis.reasons):
            return []  # exec, os.*, unpickling…: a person may write such a rule, never offered
        callees = list(dict.fromkeys(r.callee for r in analysis.reasons if r.callee))
        if not callees:
            return []
        candidates = callees if len(callees) == 1 else _common_globs(callees)
        out = []
        for spec in candidates:
            if spec in ("*", "") or spec.startswith("*"):
                continue
            if analyze(analysis.code, self.names(), blessed=glob_matcher(spec)).read_only:
                out.append(PermissionRule(self.name, spec))
        return out

    def path_effects(self, tool_input: Mapping[str, Any],
                     context: "PermissionContext") -> list[Any]:
        """Files the code reads, writes or deletes, where the analysis can name them (and, for
        code that is not read-only, every path-like constant it names, as a possible write):
        the protected tier, deny and ask rules (``Read(...)``, ``Edit(...)``) apply to them;
        the code does more than touch files, so allow rules on files never allow it
        (``effects_complete`` is False)."""
        analysis = self.analysis(tool_input)
        if analysis.unchecked_paths:
            raise ValueError(f"the code names {analysis.unchecked_paths:,} more paths than the "
                             f"analysis checks as possible writes")
        return [_path_effect(e) for e in analysis.effects if e.path is not None]

    def input_summary(self, tool_input: Mapping[str, Any], limit: int = 200) -> str:
        code = tool_input.get("code")
        text = code if isinstance(code, str) else repr(code)
        text = text.replace("\n", "⏎")
        return text if len(text) <= limit else text[: limit - 1] + "…"

    # -- execution ---------------------------------------------------------------------------
    def own_time_limit(self, tool_input: Mapping[str, Any]) -> float | None:
        """RunCode stops the code itself at ``timeout`` (the agent's limit is the backstop)."""
        timeout = tool_input.get("timeout")
        return float(timeout) if isinstance(timeout, (int, float)) and timeout > 0 \
            else DEFAULT_TIMEOUT

    async def call(self, code: str, timeout: float | None = None) -> ToolChunk:
        seconds = DEFAULT_TIMEOUT if timeout is None else float(timeout)
        if not 0 < seconds <= MAX_TIMEOUT:
            raise ToolExecutionError(f"timeout must be between 0 and {MAX_TIMEOUT:g} seconds, "
                                     f"got {timeout!r}")
        refuse_hidden_secret(code, "the code")
        try:
            transformed = self.host.transform(code)
        except Exception as exc:
            raise ToolExecutionError(f"IPython could not read this code: {exc}") from None
        read_only = bool(self._verdicts.get(code))
        if read_only:
            # it was allowed as read-only: it must still be, now, just before it runs
            again = analyze(transformed, self.names())
            if not again.read_only:
                self._verdicts.pop(code, None)
                raise ToolExecutionError(
                    "The notebook's variables changed after the permission check, and this "
                    f"code is no longer proven read-only ({again.explain(1)}). Call RunCode "
                    "again to be asked.")
        run = await execute(transformed, self.host.execution_namespace(), timeout=seconds,
                            format_value=self.host.format_value,
                            capture_displays=self.host.capture_displays,
                            memory_ceiling=read_only)
        return _render(run)


def _path_effect(effect: Any) -> Any:
    from ...permission.effects import PathEffect

    return PathEffect(effect.kind, effect.path, recursive=effect.recursive)


def _common_globs(callees: list[str]) -> list[str]:
    """``model.fit`` and ``model.predict`` → ``model.*`` (one rule covering both)."""
    roots = {c.split(".")[0] for c in callees}
    if len(roots) == 1 and all("." in c for c in callees):
        return [f"{roots.pop()}.*"]
    return []


def _render(run: Any) -> ToolChunk:
    parts: list[str] = []
    blocks: list[dict[str, Any]] = []
    images = 0

    def flush() -> None:
        if parts:
            blocks.append(text_block("".join(parts)))
            parts.clear()

    if run.stdout:
        parts.append(f"[stdout]\n{run.stdout}" + ("" if run.stdout.endswith("\n") else "\n"))
    if run.stderr:
        parts.append(f"[stderr]\n{run.stderr}" + ("" if run.stderr.endswith("\n") else "\n"))
    if run.dropped:
        parts.append(f"[{run.dropped:,} more characters of output were not kept]\n")
    for bundle in run.displays + ([run.result] if run.result else []):
        label = "result" if bundle is run.result else "display"
        image = next((m for m in IMAGE_MIMES if m in bundle), None)
        if image is not None:
            images += 1
            parts.append(f"[{label}: {image} image {images}, follows]\n")
            flush()
            data = bundle[image]
            blocks.append({"type": "image", "mime_type": image,
                           "data": "".join(data) if isinstance(data, list) else str(data)})
            continue
        if "application/vnd.jupyter.widget-view+json" in bundle:
            parts.append(f"[{label}: an interactive widget, not shown here: "
                         f"{str(bundle.get('text/plain', ''))[:200]}]\n")
            continue
        text = bundle.get("text/plain")
        if text is None:
            kinds = ", ".join(sorted(bundle)) or "nothing"
            parts.append(f"[{label}: {kinds}]\n")
            continue
        text = "".join(text) if isinstance(text, list) else str(text)
        parts.append(f"[{label}]\n{text}\n")
    if run.error:
        parts.append(f"[error]\n{run.error}" + ("" if run.error.endswith("\n") else "\n"))
    if not (run.stdout or run.stderr or run.displays or run.result or run.error):
        parts.append("(no output)\n")
    flush()
    # what the code printed or returned may hold a key under a harmless name (``cfg =
    # dict(os.environ)``; ``print(cfg)`` is read-only): it is hidden before the model sees it
    hidden: list[str] = []
    for block in blocks:
        if block.get("type") == "text":
            block["text"], found = redact(block["text"])
            hidden += found
    if hidden:
        blocks.append(text_block(hidden_note(hidden)))
    state = ToolResultState.ERROR if run.error else ToolResultState.SUCCESS
    return ToolChunk(blocks, state=state, metadata={
        "timed_out": run.timed_out, "interrupted": run.interrupted,
        "error": run.error_name, "seconds": round(run.seconds, 3),
        "images": images, "memory_allowance": run.memory_allowance,
        "secrets_hidden": len(hidden)})
