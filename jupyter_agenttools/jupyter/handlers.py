"""REST handlers of the server extension (mounted under ``<base_url>/agenttools/``).

===========  ==========  =================================================================
route        verb        what
===========  ==========  =================================================================
settings     GET         merged settings: mode per layer, every rule with its layer and file
rules        POST        add ``{"layer", "behavior", "rule", "examples"?, "counter_examples"?}``
rules        DELETE      remove ``{"layer", "behavior", "rule"}`` (body or query arguments)
mode         PUT         ``{"layer", "mode"}`` (``mode: null`` clears the layer's mode)
audit        GET         ``?limit=&offset=&tool=&behavior=&kind=&outcome=&user=&agent=&since=``
                         newest first, read from the end of the log
check        POST        ``{"tool", "input", "mode"?}`` → the decision and its trace
                         (a what-if: never written to the audit log); an input that does not
                         fit the tool's schema is a 400, like gate 2
trust        GET         the project's trust: ``{"project", "trusted", "needed", "changed",
                         "sha256", "trusted_sha256", "trusted_at", "ignored": [...]}``
trust        POST        ``{"trusted": true|false, "sha256"?}`` trust the project's settings as
                         they are (``sha256``: only if they still hash to what the person saw,
                         else 409) or forget the trust
validate     POST        ``{"rule", "behavior"?, "examples"?, …}`` → ``{"ok", "error"?}``
kernels      GET         the running kernels and their agents (``panel_api.py``)
notebook     GET, POST   the notebook tools' live document (see ``notebook_live.py``)
===========  ==========  =================================================================

The settings routes (settings, rules, mode, audit, check, validate) take ``?project=<dir>``:
the project of a running kernel whose settings the request reads or writes (default: the
server's project).

Every verb is ``@web.authenticated`` and ``@authorized`` on the resource ``agenttools``.
Errors are JSON ``{"error": "..."}``: 413 for a body over MAX_BODY_BYTES (refused from its
Content-Length before it is read; a chunked one is counted and dropped), 400 for a bad body (not
JSON, a key given twice, NaN, nesting beyond 64 levels, a lone surrogate, a missing key, a value
that is not exactly one of its choices — ``"BYPASS"`` is not a mode —, a rule over
MAX_RULE_CHARS, a rule that does not parse or fails its examples), 403 for the managed layer
(read-only through the API), a mode the managed settings forbid (``disable_bypass_mode``,
``allowed_modes``) and refused authorization, 404 for removing a rule that is not there, 409
when a settings file on disk is corrupt (the message names the file and line). Writes go through
``SettingsStore`` (file lock + atomic replace), run in a worker thread so a lock held by a
kernel never stalls the server.

Handlers added by other parts subclass ``AgentToolsHandler`` and read their body with
``self.body()`` (the limits above apply; ``self.request.body`` holds the bytes received) and
enumerations with ``self.choice(...)``.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Iterable, Literal, overload

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from tornado import web

from ..errors import (
    AuditLogError,
    JSONInputError,
    RuleExampleError,
    RuleSyntaxError,
    SettingsError,
    ToolArgumentsError,
    ToolNotFound,
)
from ..strict_json import loads as strict_loads
from .notebook_live import live_edit, live_read
from .panel_api import kernel_project_store, kernels_view, project_state

__all__ = ["AUTH_RESOURCE", "ROUTES"]

AUTH_RESOURCE = "agenttools"
RULE_BEHAVIORS = ("allow", "ask", "deny")
AUDIT_BEHAVIORS = ("allow", "ask", "deny", "passthrough")
AUDIT_KINDS = ("decision", "answer", "outcome")
AUDIT_OUTCOMES = ("success", "error", "interrupted", "denied")
MAX_AUDIT = 10_000
#: A request body larger than this is refused with 413 (a settings request is a few KB).
MAX_BODY_BYTES = 1024 * 1024
#: A rule text longer than this is refused with 400 (real rules are well under 1,000).
MAX_RULE_CHARS = 10_000


def _builtin_tool(name: str) -> Any:
    """The built-in tool called ``name``, or None (kernel-only tools are unknown here)."""
    from ..permission.check import builtin_tool

    return builtin_tool(name)


@web.stream_request_body
class AgentToolsHandler(APIHandler):
    """Base of every agenttools handler: JSON errors, bounded and strict request bodies.

    The body is streamed (``stream_request_body``) so that its size is checked before it is
    held in memory: a Content-Length over MAX_BODY_BYTES is a 413 at once; a chunked body is
    counted as it arrives and dropped past the limit (``body()`` then answers 413).
    """

    auth_resource = AUTH_RESOURCE
    _received: bytearray | None = None
    _too_large = False

    async def prepare(self) -> None:  # type: ignore[override]
        await super().prepare()
        length = self.request.headers.get("Content-Length")
        if length is not None:
            try:
                size = int(length)
            except ValueError:
                raise web.HTTPError(400, "invalid Content-Length %r", length) from None
            if size > MAX_BODY_BYTES:
                self._too_large = True
                raise web.HTTPError(413, "the request body has %d bytes; at most %d are "
                                         "accepted", size, MAX_BODY_BYTES)
        self._received = bytearray()

    def data_received(self, chunk: bytes) -> None:
        if self._too_large or self._received is None:
            return  # refused already: the rest is read and dropped
        if len(self._received) + len(chunk) > MAX_BODY_BYTES:
            self._too_large = True
            self._received = None
            self.request.body = b""
            return
        self._received += chunk
        self.request.body = bytes(self._received)

    @property
    def store(self) -> Any:
        """The settings of the project this request is about: the server's own, or with
        ``?project=<dir>`` the project of a running kernel (see ``jupyter/state.py``);
        any other directory is a 400."""
        default = self.settings["agenttools_store"]
        project = self.get_query_argument("project", "").strip()
        if not project or project == str(default.project_root):
            return default
        state = project_state(list(self.kernel_manager.list_kernel_ids()), project)
        if state is None:
            raise web.HTTPError(400, "unknown project %r: expected the server's project (%s) "
                                     "or the project of a running kernel", project,
                                str(default.project_root))
        return kernel_project_store(self.settings, state)

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        exc = kwargs.get("exc_info", (None, None, None))[1]
        if isinstance(exc, web.HTTPError) and exc.log_message:
            message = exc.log_message % exc.args if exc.args else exc.log_message
        elif exc is not None and not isinstance(exc, web.HTTPError):
            message = f"internal error: {type(exc).__name__}: {exc}"
        else:
            message = self._reason
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"error": message, "status": status_code}))

    # --- reading the request ----------------------------------------------------------------

    def body(self, *, allow_query: bool = False) -> dict[str, Any]:
        """The request's JSON object (strict: see the module docstring); with ``allow_query``
        an empty body falls back to the query arguments."""
        if self._too_large:
            raise web.HTTPError(413, "the request body has more than %d bytes",
                                MAX_BODY_BYTES)
        raw = self.request.body
        if not raw or not raw.strip():
            if allow_query and self.request.query_arguments:
                return {k: self.get_query_argument(k) for k in self.request.query_arguments}
            raise web.HTTPError(400, "expected a JSON object in the request body, got nothing")
        try:
            data = strict_loads(raw)
        except JSONInputError as exc:
            if exc.problem.startswith("invalid JSON"):
                raise web.HTTPError(400, "the request body is not valid JSON: %s", exc) \
                    from None
            where = f" at {exc.key}" if exc.key and exc.key != "(top level)" else ""
            raise web.HTTPError(400, "the request body is refused%s: %s", where, exc) from None
        if not isinstance(data, dict):
            raise web.HTTPError(400, "expected a JSON object in the request body, got %s",
                                type(data).__name__)
        return data

    @overload
    @staticmethod
    def text(data: dict[str, Any], key: str, *, required: Literal[True] = True,
             max_chars: int = MAX_RULE_CHARS) -> str: ...
    @overload
    @staticmethod
    def text(data: dict[str, Any], key: str, *, required: bool,
             max_chars: int = MAX_RULE_CHARS) -> str | None: ...
    @staticmethod
    def text(data: dict[str, Any], key: str, *, required: bool = True,
             max_chars: int = MAX_RULE_CHARS) -> str | None:
        value = data.get(key)
        if value is None:
            if required:
                raise web.HTTPError(400, "missing %r in the request body", key)
            return None
        if not isinstance(value, str) or not value.strip():
            raise web.HTTPError(400, "expected %r to be a non-empty string, got %s", key,
                                _short(value))
        if len(value) > max_chars:
            raise web.HTTPError(400, "%r has %d characters; at most %d are accepted", key,
                                len(value), max_chars)
        return value.strip()

    @overload
    @staticmethod
    def choice(data: dict[str, Any], key: str, choices: Iterable[Any], *,
               required: Literal[True] = True) -> str: ...
    @overload
    @staticmethod
    def choice(data: dict[str, Any], key: str, choices: Iterable[Any], *,
               required: bool) -> str | None: ...
    @staticmethod
    def choice(data: dict[str, Any], key: str, choices: Iterable[Any], *, required: bool = True
               ) -> str | None:
        """``data[key]`` when it is exactly one of ``choices`` (no case folding, no trimming:
        a value that is not exact is refused, with the one it may have meant)."""
        value = data.get(key)
        if value is None:
            if required:
                raise web.HTTPError(400, "missing %r in the request body", key)
            return None
        names = [str(c) for c in choices]
        if isinstance(value, str) and value in names:
            return value
        hint = ""
        if isinstance(value, str):
            near = [n for n in names
                    if n == value.strip().lower().replace("-", "_").replace(" ", "_")]
            if near:
                hint = f" (did you mean {near[0]!r}?)"
        raise web.HTTPError(400, "expected %r to be exactly one of %s, got %s%s", key,
                            ", ".join(names), _short(value), hint)

    def writable_layer(self, data: dict[str, Any]) -> str:
        from ..permission.settings import LAYERS, WRITABLE_LAYERS

        layer = self.choice(data, "layer", LAYERS)
        if layer == "managed":
            raise web.HTTPError(
                403, "the managed layer (%s) is read-only: only an administrator edits that "
                     "file; choose one of %s", str(self.store.path("managed")),
                ", ".join(WRITABLE_LAYERS))
        return layer

    def rule_behavior(self, data: dict[str, Any], *, default: str | None = None) -> str:
        if default is None:
            return self.choice(data, "behavior", RULE_BEHAVIORS)
        return self.choice(data, "behavior", RULE_BEHAVIORS, required=False) or default

    def context(self, settings: Any = None) -> Any:
        from ..permission.types import PermissionContext

        root = str(self.store.project_root)
        dirs = settings.additional_directories if settings is not None else ()
        return PermissionContext(cwd=root, project_root=root, working_directories=dirs)

    def checked_rule(self, data: dict[str, Any], behavior: str) -> tuple[Any, Any, Any]:
        """``(settings entry, rule, tool or None)``; 400 unless the rule parses and holds
        its own examples."""
        from ..permission.rules import load_rule, validate_examples

        text = self.text(data, "rule")
        entry: Any = text
        examples = data.get("examples") or []
        counter = data.get("counter_examples") or []
        if examples or counter:
            entry = {"rule": text, "examples": examples, "counter_examples": counter}
        try:
            rule = load_rule(entry, behavior, "api")
        except RuleSyntaxError as exc:
            raise web.HTTPError(400, "%s", exc) from None
        tool = _builtin_tool(rule.tool)
        if tool is None and (examples or counter):
            raise web.HTTPError(400, "cannot check the examples of %r: %r is not a built-in "
                                     "tool; drop the examples or use Bash, Read, Write, Edit, "
                                     "Glob or Grep", rule.text, rule.tool)
        if tool is not None:
            try:
                validate_examples(rule, tool, self.context(self.store.merged))
            except RuleExampleError as exc:
                raise web.HTTPError(400, "%s", exc) from None
        return entry, rule, tool

    async def run(self, func: Any, *args: Any) -> Any:
        """Run blocking settings I/O in a thread; a corrupt file becomes a 409."""
        try:
            return await asyncio.to_thread(func, *args)
        except SettingsError as exc:
            raise web.HTTPError(409, "%s", exc) from None

    def reply(self, data: Any, status: int = 200) -> None:
        self.set_status(status)
        self.finish(json.dumps(data, default=str))


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def settings_view(store: Any) -> dict[str, Any]:
    """What ``GET settings`` returns (also echoed after every write)."""
    from ..permission.settings import LAYERS, WRITABLE_LAYERS
    from ..permission.types import PermissionMode

    merged = store.load()
    layers, rules = [], []
    held = {(i["layer"], i["key"], str(i["value"])): i["why"] for i in merged.ignored}
    for name in LAYERS:
        ls = merged.by_layer[name]
        layers.append({
            "layer": name, "file": str(ls.path), "exists": ls.exists,
            "writable": name in WRITABLE_LAYERS,
            "mode": None if ls.mode is None else ls.mode.value,
            "additional_directories": list(ls.additional_directories),
        })
        for rule in ls.rules:
            item = rule.to_dict()
            item.update(layer=name, file=str(ls.path))
            item.pop("source", None)
            why = held.get((name, rule.behavior.value, rule.text))
            item.update(active=why is None, ignored_why=why)  # untrusted or locked down
            rules.append(item)
    lock = merged.lockdown
    return {
        "project_root": str(store.project_root),
        "mode": (merged.mode or lock.fallback_mode()).value,
        "mode_source": merged.mode_source,
        "modes": [m.value for m in PermissionMode],
        "available_modes": [m.value for m in PermissionMode if lock.allows(m)],
        "trust": None if merged.trust is None else merged.trust.to_dict(),
        "lockdown": lock.to_dict(),
        "ignored": list(merged.ignored),
        "layers": layers,
        "rules": rules,
        "additional_directories": list(merged.additional_directories),
        "audit_file": str(store.audit_path),
    }


class SettingsHandler(AgentToolsHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        self.reply(await self.run(settings_view, self.store))


class RulesHandler(AgentToolsHandler):
    @web.authenticated
    @authorized
    async def post(self) -> None:
        data = self.body()
        layer = self.writable_layer(data)
        behavior = self.rule_behavior(data)
        entry, _rule, _tool = await self.run(self.checked_rule, data, behavior)
        rule = await self.run(self.store.add_rule, layer, behavior, entry)
        view = await self.run(settings_view, self.store)
        self.reply({"rule": rule.text, "behavior": behavior, "layer": layer,
                    "file": str(self.store.path(layer)), "settings": view}, 201)

    @web.authenticated
    @authorized
    async def delete(self) -> None:
        data = self.body(allow_query=True)
        layer = self.writable_layer(data)
        behavior = self.rule_behavior(data)
        text = self.text(data, "rule")
        try:
            from ..permission.types import PermissionRule

            text = PermissionRule.parse(text).text
        except RuleSyntaxError as exc:
            raise web.HTTPError(400, "%s", exc) from None
        removed = await self.run(self.store.remove_rule, layer, behavior, text)
        if not removed:
            raise web.HTTPError(404, "no %s rule %r in the %s layer (%s)", behavior, text,
                                layer, str(self.store.path(layer)))
        view = await self.run(settings_view, self.store)
        self.reply({"removed": text, "behavior": behavior, "layer": layer,
                    "file": str(self.store.path(layer)), "settings": view})


class ModeHandler(AgentToolsHandler):
    @web.authenticated
    @authorized
    async def put(self) -> None:
        from ..permission.types import PermissionMode

        data = self.body()
        layer = self.writable_layer(data)
        if "mode" not in data:
            raise web.HTTPError(400, "missing 'mode' in the request body (null clears it)")
        mode = self.choice(data, "mode", [m.value for m in PermissionMode], required=False)
        if mode is not None:
            merged = await self.run(self.store.load)
            why = merged.lockdown.why_not(mode)
            if why is not None:
                raise web.HTTPError(403, "cannot use the %s mode: %s", mode, why)
        await self.run(self.store.set_mode, layer, mode)
        view = await self.run(settings_view, self.store)
        self.reply({"layer": layer, "mode": mode, "file": str(self.store.path(layer)),
                    "effective": view["mode"], "settings": view})


class AuditHandler(AgentToolsHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        from ..permission.audit import AuditLog

        raw_limit = self.get_query_argument("limit", "100")
        try:
            limit = int(raw_limit)
        except ValueError:
            limit = -1
        if not 0 < limit <= MAX_AUDIT:
            raise web.HTTPError(400, "expected 'limit' to be a whole number from 1 to %d, "
                                     "got %r", MAX_AUDIT, raw_limit)
        tool = self.get_query_argument("tool", "").strip() or None
        behavior = self.get_query_argument("behavior", "").strip().lower() or None
        if behavior is not None and behavior not in AUDIT_BEHAVIORS:
            raise web.HTTPError(400, "expected 'behavior' to be one of %s, got %r",
                                ", ".join(AUDIT_BEHAVIORS), behavior)
        # eco (#17): the audit answers who and what; reads start at the end of the file
        raw_offset = self.get_query_argument("offset", "0")
        offset = int(raw_offset) if raw_offset.isdigit() and len(raw_offset) <= 9 else -1
        if offset < 0:
            raise web.HTTPError(400, "expected 'offset' to be a whole number from 0, got %r",
                                raw_offset)
        query = {k: self.get_query_argument(k) for k in ("kind", "outcome")
                 if self.get_query_argument(k, "")}
        kind = self.choice(query, "kind", AUDIT_KINDS, required=False)
        outcome = self.choice(query, "outcome", AUDIT_OUTCOMES, required=False)
        user = self.get_query_argument("user", "").strip()[:256] or None
        agent = self.get_query_argument("agent", "").strip()[:256] or None
        since = self.get_query_argument("since", "").strip() or None
        log = AuditLog(self.store.audit_path)
        try:
            entries = await self.run(lambda: log.read(
                limit=limit, offset=offset, tool=tool, behavior=behavior, newest_first=True,
                kind=kind, outcome=outcome, user=user, agent=agent, since=since))
        except AuditLogError as exc:  # a FIFO or a device where the log belongs
            raise web.HTTPError(409, "%s", exc) from None
        except ValueError as exc:  # since= that is not a time
            raise web.HTTPError(400, "%s", exc) from None
        # every entry has "user" and "agent" (agenttools, claude-code, codex, gemini-cli);
        # entries older than these fields lack them
        self.reply({"entries": entries, "skipped": log.skipped, "file": str(log.path),
                    "offset": offset, "limit": limit, "more": len(entries) == limit})


class CheckHandler(AgentToolsHandler):
    @web.authenticated
    @authorized
    async def post(self) -> None:
        data = self.body()
        tool_name = self.text(data, "tool")
        tool_input = data.get("input", {})
        tool = _builtin_tool(tool_name)
        if isinstance(tool_input, str):
            arg = getattr(tool, "rule_argument", None)
            if not arg:
                raise web.HTTPError(400, "give 'input' as an object for %r", tool_name)
            tool_input = {arg: tool_input}
        if not isinstance(tool_input, dict):
            raise web.HTTPError(400, "expected 'input' to be an object (the tool's input), "
                                     "got %s", type(tool_input).__name__)
        from ..permission.types import PermissionMode

        mode = self.choice(data, "mode", [m.value for m in PermissionMode], required=False)
        settings = await self.run(self.store.load)
        if mode is None:
            mode = (settings.mode or settings.lockdown.fallback_mode()).value
        why = settings.lockdown.why_not(mode)
        if why is not None:
            raise web.HTTPError(403, "cannot use the %s mode: %s", mode, why)
        decision = await self.run(self._check, tool if tool is not None else tool_name,
                                  tool_input, mode, settings)
        result = decision.to_dict()
        result.update(tool=tool_name, input=tool_input, mode=mode)
        self.reply(result)

    def _check(self, tool: Any, tool_input: dict[str, Any], mode: str, settings: Any) -> Any:
        from ..permission.check import check

        root = str(self.store.project_root)
        try:
            return check(tool, tool_input, mode=mode, rules=list(settings.rules), cwd=root,
                         working_directories=settings.additional_directories)
        except (ToolNotFound, ToolArgumentsError) as exc:
            raise web.HTTPError(400, "%s", exc) from None
        except RuleExampleError as exc:  # a rule on disk that fails its own examples
            raise web.HTTPError(409, "%s", exc) from None
        except (ValueError, TypeError) as exc:
            raise web.HTTPError(400, "cannot check this call: %s", exc) from None


class ValidateHandler(AgentToolsHandler):
    @web.authenticated
    @authorized
    async def post(self) -> None:
        data = self.body()
        behavior = self.rule_behavior(data, default="allow")
        self.text(data, "rule")
        try:
            _entry, rule, tool = await self.run(self.checked_rule, data, behavior)
        except web.HTTPError as exc:
            if exc.status_code != 400:
                raise
            message = (exc.log_message or "") % exc.args if exc.args else exc.log_message
            self.reply({"ok": False, "error": message})
            return
        self.reply({"ok": True, "rule": rule.text, "tool": rule.tool,
                    "specifier": rule.specifier, "behavior": behavior,
                    "known_tool": tool is not None})


class NotebookHandler(AgentToolsHandler):
    """The notebook tools' edits of a notebook open in JupyterLab (``notebook_live.py``)."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        self.reply(await live_read(self.settings, self.get_query_argument("path", "")))

    @web.authenticated
    @authorized
    async def post(self) -> None:
        status, payload = await live_edit(self.settings, self.body())
        self.reply(payload, status)


