"""OpenAIChatModel through the real ``openai`` client against a real local HTTP server."""

from __future__ import annotations

import json

import pytest
from openai_fake_server import FakeOpenAIServer, text_deltas, tool_call_deltas

from jupyter_agenttools.agent.loop import Agent
from jupyter_agenttools.agent.models import (
    ModelTurn,
    OpenAIChatModel,
    ScriptedModel,
    TextDelta,
    load_model,
)
from jupyter_agenttools.errors import ModelError
from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.tools.function import FunctionTool
from jupyter_agenttools.tools.toolkit import Toolkit

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def server():
    with FakeOpenAIServer() as srv:
        yield srv


def make_model(server: FakeOpenAIServer, **kw) -> OpenAIChatModel:
    return OpenAIChatModel("test-model", base_url=server.base_url, api_key="sk-test", **kw)


def weather_toolkit(calls: list) -> Toolkit:
    def weather(city: str, days: int = 1) -> str:
        """Forecast for a city.

        Args:
            city: the city
            days: how many days
        """
        calls.append({"city": city, "days": days})
        return f"sunny in {city} for {days} day(s)"

    return Toolkit([FunctionTool(weather, read_only=True)])


async def collect(model, messages, tools=()):
    return [e async for e in model.stream(messages, list(tools))]


async def test_streamed_text_is_yielded_in_deltas_and_assembled(server):
    server.script.append({"chunks": text_deltas("Hel", "lo, ", "world")})
    model = make_model(server, temperature=0.2)
    events = await collect(model, [{"role": "user", "content": "hi"}])
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Hel", "lo, ", "world"]
    turn = events[-1]
    assert isinstance(turn, ModelTurn) and turn.text == "Hello, world" and turn.tool_calls == []
    assert server.requests[0]["stream"] is True
    assert server.requests[0]["model"] == "test-model"
    assert server.requests[0]["temperature"] == 0.2  # extra params reach every request
    assert "tools" not in server.requests[0]  # no tools offered: none sent
    assert server.paths[0].endswith("/chat/completions")


async def test_agent_runs_streamed_tool_calls_and_sends_results_back(server):
    calls: list = []
    server.script += [
        {"chunks": text_deltas("Checking.")
         + tool_call_deltas(0, "call_a", "weather", '{"ci', 'ty": "Oslo", ', '"days": 2}')
         + tool_call_deltas(1, "call_b", "weather", '{"city": "Rome"}')},
        {"chunks": text_deltas("Oslo and Rome are sunny.")},
    ]
    agent = Agent(make_model(server), weather_toolkit(calls), engine=PermissionEngine())
    run = await agent.run("weather?")
    assert await run.wait_done(timeout=30) == "Oslo and Rome are sunny."
    assert sorted(calls, key=lambda c: c["city"]) == [{"city": "Oslo", "days": 2},
                                                      {"city": "Rome", "days": 1}]
    # the tools were offered in the chat-completions format
    offered = server.requests[0]["tools"]
    assert offered[0]["type"] == "function" and offered[0]["function"]["name"] == "weather"
    assert offered[0]["function"]["parameters"]["required"] == ["city"]
    # the second request carries the assistant tool calls and one tool message per call, in order
    second = server.requests[1]["messages"]
    assistant = next(m for m in second if m["role"] == "assistant")
    assert [c["id"] for c in assistant["tool_calls"]] == ["call_a", "call_b"]
    tool_msgs = [m for m in second if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_msgs] == ["call_a", "call_b"]
    assert tool_msgs[0]["content"] == "sunny in Oslo for 2 day(s)"
    kinds = [e.kind for e in run.events]
    assert kinds[0] == "text_delta" and kinds[-1] == "run_finished"


async def test_malformed_tool_call_json_is_repaired_by_gate_two(server):
    calls: list = []
    server.script += [
        # unquoted key, single quotes, missing closing brace
        {"chunks": tool_call_deltas(0, "call_x", "weather", "{city: 'Paris', ", '"days": 3')},
        {"chunks": text_deltas("done")},
    ]
    agent = Agent(make_model(server), weather_toolkit(calls), engine=PermissionEngine())
    run = await agent.run("paris")
    assert await run.wait_done(timeout=30) == "done"
    assert calls == [{"city": "Paris", "days": 3}]
    started = next(e for e in run.events if e.kind == "tool_call_started")
    assert started.raw_input == "{city: 'Paris', \"days\": 3"  # the model's text, as sent
    assert run.tool_results[0].state.value == "success"


