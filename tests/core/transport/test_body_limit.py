"""Reading a reply within ``max_response_bytes``: refused past it, error bodies cut."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from ostinato.errors import ConfigurationError, MalformedResponseError
from ostinato.transport import (
    DEFAULT_MAX_RESPONSE_BYTES,
    ERROR_BODY_BYTES,
    ByteBudget,
    check_max_response_bytes,
    read_body,
    read_error_body,
)


class Pieces:
    """An async iterable of byte pieces that records how many were read."""

    def __init__(self, *pieces: bytes) -> None:
        self.pieces = list(pieces)
        self.read = 0
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            for piece in self.pieces:
                self.read += 1
                yield piece
        finally:
            self.closed = True


def budget(limit: int) -> ByteBudget:
    return ByteBudget(limit, provider="acme", url="https://acme.test/v1/chat")


async def test_a_body_within_the_budget_is_read_whole():
    assert await read_body(Pieces(b"ab", b"cd", b"e"), budget(5)) == b"abcde"
    assert await read_body(Pieces(b"only"), budget(4)) == b"only"
    assert await read_body(Pieces(), budget(1)) == b""


async def test_reading_stops_at_the_first_piece_past_the_budget():
    pieces = Pieces(b"aaaa", b"bbbb", b"cccc", b"dddd")
    with pytest.raises(MalformedResponseError) as info:
        await read_body(pieces, budget(6))
    assert pieces.read == 2
    message = str(info.value)
    assert message.startswith("acme: the reply from https://acme.test/v1/chat is larger than")
    assert "max_response_bytes=6 (stopped reading after 8 bytes)" in message
    assert "fix: raise max_response_bytes" in message
    assert info.value.provider == "acme"


async def test_an_announced_length_over_the_budget_is_refused_before_reading():
    pieces = Pieces(b"x")
    with pytest.raises(MalformedResponseError, match="stopped reading after 1000 bytes"):
        await read_body(pieces, budget(10), "1000")
    assert pieces.read == 0
    # A length that is not a number is left to the count.
    assert await read_body(Pieces(b"ok"), budget(10), "garbage") == b"ok"


def test_a_budget_counts_stream_pieces():
    counted = budget(5)
    assert counted.add(b"abc") == b"abc"
    assert counted.received == 3
    with pytest.raises(MalformedResponseError, match="after 6 bytes"):
        counted.add(b"def")


async def test_an_error_body_is_cut_at_its_limit_and_the_rest_not_read():
    pieces = Pieces(b"12345", b"67890", b"never")
    assert await read_error_body(pieces, 7) == b"1234567"
    assert pieces.read == 2
    assert await read_error_body(Pieces(b"short")) == b"short"
    assert ERROR_BODY_BYTES == 64 << 10


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (0, "at least 1, got 0"),
        (-5, "at least 1, got -5"),
        (True, "must be an int, got True"),
        (1.5, "must be an int, got 1.5"),
        ("64MB", "must be an int, got '64MB'"),
    ],
)
def test_a_limit_must_be_a_positive_int(value, message):
    with pytest.raises(ConfigurationError, match=message):
        check_max_response_bytes(value)


def test_the_default_limit_is_generous_but_finite():
    assert check_max_response_bytes(DEFAULT_MAX_RESPONSE_BYTES) == 64 << 20


async def test_a_body_read_in_part_is_closed_not_left_to_the_garbage_collector():
    cut = Pieces(b"x" * ERROR_BODY_BYTES, b"never read")
    await read_error_body(cut)
    assert cut.read == 1 and cut.closed
    refused = Pieces(b"abc", b"def", b"never read")
    with pytest.raises(MalformedResponseError):
        await read_body(refused, budget(4))
    assert refused.read == 2 and refused.closed
