"""What imitators send that OpenAI does not, through ``call()`` and ``stream()`` both.

Not in the recorded corpus: a refusal, a content-filter finish, log probabilities, a tool
call without an id, arguments sent as an object. These bodies are written from the
OpenAI API reference and the imitators' documentation.
"""

from __future__ import annotations

import json

import httpx
import pytest

from ostinato.errors import (
    BadRequestError,
    MalformedResponseError,
    ServerError,
    StreamInterruptedError,
)
from ostinato.model import FinishReason
from ostinato.prompt import Prompt
from tests.plugins.openai.fakes import aggregate, completion, model_for, sse_body, stream_chunks


def chunk(delta: dict, finish: str | None = None, **extra) -> dict:
    return {
        "id": "r1",
        "model": "m1",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }


async def both(call_reply: httpx.Response, stream_reply: httpx.Response):
    """The call result and the stream aggregate (which must agree)."""
    model, _ = model_for(call_reply, stream_reply)
    called = await model.call(Prompt("hi"))
    streamed = await aggregate(model)
    await model.aclose()
    assert called == streamed
    return called


async def test_content_null_and_empty_both_mean_no_text():
    response = await both(
        completion({"role": "assistant", "content": ""}),
        sse_body(chunk({"role": "assistant", "content": ""}), chunk({"content": None}, "stop")),
    )
    assert response.text is None


async def test_missing_tool_call_ids_are_made_up_stably():
    call = {"type": "function", "function": {"name": "f", "arguments": '{"a":1}'}}
    response = await both(
        completion(
            {"role": "assistant", "content": None, "tool_calls": [call, call]}, finish="tool_calls"
        ),
        sse_body(
            chunk({"tool_calls": [{"index": 0, "function": {"name": "f", "arguments": '{"a":'}}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": "1}"}}]}),
            chunk(
                {"tool_calls": [{"index": 1, "function": {"name": "f", "arguments": '{"a":1}'}}]}
            ),
            chunk({}, "tool_calls"),
        ),
    )
    first, second = response.result.output.tool_calls
    assert first.id.startswith("call_")
    assert first.id != second.id
    assert (first.arguments, second.arguments) == ('{"a":1}', '{"a":1}')


async def test_a_name_repeated_in_every_chunk_is_not_repeated():
    fragments = [
        chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "c1", "function": {"name": "weather", "arguments": piece}}
                ]
            }
        )
        for piece in ('{"city"', ': "Paris"', "}")
    ]
    response = await aggregate(model_for(sse_body(*fragments, chunk({}, "tool_calls")))[0])
    (call,) = response.result.output.tool_calls
    assert (call.id, call.name, json.loads(call.arguments)) == ("c1", "weather", {"city": "Paris"})


async def test_arguments_sent_as_an_object():
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "f", "arguments": {"city": "Paris"}},
    }
    response = await both(
        completion({"role": "assistant", "tool_calls": [call]}, finish="tool_calls"),
        sse_body(chunk({"tool_calls": [{**call, "index": 0}]}), chunk({}, "tool_calls")),
    )
    assert json.loads(response.result.output.tool_calls[0].arguments) == {"city": "Paris"}


async def test_reasoning_content_field_and_content_parts():
    response = await both(
        completion(
            {
                "role": "assistant",
                "reasoning_content": "think",
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            }
        ),
        sse_body(
            chunk({"reasoning_content": "th"}),
            chunk({"reasoning_content": "ink"}),
            chunk({"content": [{"type": "text", "text": "a"}]}),
            chunk({"content": "b"}, "stop"),
        ),
    )
    assert response.text == "ab"
    assert response.result.output.reasoning == "think"


async def test_refusal_is_kept_in_generation_metadata():
    response = await both(
        completion({"role": "assistant", "content": None, "refusal": "I can't help with that."}),
        sse_body(
            chunk({"role": "assistant", "content": None, "refusal": ""}),
            chunk({"refusal": "I can't "}),
            chunk({"refusal": "help with that."}),
            chunk({}, "stop"),
        ),
    )
    assert response.text is None
    assert response.result.metadata.get("refusal") == "I can't help with that."
    assert response.result.metadata.finish_reason == FinishReason.STOP


async def test_content_filter_finish():
    response = await both(
        completion({"role": "assistant", "content": None}, finish="content_filter"),
        sse_body(chunk({"role": "assistant"}), chunk({}, "content_filter")),
    )
    assert response.result.metadata.finish_reason == FinishReason.CONTENT_FILTER
    assert response.result.metadata.get("finish_reason_raw") == "content_filter"


async def test_logprobs_are_kept_whole():
    tokens = [{"token": "a", "logprob": -0.1}, {"token": "b", "logprob": -0.2}]
    response = await both(
        completion(
            {"role": "assistant", "content": "ab"}, choice={"logprobs": {"content": tokens}}
        ),
        sse_body(
            {
                **chunk({"content": "a"}),
                "choices": [
                    {
                        "index": 0,
                        "delta": {"content": "a"},
                        "logprobs": {"content": tokens[:1]},
                        "finish_reason": None,
                    }
                ],
            },
            {
                **chunk({"content": "b"}),
                "choices": [
                    {
                        "index": 0,
                        "delta": {"content": "b"},
                        "logprobs": {"content": tokens[1:]},
                        "finish_reason": "stop",
                    }
                ],
            },
        ),
    )
    assert response.result.metadata.get("logprobs") == {"content": tokens}


