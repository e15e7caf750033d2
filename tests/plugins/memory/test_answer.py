"""What memory stores as the answer: the same messages for ``call()`` and ``stream()``
(so both leave the same memory), including the cases core's stream aggregator alone would not cover."""

from __future__ import annotations

import pytest

from ostinato.advisors import TOOL_LOOP_ROUND, ChatClientResponse
from ostinato.messages import AssistantMessage
from ostinato.model import ChatResponse, Generation
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato_memory import MessageChatMemoryAdvisor, MessageWindowChatMemory
from ostinato_memory._answer import StreamedAnswer, outputs_of
from tests.plugins.memory.harness import INSIDE, MODES, ask, client_for, weather, weather_call


def chunk(response: ChatResponse, round_number: int | None) -> ChatClientResponse:
    context = {} if round_number is None else {TOOL_LOOP_ROUND: round_number}
    return ChatClientResponse(response, context)


def test_outputs_of_a_response():
    assert outputs_of(None) == []
    assert outputs_of(text_response("x")) == [AssistantMessage("x")]


def test_a_stream_answer_is_its_last_round_aggregated():
    answer = StreamedAnswer()
    answer.add(chunk(text_response("Let me "), 1))
    answer.add(chunk(text_response("check"), 1))
    answer.add(ChatClientResponse(None))
    answer.add(chunk(text_response("Sun"), 2))
    answer.add(chunk(text_response("ny"), 2))
    assert answer.outputs() == [AssistantMessage("Sunny")]
    assert StreamedAnswer().outputs() == []


def test_a_final_response_of_several_generations_is_kept_whole():
    answer = StreamedAnswer()
    answer.add(chunk(text_response("tool text"), 1))
    whole = ChatResponse([Generation(AssistantMessage("r1")), Generation(AssistantMessage("r2"))])
    answer.add(chunk(whole, 2))
    assert answer.outputs() == [AssistantMessage("r1"), AssistantMessage("r2")]


@pytest.mark.parametrize("order", [MessageChatMemoryAdvisor.DEFAULT_ORDER, INSIDE])
async def test_call_and_stream_store_the_same_messages(order):
    stored = {}
    for mode in MODES:
        model = ScriptedChatModel(
            [
                weather_call("Paris", text="Let me check"),
                tool_call_response(("weather", {"city": "Rome"}), text="And Rome"),
                text_response("Both sunny", metadata={"provider_field": [1, 2]}),
            ]
        )
        memory = MessageWindowChatMemory()
        client = client_for(model, MessageChatMemoryAdvisor(memory, order=order))
        await ask(client.prompt("Paris and Rome?").tools(weather), mode)
        stored[mode] = await memory.get("c1")
    assert stored["call"] == stored["stream"]
    assert stored["call"][-1] == AssistantMessage("Both sunny", metadata={"provider_field": [1, 2]})
