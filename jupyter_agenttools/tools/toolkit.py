"""ToolGroup and Toolkit: what the model can call, and the one way a call is executed.

The toolkit owns gate 1 (``get_tool``: unknown tool, inactive group) and the execution step
(``call_tool``: whatever a tool's ``call`` produces becomes one chunk stream that ends with
exactly one ToolResponse). The MCP SDK is imported only by ``add_mcp``.

Cancellation: when the task consuming ``call_tool`` is cancelled while the tool runs, the
generator yields a final ToolResponse in state INTERRUPTED and re-raises CancelledError on the
next ``__anext__``. A consumer that iterates to the end (``async for``) therefore sees the
interrupted result and then the cancellation; one that stops right after the response must
re-raise the cancellation itself (``asyncio.current_task().cancelling()`` tells it).

A synchronous ``call`` (and each step of a sync generator it returns) runs in a worker thread
of its own (``worker.py``), so a blocking tool never stalls the event loop; cancelling stops
that thread where Python can, and the INTERRUPTED response says when it could not. Any
BaseException a tool raises (SystemExit, KeyboardInterrupt…) but CancelledError is contained in
that call's ERROR result: a tool never tears down the host's event loop.
"""

from __future__ import annotations

import inspect
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, AsyncIterator, Iterable, Mapping

from ..errors import (
    AgentOrientedException,
    DeveloperOrientedException,
    ToolGroupInactive,
    ToolkitError,
    ToolNotFound,
    ToolReturnTypeError,
)
from .base import (
    TOOL_NAME_RE,
    Tool,
    ToolChunk,
    ToolResponse,
    ToolResultState,
    validate_tool_definition,
)
from .meta import RESET_TOOLS, SKILL_TOOL, ResetTools, SkillTool
from .skills import Skill, load_skills
from .worker import STUCK_MESSAGE, ToolThread

if TYPE_CHECKING:
    from .mcp import MCPServer

__all__ = ["ToolGroup", "Toolkit", "BASIC", "INTERRUPTED_MESSAGE"]

BASIC = "basic"
INTERRUPTED_MESSAGE = "The tool call was interrupted by the user."


@dataclass
class ToolGroup:
    """A named set of tools the model switches on with ``reset_tools``; ``instructions`` are
    shown to the model while the group is active."""

    name: str
    description: str
    instructions: str | None = None
    active: bool = False


