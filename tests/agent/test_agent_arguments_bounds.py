"""Gate 2 on hostile arguments: json_repair runs in the event loop and its time grows with the
text outside JSON strings times the brackets there (2 MB of unquoted text took 500 s, blocking
the kernel), so what is too much structure to repair goes back to the model unrepaired, at once.
A model's ordinary slip is still repaired. The tests count repair calls, never time."""

from __future__ import annotations

import json

import json_repair
import pytest
from openai_fake_server import FakeOpenAIServer, text_deltas, tool_call_deltas

from jupyter_agenttools.agent.loop import Agent
from jupyter_agenttools.agent.models import OpenAIChatModel
from jupyter_agenttools.errors import ToolArgumentsError
from jupyter_agenttools.gates.arguments import parse_arguments
from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.tools.function import FunctionTool
from jupyter_agenttools.tools.toolkit import Toolkit

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _tool() -> FunctionTool:
    def run(command: str, description: str = "") -> str:
        """Run a command.

        Args:
            command: the command
            description: what it does
        """
        return command

    return FunctionTool(run)


@pytest.fixture
def repairs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every text handed to json_repair."""
    seen: list[int] = []
    real = json_repair.repair_json

    def spy(text: str, *args, **kw):
        seen.append(len(text))
        return real(text, *args, **kw)

    monkeypatch.setattr(json_repair, "repair_json", spy)
    return seen


TOO_COSTLY = {
    "2 MB unquoted": "{" + "a" * 2_000_000,
    "unquoted pairs": "{" + "a " * 9_000,
    "brackets and text": ("{[" * 30 + "]}" * 30) * 2 + "a " * 500,
    "nested 64": "{[" * 32 + "a " * 1_000,
    "cut-off string of brackets": '"' + "{[" * 30_000,
    "escaped quotes to the end": '"\\' * 30_000,
    "cut-off Write of code": '{"command": "' + "x = [1, {2: 3}]\\n" * 300,
    "over 64 KiB of strings": '{"command": "' + "x" * 70_000 + '" "description": "y"}',
}

SLIPS = {
    "missing brace": ('{"command": "ls -la"', {"command": "ls -la"}),
    "cut-off short string": ('{"command": "ls -la', {"command": "ls -la"}),
    "single quotes": ("{'command': 'ls'}", {"command": "ls"}),
    "raw newline in a string": ('{"command": "echo a\nb"}', {"command": "echo a\nb"}),
    "trailing comma": ('{"command": "ls",}', {"command": "ls"}),
    "long content, one slip": ('{"command": "' + "x = [1, {2: 3}]\\n" * 2_000 + '",}',
                               {"command": "x = [1, {2: 3}]\n" * 2_000}),
}


@pytest.mark.parametrize("raw", TOO_COSTLY.values(), ids=TOO_COSTLY.keys())
def test_too_much_structure_is_refused_without_a_repair(raw, repairs):
    with pytest.raises(ToolArgumentsError) as info:
        parse_arguments(_tool(), raw)
    assert repairs == []
    text = str(info.value)
    assert "not repaired" in text and "Send the call again" in text
    assert len(text) < 1_000  # the model gets a quote of what it sent, not all of it


@pytest.mark.parametrize("raw, expected", SLIPS.values(), ids=SLIPS.keys())
def test_a_models_ordinary_slip_is_still_repaired(raw, expected, repairs):
    assert parse_arguments(_tool(), raw)["command"].rstrip() == expected["command"].rstrip()
    assert repairs


async def test_hostile_arguments_through_the_real_loop_reach_the_model_as_an_error(repairs):
    raw = "{" + "a" * 2_000_000
    with FakeOpenAIServer() as server:
        server.script += [{"chunks": tool_call_deltas(0, "c1", "run", raw)},
                          {"chunks": text_deltas("resent")}]
        model = OpenAIChatModel("m", base_url=server.base_url, api_key="k")
        agent = Agent(model, Toolkit([_tool()]), engine=PermissionEngine(mode="bypass"))
        run = await agent.run("go")
        assert await run.wait_done(timeout=60) == "resent"
        (result,) = [m for m in server.requests[-1]["messages"] if m["role"] == "tool"]
    assert "not repaired" in result["content"] and repairs == []
    assert len(result["content"]) < 1_000  # the tool result quotes the call, cut
    # the garbage is not resent with every later request (it overflowed the context)
    (assistant,) = [m for m in server.requests[-1]["messages"] if m.get("tool_calls")]
    arguments = assistant["tool_calls"][0]["function"]["arguments"]
    assert json.loads(arguments) == {"omitted": "2,000,001 characters of arguments that were "
                                                "not valid JSON (see the tool result)"}
    assert len(json.dumps(server.requests[-1])) < 20_000


async def test_short_unreadable_arguments_stay_in_the_conversation_as_sent():
    raw = '{"command": "ls" "description": "x"'  # the model sees its own slip
    with FakeOpenAIServer() as server:
        server.script += [{"chunks": tool_call_deltas(0, "c1", "run", "[" + raw)},
                          {"chunks": text_deltas("resent")}]
        model = OpenAIChatModel("m", base_url=server.base_url, api_key="k")
        agent = Agent(model, Toolkit([_tool()]), engine=PermissionEngine(mode="bypass"))
        run = await agent.run("go")
        assert await run.wait_done(timeout=60) == "resent"
    (assistant,) = [m for m in server.requests[-1]["messages"] if m.get("tool_calls")]
    assert assistant["tool_calls"][0]["function"]["arguments"] == "[" + raw




@pytest.mark.parametrize("raw", [
    '{"command": "echo \\ud800"}', '{"command": "ls", "description": "\\udfff x"}',
    '{"command": "ls", "\\ud83d": 1}', "{'command': 'echo \\ud800'",  # repaired, still bad
])
def test_half_a_surrogate_pair_is_refused_at_the_arguments_gate(raw):
    """It parses, but no file, process argument or audit record can hold it: the call used to
    fail later (the permission check's UnicodeEncodeError) with nothing the model could fix."""
    with pytest.raises(ToolArgumentsError, match="surrogate pair"):
        parse_arguments(_tool(), raw)


@pytest.mark.parametrize("raw, command", [
    ('{"command": "echo \\ud83d\\ude00"}', "echo \U0001F600"),  # a whole pair is one emoji
    ('{"command": "echo \\u0000 nul"}', "echo \x00 nul"),  # NUL is text; the tools judge it
])
def test_whole_pairs_and_other_characters_pass_the_arguments_gate(raw, command):
    assert parse_arguments(_tool(), raw)["command"] == command