async def test_unrepairable_arguments_go_back_to_the_model_as_an_error(server):
    calls: list = []
    server.script += [
        {"chunks": tool_call_deltas(0, "call_y", "weather", "[1, 2, 3]")},
        {"chunks": text_deltas("sorry")},
    ]
    agent = Agent(make_model(server), weather_toolkit(calls), engine=PermissionEngine())
    run = await agent.run("x")
    assert await run.wait_done(timeout=30) == "sorry"
    assert calls == []
    tool_msg = next(m for m in server.requests[1]["messages"] if m["role"] == "tool")
    assert tool_msg["content"].startswith("Error: ")
    assert "[1, 2, 3]" in tool_msg["content"]
    assert "send the call again" in tool_msg["content"].lower()


async def test_http_500_is_retried(server):
    server.script += [{"status": 500}, {"chunks": text_deltas("recovered")}]
    events = await collect(make_model(server, max_retries=2), [{"role": "user", "content": "x"}])
    assert events[-1].text == "recovered"
    assert len(server.requests) == 2


async def test_a_stream_cut_before_its_first_event_is_retried(server):
    server.script += [{"drop": True}, {"chunks": text_deltas("second try")}]
    model = make_model(server, max_retries=0, stream_retries=1)  # only our own retry
    events = await collect(model, [{"role": "user", "content": "x"}])
    assert events[-1].text == "second try"
    assert len(server.requests) == 2


async def test_a_client_error_is_not_retried(server):
    server.script += [{"status": 400, "message": "bad tools"}, {"chunks": text_deltas("no")}]
    with pytest.raises(ModelError, match="HTTP 400: .*bad tools"):
        await collect(make_model(server), [{"role": "user", "content": "x"}])
    assert len(server.requests) == 1


async def test_persistent_500_fails_the_run_with_a_model_error(server):
    server.script += [{"status": 500}] * 6
    model = make_model(server, max_retries=1, stream_retries=0)
    agent = Agent(model, Toolkit(), engine=PermissionEngine())
    run = await agent.run("x")
    with pytest.raises(ModelError, match="HTTP 500"):
        await run.wait_done(timeout=30)
    assert run.state == "failed" and isinstance(run.error, ModelError)
    assert run.events[-1].kind == "run_failed"
    assert len(server.requests) == 2  # the first try and one retry


async def test_environment_configures_the_client(server, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    server.script.append({"chunks": text_deltas("env ok")})
    model = load_model("openai:env-model")
    assert isinstance(model, OpenAIChatModel) and model.base_url == server.base_url
    events = await collect(model, [{"role": "user", "content": "x"}])
    assert events[-1].text == "env ok"
    assert server.requests[0]["model"] == "env-model"


def test_missing_key_without_base_url_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    model = OpenAIChatModel("gpt-x")
    with pytest.raises(ModelError, match="OPENAI_API_KEY"):
        model._get_client()


@pytest.mark.parametrize("spec, expected", [
    ("scripted", ScriptedModel),
    ("openai:gpt-4.1-mini", OpenAIChatModel),
    (["hello"], ScriptedModel),
])
def test_load_model_specs(spec, expected, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    assert isinstance(load_model(spec), expected)


@pytest.mark.parametrize("spec", ["", "claude:opus", "openai:", 42])
def test_load_model_rejects_bad_specs(spec):
    with pytest.raises(ModelError):
        load_model(spec)


def test_load_model_returns_a_model_object_as_is():
    model = ScriptedModel(["x"])
    assert load_model(model) is model


def test_tool_schema_conversion_keeps_parameters():
    from jupyter_agenttools.agent.models import openai_tools

    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    (converted,) = openai_tools([{"name": "t", "description": "d", "input_schema": schema}])
    assert converted == {"type": "function", "function": {"name": "t", "description": "d",
                                                          "parameters": schema}}
    assert json.dumps(converted)  # plain JSON