class Toolkit:
    """Tools in groups (``basic`` always active), skills, MCP servers, and ``call_tool``."""

    def __init__(self, tools: Iterable[Any] = (), groups: Iterable[ToolGroup] = (),
                 skills: Iterable[str | os.PathLike[str] | Skill] = ()) -> None:
        self._groups: dict[str, ToolGroup] = {}
        self._tools: dict[str, tuple[Tool, str]] = {}
        self._skills: dict[str, Skill] = {}
        self._mcp: dict[str, tuple["MCPServer", str]] = {}
        self._reset_tool = ResetTools(self)
        self._skill_tool = SkillTool(self)
        for group in groups:
            self.add_group(group)
        for tool in tools:
            self.add_tool(tool)
        for skill in skills:
            if isinstance(skill, Skill):
                self._add_skills([skill])
            else:
                self.add_skill(skill)

    # --- groups ----------------------------------------------------------------------------

    def add_group(self, group: ToolGroup) -> ToolGroup:
        if not isinstance(group, ToolGroup):
            raise ToolkitError(f"expected a ToolGroup, got {group!r}")
        if group.name == BASIC:
            raise ToolkitError("the 'basic' group always exists and is always active; "
                               "add tools to it with add_tool(tool)")
        if not TOOL_NAME_RE.match(group.name):
            raise ToolkitError(f"group name must match {TOOL_NAME_RE.pattern}, "
                               f"got {group.name!r}")
        if group.name in self._groups:
            raise ToolkitError(f"duplicate tool group {group.name!r}")
        if not isinstance(group.description, str) or not group.description.strip():
            raise ToolkitError(f"group {group.name!r} needs a description: the model chooses "
                               f"groups by it")
        self._groups[group.name] = group
        return group

    def remove_group(self, name: str) -> None:
        """Remove a group and every tool in it."""
        if name == BASIC:
            raise ToolkitError("the 'basic' group cannot be removed")
        if name not in self._groups:
            raise ToolkitError(f"unknown tool group {name!r}; groups: {self._group_list()}")
        del self._groups[name]
        for tool_name in [n for n, (_, g) in self._tools.items() if g == name]:
            del self._tools[tool_name]

    @property
    def groups(self) -> list[ToolGroup]:
        """The groups other than ``basic``, in registration order."""
        return list(self._groups.values())

    @property
    def active_groups(self) -> list[str]:
        """Names of the active groups other than ``basic`` (which is always active)."""
        return [g.name for g in self._groups.values() if g.active]

    def set_active_groups(self, state: Mapping[str, bool]) -> None:
        """Make exactly the groups set to true active (the final state, like reset_tools)."""
        for key, value in state.items():
            if key == BASIC:
                if value is not True:
                    raise ToolkitError("the 'basic' group cannot be deactivated")
                continue
            if key not in self._groups:
                raise ToolkitError(f"unknown tool group {key!r}; groups: {self._group_list()}")
            if not isinstance(value, bool):
                raise ToolkitError(f"group {key!r}: expected True or False, got {value!r}")
        for group in self._groups.values():
            group.active = state.get(group.name) is True

    def describe_active_groups(self) -> str:
        """What reset_tools answers: the active groups and their instructions."""
        active = [g for g in self._groups.values() if g.active]
        if not active:
            return "All tool groups are deactivated. Only the basic tools are available."
        text = f"The active tool groups: {', '.join(g.name for g in active)}."
        block = _instructions_block(active)
        return text + ("\n\n" + block if block else "")

    def _group_list(self) -> str:
        return ", ".join(self._groups) or "(none besides basic)"

    # --- tools -----------------------------------------------------------------------------

    def add_tool(self, tool: Any, group: str = BASIC, *, replace: bool = False) -> Tool:
        """Register a tool (a plain callable becomes a FunctionTool) in ``group``."""
        if not isinstance(tool, Tool) and callable(tool) and not hasattr(tool, "input_schema"):
            from .function import FunctionTool

            tool = FunctionTool(tool)
        validate_tool_definition(tool)
        if group != BASIC and group not in self._groups:
            raise ToolkitError(f"unknown tool group {group!r}; add it with "
                               f"add_group(ToolGroup({group!r}, description=...)) first; "
                               f"groups: {self._group_list()}")
        if tool.name in (RESET_TOOLS, SKILL_TOOL):
            raise ToolkitError(f"the tool name {tool.name!r} is reserved for the toolkit")
        if tool.name in self._tools and not replace:
            raise ToolkitError(f"a tool named {tool.name!r} is already registered (group "
                               f"{self._tools[tool.name][1]!r}); pass replace=True to replace it")
        self._tools[tool.name] = (tool, group)
        return tool

    def remove_tool(self, name: str) -> Tool:
        if name not in self._tools:
            raise ToolkitError(f"no tool named {name!r} to remove")
        return self._tools.pop(name)[0]

    @property
    def tools(self) -> list[Tool]:
        """Every tool the toolkit resolves, active or not, meta tools included."""
        return [t for t, _ in self._tools.values()] + self._meta_tools()

    def _meta_tools(self) -> list[Tool]:
        meta: list[Tool] = []
        if self._groups:
            meta.append(self._reset_tool)
        if self._skills:
            meta.append(self._skill_tool)
        return meta

    def _is_active(self, group: str) -> bool:
        return group == BASIC or self._groups[group].active

    def offered_tools(self) -> list[Tool]:
        """The tools offered to the model: basic, the meta tools, then the active groups'."""
        basic = [t for t, g in self._tools.values() if g == BASIC]
        grouped = [t for t, g in self._tools.values() if g != BASIC and self._is_active(g)]
        return basic + self._meta_tools() + grouped

    def schemas(self) -> list[dict[str, Any]]:
        return [t.schema() for t in self.offered_tools()]

    def find_tool(self, name: str) -> Tool | None:
        for tool in self._meta_tools():
            if tool.name == name:
                return tool
        entry = self._tools.get(name)
        return entry[0] if entry else None

    def get_tool(self, name: str) -> Tool:
        """Gate 1: the tool, or ToolNotFound / ToolGroupInactive for the model to act on."""
        tool = self.find_tool(name)
        if tool is None:
            raise ToolNotFound(name, [t.name for t in self.offered_tools()])
        entry = self._tools.get(name)
        if entry is not None and not self._is_active(entry[1]):
            raise ToolGroupInactive(name, entry[1])
        return tool

    def group_of(self, name: str) -> str | None:
        entry = self._tools.get(name)
        return entry[1] if entry else (BASIC if self.find_tool(name) else None)

    # --- skills ----------------------------------------------------------------------------

    def add_skill(self, path: str | os.PathLike[str],
                  scan_subfolders: bool = False) -> list[Skill]:
        """Load the skill(s) at ``path``; SkillError if one is broken or a name repeats."""
        return self._add_skills(load_skills(path, scan_subfolders))

    def _add_skills(self, skills: list[Skill]) -> list[Skill]:
        from ..errors import SkillError

        for skill in skills:
            if skill.name in self._skills:
                raise SkillError(f"{skill.file}: a skill named {skill.name!r} is already loaded "
                                 f"(from {self._skills[skill.name].file})")
        for skill in skills:
            self._skills[skill.name] = skill
        return skills

    def remove_skill(self, name: str) -> None:
        if name not in self._skills:
            raise ToolkitError(f"no skill named {name!r}")
        del self._skills[name]

    @property
    def skills(self) -> dict[str, Skill]:
        return dict(self._skills)

    def system_prompt_block(self) -> str:
        """Skills (names, descriptions, folders — never bodies) and active groups'
        instructions; empty when there is neither."""
        parts = []
        if self._skills:
            lines = ["<agent-skills>",
                     f"Skills are not tools; read one with the {SKILL_TOOL} tool "
                     f'({{"skill": "<name>"}}) before following it. Paths inside a skill are '
                     f"relative to its folder."]
            for s in self._skills.values():
                lines.append(f"- {s.name}: {s.description} (folder: {s.path})")
            lines.append("</agent-skills>")
            parts.append("\n".join(lines))
        block = _instructions_block([g for g in self._groups.values() if g.active])
        if block:
            parts.append(block)
        return "\n\n".join(parts)

    # --- MCP -------------------------------------------------------------------------------

    async def add_mcp(self, server: "MCPServer", group: str = BASIC) -> list[Tool]:
        """Connect ``server`` (if needed) and register its tools in ``group``."""
        if group != BASIC and group not in self._groups:
            raise ToolkitError(f"unknown tool group {group!r}; groups: {self._group_list()}")
        if server.name in self._mcp:
            raise ToolkitError(f"an MCP server named {server.name!r} is already added")
        opened = not server.connected
        if opened:
            await server.connect()
        try:
            tools = await server.list_tools()
            for tool in tools:
                if tool.name in self._tools:
                    raise ToolkitError(f"MCP tool {tool.name!r} clashes with a registered tool")
                validate_tool_definition(tool)
        except BaseException:
            if opened:  # don't leave a process behind for a server we could not add
                await server.close()
            raise
        for tool in tools:
            self.add_tool(tool, group)
        self._mcp[server.name] = (server, group)
        return list(tools)

    async def refresh_mcp(self, name: str | None = None) -> None:
        """Re-list the tools of one MCP server (or all) and update the registered set."""
        names = [name] if name is not None else list(self._mcp)
        for server_name in names:
            if server_name not in self._mcp:
                raise ToolkitError(f"no MCP server named {server_name!r}")
            server, group = self._mcp[server_name]
            tools = await server.list_tools(refresh=True)
            for tool_name in [n for n, (t, _) in self._tools.items()
                              if getattr(t, "server_name", None) == server_name]:
                del self._tools[tool_name]
            for tool in tools:
                self.add_tool(tool, group, replace=True)

    async def remove_mcp(self, name: str, *, close: bool = True) -> None:
        if name not in self._mcp:
            raise ToolkitError(f"no MCP server named {name!r}")
        server, _ = self._mcp.pop(name)
        for tool_name in [n for n, (t, _) in self._tools.items()
                          if getattr(t, "server_name", None) == name]:
            del self._tools[tool_name]
        if close:
            await server.close()

    async def aclose(self) -> None:
        """Close every MCP server this toolkit added."""
        for name in list(self._mcp):
            await self.remove_mcp(name)

    # --- execution -------------------------------------------------------------------------

    async def call_tool(self, tool: Tool, tool_input: Mapping[str, Any], *,
                        call_id: str | None = None
                        ) -> AsyncIterator[ToolChunk | ToolResponse]:
        """Run ``tool`` and stream its chunks, then exactly one ToolResponse.

        A tool's failure (any Exception, AgentOrientedException included) becomes an ERROR
        chunk and an ERROR response; a DeveloperOrientedException (ToolReturnTypeError among
        them) propagates; cancellation yields an INTERRUPTED response, then re-raises.
        """
        from asyncio import CancelledError  # here: importing the toolkit stays loop-free

        response = ToolResponse(id=call_id, name=tool.name)
        worker = ToolThread(tool.name) if _runs_in_thread(tool) else None
        try:
            if worker is not None:
                result = await worker.run(_call_with, tool, dict(tool_input))
            else:
                result = tool.call(**dict(tool_input))
            if inspect.isawaitable(result):
                result = await result
            async for chunk in _chunks(result, tool, worker):
                response.append_chunk(chunk)
                yield chunk
        except CancelledError:
            sep = "\n" if response.text else ""
            text = INTERRUPTED_MESSAGE
            if worker is not None and worker.stuck:
                text += "\n" + STUCK_MESSAGE
            response.append_chunk(ToolChunk.text(sep + text))
            response.state = ToolResultState.INTERRUPTED  # even after an earlier error chunk
            if worker is not None and worker.stuck:
                response.metadata["thread_still_running"] = True
            yield response
            raise
        except DeveloperOrientedException:
            raise
        except Exception as exc:
            if isinstance(exc, AgentOrientedException):
                message = str(exc)
            else:
                message = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            chunk = ToolChunk.error(message)
            response.append_chunk(chunk)
            yield chunk
        except BaseException as exc:
            if isinstance(exc, GeneratorExit):  # our consumer closed us: not the tool's doing
                raise
            # SystemExit, KeyboardInterrupt, …: they would end the host's event loop (the
            # kernel's); the tool failed, nothing more.
            detail = f"{type(exc).__name__}({exc})" if str(exc) else type(exc).__name__
            chunk = ToolChunk.error(f"the tool raised {detail}; only this call failed")
            response.append_chunk(chunk)
            yield chunk
        finally:
            if worker is not None:
                worker.close()
        yield response


