"""LiteLLM models and token usage, against a real local HTTP server (no network).

LiteLLM's OpenAI-compatible route (``openai/<model>`` with ``api_base``) drives the same fake
chat-completions server the OpenAI tests use; usage comes in the stream's last chunk. Token
usage and cost are summed on ``AgentRun.usage`` for LiteLLM and OpenAI models alike.
"""

from __future__ import annotations

import pytest
from openai_fake_server import DEFAULT_USAGE, FakeOpenAIServer, text_deltas, tool_call_deltas

from jupyter_agenttools.agent.loop import Agent
from jupyter_agenttools.agent.models import (
    LiteLLMModel,
    ModelTurn,
    OpenAIChatModel,
    TextDelta,
    Usage,
    load_model,
)
from jupyter_agenttools.errors import ModelError
from jupyter_agenttools.permission.engine import PermissionEngine
from jupyter_agenttools.tools.function import FunctionTool
from jupyter_agenttools.tools.toolkit import Toolkit

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore::UserWarning:pydantic")]
litellm = pytest.importorskip("litellm")


@pytest.fixture
def server():
    with FakeOpenAIServer() as srv:
        yield srv


def lite(server, name="openai/test-model", **kw) -> LiteLLMModel:
    return LiteLLMModel(name, base_url=server.base_url, api_key="sk-test", **kw)


def toolkit(calls: list) -> Toolkit:
    def weather(city: str) -> str:
        """Forecast for a city.

        Args:
            city: the city
        """
        calls.append(city)
        return f"sunny in {city}"

    return Toolkit([FunctionTool(weather, read_only=True)])


async def test_litellm_streams_text_and_reports_usage(server):
    server.script.append({"chunks": text_deltas("Hel", "lo")})
    events = [e async for e in lite(server, temperature=0.1).stream(
        [{"role": "user", "content": "hi"}], [])]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Hello"
    turn = events[-1]
    assert isinstance(turn, ModelTurn) and turn.text == "Hello"
    assert (turn.usage.prompt_tokens, turn.usage.completion_tokens,
            turn.usage.total_tokens) == (11, 7, 18)
    assert turn.usage.cost_usd is None  # a local model has no price in LiteLLM's table
    request = server.requests[0]
    assert request["model"] == "test-model" and request["stream"] is True
    assert request["stream_options"] == {"include_usage": True}
    assert request["temperature"] == 0.1


async def test_litellm_tool_calls_run_through_the_agent(server):
    calls: list = []
    server.script += [
        {"chunks": tool_call_deltas(0, "call_a", "weather", '{"ci', 'ty": "Oslo"}'),
         "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}},
        {"chunks": text_deltas("It is sunny."),
         "usage": {"prompt_tokens": 150, "completion_tokens": 5, "total_tokens": 155}},
    ]
    agent = Agent(load_model("litellm:openai/test-model", base_url=server.base_url,
                             api_key="sk-test"),
                  toolkit(calls), engine=PermissionEngine(mode="default"))
    run = await agent.run("weather in Oslo?")
    assert await run.wait_done(timeout=60) == "It is sunny."
    assert calls == ["Oslo"]
    assert server.requests[0]["tools"][0]["function"]["name"] == "weather"
    tool_message = server.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_a"
    assert "sunny in Oslo" in tool_message["content"]
    assert run.usage.to_dict() == {"prompt_tokens": 250, "completion_tokens": 25,
                                   "total_tokens": 275, "cost_usd": None, "model_calls": 2}


async def test_a_priced_model_gets_a_cost(server):
    # LiteLLM's own price table (shipped with it, read offline) prices gpt-4o-mini
    server.script.append({"chunks": text_deltas("ok"),
                          "usage": {"prompt_tokens": 1000, "completion_tokens": 1000,
                                    "total_tokens": 2000}})
    events = [e async for e in lite(server, "openai/gpt-4o-mini").stream(
        [{"role": "user", "content": "hi"}], [])]
    prompt_cost, completion_cost = litellm.cost_per_token(
        model="openai/gpt-4o-mini", prompt_tokens=1000, completion_tokens=1000)
    assert events[-1].usage.cost_usd == pytest.approx(prompt_cost + completion_cost)
    assert events[-1].usage.cost_usd > 0


async def test_litellm_server_errors_are_retried_then_clear(server):
    server.script += [{"status": 503}, {"chunks": text_deltas("fine")}]
    events = [e async for e in lite(server).stream([{"role": "user", "content": "x"}], [])]
    assert events[-1].text == "fine" and len(server.requests) == 2
    server.script += [{"status": 500}] * 5
    with pytest.raises(ModelError, match="test-model.*via LiteLLM"):
        [e async for e in lite(server, stream_retries=1).stream(
            [{"role": "user", "content": "x"}], [])]


def test_litellm_specs():
    model = load_model("litellm:anthropic/claude-sonnet-4-5")
    assert isinstance(model, LiteLLMModel) and model.model == "anthropic/claude-sonnet-4-5"
    with pytest.raises(ModelError, match="litellm:<provider>/<model>"):
        load_model("litellm:")


async def test_openai_model_records_usage_on_the_run(server):
    server.script += [{"chunks": text_deltas("one")}, {"chunks": text_deltas("two")}]
    model = OpenAIChatModel("test-model", base_url=server.base_url, api_key="sk-test")
    agent = Agent(model, Toolkit([]), engine=PermissionEngine())
    first = await agent.run("a")
    await first.wait_done(timeout=60)
    second = await agent.run("b")
    await second.wait_done(timeout=60)
    assert server.requests[0]["stream_options"] == {"include_usage": True}
    assert first.usage.total_tokens == DEFAULT_USAGE["total_tokens"]
    assert (second.usage.model_calls, second.usage.cost_usd) == (1, None)


async def test_a_server_refusing_stream_options_still_works():
    with FakeOpenAIServer(refuse_stream_options=True) as srv:
        srv.script += [{"chunks": text_deltas("plain")}, {"chunks": text_deltas("again")}]
        model = OpenAIChatModel("m", base_url=srv.base_url, api_key="k")
        events = [e async for e in model.stream([{"role": "user", "content": "x"}], [])]
        assert events[-1].text == "plain" and events[-1].usage is None
        events = [e async for e in model.stream([{"role": "user", "content": "x"}], [])]
        assert events[-1].text == "again"
        assert ["stream_options" in r for r in srv.requests] == [True, False, False]


def test_usage_sums_and_prints():
    total = Usage()
    total.add(Usage(10, 5, 15, None, 1))
    total.add(Usage(1, 1, 2, 0.002, 1))
    assert total.to_dict() == {"prompt_tokens": 11, "completion_tokens": 6,
                               "total_tokens": 17, "cost_usd": 0.002, "model_calls": 2}
    assert str(total) == "17 tokens (11 in, 6 out), $0.0020 over 2 model call(s)"
