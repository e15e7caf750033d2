"""Every recorded stream of the three adapters: the same reply however its bytes are split,
and the same reply from its chunks aggregated as from ``stream()``."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ostinato.model import MessageAggregator
from tests.fakes.wire import Exchange
from tests.plugins.anthropic import expect as anthropic_expect
from tests.plugins.anthropic import wire as anthropic_wire
from tests.plugins.ollama import expect as ollama_expect
from tests.plugins.ollama import wire as ollama_wire
from tests.plugins.openai import expect as openai_expect
from tests.plugins.openai import wire as openai_wire
from tests.plugins.recorded_replay import ReplayDriver


def _openai_corpus(folder: str) -> tuple[Callable[[str], Exchange], list[str], ReplayDriver]:
    def load(name: str) -> Exchange:
        return openai_wire.load(folder, name)

    return load, openai_wire.exchange_names(folder, streams=True), openai_expect.DRIVER


#: Per corpus folder: how to load an exchange, the successful streams, the replay driver.
CORPORA: dict[str, tuple[Callable[[str], Exchange], list[str], ReplayDriver]] = {
    "openai": _openai_corpus("openai"),
    "openai-compatible": _openai_corpus("openai-compatible"),
    "anthropic": (
        anthropic_wire.load,
        anthropic_wire.exchange_names(streams=True),
        anthropic_expect.DRIVER,
    ),
    "ollama": (ollama_wire.load, ollama_wire.exchange_names(streams=True), ollama_expect.DRIVER),
}
STREAMS = [
    pytest.param(corpus, name, id=f"{corpus}/{name[:3]}")
    for corpus, (_, names, _) in CORPORA.items()
    for name in names
]


@pytest.mark.parametrize(("corpus", "name"), STREAMS)
@pytest.mark.parametrize("piece_size", [1, 2, 3, 5, 7, 13, 64])
async def test_streams_survive_any_split(corpus: str, name: str, piece_size: int) -> None:
    load, _, driver = CORPORA[corpus]
    exchange = load(name)
    whole = await driver.replay(exchange)
    split = await driver.replay(exchange, piece_size=piece_size)
    assert split == whole
    assert split.usage == whole.usage
    assert split.metadata == whole.metadata
    assert split.result is not None and whole.result is not None
    assert split.result.output.metadata == whole.result.output.metadata


@pytest.mark.parametrize(("corpus", "name"), STREAMS)
async def test_stream_chunks_aggregate_once(corpus: str, name: str) -> None:
    load, _, driver = CORPORA[corpus]
    chunks, _ = await driver.replay_chunks(load(name))
    assert MessageAggregator.aggregate(chunks) == await driver.replay(load(name))
