"""What each HTTP adapter makes of a 200 reply: its finish reasons, and a body that is not
its API's reply.

Parametrised over the adapters: each API's finish reasons become the normalised ones (an
unknown one kept), the raw reason kept beside it; a body that is not JSON, or JSON of
another shape, is a ``MalformedResponseError`` saying so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from ostinato.errors import MalformedResponseError
from ostinato.prompt import Prompt
from tests.plugins.anthropic import fakes as anthropic
from tests.plugins.ollama import fakes as ollama
from tests.plugins.openai import fakes as openai


@dataclass(frozen=True)
class Replying:
    """One adapter as the reply tests drive it."""

    name: str
    model_for: Callable[..., tuple[Any, list[httpx.Request]]]
    #: A 200 reply answering "x", finished for this raw reason.
    finished: Callable[[str], httpx.Response]
    #: Its API's finish reasons, each with the one it becomes.
    finishes: tuple[tuple[str, str], ...]
    #: A JSON body that is not its API's reply, and what the error says of it.
    wrong_shape: tuple[Any, str]
    #: What the error of a body that is not JSON says.
    not_json: str


ADAPTERS = [
    Replying(
        "openai",
        openai.model_for,
        lambda raw: openai.completion({"role": "assistant", "content": "x"}, finish=raw),
        (
            ("stop", "stop"),
            ("eos", "stop"),
            ("end_turn", "stop"),
            ("stop_sequence", "stop"),
            ("length", "length"),
            ("max_tokens", "length"),
            ("tool_calls", "tool_calls"),
            ("function_call", "tool_calls"),
            ("tool_use", "tool_calls"),
            ("content_filter", "content_filter"),
            ("SOMETHING_NEW", "something_new"),
        ),
        wrong_shape=({"object": "list"}, "'choices' list"),
        not_json="not JSON",
    ),
    Replying(
        "anthropic",
        anthropic.model_for,
        lambda raw: anthropic.message({"type": "text", "text": "x"}, stop_reason=raw),
        (
            ("end_turn", "stop"),
            ("stop_sequence", "stop"),
            ("max_tokens", "length"),
            ("model_context_window_exceeded", "length"),
            ("tool_use", "tool_calls"),
            ("refusal", "content_filter"),
            ("pause_turn", "pause_turn"),
        ),
        wrong_shape=({"unexpected": True}, "expected a message object"),
        not_json="not JSON",
    ),
    Replying(
        "ollama",
        ollama.model_for,
        lambda raw: ollama.reply("x", reason=raw),
        (("stop", "stop"), ("length", "length"), ("load", "load"), ("unload", "unload")),
        # A streamed piece where the whole reply was expected.
        wrong_shape=(ollama.piece("partial"), "ended before its final object"),
        not_json="the reply is not JSON",
    ),
]


@pytest.mark.parametrize(
    ("adapter", "raw", "normalised"),
    [(a, raw, normalised) for a in ADAPTERS for raw, normalised in a.finishes],
    ids=[f"{a.name}-{raw}" for a in ADAPTERS for raw, _ in a.finishes],
)
async def test_finish_reasons_are_normalised_and_the_raw_one_kept(
    adapter: Replying, raw: str, normalised: str
):
    model, _ = adapter.model_for(adapter.finished(raw))
    generation = (await model.call(Prompt("hi"))).result
    assert generation is not None
    assert generation.metadata.finish_reason == normalised
    assert generation.metadata["finish_reason_raw"] == raw


@pytest.mark.parametrize("adapter", ADAPTERS, ids=[a.name for a in ADAPTERS])
async def test_a_body_that_is_not_the_apis_reply_is_malformed(adapter: Replying):
    wrong_shape, words = adapter.wrong_shape
    model, _ = adapter.model_for(
        httpx.Response(200, json=wrong_shape), httpx.Response(200, content=b"<html>")
    )
    with pytest.raises(MalformedResponseError, match=words):
        await model.call(Prompt("hi"))
    with pytest.raises(MalformedResponseError, match=adapter.not_json):
        await model.call(Prompt("hi"))
