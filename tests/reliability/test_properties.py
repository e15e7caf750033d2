"""Property-based tests (hypothesis) over hostile or broken input.

* The SSE and NDJSON decoders, and each adapter's whole stream path (decoder, parser),
  give the same chunks for a recorded stream (``tests/wire``) however its bytes are
  split — and however its lines end; :class:`~ostinato.model.MessageAggregator` gives
  the same aggregate however the text and argument fragments of those chunks are split.
* Messages round-trip exactly through the SQLite repository: any text (lone surrogates
  included), tool calls, tool responses, media and metadata.
* Tool-argument validation on arbitrary JSON (and text that is not JSON) never raises out
  of the tool calling manager or the tool loop: the model reads what was wrong.

The profile is deterministic (``derandomize=True``, no example database) and modest, so
the suite is reproducible and fast.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
from collections.abc import Callable, Sequence
from contextlib import aclosing
from pathlib import Path
from typing import Annotated, Any, Literal

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from ostinato import ChatClient
from ostinato.errors import ModelError
from ostinato.messages import (
    AssistantMessage,
    Media,
    Message,
    SystemMessage,
    ToolCall,
    ToolResponse,
    ToolResponseMessage,
    UserMessage,
)
from ostinato.model import (
    ChatGenerationMetadata,
    ChatResponse,
    Generation,
    MessageAggregator,
)
from ostinato.prompt import Prompt, ToolCallingChatOptions
from ostinato.testing import ScriptedChatModel, tool_call_response
from ostinato.tools import DefaultToolCallingManager, FunctionToolCallback
from ostinato.transport import NDJSONDecoder
from ostinato.transport import SSEDecoder as CoreSSEDecoder
from ostinato_memory import SQLiteChatMemoryRepository
from tests.fakes.decoding import decode_pieces
from tests.plugins.anthropic import wire as anthropic_wire
from tests.plugins.ollama import wire as ollama_wire
from tests.plugins.openai import wire as openai_wire


def profile(examples: int) -> Callable[[Any], Any]:
    """Deterministic hypothesis settings with ``examples`` examples."""
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )


# -- recorded streams ------------------------------------------------------------------------


def _recorded(module: Any, folder: str | None) -> list[Any]:
    names = (
        module.exchange_names(folder, streams=True)
        if folder
        else module.exchange_names(streams=True)
    )
    if folder:
        return [module.load(folder, name) for name in names]
    return [module.load(name) for name in names]


OPENAI = [*_recorded(openai_wire, "openai"), *_recorded(openai_wire, "openai-compatible")]
ANTHROPIC = _recorded(anthropic_wire, None)
OLLAMA = _recorded(ollama_wire, None)
SSE_BODIES = [e.content for e in (*OPENAI, *ANTHROPIC)]
NDJSON_BODIES = [e.content for e in OLLAMA]
#: Each HTTP adapter's wire module, with its recorded streaming exchanges.
EVERY_ADAPTER = pytest.mark.parametrize(
    ("module", "exchanges"),
    [(openai_wire, OPENAI), (anthropic_wire, ANTHROPIC), (ollama_wire, OLLAMA)],
    ids=["openai", "anthropic", "ollama"],
)


@st.composite
def splits(draw: st.DrawFn, body: bytes) -> list[bytes]:
    """``body`` cut at arbitrary places (empty pieces included)."""
    cuts = sorted(draw(st.lists(st.integers(0, len(body)), max_size=40)))
    edges = [0, *cuts, len(body)]
    return [body[a:b] for a, b in itertools.pairwise(edges)]


@st.composite
def split_sse_body(draw: st.DrawFn) -> tuple[bytes, list[bytes]]:
    """A recorded event stream, its line ends rewritten (LF, CRLF or CR), split anywhere."""
    body = draw(st.sampled_from(SSE_BODIES))
    ending = draw(st.sampled_from([b"\n", b"\r\n", b"\r"]))
    body = body.replace(b"\r\n", b"\n").replace(b"\n", ending)
    return body, draw(splits(body))


def _decode_sse(pieces: Sequence[bytes]) -> list[Any]:
    return decode_pieces(CoreSSEDecoder(), pieces)


@profile(300)
@given(case=split_sse_body())
def test_sse_decoding_does_not_depend_on_how_the_bytes_are_split(case):
    # LF-only bodies take the decoder's fast path, CR and CRLF ones the general one.
    body, pieces = case
    whole = _decode_sse([body])
    assert whole  # every recording holds events
    events = _decode_sse(pieces)
    assert [(e.event, e.data, e.id) for e in events] == [(e.event, e.data, e.id) for e in whole]


@profile(100)
@given(data=st.data())
def test_ndjson_decoding_does_not_depend_on_how_the_bytes_are_split(data):
    body = data.draw(st.sampled_from(NDJSON_BODIES))
    body = body.replace(b"\r\n", b"\n").replace(b"\n", data.draw(st.sampled_from([b"\n", b"\r\n"])))
    pieces = data.draw(splits(body))
    values = decode_pieces(NDJSONDecoder(), pieces)
    assert values == decode_pieces(NDJSONDecoder(), [body])


class _SplitExchange:
    """A recorded exchange whose response body arrives in the given pieces."""

    def __init__(self, exchange: Any, pieces: Sequence[bytes]) -> None:
        self._exchange = exchange
        self._pieces = list(pieces)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._exchange, name)

    def response_for(self, piece_size: int | None = None) -> httpx.Response:
        pieces = self._pieces

        class Pieces(httpx.AsyncByteStream):
            async def __aiter__(self):  # type: ignore[override]
                for piece in pieces:
                    yield piece

        response = self._exchange.response
        return httpx.Response(response["status"], headers=response["headers"], stream=Pieces())


async def _stream_outcome(module: Any, exchange: Any, pieces: Sequence[bytes]) -> Any:
    """Every chunk of the replayed stream, or the error that ended it (type and text)."""
    model, _ = module.replay_model(_SplitExchange(exchange, pieces))
    chunks: list[ChatResponse] = []
    try:
        async with aclosing(model.stream(module.recorded_prompt(exchange.request["body"]))) as s:
            async for chunk in s:
                chunks.append(chunk)
    except ModelError as error:
        return chunks, (type(error).__name__, str(error))
    finally:
        await model.aclose()
    return chunks, None


_UNSPLIT: dict[int, Any] = {}


@EVERY_ADAPTER
@profile(40)
@given(data=st.data())
def test_an_adapter_streams_the_same_chunks_however_the_bytes_are_split(module, exchanges, data):
    exchange = data.draw(st.sampled_from(exchanges))
    pieces = data.draw(splits(exchange.content))
    key = id(exchange)
    if key not in _UNSPLIT:
        _UNSPLIT[key] = asyncio.run(_stream_outcome(module, exchange, [exchange.content]))
    assert asyncio.run(_stream_outcome(module, exchange, pieces)) == _UNSPLIT[key]


def _resplit(chunk: ChatResponse, draw: st.DrawFn) -> list[ChatResponse]:
    """``chunk`` as two chunks: its text and each call's argument fragment cut in two (the
    first part carries no metadata, the second everything else)."""
    if len(chunk.generations) != 1:
        return [chunk]
    generation = chunk.generations[0]
    output = generation.output
    text = output.text or ""
    calls = [c for c in output.tool_calls if c.index is not None]
    if not text and not calls:
        return [chunk]
    cut = draw(st.integers(0, len(text)))
    heads, tails = [], []
    for call in calls:
        at = draw(st.integers(0, len(call.arguments)))
        heads.append(dataclasses.replace(call, arguments=call.arguments[:at]))
        tails.append(dataclasses.replace(call, id="", name="", arguments=call.arguments[at:]))
    head = AssistantMessage(text[:cut] if text else output.text, tuple(heads))
    tail = dataclasses.replace(
        output, text=text[cut:] if text else output.text, tool_calls=tuple(tails)
    )
    first = ChatResponse([Generation(head, ChatGenerationMetadata())], chunk.metadata)
    return [first, chunk.copy(generations=[dataclasses.replace(generation, output=tail)])]


@EVERY_ADAPTER
@profile(40)
@given(data=st.data())
def test_the_aggregate_does_not_depend_on_how_text_and_arguments_are_split(module, exchanges, data):
    exchange = data.draw(st.sampled_from(exchanges))
    key = id(exchange)
    if key not in _UNSPLIT:
        _UNSPLIT[key] = asyncio.run(_stream_outcome(module, exchange, [exchange.content]))
    chunks, _ = _UNSPLIT[key]
    resplit = [piece for chunk in chunks for piece in _resplit(chunk, data.draw)]
    assert MessageAggregator.aggregate(resplit) == MessageAggregator.aggregate(chunks)


# -- messages through SQLite -------------------------------------------------------------------

# Any code point, lone surrogates included: a str can hold them, and JSON can carry them.
ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=40)
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | ANY_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ANY_TEXT, inner, max_size=4),
    max_leaves=12,
)
METADATA = st.dictionaries(ANY_TEXT, JSON_VALUES, max_size=4)
MEDIA = st.builds(
    Media,
    mime_type=st.sampled_from(["image/png", "audio/wav", "text/plain"]),
    data=st.binary(max_size=64),
    name=st.none() | ANY_TEXT,
) | st.builds(Media, mime_type=st.just("image/jpeg"), url=ANY_TEXT)
CALLS = st.builds(ToolCall, id=ANY_TEXT, name=ANY_TEXT, arguments=ANY_TEXT, type=ANY_TEXT)
MESSAGES: st.SearchStrategy[Message] = st.one_of(
    st.builds(SystemMessage, ANY_TEXT, METADATA),
    st.builds(UserMessage, ANY_TEXT, st.lists(MEDIA, max_size=2).map(tuple), METADATA),
    st.builds(
        AssistantMessage,
        st.none() | ANY_TEXT,
        st.lists(CALLS, max_size=3).map(tuple),
        METADATA,
        st.lists(MEDIA, max_size=1).map(tuple),
    ),
    st.builds(
        ToolResponseMessage,
        st.lists(st.builds(ToolResponse, ANY_TEXT, ANY_TEXT, ANY_TEXT), max_size=3).map(tuple),
        METADATA,
    ),
)
# Ids are keys: valid Unicode only (one with a lone surrogate is refused, see below).
CONVERSATION_IDS = st.text(max_size=40).filter(lambda text: bool(text.strip()))


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path: Path = tmp_path_factory.mktemp("sqlite") / "memory.sqlite3"
    with SQLiteChatMemoryRepository(path) as repository:
        yield repository


@profile(120)
@given(conversation_id=CONVERSATION_IDS, messages=st.lists(MESSAGES, max_size=6))
def test_messages_round_trip_exactly_through_sqlite(repository, conversation_id, messages):
    repository.save_all_sync(conversation_id, messages)
    assert repository.find_by_conversation_id_sync(conversation_id) == messages
    if messages:
        assert conversation_id in repository.find_conversation_ids_sync()
    repository.delete_by_conversation_id_sync(conversation_id)


def test_a_conversation_id_with_a_lone_surrogate_is_refused_clearly(repository):
    with pytest.raises(ValueError, match="lone surrogate at position 1"):
        repository.save_all_sync("a\ud800", [UserMessage("hi")])


@profile(30)
@given(conversation_id=CONVERSATION_IDS, messages=st.lists(MESSAGES, min_size=1, max_size=4))
def test_messages_round_trip_exactly_through_the_async_faces(repository, conversation_id, messages):
    async def round_trip() -> list[Message]:
        await repository.save_all(conversation_id, messages)
        try:
            return await repository.find_by_conversation_id(conversation_id)
        finally:
            await repository.delete_by_conversation_id(conversation_id)

    assert asyncio.run(round_trip()) == messages


# -- tool arguments -------------------------------------------------------------------------------


class Address(BaseModel):
    """A nested argument."""

    street: str
    number: int


CALLED: list[dict[str, Any]] = []


def booking(
    city: Annotated[str, "the city"],
    nights: int,
    guests: list[str],
    rating: float | None = None,
    kind: Literal["hotel", "flat"] = "hotel",
    address: Address | None = None,
) -> str:
    """A tool with a demanding schema; records the arguments it was called with."""
    CALLED.append({"city": city, "nights": nights, "guests": guests})
    return f"booked {city} for {nights} nights"


BOOKING = FunctionToolCallback(booking)
VALID = st.fixed_dictionaries(
    {"city": ANY_TEXT, "nights": st.integers(), "guests": st.lists(ANY_TEXT, max_size=3)},
    optional={
        "rating": st.none() | st.floats(allow_nan=False, allow_infinity=False),
        "kind": st.sampled_from(["hotel", "flat"]),
        "address": st.fixed_dictionaries({"street": ANY_TEXT, "number": st.integers()}),
    },
)
ANY_JSON_TEXT = st.one_of(
    JSON_VALUES.map(json.dumps),
    VALID.map(json.dumps),
    st.dictionaries(ANY_TEXT, JSON_VALUES, max_size=5).map(json.dumps),
    ANY_TEXT,  # not JSON, most of the time
    st.integers(1, 10_000).map(lambda n: "[" * n + "]" * n),  # nesting past the recursion limit
    st.integers(1, 10_000).map(lambda n: '{"nights": ' + "9" * n + "}"),  # huge integers
    st.sampled_from(['{"city": "\\ud800"}', '{"city": NaN}', "1e999", '{"a": 1} trailing', ""]),
)


def _arguments_are_valid(arguments: str) -> bool:
    try:
        BOOKING.parse_arguments(arguments)
    except Exception:
        return False
    return True


@profile(300)
@given(arguments=ANY_JSON_TEXT)
def test_tool_argument_validation_never_raises_out_of_the_manager(arguments):
    manager = DefaultToolCallingManager()
    prompt = Prompt("book", ToolCallingChatOptions(tool_callbacks=(BOOKING,)))
    response = tool_call_response(ToolCall("call-1", "booking", arguments))
    CALLED.clear()
    result = asyncio.run(manager.execute_tool_calls(prompt, response))
    last = result.conversation_history[-1]
    assert isinstance(last, ToolResponseMessage)
    text = last.responses[0].response_data
    if _arguments_are_valid(arguments):
        assert text.startswith("booked "), text
        assert len(CALLED) == 1
    else:
        # The model reads what was wrong with its arguments; the tool never ran.
        assert text.startswith("Error: invalid arguments for tool 'booking'"), text
        assert CALLED == []


@profile(25)
@given(arguments=ANY_JSON_TEXT)
def test_tool_argument_validation_never_raises_out_of_the_loop(arguments):
    model = ScriptedChatModel([tool_call_response(ToolCall("c1", "booking", arguments)), "done"])
    client = ChatClient.builder(model).default_tools(BOOKING).build()
    assert client.prompt("book").call().content() == "done"
    sent = model.prompts[-1].messages[-1]
    assert isinstance(sent, ToolResponseMessage)
    assert sent.responses[0].response_data  # the model was told something
