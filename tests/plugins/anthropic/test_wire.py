"""Every exchange in ``tests/wire/anthropic/`` replayed field by field.

Each test rebuilds the prompt the recorded request came from, checks that the adapter sent
exactly the recorded body (path, query and headers too), and checks every field of the
parsed response (or error). Streams are also served split at awkward byte offsets.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ostinato.errors import AuthenticationError, NotFoundError
from ostinato.model import ChatResponse
from tests.fakes.wire import Exchange
from tests.plugins.anthropic.expect import replay, replay_chunks
from tests.plugins.anthropic.wire import exchange_names, load, recorded_prompt, replay_model
from tests.plugins.recorded_replay import reply

CLAUDE_HAIKU = "claude-haiku-4-5-20251001"
WEATHER_ARGS = {"latitude": "52.5200", "longitude": "13.4050"}


def rate_limit(requests_remaining: int, requests_reset: str, reset: str) -> dict[str, Any]:
    """The anthropic-ratelimit-* headers of ruby_llm's recordings (three values vary)."""
    return {
        "input_tokens_limit": 10000000,
        "input_tokens_remaining": 10000000,
        "input_tokens_reset": reset,
        "output_tokens_limit": 2000000,
        "output_tokens_remaining": 2000000,
        "output_tokens_reset": reset,
        "requests_limit": 10000,
        "requests_remaining": requests_remaining,
        "requests_reset": requests_reset,
        "tokens_limit": 12000000,
        "tokens_remaining": 12000000,
        "tokens_reset": reset,
    }


def recorded_deltas(name: str) -> list[dict[str, Any]]:
    """The content-block deltas of a recorded stream, parsed independently."""
    lines = load(name).response["body_text"].splitlines()
    events = [json.loads(line[len("data: ") :]) for line in lines if line.startswith("data: ")]
    return [e["delta"] for e in events if e["type"] == "content_block_delta"]


def test_every_file_is_covered():
    names = exchange_names()
    assert {name[:3] for name in names} == {f"{n:03d}" for n in range(1, 13)}


def body_text(exchange: Exchange) -> str:
    return str(exchange.response["body"]["content"][0]["text"])


def streamed_answer(exchange: Exchange) -> str:
    deltas = recorded_deltas(exchange.name)
    return "".join(d["text"] for d in deltas if d["type"] == "text_delta")


def streamed_thinking(exchange: Exchange) -> dict[str, str]:
    deltas = recorded_deltas(exchange.name)
    thinking = "".join(d.get("thinking", "") for d in deltas if d["type"] == "thinking_delta")
    signature = next(d["signature"] for d in deltas if d["type"] == "signature_delta")
    return {"reasoning": thinking, "reasoning_signature": signature}


async def calls_a_tool(exchange: Exchange, response: ChatResponse) -> None:
    assert response.has_tool_calls()


async def keeps_empty_arguments(exchange: Exchange, response: ChatResponse) -> None:
    calls = response.result.output.tool_calls  # type: ignore[union-attr]
    assert calls[1].arguments == "{}"


async def answers_both_results(exchange: Exchange, response: ChatResponse) -> None:
    assert response.text is not None
    assert response.text.startswith("Here's the information you requested:")
    turns = exchange.request["body"]["messages"]
    assert [b["type"] for b in turns[2]["content"]] == ["tool_result", "tool_result"]


async def streams_text_then_usage(exchange: Exchange, response: ChatResponse) -> None:
    chunks, _ = await replay_chunks(exchange)
    # message_start and ping emit nothing; the text, then the finish with the usage.
    assert [c.text for c in chunks] == ["1\n2\n3", None]
    assert chunks[-1].result.metadata.finish_reason == "stop"  # type: ignore[union-attr]
    assert chunks[0].usage.is_empty
    native = response.usage.native_usage
    assert native["output_tokens"] == 9
    assert native["inference_geo"] == "not_available"  # from message_start, kept


async def streams_the_input_in_pieces(exchange: Exchange, response: ChatResponse) -> None:
    chunks, _ = await replay_chunks(exchange)
    fragments = [c for chunk in chunks for g in chunk.generations for c in g.output.tool_calls]
    # The start (id and name), then the six non-empty input_json_delta pieces.
    assert [(f.id, f.name, f.index) for f in fragments[:1]] == [
        ("toolu_01MKSN7NHsBVKr7Jvw5pqCQq", "weather", 0)
    ]
    assert [f.arguments for f in fragments] == [
        "",
        '{"latitude"',
        ": ",
        '"52.5200"',
        ', "long',
        'itude": ',
        '"13.4050"}',
    ]
    assert all(f.index == 0 for f in fragments)


