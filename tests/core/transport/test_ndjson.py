"""The NDJSON decoder: one value per line, blank lines, CRLF, arbitrary splits, bad lines."""

from __future__ import annotations

from typing import Any

import pytest

from ostinato.transport import NDJSONDecoder, NDJSONError
from tests.fakes.decoding import decode_in_pieces

BODY = (
    '{"message":{"content":"été"},"done":false}\n'
    "\n"
    '{"message":{"content":" ✓"},"done":false}\r\n'
    '{"done":true,"eval_count":2}\n'
).encode()
EXPECTED = [
    {"message": {"content": "été"}, "done": False},
    {"message": {"content": " ✓"}, "done": False},
    {"done": True, "eval_count": 2},
]


def decode(body: bytes, piece: int | None = None) -> list[Any]:
    return decode_in_pieces(NDJSONDecoder(), body, piece)


@pytest.mark.parametrize("piece", [None, 1, 2, 3, 7, 64])
def test_values_whatever_the_split(piece: int | None):
    # A piece of 1 byte cuts inside "é" and "✓".
    assert decode(BODY, piece) == EXPECTED


def test_an_unterminated_last_line_is_given_by_close():
    decoder = NDJSONDecoder()
    assert decoder.feed(b'{"a": 1}\n{"b"') == [{"a": 1}]
    assert decoder.has_partial_line
    assert decoder.feed(b": 2}") == []
    assert decoder.close() == [{"b": 2}]
    assert not decoder.has_partial_line


def test_whitespace_only_is_no_partial_line():
    decoder = NDJSONDecoder()
    decoder.feed(b'{"a": 1}\n  ')
    assert not decoder.has_partial_line
    assert decoder.close() == []


def test_a_line_that_is_not_json_names_it():
    decoder = NDJSONDecoder()
    with pytest.raises(NDJSONError) as caught:
        decoder.feed(b"<html>Bad Gateway</html>\n")
    assert caught.value.line == "<html>Bad Gateway</html>"
    assert "not JSON" in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_a_truncated_last_line_raises_at_close():
    decoder = NDJSONDecoder()
    decoder.feed(b'{"done": tr')
    with pytest.raises(NDJSONError):
        decoder.close()


def test_values_need_not_be_objects():
    assert decode(b'1\n[2]\n"x"\nnull\n') == [1, [2], "x", None]


def test_invalid_utf8_is_refused_not_replaced():
    with pytest.raises(NDJSONError, match="not UTF-8: ff at byte 1") as caught:
        decode(b'"\xff"\n')
    assert caught.value.line == '"\ufffd"'