def _runs_in_thread(tool: Tool) -> bool:
    choice = getattr(tool, "call_in_thread", None)
    if choice is not None:
        return bool(choice)
    call = getattr(tool, "call", None)
    return not (inspect.iscoroutinefunction(call) or inspect.isasyncgenfunction(call))


def _call_with(tool: Tool, tool_input: dict[str, Any]) -> Any:
    return tool.call(**tool_input)


_END = object()


def _as_chunk(item: Any, tool: Tool) -> ToolChunk:
    if isinstance(item, ToolChunk):
        return item
    if isinstance(item, ToolResponse):
        # A response from a tool is content like any other; the toolkit makes the final one.
        return ToolChunk(list(item.content), state=item.state, metadata=dict(item.metadata))
    if isinstance(item, str):
        return ToolChunk.text(item)
    raise ToolReturnTypeError(
        f"tool {tool.name!r} produced {type(item).__name__} {_short(item)}; a tool's call() "
        f"must return or yield ToolChunk, ToolResponse or str (or a generator / async "
        f"generator / coroutine of them). FunctionTool converts other values to JSON.")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


async def _chunks(result: Any, tool: Tool, worker: ToolThread | None = None
                  ) -> AsyncIterator[ToolChunk]:
    if inspect.isasyncgen(result):
        try:
            async for item in result:
                yield _as_chunk(item, tool)
        finally:
            await result.aclose()
    elif inspect.isgenerator(result):
        if worker is None:
            try:
                for item in result:
                    yield _as_chunk(item, tool)
            finally:
                result.close()
            return
        try:  # each step in the call's thread, where the generator's code runs
            while True:
                item = await worker.run(next, result, _END)
                if item is _END:
                    break
                yield _as_chunk(item, tool)
        finally:
            if not worker.interrupted:  # a stopped generator is over (or still running)
                await worker.run(result.close)
    else:
        yield _as_chunk(result, tool)


def _instructions_block(groups: list[ToolGroup]) -> str:
    with_text = [g for g in groups if g.instructions and g.instructions.strip()]
    if not with_text:
        return ""
    lines = ["<tool-instructions>",
             "Follow these instructions when you use the tools of these groups:"]
    for g in with_text:
        lines.append(f'<group name="{g.name}">\n{(g.instructions or "").strip()}\n</group>')
    lines.append("</tool-instructions>")
    return "\n".join(lines)
