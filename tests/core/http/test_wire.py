"""What every wire format needs (``ostinato.http._wire``), checked once."""

from __future__ import annotations

import pytest

from ostinato._frozen import freeze
from ostinato.errors import ConfigurationError, MalformedResponseError
from ostinato.http import (
    StreamParserBase,
    arguments_object,
    error_object,
    output_schema,
    plain,
    tool_schema,
    unexpected_reply,
    whole_reply,
)
from ostinato.messages import AssistantMessage
from ostinato.model import Generation, Usage


def test_plain_thaws_frozen_options() -> None:
    value = plain(freeze({"a": ({"b": 1}, 2)}))
    assert value == {"a": [{"b": 1}, 2]}
    assert type(value) is dict
    assert type(value["a"]) is list


def test_tool_schema_reads_json_or_names_the_tool() -> None:
    assert tool_schema("t", '{"type": "object"}') == {"type": "object"}
    with pytest.raises(ConfigurationError, match="tool 't': its input schema is not JSON"):
        tool_schema("t", "{nope")


@pytest.mark.parametrize(
    ("text", "expected"),
    [('{"a": 1}', {"a": 1}), ("", {}), ("  ", {}), ("[1]", {}), ("{bad", {})],
)
def test_arguments_object(text: str, expected: dict[str, object]) -> None:
    assert arguments_object(text) == expected


def test_unexpected_reply_quotes_and_cuts() -> None:
    error = unexpected_reply("acme", "a message object", "x" * 400)
    assert isinstance(error, MalformedResponseError)
    assert str(error).startswith("acme: expected a message object, got 'xxx")
    assert str(error).endswith("…")
    assert len(str(error)) < 400


def test_error_object_in_the_usual_shapes() -> None:
    assert error_object("text") == {"message": "text"}
    assert error_object(None) == {}
    assert error_object({"error": {"message": "m"}}) == {"message": "m"}
    assert error_object({"error": "m"}) is None  # the adapter reads its own shapes


class _Parser(StreamParserBase):
    __slots__ = ("seen",)

    def _start(self) -> None:
        self.seen = self._request_id


def test_stream_parser_base_sets_the_common_state_and_reads_json() -> None:
    parser = _Parser(provider="acme", rate_limit={}, secret="sk-1", request_id="req")
    assert parser.seen == "req"
    assert parser.done is False
    assert parser._event_object('{"a": 1}') == {"a": 1}
    with pytest.raises(MalformedResponseError) as caught:
        parser._event_object("sk-1 is not json")
    assert str(caught.value).startswith("acme: a stream event is not JSON")
    assert "sk-1" not in str(caught.value)


def test_output_schema_reads_the_options_schema_or_refuses_it() -> None:
    from ostinato.prompt import ChatOptions

    assert output_schema(ChatOptions()) is None
    assert output_schema(ChatOptions(output_schema='{"type": "object"}')) == {"type": "object"}
    for text in ("not json", "[1]"):
        with pytest.raises(ConfigurationError, match="output_schema must be the JSON text"):
            output_schema(ChatOptions(output_schema=text))


def test_whole_reply_carries_the_bodys_id_and_model() -> None:
    generation = Generation(AssistantMessage("hi"))
    body = {"id": "r1", "model": "m"}
    reply = whole_reply(
        body, [generation], usage=Usage(1, 2), rate_limit={"a": 1}, metadata={"k": "v"}
    )
    assert list(reply.results) == [generation]
    meta = reply.metadata
    assert (meta.id, meta.model, meta.usage) == ("r1", "m", Usage(1, 2))
    assert (dict(meta.rate_limit), dict(meta.metadata)) == ({"a": 1}, {"k": "v"})
    bare = whole_reply({}, [], usage=None, rate_limit=None, metadata={})
    assert (bare.metadata.id, bare.metadata.model, bare.metadata.usage) == ("", "", Usage())
    assert dict(bare.metadata.rate_limit) == {}