class KernelsHandler(AgentToolsHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        self.reply(await kernels_view(self.settings, self.kernel_manager,
                                      self.session_manager, self.run))


class TrustHandler(AgentToolsHandler):
    """Workspace trust of the server's project (``permission/trust.py``): the panel's "Trust
    this folder" button POSTs here."""

    def view(self) -> dict[str, Any]:
        merged = self.store.load()
        state = merged.trust.to_dict() if merged.trust is not None else {}
        state["explanation"] = merged.trust.explain() if merged.trust is not None else ""
        state["reason"] = state["explanation"]  # the panel's name for it
        state["ignored"] = [i for i in merged.ignored if i["layer"] in ("project", "local")]
        return state

    @web.authenticated
    @authorized
    async def get(self) -> None:
        self.reply(await self.run(self.view))

    @web.authenticated
    @authorized
    async def post(self) -> None:
        data = self.body()
        trusted = data.get("trusted", True)
        if not isinstance(trusted, bool):
            raise web.HTTPError(400, "'trusted' must be true or false, got %r", trusted)
        digest = data.get("sha256")
        if digest is not None and not isinstance(digest, str):
            raise web.HTTPError(400, "'sha256' must be a string")
        current = await self.run(self.store.current_trust)
        if trusted and digest is not None and digest != current.digest:
            raise web.HTTPError(409, "the project's settings changed since they were shown "
                                     "(sha256 %s, now %s): look at them again", digest,
                                current.digest)
        await self.run(self.store.set_trust, trusted)
        self.reply(await self.run(self.view))


ROUTES = [
    ("settings", SettingsHandler),
    ("trust", TrustHandler),
    ("rules", RulesHandler),
    ("mode", ModeHandler),
    ("audit", AuditHandler),
    ("check", CheckHandler),
    ("validate", ValidateHandler),
    ("notebook", NotebookHandler),
    ("kernels", KernelsHandler),
]
