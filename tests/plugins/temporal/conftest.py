"""The Temporal tests' fixtures: one development server per module, on loopback."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.servers import TemporalServer


@pytest.fixture(scope="module")
def temporal_server() -> Iterator[TemporalServer]:
    with TemporalServer() as server:
        yield server
