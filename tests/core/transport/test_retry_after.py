"""``parse_retry_after``: seconds, milliseconds, HTTP dates, and values that say nothing."""

from __future__ import annotations

import pytest

from ostinato.transport import parse_retry_after

NOW = 1_700_000_000.0  # 2023-11-14T22:13:20Z


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({}, None),
        ({"retry-after": "7"}, 7.0),
        ({"retry-after": "1.5"}, 1.5),
        ({"retry-after": "-3"}, 0.0),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "nan"}, None),
        ({"retry-after": "inf"}, None),
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        # Azure sends a zero retry-after-ms beside retry-after: 1 (openai-compatible/014).
        ({"retry-after-ms": "0", "retry-after": "1"}, 1.0),
        ({"retry-after-ms": "later", "retry-after": "2"}, 2.0),
        ({"retry-after": "Tue, 14 Nov 2023 22:13:50 GMT"}, 30.0),
        ({"retry-after": "Tue, 14 Nov 2023 22:00:00 GMT"}, 0.0),
    ],
)
def test_parse_retry_after(headers: dict[str, str], seconds: float | None):
    assert parse_retry_after(headers, now=lambda: NOW) == seconds