async def reads_no_input_as_empty(exchange: Exchange, response: ChatResponse) -> None:
    # The only input_json_delta was "": the accumulated input becomes {}.
    assert response.result.output.tool_calls[0].arguments == "{}"  # type: ignore[union-attr]
    # The recorded request had a top-level system prompt, rebuilt from a SystemMessage.
    assert exchange.request["body"]["system"] == [
        {"type": "text", "text": "You must use tools whenever possible."}
    ]


async def keeps_thinking_out_of_the_text(exchange: Exchange, response: ChatResponse) -> None:
    thinking = streamed_thinking(exchange)["reasoning"]
    assert thinking.startswith("This is a straightforward question about pedestrian safety.")
    chunks, _ = await replay_chunks(exchange)
    # Thinking never reaches the text: the thinking chunks carry no text at all.
    for chunk in chunks:
        if chunk.result is not None and chunk.result.output.reasoning is not None:
            assert chunk.text is None
    assert thinking not in (response.text or "")


END_TURN = {"finish": "stop", "raw_finish": "end_turn"}
TOOL_USE = {"finish": "tool_calls", "raw_finish": "tool_use", "text": None}

#: Every recorded reply (by file name), the fields it parses to and its own checks.
REPLIES = {
    "001-text-basic": reply(
        text="2 + 2 = 4",
        **END_TURN,
        usage=(16, 13, 29, 0, 0),
        id="msg_011CeCGmD8uwD58unxgBN8Qx",
        rate_limit={
            "input_tokens_limit": 10000000,
            "input_tokens_remaining": 10000000,
            "input_tokens_reset": "2026-08-19T14:34:12Z",
            "output_tokens_limit": 2000000,
            "output_tokens_remaining": 2000000,
            "output_tokens_reset": "2026-08-19T14:34:12Z",
            "requests_limit": 10000,
            "requests_remaining": 9997,
            "requests_reset": "2026-08-19T14:34:11Z",
            "tokens_limit": 12000000,
            "tokens_remaining": 12000000,
            "tokens_reset": "2026-08-19T14:34:12Z",
        },
        # Newer usage fields kept as sent.
        native_usage=lambda exchange: exchange.response["body"]["usage"],
    ),
    "002-tool-use-single": reply(
        calls_a_tool,
        **TOOL_USE,
        calls=[("toolu_01Ay5KzhmQYMK53svGLaAxfc", "weather", WEATHER_ARGS)],
        usage=(633, 75, 708, 0, 0),
        id="msg_011CeCGmCbAyQmGiHPwNrvsc",
        rate_limit=rate_limit(9999, "2026-08-19T14:34:11Z", "2026-08-19T14:34:12Z"),
    ),
    # The request carries the assistant's tool_use turn and a user turn holding the
    # tool_result block; replay() checks it is exactly what was recorded.
    "003-tool-result-followup": reply(
        text=(
            "The weather in Berlin is currently:\n- **Temperature**: 15°C\n- **Wind**: 10 km/h"
            "\n\nIt's a relatively cool day with light winds. You might want to bring a light "
            "jacket if you're heading out!"
        ),
        **END_TURN,
        usage=(748, 55, 803, 0, 0),
        id="msg_011CeCGmJyeqtPVxNMNBTuXR",
        rate_limit={
            **rate_limit(9999, "2026-08-19T14:34:13Z", "2026-08-19T14:34:13Z"),
            "input_tokens_reset": "2026-08-19T14:34:13Z",
            "output_tokens_reset": "2026-08-19T14:34:14Z",
        },
    ),
    "004-tool-use-parallel": reply(
        keeps_empty_arguments,
        **TOOL_USE,
        calls=[
            ("toolu_01TjHdHxyQNDy4DipRieJU5n", "weather", WEATHER_ARGS),
            ("toolu_01QHFWAkMuVLb3VgS4EDGUGY", "best_language_to_learn", {}),
        ],
        usage=(701, 98, 799, 0, 0),
        id="msg_011CeCGnz5QeBWHzpPHf1ThJ",
        rate_limit=rate_limit(9999, "2026-08-19T14:34:35Z", "2026-08-19T14:34:36Z"),
    ),
    # Two tool_result blocks in one user turn (one ToolResponseMessage of two responses).
    "005-tool-results-followup-parallel": reply(
        answers_both_results,
        text=body_text,
        **END_TURN,
        usage=(893, 90, 983, 0, 0),
        id="msg_011CeCGo5HgtCQwwssR43dvT",
        rate_limit={
            **rate_limit(9999, "2026-08-19T14:34:37Z", "2026-08-19T14:34:37Z"),
            "output_tokens_reset": "2026-08-19T14:34:38Z",
        },
    ),
    "006-stream-text": reply(
        streams_text_then_usage,
        text="1\n2\n3",
        **END_TURN,
        # message_start said output_tokens 1; message_delta's 9 is the real count.
        usage=(15, 9, 24, 0, 0),
        id="msg_011CeCGmCzjcUtmtEmMdEiM2",
        rate_limit=rate_limit(9999, "2026-08-19T14:34:11Z", "2026-08-19T14:34:11Z"),
    ),
    "007-stream-tool-use": reply(
        streams_the_input_in_pieces,
        **TOOL_USE,
        calls=[("toolu_01MKSN7NHsBVKr7Jvw5pqCQq", "weather", WEATHER_ARGS)],
        usage=(633, 75, 708, 0, 0),
        id="msg_011CeCGpBQa4v1oPovDvN4gx",
        rate_limit=rate_limit(9999, "2026-08-19T14:34:52Z", "2026-08-19T14:34:52Z"),
    ),
    "008-stream-tool-use-no-arguments": reply(
        reads_no_input_as_empty,
        **TOOL_USE,
        calls=[("toolu_01EcJNDtgucTvxugUxuGcJmF", "best_language_to_learn", {})],
        usage=(579, 41, 620, 0, 0),
        id="msg_011CeCGohvqUXY416tg1SEid",
        rate_limit=rate_limit(9999, "2026-08-19T14:34:45Z", "2026-08-19T14:34:45Z"),
    ),
    "009-stream-thinking": reply(
        keeps_thinking_out_of_the_text,
        text=streamed_answer,
        **END_TURN,
        usage=(43, 282, 325, 0, 0),
        id="msg_01ALwQ87pTS7hH1PjSdC9wJD",
        model="claude-sonnet-4-20250514",
        message_metadata=streamed_thinking,
    ),
    "010-stop-sequence": reply(
        text="The beautiful city of ",
        finish="stop",
        raw_finish="stop_sequence",
        generation_metadata={"stop_sequence": "Paris"},
        usage=(32, 5, 37, 0, 0),
        id="msg_01376yZQxHcw9pER2Ab2SvQb",
        model="claude-sonnet-4-5-20250929",
        native_usage={
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "input_tokens": 32,
            "output_tokens": 5,
            "service_tier": "standard",
        },
    ),
}


