"""MCP servers (stdio or streamable HTTP) and their tools, through the ``mcp`` SDK.

The SDK's transports and session are anyio context managers whose task groups must be entered
and exited by the same task. So each MCPServer runs its whole connection in one long-lived
background task (``_run``) that enters the contexts, signals readiness, and waits for
``close()``; requests run as short tasks that race the connection task and a timeout, so a
server that dies mid-call gives an error result instead of a hang.

The tool list is fetched once and cached; ``list_tools(refresh=True)`` re-lists.
This module is the only one that imports the SDK.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import copy
import json
import os
import re
import shutil
import sys
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from ..backends.supervisor import SUPERVISION, supervisor_argv
from ..errors import MCPCallError, MCPConnectionError, ToolDefinitionError
from .base import Tool, ToolResponse, ToolResultState, text_block

if TYPE_CHECKING:
    from ..permission.types import PermissionContext, PermissionDecision

if sys.version_info < (3, 11):  # Python 3.10: anyio depends on the backport
    from exceptiongroup import BaseExceptionGroup

__all__ = ["MCPServer", "MCPTool", "mcp_tool_name"]

SERVER_NAME_RE = re.compile(r"^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$")
_ILLEGAL = re.compile(r"[^A-Za-z0-9_\-]")
_CONNECTION_CLOSED = -32000  # JSON-RPC code the SDK uses for a closed connection
_STDERR_TAIL = 2000
STDERR_KEEP = 64 * 1024  # bytes of a stdio server's stderr kept (in memory, the most recent)


def mcp_tool_name(server: str, tool: str) -> str:
    """``mcp__<server>__<tool>``; characters a tool name may not hold become ``_``."""
    return f"mcp__{server}__{_ILLEGAL.sub('_', tool)}"


def _dump(obj: Any) -> Any:
    """An SDK model as plain camelCase JSON data (the wire format, the same in mcp 1 and 2)."""
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json", by_alias=True, exclude_none=True)
    return obj


def _describe(exc: BaseException) -> str:
    """A one-line account of an exception, looking inside anyio's exception groups."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in exc.exceptions)
    text = str(exc) or type(exc).__name__
    if hasattr(exc, "error") and getattr(exc.error, "message", None):
        text = exc.error.message
    return f"{type(exc).__name__}: {text}"


