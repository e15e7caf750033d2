"""Every request setting, the conversation id and every kind of token count a ``chat``
span records, to the conventions' names."""

from __future__ import annotations

from ostinato import AdvisorParams, ChatClient
from ostinato.model import Usage
from ostinato.testing import ScriptedChatModel, text_response
from ostinato_openai import OpenAIChatOptions
from ostinato_opentelemetry import instrument
from tests.plugins.opentelemetry.conftest import Recorded
from tests.plugins.opentelemetry.spans import by_name

_USAGE = Usage(
    prompt_tokens=40,
    completion_tokens=12,
    cache_read_input_tokens=30,
    cache_write_input_tokens=5,
    reasoning_tokens=8,
)


def test_request_settings_usage_and_conversation_reach_the_spans(recorded: Recorded) -> None:
    options = OpenAIChatOptions(
        model="gpt-y",
        max_tokens=64,
        temperature=0.5,
        top_p=0.9,
        frequency_penalty=0.1,
        presence_penalty=0.2,
        stop_sequences=("END",),
        seed=7,
    )
    model = ScriptedChatModel(
        [text_response("Hi", usage=_USAGE, id="resp-9", model="gpt-y-2025")],
        default_options=options,
    )
    client = instrument(ChatClient.builder(model), provider_name="openai").build()

    client.prompt("Hello").advisors(AdvisorParams.conversation_id("conv-42")).call().content()

    [chat] = by_name(recorded.spans(), "chat gpt-y")
    assert dict(chat.attributes or {}) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-y",
        "gen_ai.request.max_tokens": 64,
        "gen_ai.request.temperature": 0.5,
        "gen_ai.request.top_p": 0.9,
        "gen_ai.request.frequency_penalty": 0.1,
        "gen_ai.request.presence_penalty": 0.2,
        "gen_ai.request.stop_sequences": ("END",),
        "gen_ai.request.seed": 7,
        "gen_ai.conversation.id": "conv-42",
        "gen_ai.response.id": "resp-9",
        "gen_ai.response.model": "gpt-y-2025",
        "gen_ai.response.finish_reasons": ("stop",),
        "gen_ai.usage.input_tokens": 40,
        "gen_ai.usage.output_tokens": 12,
        "gen_ai.usage.cache_read.input_tokens": 30,
        "gen_ai.usage.cache_creation.input_tokens": 5,
        "gen_ai.usage.reasoning.output_tokens": 8,
    }
    [turn] = by_name(recorded.spans(), "invoke_agent")
    assert (turn.attributes or {})["gen_ai.conversation.id"] == "conv-42"