@pytest.mark.parametrize("name", list(REPLIES))
async def test_recorded_reply(name: str):
    exchange = load(f"{name}.json")
    await REPLIES[name].check(exchange, await replay(exchange), model=CLAUDE_HAIKU)


async def test_011_error_401_authentication():
    exchange = load("011-error-401-authentication.json")
    model, sent = replay_model(exchange, max_retries=3)
    with pytest.raises(AuthenticationError) as caught:
        await replay(exchange)
    error = caught.value
    assert (error.provider, error.status, error.error_type, error.code) == (
        "anthropic",
        401,
        "authentication_error",
        None,
    )
    assert error.request_id == "req_011CeCGmBjaWkq37Sf5iU7so"
    assert error.retry_after is None
    assert str(error).splitlines() == [
        "anthropic error 401 (authentication_error): invalid x-api-key",
        "fix: check OSTINATO_ANTHROPIC_API_KEY (or ANTHROPIC_API_KEY)",
    ]
    assert "sk-ant-wire-test" not in repr(error)
    # x-should-retry: false: not retried, whatever the policy allows.
    with pytest.raises(AuthenticationError):
        await model.call(recorded_prompt(exchange.request["body"]))
    await model.aclose()
    assert len(sent) == 1


async def test_012_error_404_not_found():
    with pytest.raises(NotFoundError) as caught:
        await replay(load("012-error-404-not-found.json"))
    error = caught.value
    assert (error.status, error.error_type) == (404, "not_found_error")
    assert error.request_id == "req_011CdufXo8Y2LVfY2veyuQWG"  # from the body
    assert str(error).startswith("anthropic error 404 (not_found_error): model: claude-sonet-4-5")