async def test_several_choices_through_call():
    body = {
        "id": "r",
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "one"},
                "finish_reason": "stop",
            },
            {
                "index": 1,
                "message": {"role": "assistant", "content": "two"},
                "finish_reason": "length",
            },
        ],
    }
    model, _ = model_for(httpx.Response(200, json=body))
    response = await model.call(Prompt("hi"))
    assert [g.text for g in response.generations] == ["one", "two"]
    assert [g.finish_reason for g in response.generations] == ["stop", "length"]


async def test_stream_follows_the_first_choice_only():
    other = {
        "id": "r1",
        "model": "m1",
        "choices": [{"index": 1, "delta": {"content": "other"}, "finish_reason": None}],
    }
    response = await aggregate(
        model_for(sse_body(chunk({"content": "mine"}), other, chunk({}, "stop")))[0]
    )
    assert response.text == "mine"


async def test_a_server_that_ignores_stream_true_answers_whole():
    model, _ = model_for(completion({"role": "assistant", "content": "whole"}))
    chunks = await stream_chunks(model)
    assert len(chunks) == 1
    assert chunks[0].text == "whole"


async def test_empty_chunks_are_not_yielded():
    model, _ = model_for(
        sse_body(
            chunk({"role": "assistant", "content": ""}), chunk({"content": "x"}), chunk({}, "stop")
        )
    )
    chunks = await stream_chunks(model)
    assert [c.text for c in chunks] == ["x", None]


async def test_a_message_instead_of_a_delta():
    body = {
        "id": "r",
        "model": "m",
        "choices": [{"index": 0, "message": {"content": "x"}, "finish_reason": "stop"}],
    }
    assert (await aggregate(model_for(sse_body(body))[0])).text == "x"


async def test_stream_without_done_is_interrupted_not_truncated():
    model, _ = model_for(sse_body(chunk({"content": "partial"}), done=False))
    with pytest.raises(StreamInterruptedError, match=r"ended without \[DONE\]"):
        await stream_chunks(model)


async def test_a_done_without_its_blank_line_still_ends_the_stream():
    reply = httpx.Response(
        200,
        headers={"content-type": "text/event-stream"},
        content=b'data: {"id":"r","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}\n\ndata: [DONE]',
    )
    assert (await aggregate(model_for(reply)[0])).text == "x"


async def test_a_truncated_last_event_is_an_interruption():
    reply = httpx.Response(
        200,
        headers={"content-type": "text/event-stream"},
        content=b'data: {"id":"r","choices":[{"index":0,"delta":{"content":"x"}}]}\n\ndata: {"id":"r","cho',
    )
    with pytest.raises(StreamInterruptedError):
        await stream_chunks(model_for(reply)[0])


async def test_an_error_chunk_before_the_finish_raises():
    error = {
        "error": {
            "code": 502,
            "message": "upstream failed",
            "metadata": {"provider_name": "X", "raw": "boom"},
        }
    }
    model, sent = model_for(sse_body(chunk({"content": "a"}), error, done=False), max_retries=2)
    with pytest.raises(ServerError) as caught:
        await stream_chunks(model)
    assert caught.value.status == 502
    assert "upstream failed" in str(caught.value)
    assert "X: boom" in str(caught.value)
    assert len(sent) == 1  # data had been delivered: no retry


async def test_an_error_event_before_any_data_is_retried_when_retryable():
    error = 'event: error\ndata: {"error": {"message": "overloaded", "status_code": 503}}\n\n'
    model, sent = model_for(
        sse_body(error, done=False), sse_body(chunk({"content": "ok"}, "stop")), max_retries=1
    )
    assert (await aggregate(model)).text == "ok"
    assert len(sent) == 2


async def test_a_non_json_event_is_malformed():
    model, _ = model_for(sse_body("data: not json\n\n"))
    with pytest.raises(MalformedResponseError, match="not JSON"):
        await stream_chunks(model)


async def test_an_error_object_in_a_200_body_is_typed():
    model, _ = model_for(httpx.Response(200, json={"error": {"message": "bad", "code": 400}}))
    with pytest.raises(BadRequestError, match="bad"):
        await model.call(Prompt("hi"))


async def test_request_id_header_reaches_the_metadata():
    reply = completion({"role": "assistant", "content": "x"})
    reply.headers["x-request-id"] = "req_123"
    stream = sse_body(chunk({"content": "x"}, "stop"))
    stream.headers["x-request-id"] = "req_123"
    response = await both(reply, stream)
    assert response.metadata.get("request_id") == "req_123"


async def test_reasoning_tokens_are_part_of_usage():
    usage = {
        "prompt_tokens": 10,
        "completion_tokens": 50,
        "total_tokens": 60,
        "completion_tokens_details": {"reasoning_tokens": 40},
    }
    model, _ = model_for(completion({"role": "assistant", "content": "42"}, usage=usage))
    response = await model.call(Prompt("hi"))
    assert response.usage.reasoning_tokens == 40
    assert response.metadata.metadata["reasoning_tokens"] == 40
    streamed, _ = model_for(
        sse_body(
            {"id": "r1", "choices": [{"index": 0, "delta": {"content": "42"}}]},
            {"id": "r1", "choices": [], "usage": usage},
        )
    )
    assert (await aggregate(streamed)).usage.reasoning_tokens == 40
