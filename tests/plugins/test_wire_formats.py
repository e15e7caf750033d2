"""Each adapter's wire format, without HTTP: the recorded exchanges of ``tests/wire`` fed
to it directly.

A wire format sees no connection: it is given a prompt, a body's bytes, a stream's framed
items or an error body. For every recorded exchange it must build the recorded request
body and read the reply to what the model (which holds it) makes of the same exchange
over a mock transport — the replies, the chunks of a stream (fed in awkward pieces) and
the typed errors alike.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from ostinato.errors import MalformedResponseError, ModelError
from ostinato.http import ErrorBody, HttpxChatModel, WireContext, WireFormat, model_error
from ostinato.model import ChatResponse, MessageAggregator
from ostinato.prompt import Prompt
from ostinato.redaction import Redactor
from ostinato.transport import Framing, error_payload, reason_phrase
from ostinato_anthropic import AnthropicChatModel, AnthropicWireFormat
from ostinato_ollama import OllamaChatModel, OllamaWireFormat
from ostinato_openai import OpenAIChatModel, OpenAIWireFormat
from tests.fakes import wire
from tests.fakes.wire import Exchange
from tests.plugins.anthropic import expect as anthropic_expect
from tests.plugins.anthropic import wire as anthropic_wire
from tests.plugins.ollama import expect as ollama_expect
from tests.plugins.ollama import wire as ollama_wire
from tests.plugins.openai import expect as openai_expect
from tests.plugins.openai import wire as openai_wire
from tests.plugins.recorded_replay import ReplayDriver

#: Bytes per piece a stream is fed in: splits ``data:`` lines and UTF-8 characters.
PIECE = 7


@dataclass(frozen=True)
class Adapter:
    """One adapter: its model and wire format, and how its tests read the corpus."""

    model_class: type[HttpxChatModel[Any]]
    wire_format: Callable[[WireContext[Any]], WireFormat]
    folders: tuple[str, ...]
    load: Callable[[str, str], Exchange]
    recorded_prompt: Callable[[Any], Prompt]
    driver: ReplayDriver

    def wire(self) -> WireFormat:
        """The wire format on the model class's default options, masking nothing."""
        options = self.model_class.options_type
        assert options is not None
        return self.wire_format(WireContext(self.model_class.provider, options()))

    def framing(self) -> Framing:
        """The framing the model reads its streams with."""
        return self.model_class.stream_format(provider=self.model_class.provider, secret=None)


ADAPTERS = {
    "openai": Adapter(
        OpenAIChatModel,
        OpenAIWireFormat,
        ("openai", "openai-compatible"),
        openai_wire.load,
        openai_wire.recorded_prompt,
        openai_expect.DRIVER,
    ),
    "anthropic": Adapter(
        AnthropicChatModel,
        AnthropicWireFormat,
        ("anthropic",),
        lambda _folder, name: anthropic_wire.load(name),
        anthropic_wire.recorded_prompt,
        anthropic_expect.DRIVER,
    ),
    "ollama": Adapter(
        OllamaChatModel,
        OllamaWireFormat,
        ("ollama",),
        lambda _folder, name: ollama_wire.load(name),
        ollama_wire.recorded_prompt,
        ollama_expect.DRIVER,
    ),
}

CASES = [
    pytest.param(adapter, folder, name, id=f"{folder}/{name.removesuffix('.json')}")
    for adapter, spec in ADAPTERS.items()
    for folder in spec.folders
    for name in wire.exchange_names(folder)
]


def exchange_of(adapter: str, folder: str, name: str) -> tuple[Adapter, Exchange]:
    spec = ADAPTERS[adapter]
    return spec, spec.load(folder, name)


def streamed_events(wire_format: WireFormat, framing: Framing, exchange: Exchange) -> list[Any]:
    """The partial responses of a recorded stream, its body framed in awkward pieces, read
    as the model's read loop reads them (until the parser is done)."""
    parser = wire_format.stream_events(exchange.response["headers"], exchange.request["body"])
    chunks: list[ChatResponse] = []
    content = exchange.content
    for start in range(0, len(content), PIECE):
        for item in framing.feed(content[start : start + PIECE]):
            chunk = parser.event(item)
            if chunk is not None:
                chunks.append(chunk)
            if parser.done:
                return chunks
    for item in framing.close():
        try:
            chunk = parser.event(item)
        except MalformedResponseError:
            break  # a truncated last event
        if chunk is not None:
            chunks.append(chunk)
    assert parser.done, "the recorded stream ended before its last event"
    return chunks