class MCPServer:
    """One MCP server: ``command``/``args``/``env`` for stdio, or ``url``/``headers`` for
    streamable HTTP. ``call_timeout`` bounds each request; ``trust_read_only_hint=False``
    treats every tool as mutating whatever the server claims.

    A stdio server gets the SDK's minimal environment (PATH, HOME, …) plus ``env``, not the
    whole host environment: API keys reach it only when passed on purpose. It runs under the
    command supervisor (``backends/supervisor.py``): when it exits or is stopped, every process
    it started goes too, also those that left its process group or ignore SIGTERM, and so when
    the kernel dies. Its stderr is kept in memory (the last ``STDERR_KEEP`` bytes), never in a
    file."""

    def __init__(
        self,
        name: str,
        command: str | None = None,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        url: str | None = None,
        headers: Mapping[str, str] | None = None,
        *,
        cwd: str | os.PathLike[str] | None = None,
        connect_timeout: float = 30.0,
        call_timeout: float = 300.0,
        trust_read_only_hint: bool = True,
    ) -> None:
        if not isinstance(name, str) or not SERVER_NAME_RE.match(name):
            raise ToolDefinitionError(
                f"MCP server name must be letters, digits, '-' and single '_' (no '__', which "
                f"separates the parts of mcp__<server>__<tool>), got {name!r}")
        if (command is None) == (url is None):
            raise ToolDefinitionError(
                f"MCP server {name!r}: give either command= (stdio) or url= (streamable HTTP)")
        self.name = name
        self.command = command
        self.args = list(args)
        self.env = dict(env) if env is not None else None
        self.url = url
        self.headers = dict(headers) if headers else None
        self.cwd = cwd
        self.connect_timeout = connect_timeout
        self.call_timeout = call_timeout
        self.trust_read_only_hint = trust_read_only_hint
        self.instructions: str | None = None
        self._session: ClientSession | None = None
        self._runner: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._lost: str | None = None
        self._tools: list[MCPTool] | None = None
        self._list_lock: asyncio.Lock | None = None
        self._stderr: _StderrTail | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:
        where = self.url or " ".join([self.command or "", *self.args])
        return f"<MCPServer {self.name!r} {where}>"

    @property
    def connected(self) -> bool:
        return (self._session is not None and self._runner is not None
                and not self._runner.done() and self._lost is None)

    # --- connection ------------------------------------------------------------------------

    async def connect(self) -> None:
        """Start (or reach) the server and initialise the session; MCPConnectionError if that
        fails, with the tail of the server's stderr when it is a local process."""
        if self.connected:
            return
        if self._runner is not None:
            await self.close()
        self._lost = None
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self._list_lock = asyncio.Lock()
        if self.command is not None:
            missing = self._missing_command()
            if missing:
                raise MCPConnectionError(f"MCP server {self.name!r} ({self._where()}) failed to "
                                         f"start: {missing}")
            self._stderr = _StderrTail(self._loop)
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._runner = asyncio.create_task(self._run(ready), name=f"mcp-server-{self.name}")
        try:
            await asyncio.wait_for(asyncio.shield(ready), self.connect_timeout)
        except asyncio.TimeoutError:
            tail = self._tail()
            await self.close()
            raise MCPConnectionError(
                f"MCP server {self.name!r} ({self._where()}) did not finish initialising within "
                f"{self.connect_timeout} s{tail}") from None
        except asyncio.CancelledError:
            await self.close()
            raise
        except Exception as exc:
            tail = self._tail()
            await self.close()
            why = _describe(exc)
            if _is_closed(exc):
                why = "the connection closed before the MCP handshake finished (did it exit?)"
            raise MCPConnectionError(
                f"MCP server {self.name!r} ({self._where()}) failed to start: {why}{tail}"
            ) from None

    def _where(self) -> str:
        if self.url:
            return self.url
        return " ".join([self.command or "", *self.args]).strip()

    def _missing_command(self) -> str | None:
        """Why the stdio command cannot start, checked here: under the supervisor a missing
        program would only show as a server that exits at once."""
        command = str(self.command)
        path = (self.env or {}).get("PATH", os.environ.get("PATH"))
        if os.sep in command:
            base = os.path.join(str(self.cwd), command) if self.cwd and \
                not os.path.isabs(command) else command
            if not os.path.exists(base):
                return f"FileNotFoundError: No such file or directory: {command!r}"
            if os.path.isdir(base) or not os.access(base, os.X_OK):
                return f"PermissionError: not an executable file: {command!r}"
            return None
        if shutil.which(command, path=path) is None:
            return f"FileNotFoundError: No such file or directory: {command!r} is not on PATH"
        return None

    def _transport(self) -> Any:
        if self.command is not None:
            command, args = self.command, self.args
            if SUPERVISION:
                full = supervisor_argv(sys.executable, [command, *args], parent=os.getpid(),
                                       on_exit="kill")
                command, args = full[0], full[1:]
            params = StdioServerParameters(command=command, args=args, env=self.env,
                                           cwd=None if self.cwd is None else os.fspath(self.cwd))
            assert self._stderr is not None
            return _closing_with(stdio_client(params, errlog=self._stderr.writer()),
                                 self._stderr)
        from mcp.client import streamable_http

        url = self.url
        assert url is not None  # __init__ requires command= or url=
        if not hasattr(streamable_http, "streamable_http_client"):  # mcp 1.x
            old_client: Any = getattr(streamable_http, "streamablehttp_client")  # noqa: B009
            return old_client(url, headers=self.headers)
        if self.headers:
            from mcp.shared._httpx_utils import create_mcp_http_client

            client = create_mcp_http_client(headers=self.headers)
            return _closing_async(streamable_http.streamable_http_client(url, http_client=client),
                                  client)
        return streamable_http.streamable_http_client(url)

    async def _run(self, ready: asyncio.Future[None]) -> None:
        assert self._stop is not None
        try:
            async with contextlib.AsyncExitStack() as stack:
                streams = await stack.enter_async_context(self._transport())
                session = await stack.enter_async_context(ClientSession(streams[0], streams[1]))
                init = await session.initialize()
                self.instructions = _dump(init).get("instructions")
                self._session = session
                ready.set_result(None)
                await self._stop.wait()
        except BaseException as exc:  # noqa: BLE001 - reported through `ready` or `_lost`
            if not ready.done():
                if isinstance(exc, asyncio.CancelledError):
                    ready.cancel()
                else:
                    ready.set_exception(exc)
            elif self._lost is None:
                self._lost = _describe(exc)
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self._session = None

    async def close(self) -> None:
        """End the session and stop the server process; safe to call twice."""
        runner, self._runner = self._runner, None
        if runner is not None:
            if self._stop is not None:
                self._stop.set()
            if self._session is None and not runner.done():
                runner.cancel()  # still starting: nothing to wind down politely
            try:
                await asyncio.wait_for(asyncio.shield(runner), 10)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                runner.cancel()
                with contextlib.suppress(BaseException):
                    await runner
            except Exception:  # the connection's own failure, already recorded
                pass
        self._session = None
        self._tools = None
        if self._stderr is not None:
            self._stderr.close()

    async def __aenter__(self) -> "MCPServer":
        await self.connect()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    def stderr_tail(self, limit: int = _STDERR_TAIL) -> str:
        """The end of what the server process wrote to stderr (stdio servers only)."""
        if self._stderr is None:
            return ""
        return self._stderr.text()[-limit:].strip()

    def _tail(self) -> str:
        tail = self.stderr_tail()
        return f"\n--- server stderr (tail) ---\n{tail}" if tail else ""

    # --- requests --------------------------------------------------------------------------

    async def _request(self, make: Any, what: str, timeout: float) -> Any:
        session = self._session
        runner = self._runner
        if self._loop is not None and asyncio.get_running_loop() is not self._loop:
            raise MCPCallError(f"MCP server {self.name!r} was connected in another event loop; "
                               f"connect it again in this one")
        if session is None or runner is None or runner.done() or self._lost:
            why = f": {self._lost}" if self._lost else ""
            raise MCPCallError(f"MCP server {self.name!r} is not connected{why}{self._tail()}")
        task = asyncio.ensure_future(make(session))
        try:
            done, _ = await asyncio.wait({task, runner}, timeout=timeout,
                                         return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not task.done():
                task.cancel()
                task.add_done_callback(_retrieve)
        if task in done:
            try:
                return task.result()
            except Exception as exc:
                if _is_closed(exc):
                    self._lost = "the connection closed (the server exited?)"
                    raise MCPCallError(
                        f"MCP server {self.name!r}: the connection closed during {what} (the "
                        f"server exited?){self._tail()}") from None
                raise MCPCallError(
                    f"MCP server {self.name!r}: {what} failed: {_describe(exc)}") from None
        if runner.done():
            self._lost = self._lost or "the connection ended"
            raise MCPCallError(f"MCP server {self.name!r}: the connection ended during {what}"
                               f"{self._tail()}")
        raise MCPCallError(f"MCP server {self.name!r}: {what} timed out after {timeout} s")

    async def list_tools(self, refresh: bool = False) -> list["MCPTool"]:
        """The server's tools, cached after the first listing; ``refresh=True`` re-lists.
        MCPConnectionError when the server is not connected or the listing fails."""
        if self._tools is not None and not refresh:
            return list(self._tools)
        if not self.connected:
            raise MCPConnectionError(f"MCP server {self.name!r} is not connected; "
                                     f"await server.connect() first")
        assert self._list_lock is not None
        async with self._list_lock:
            if self._tools is not None and not refresh:
                return list(self._tools)
            try:
                raw = await self._list_all()
            except MCPCallError as exc:
                raise MCPConnectionError(str(exc)) from None
            tools: list[MCPTool] = []
            taken: set[str] = set()
            for entry in raw:
                tool = MCPTool(self, entry)
                base, n = tool.name, 2
                while tool.name in taken:  # "a.b" and "a_b" both sanitise to "a_b"
                    tool.name = f"{base}_{n}"
                    n += 1
                taken.add(tool.name)
                tools.append(tool)
            self._tools = tools
            return list(tools)

    async def _list_all(self) -> list[dict[str, Any]]:
        import inspect

        entries: list[dict[str, Any]] = []
        cursor: str | None = None
        for _ in range(1000):  # a server that pages forever is a bug, not a reason to hang
            if cursor is None:
                result = await self._request(lambda s: s.list_tools(), "tools/list",
                                             self.call_timeout)
            else:
                def make(s: ClientSession, c: str = cursor) -> Any:
                    if "params" in inspect.signature(s.list_tools).parameters:
                        from mcp.types import PaginatedRequestParams

                        return s.list_tools(params=PaginatedRequestParams(cursor=c))
                    list_tools: Any = s.list_tools  # mcp 1.x: a cursor keyword
                    return list_tools(cursor=c)

                result = await self._request(make, "tools/list", self.call_timeout)
            data = _dump(result)
            entries.extend(data.get("tools", []))
            cursor = data.get("nextCursor")
            if not cursor:
                break
        return entries

    async def call_tool(self, name: str, arguments: Mapping[str, Any],
                        timeout: float | None = None) -> ToolResponse:
        """Call the server's tool ``name`` (its own name, not ``mcp__…``); MCPCallError when
        the server fails, dies or times out; ``isError`` results come back in state ERROR."""
        result = await self._request(lambda s: s.call_tool(name, dict(arguments)),
                                     f"the call of {name!r}", timeout or self.call_timeout)
        return convert_result(_dump(result))


def _is_closed(exc: BaseException) -> bool:
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return getattr(getattr(exc, "error", None), "code", None) == _CONNECTION_CLOSED


def _retrieve(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


class _StderrTail:
    """A stdio server's stderr through a pipe into a bounded buffer (the most recent
    ``STDERR_KEEP`` bytes): memory stays bounded and nothing is left in /tmp."""

    def __init__(self, loop: asyncio.AbstractEventLoop, keep: int = STDERR_KEEP):
        self.keep = keep
        self.chunks: collections.deque[bytes] = collections.deque()
        self.size = 0
        self.dropped = 0
        self._loop = loop
        self._read_fd: int | None = None
        self._write_file: Any = None

    def writer(self) -> Any:
        """The file the server writes to (the pipe's write end); reading starts now."""
        read_fd, write_fd = os.pipe()
        os.set_blocking(read_fd, False)
        self._read_fd = read_fd
        self._loop.add_reader(read_fd, self.drain)
        self._write_file = os.fdopen(write_fd, "w", encoding="utf-8", errors="replace")
        return self._write_file

    def started(self) -> None:
        """The server process holds the write end now: close ours, so the pipe ends with it."""
        if self._write_file is not None:
            self._write_file.close()
            self._write_file = None

    def drain(self) -> None:
        fd = self._read_fd
        while fd is not None:
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:  # every writer is gone
                self._stop_reading()
                return
            self.chunks.append(data)
            self.size += len(data)
            while self.size - len(self.chunks[0]) >= self.keep:
                self.size -= len(self.chunks[0])
                self.dropped += len(self.chunks.popleft())

    def text(self) -> str:
        self.drain()  # what the server wrote just before it died counts
        data = b"".join(self.chunks)[-self.keep:]
        head = f"[{self.dropped + max(0, self.size - self.keep)} earlier bytes dropped]\n" \
            if self.dropped or self.size > self.keep else ""
        return head + data.decode("utf-8", "replace")

    def _stop_reading(self) -> None:
        if self._read_fd is not None:
            with contextlib.suppress(Exception):
                self._loop.remove_reader(self._read_fd)
            with contextlib.suppress(OSError):
                os.close(self._read_fd)
            self._read_fd = None

    def close(self) -> None:
        self.started()
        with contextlib.suppress(Exception):
            self.drain()
        self._stop_reading()


@contextlib.asynccontextmanager
async def _closing_with(cm: Any, tail: _StderrTail) -> Any:
    try:
        async with cm as streams:
            tail.started()
            yield streams
    finally:
        tail.close()


@contextlib.asynccontextmanager
async def _closing_async(cm: Any, client: Any) -> Any:
    async with client:
        async with cm as streams:
            yield streams


def convert_result(data: Mapping[str, Any]) -> ToolResponse:
    """A CallToolResult (as wire JSON) as a ToolResponse with our content blocks."""
    blocks: list[dict[str, Any]] = []
    for item in data.get("content") or []:
        blocks.append(_convert_block(item))
    if not blocks and data.get("structuredContent") is not None:
        blocks.append(text_block(json.dumps(data["structuredContent"], ensure_ascii=False)))
    state = ToolResultState.ERROR if data.get("isError") else ToolResultState.SUCCESS
    return ToolResponse(blocks, state=state)


def _convert_block(item: Mapping[str, Any]) -> dict[str, Any]:
    kind = item.get("type")
    if kind == "text":
        return text_block(item.get("text", ""))
    if kind in ("image", "audio"):
        return {"type": kind, "data": item.get("data", ""),
                "mime_type": item.get("mimeType", "application/octet-stream")}
    if kind == "resource":
        res = item.get("resource") or {}
        block: dict[str, Any] = {"type": "resource", "uri": res.get("uri", "")}
        if "text" in res:
            block["text"] = res["text"]
        if "blob" in res:
            block["blob"] = res["blob"]
        if res.get("mimeType"):
            block["mime_type"] = res["mimeType"]
        return block
    if kind == "resource_link":
        label = item.get("name") or item.get("title") or ""
        return text_block(f"[resource link] {label} <{item.get('uri', '')}>".replace("  ", " "))
    return text_block(json.dumps(dict(item), ensure_ascii=False))


class MCPTool(Tool):
    """One tool of an MCP server, named ``mcp__<server>__<tool>``. Read-only when the server
    says so (``annotations.readOnlyHint``); never concurrency-safe (the server may not be)."""

    concurrency_safe = False

    def __init__(self, server: MCPServer, raw: Mapping[str, Any]) -> None:
        self.server = server
        self.server_name = server.name
        self.mcp_name: str = raw["name"]
        self.name = mcp_tool_name(server.name, self.mcp_name)
        self.description = raw.get("description") or raw.get("title") or ""
        schema = copy.deepcopy(raw.get("inputSchema") or {})
        if not isinstance(schema, dict):
            schema = {}
        schema.setdefault("type", "object")
        schema.setdefault("properties", {})
        self.input_schema = schema
        self.annotations: dict[str, Any] = dict(raw.get("annotations") or {})
        self.read_only = bool(self.annotations.get("readOnlyHint")) and \
            server.trust_read_only_hint

    async def call(self, **tool_input: Any) -> ToolResponse:
        return await self.server.call_tool(self.mcp_name, tool_input)

    def check_permissions(self, tool_input: Mapping[str, Any],
                          context: "PermissionContext") -> "PermissionDecision":
        from ..permission.types import PermissionDecision

        if self.is_read_only(tool_input):
            return PermissionDecision.passthrough(
                f"MCP server {self.server_name!r} marks {self.mcp_name!r} read-only")
        return PermissionDecision.ask(
            f"MCP tools need to be allowed ({self.mcp_name!r} on server {self.server_name!r})")
