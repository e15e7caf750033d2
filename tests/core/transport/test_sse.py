"""The server-sent events decoder: fields, comments, line endings, arbitrary splits."""

from __future__ import annotations

import pytest

from ostinato.errors import MalformedResponseError
from ostinato.transport import ServerSentEvent, SSEDecoder
from tests.fakes.decoding import decode_in_pieces


def decode(body: bytes, piece: int | None = None) -> list[ServerSentEvent]:
    return decode_in_pieces(SSEDecoder(), body, piece)


BODY = (
    ": keep-alive\r\n\r\n"
    "data: one\r\n\r\n"
    'event: error\rdata: {"a":\r\ndata: 1}\r\r'
    "id: 7\ndata: été ✓\n\n"
    "data: [DONE]\n\n"
).encode()
EXPECTED = [
    ServerSentEvent("one"),
    ServerSentEvent('{"a":\n1}', "error"),
    ServerSentEvent("été ✓", id="7"),
    ServerSentEvent("[DONE]", id="7"),
]


@pytest.mark.parametrize("piece", [None, 1, 2, 3, 5, 8])
def test_events_whatever_the_split(piece: int | None):
    assert decode(BODY, piece) == EXPECTED


def test_comments_only_give_no_event():
    assert decode(b": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\n") == []


def test_leading_whitespace_before_a_field_is_ignored():
    # OpenRouter/Novita's first line starts with a space.
    assert decode(b' data: {"x": 1}\n\n') == [ServerSentEvent('{"x": 1}')]


def test_value_keeps_spaces_after_the_first():
    assert decode(b"data:  two spaces\n\ndata:none\n\n") == [
        ServerSentEvent(" two spaces"),
        ServerSentEvent("none"),
    ]


def test_unknown_fields_and_retry_are_ignored():
    assert decode(b"retry: 10\nfoo: bar\ndata: x\n\n") == [ServerSentEvent("x")]


def test_blank_lines_without_data_dispatch_nothing():
    assert decode(b"\n\n\nevent: ping\n\n") == []


def test_a_cr_at_the_end_of_a_piece_and_lf_at_the_start_of_the_next():
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\r") == []
    assert decoder.feed(b"\n") == []  # the LF belongs to the CR: no blank line yet
    assert decoder.feed(b"\r\n") == [ServerSentEvent("a")]


def test_close_dispatches_an_unterminated_event():
    decoder = SSEDecoder()
    assert decoder.feed(b"data: [DONE]") == []
    assert decoder.has_partial_event
    assert decoder.close() == [ServerSentEvent("[DONE]")]
    assert not decoder.has_partial_event


@pytest.mark.parametrize(
    "body",
    [
        b"data: \xff\n\n",
        b'data: {"text": "caf\xc3"}\n\n',  # a character cut short
        b"event: \xfe\ndata: x\n\n",
        b"data: a\r\ndata: \xff\r\n\r\n",  # the general (CR) path
    ],
)
def test_invalid_utf8_is_refused_not_replaced(body: bytes):
    with pytest.raises(MalformedResponseError, match=r"openai: a stream event holds bytes"):
        SSEDecoder(provider="openai").feed(body)


def test_the_refusal_names_the_byte_not_the_line():
    with pytest.raises(MalformedResponseError) as caught:
        SSEDecoder().feed(b"data: sk-secret \xff\n\n")
    assert "ff at byte 10" in str(caught.value) and "sk-secret" not in str(caught.value)
    assert caught.value.__context__ is None


def test_a_character_split_between_pieces_is_not_invalid():
    decoder = SSEDecoder()
    assert decoder.feed("data: café".encode()[:-1]) == []
    assert decoder.feed("é\n\n".encode()[1:]) == [ServerSentEvent("café")]


def test_a_comment_is_skipped_unread():
    assert decode(b": \xff keep-alive\ndata: x\n\n") == [ServerSentEvent("x")]


def test_spaces_after_the_data_are_kept_for_the_json_parser():
    # Anthropic pads data lines: {"type":"content_block_stop","index":0    }
    body = b'event: content_block_stop\ndata: {"index":0    }\n\n'
    assert decode(body) == [ServerSentEvent('{"index":0    }', "content_block_stop")]


def test_an_event_name_without_data_dispatches_nothing_and_does_not_leak():
    assert decode(b"event: ping\n\ndata: x\n\n") == [ServerSentEvent("x")]