@pytest.mark.parametrize(("adapter", "folder", "name"), CASES)
def test_the_request_body_is_the_recorded_one(adapter: str, folder: str, name: str) -> None:
    spec, exchange = exchange_of(adapter, folder, name)
    prompt = spec.recorded_prompt(exchange.request["body"])
    body = spec.wire().request_body(prompt, stream=exchange.is_stream)
    assert body == spec.driver.expected_body(exchange)


@pytest.mark.parametrize(("adapter", "folder", "name"), CASES)
async def test_the_reply_is_what_the_model_makes_of_it(
    adapter: str, folder: str, name: str
) -> None:
    spec, exchange = exchange_of(adapter, folder, name)
    wire_format = spec.wire()
    headers = dict(exchange.response["headers"])
    sent = spec.driver.expected_body(exchange)
    status = exchange.response["status"]
    if status >= 400:
        with pytest.raises(ModelError) as over_http:
            await spec.driver.replay(exchange)
        payload = error_payload(exchange.content, Redactor())
        report = wire_format.error(payload, status, headers, reason_phrase(status), sent)
        error = model_error(report, provider=spec.model_class.provider, headers=headers)
        assert type(error) is type(over_http.value)
        assert str(error) == str(over_http.value)
        assert error.retry_after == over_http.value.retry_after
    elif exchange.is_stream:
        framing = spec.framing()
        failed: ModelError | None = None
        try:
            expected, _ = await spec.driver.replay_chunks(exchange, piece_size=PIECE)
        except ModelError as exc:  # an error event inside the stream
            failed = exc
        if failed is not None:
            with pytest.raises(type(failed)) as caught:
                streamed_events(wire_format, framing, exchange)
            assert str(caught.value) == str(failed)
        else:
            chunks = streamed_events(wire_format, framing, exchange)
            assert chunks == expected
            assert any(chunk.generations for chunk in chunks)
    else:
        reply = wire_format.reply(exchange.content, headers, sent)
        assert reply == await spec.driver.replay(exchange)
        assert reply.generations


@pytest.mark.parametrize(
    ("adapter", "folder", "name"),
    [
        ("openai", "openai", "011-error-401-invalid-api-key.json"),
        ("anthropic", "anthropic", "011-error-401-authentication.json"),
    ],
)
def test_an_error_object_sent_as_a_reply_is_an_error_body(
    adapter: str, folder: str, name: str
) -> None:
    spec, exchange = exchange_of(adapter, folder, name)
    with pytest.raises(ErrorBody) as caught:
        spec.wire().reply(exchange.content, {}, exchange.request["body"])
    assert caught.value.payload == exchange.response["body"]


def test_the_recorded_replies_read_without_a_connection() -> None:
    """What three recordings hold, read by the wire formats alone."""
    openai = ADAPTERS["openai"]
    exchange = openai.load("openai", "002-tool-call-single.json")
    reply = openai.wire().reply(exchange.content, exchange.response["headers"], {})
    calls = reply.result.output.tool_calls if reply.result else ()
    assert [call.name for call in calls] == ["weather"]
    assert reply.metadata.rate_limit  # from the recorded x-ratelimit-* headers

    anthropic = ADAPTERS["anthropic"]
    exchange = anthropic.load("anthropic", "007-stream-tool-use.json")
    aggregator = MessageAggregator()
    for chunk in streamed_events(anthropic.wire(), anthropic.framing(), exchange):
        aggregator.add(chunk)
    result = aggregator.result().result
    assert result is not None and result.output.tool_calls
    assert result.metadata.finish_reason == "tool_calls"

    ollama = ADAPTERS["ollama"]
    exchange = ollama.load("ollama", "002-chat-stream-text.json")
    whole = ollama.wire().reply(exchange.content, {}, exchange.request["body"])
    assert whole.text and whole.metadata.model == exchange.request["body"]["model"]


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_the_model_holds_its_wire_format(adapter: str) -> None:
    spec = ADAPTERS[adapter]
    model = spec.model_class(model="m", base_url="https://wire.test")
    assert isinstance(model.wire, spec.wire_format)  # type: ignore[arg-type]
    prompt = Prompt("hi")
    assert model.request_body(prompt) == model.wire.request_body(prompt, stream=False)
