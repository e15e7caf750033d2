"""MessageAggregator: folding a stream into the response ``call()`` would have returned."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

import pytest

from ostinato.messages import REASONING, REASONING_SIGNATURE, AssistantMessage, Media, ToolCall
from ostinato.model import (
    ChatGenerationMetadata,
    ChatResponse,
    ChatResponseMetadata,
    Generation,
    MessageAggregator,
    Usage,
)


def chunk(
    text: str | None = None,
    *calls: ToolCall,
    finish: str | None = None,
    usage: Usage | None = None,
    message_meta: Mapping[str, Any] | None = None,
    gen_meta: Mapping[str, Any] | None = None,
    filters: frozenset[str] = frozenset(),
    media: tuple[Media, ...] = (),
    **response_meta: Any,
) -> ChatResponse:
    return ChatResponse(
        [
            Generation(
                AssistantMessage(text, calls, message_meta or {}, media),
                ChatGenerationMetadata(finish, filters, gen_meta or {}),
            )
        ],
        ChatResponseMetadata(usage=usage or Usage(), **response_meta),
    )


def aggregate(*chunks: ChatResponse) -> ChatResponse:
    return MessageAggregator.aggregate(chunks)


def only_generation(response: ChatResponse) -> Generation:
    assert len(response.generations) == 1
    result = response.result
    assert result is not None
    return result


# --- text and reasoning ------------------------------------------------------------------


def test_text_is_concatenated():
    assert (
        aggregate(chunk("Hel"), chunk(None), chunk("lo"), chunk(", world")).text == "Hello, world"
    )


def test_text_is_none_when_no_chunk_had_text():
    response = aggregate(chunk(None), chunk(None, finish="stop"))
    assert response.text is None


def test_empty_texts_make_an_empty_text():
    assert aggregate(chunk(""), chunk(None)).text == ""


def test_reasoning_is_concatenated_apart_from_the_text():
    response = aggregate(
        chunk(None, message_meta={REASONING: "Let me "}),
        chunk(None, message_meta={REASONING: "think.", REASONING_SIGNATURE: "sig"}),
        chunk("The answer"),
        chunk(" is 42."),
    )
    output = only_generation(response).output
    assert output.text == "The answer is 42."
    assert output.reasoning == "Let me think."
    assert output.metadata[REASONING_SIGNATURE] == "sig"


def test_other_message_metadata_is_merged_later_chunks_winning():
    response = aggregate(
        chunk("a", message_meta={"x": 1, "y": 1}), chunk("b", message_meta={"y": 2})
    )
    assert only_generation(response).output.metadata == {"x": 1, "y": 2}


def test_media_is_collected():
    image = Media("image/png", url="https://example.test/a.png")
    response = aggregate(chunk("look", media=(image,)), chunk("!"))
    assert only_generation(response).output.media == (image,)


def test_only_the_first_generation_of_a_chunk_counts():
    two = ChatResponse([Generation(AssistantMessage("kept")), Generation(AssistantMessage("no"))])
    assert aggregate(two, chunk("!")).text == "kept!"


# --- tool calls --------------------------------------------------------------------------


FRAGMENTS = [
    pytest.param(
        [
            chunk(None, ToolCall("call_1", "weather", "", index=0)),
            chunk(None, ToolCall("", "", '{"ci', index=0)),
            chunk(None, ToolCall("", "", 'ty": "Par', index=0)),
            chunk(None, ToolCall("", "", 'is"}', index=0)),
            chunk(None, finish="tool_calls"),
        ],
        [ToolCall("call_1", "weather", '{"city": "Paris"}')],
        id="openai-style fragments merged by index",
    ),
    pytest.param(
        [
            chunk(None, ToolCall("c1", "weather", "", index=0)),
            chunk(None, ToolCall("c2", "time", "", index=1)),
            chunk(None, ToolCall("", "", '{"city":', index=0)),
            chunk(None, ToolCall("", "", '{"tz":', index=1)),
            chunk(None, ToolCall("", "", ' "UTC"}', index=1)),
            chunk(None, ToolCall("", "", ' "Oslo"}', index=0)),
        ],
        [ToolCall("c1", "weather", '{"city": "Oslo"}'), ToolCall("c2", "time", '{"tz": "UTC"}')],
        id="two parallel calls interleaved by index",
    ),
    pytest.param(
        [
            chunk(None, ToolCall("c1", "a", "{", index=0), ToolCall("c2", "b", "{", index=1)),
            chunk(None, ToolCall("", "", "}", index=1), ToolCall("", "", "}", index=0)),
        ],
        [ToolCall("c1", "a", "{}"), ToolCall("c2", "b", "{}")],
        id="several fragments in one chunk",
    ),
    pytest.param(
        [
            chunk(None, ToolCall("c1", "weather", '{"city":')),
            chunk(None, ToolCall("c2", "time", "{}")),
            chunk(None, ToolCall("c1", "", ' "Rome"}')),
        ],
        [ToolCall("c1", "weather", '{"city": "Rome"}'), ToolCall("c2", "time", "{}")],
        id="ids and no index merged by id",
    ),
    pytest.param(
        [chunk(None, ToolCall("", "a", "{}")), chunk(None, ToolCall("", "a", '{"x": 1}'))],
        [ToolCall("", "a", "{}"), ToolCall("", "a", '{"x": 1}')],
        id="complete calls without id or index kept whole",
    ),
]


@pytest.mark.parametrize(("chunks", "calls"), FRAGMENTS)
def test_tool_call_fragments_become_whole_calls(chunks, calls):
    response = aggregate(*chunks)
    output = only_generation(response).output
    assert output.tool_calls == tuple(calls)
    assert all(call.index is None for call in output.tool_calls)  # aggregated calls are whole
    assert response.has_tool_calls()


def test_text_and_tool_calls_together():
    response = aggregate(
        chunk("Let me check. "),
        chunk(None, ToolCall("c1", "weather", '{"city": "Paris"}', index=0)),
        chunk(None, finish="tool_calls"),
    )
    output = only_generation(response).output
    assert output.text == "Let me check. "
    assert output.tool_calls == (ToolCall("c1", "weather", '{"city": "Paris"}'),)


def test_aggregate_of_whole_calls_equals_the_call_response():
    whole = chunk("hi", ToolCall("c1", "a", "{}"), finish="tool_calls", usage=Usage(3, 4), id="r")
    aggregated = aggregate(whole)
    assert aggregated == whole


# --- finish reason and generation metadata -----------------------------------------------


def test_finish_reason_is_the_last_one_set():
    response = aggregate(chunk("a", finish="length"), chunk("b", finish="stop"), chunk(None))
    assert only_generation(response).metadata.finish_reason == "stop"


def test_generation_metadata_merges_and_content_filters_collect():
    response = aggregate(
        chunk("a", gen_meta={"raw": "x", "k": 1}, filters=frozenset({"hate"})),
        chunk("b", gen_meta={"raw": "end_turn"}, filters=frozenset({"violence"})),
    )
    meta = only_generation(response).metadata
    assert meta.metadata == {"raw": "end_turn", "k": 1}
    assert meta.content_filters == {"hate", "violence"}


# --- usage -------------------------------------------------------------------------------


def test_usage_sent_per_chunk_as_running_totals_is_not_summed():
    response = aggregate(
        chunk("a", usage=Usage(10, 1)),
        chunk("b", usage=Usage(10, 2)),
        chunk("c", usage=Usage(10, 3)),
    )
    assert response.usage == Usage(10, 3, 13)


def test_usage_sent_only_at_the_end():
    response = aggregate(chunk("a"), chunk("b"), chunk(None, usage=Usage(10, 20, 30)))
    assert response.usage == Usage(10, 20, 30)


def test_usage_last_positive_value_per_field():
    # Anthropic style: the prompt count comes first, the completion count at the end.
    response = aggregate(
        chunk(None, usage=Usage(10, 0)),
        chunk("a"),
        chunk(None, usage=Usage(0, 20)),
    )
    assert response.usage == Usage(10, 20, 30)


def test_an_explicit_total_above_the_counts_is_kept():
    assert aggregate(chunk("a", usage=Usage(10, 20, 45))).usage.total_tokens == 45


def test_cache_counts_and_native_usage_keep_the_last_reported():
    response = aggregate(
        chunk("a", usage=Usage(10, 1, cache_read_input_tokens=5, native_usage={"n": 1})),
        chunk("b", usage=Usage(10, 2, cache_write_input_tokens=7, native_usage={"n": 2})),
    )
    assert response.usage.cache_read_input_tokens == 5
    assert response.usage.cache_write_input_tokens == 7
    assert response.usage.native_usage == {"n": 2}


def test_no_usage_at_all_is_empty():
    assert aggregate(chunk("a"), chunk("b")).usage.is_empty


# --- response metadata -------------------------------------------------------------------


def test_id_and_model_are_the_last_non_empty():
    response = aggregate(
        chunk("a", id="r1", model="m1"), chunk("b", id="r2"), chunk("c", id="", model="")
    )
    assert (response.metadata.id, response.metadata.model) == ("r2", "m1")


def test_rate_limit_prompt_metadata_and_free_metadata():
    response = aggregate(
        chunk("a", rate_limit={"left": 5}, metadata={"fp": "1", "x": 1}),
        chunk("b", prompt_metadata={"p": 1}, metadata={"fp": "2"}),
        chunk("c"),
    )
    assert response.metadata.rate_limit == {"left": 5}
    assert response.metadata.prompt_metadata == {"p": 1}
    assert response.metadata.metadata == {"fp": "2", "x": 1}


# --- shape -------------------------------------------------------------------------------


def test_zero_chunks_make_one_empty_generation():
    response = MessageAggregator().result()
    generation = only_generation(response)
    assert generation.output == AssistantMessage(None)
    assert generation.metadata.finish_reason is None
    assert response.usage.is_empty
    assert aggregate() == response


def test_chunks_without_generations_still_count():
    usage_only = ChatResponse((), ChatResponseMetadata(usage=Usage(1, 2), id="r"))
    aggregator = MessageAggregator()
    aggregator.add(chunk("a"))
    aggregator.add(usage_only)
    assert aggregator.chunk_count == 2
    response = aggregator.result()
    assert response.text == "a"
    assert response.usage == Usage(1, 2)
    assert response.metadata.id == "r"


def test_result_can_be_taken_midway():
    aggregator = MessageAggregator()
    aggregator.add(chunk("a"))
    assert aggregator.result().text == "a"
    aggregator.add(chunk("b"))
    assert aggregator.result().text == "ab"


async def test_aaggregate_folds_an_async_stream():
    async def stream() -> AsyncIterator[ChatResponse]:
        yield chunk("Hello")
        yield chunk(", world", finish="stop", usage=Usage(1, 2))

    response = await MessageAggregator.aaggregate(stream())
    assert response.text == "Hello, world"
    assert response.usage == Usage(1, 2)
    assert only_generation(response).metadata.finish_reason == "stop"


def test_chunks_with_several_generations_aggregate_by_position():
    from ostinato.messages import AssistantMessage
    from ostinato.model import ChatGenerationMetadata, ChatResponse, Generation, MessageAggregator

    whole = ChatResponse(
        [
            Generation(AssistantMessage("first"), ChatGenerationMetadata("returnDirect")),
            Generation(AssistantMessage("second"), ChatGenerationMetadata("returnDirect")),
        ]
    )
    assert MessageAggregator.aggregate([whole]) == whole
    split = [
        ChatResponse([Generation(AssistantMessage("fir")), Generation(AssistantMessage("sec"))]),
        ChatResponse(
            [
                Generation(AssistantMessage("st"), ChatGenerationMetadata("returnDirect")),
                Generation(AssistantMessage("ond"), ChatGenerationMetadata("returnDirect")),
            ]
        ),
    ]
    assert MessageAggregator.aggregate(split) == whole
