"""Retrieval: what indexing and searching cost on each vector store.

``python -m bench.retrieval [--sizes 10000 100000] [--queries 50]``: for each store
(SQLite — sqlite-vec where this Python can load it, else through sqlean.py — and
PostgreSQL with pgvector, exact and with an HNSW index, on a real server on loopback from
the dev group's ``pgserver`` wheel, as the tests use), ``size`` chunks are added in
batches of 500, then ``queries`` searches (top 4) run, without and with a metadata
filter. The embedding model is :class:`~ostinato.testing.HashingEmbeddingModel` (384
dimensions, offline): its hashing is part of the indexing time; a real model's time per
chunk adds to it. Printed: chunks indexed per second and the median search latency.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from ostinato.retrieval import Document, SearchRequest, VectorStore
from ostinato.testing import HashingEmbeddingModel

__all__ = ["main", "measure"]

_WORDS = [
    "leave",
    "travel",
    "bread",
    "lighthouse",
    "invoice",
    "server",
    "backup",
    "policy",
    "garden",
    "river",
    "budget",
    "contract",
    "holiday",
    "payroll",
    "laptop",
    "printer",
    "meeting",
    "deadline",
    "report",
    "customer",
]


def _chunk(i: int) -> Document:
    words = [_WORDS[(i * k + k * k) % len(_WORDS)] for k in range(1, 40)]
    return Document(f"chunk {i}: " + " ".join(words), {"team": f"t{i % 10}", "n": i}, f"c{i}")


@contextlib.contextmanager
def _stores(directory: Path) -> Iterator[dict[str, Callable[[str], VectorStore]]]:
    from ostinato_retrieval import SQLiteVectorStore
    from ostinato_vector_pgvector import PgVectorStore
    from tests.servers import PostgresServer

    model = HashingEmbeddingModel(384)
    with PostgresServer() as postgres:
        postgres.start()
        yield {
            "sqlite": lambda tag: SQLiteVectorStore(model, directory / f"{tag}.sqlite3"),
            "pgvector (exact)": lambda tag: PgVectorStore(model, postgres.url, table=f"e{tag}"),
            "pgvector (hnsw)": lambda tag: PgVectorStore(
                model, postgres.url, table=f"h{tag}", index="hnsw"
            ),
        }


async def _one(store: VectorStore, size: int, queries: int) -> tuple[float, float, float]:
    start = time.perf_counter()
    for first in range(0, size, 500):
        await store.add([_chunk(i) for i in range(first, min(size, first + 500))])
    indexed = size / (time.perf_counter() - start)
    plain: list[float] = []
    filtered: list[float] = []
    for q in range(queries):
        text = " ".join(_WORDS[(q * 3 + k) % len(_WORDS)] for k in range(5))
        for bucket, request in (
            (plain, SearchRequest(text)),
            (filtered, SearchRequest(text, filter_expression=f"team == 't{q % 10}'")),
        ):
            began = time.perf_counter()
            await store.similarity_search(request)
            bucket.append(time.perf_counter() - began)
    closer = getattr(store, "aclose", None) or getattr(store, "close", None)
    result = closer() if callable(closer) else None
    if asyncio.iscoroutine(result):
        await result
    return indexed, statistics.median(plain), statistics.median(filtered)


def measure(
    sizes: Sequence[int], queries: int
) -> dict[tuple[str, int], tuple[float, float, float, str]]:
    """Per (store, size): chunks per second, median search seconds without and with a
    filter, and the search backend."""
    found: dict[tuple[str, int], tuple[float, float, float, str]] = {}
    with (
        tempfile.TemporaryDirectory(prefix="ostinato-bench-retrieval-") as directory,
        _stores(Path(directory)) as factories,
    ):
        for name, make in factories.items():
            for size in sizes:
                store = make(f"s{size}")
                backend = str(getattr(store, "search_backend", "pgvector"))
                found[(name, size)] = (*asyncio.run(_one(store, size, queries)), backend)
    return found


def main(argv: Sequence[str] | None = None) -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(prog="python -m bench.retrieval")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=50)
    args = parser.parse_args(argv)
    print("| store | backend | chunks | indexed chunks/s | search ms (median) | with filter |")
    print("|---|---|---:|---:|---:|---:|")
    for (name, size), (rate, plain, filtered, backend) in measure(args.sizes, args.queries).items():
        print(
            f"| {name} | {backend} | {size:,} | {rate:,.0f} | {plain * 1000:.1f} | "
            f"{filtered * 1000:.1f} |"
        )


if __name__ == "__main__":
    main()
