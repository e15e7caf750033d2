"""``PgVectorStore``: documents and vectors in PostgreSQL with the ``vector`` extension.

One table holds each document's id, text, metadata (``jsonb``) and vector
(``vector(n)``); the table is made with the first vector, so its column type records the
vectors' length and a store made later with a model of another length is refused.
Searches order by pgvector's cosine distance (``<=>``); the score is ``1 - distance``.
Filters are SQL over the metadata (:mod:`._sql_filter`).

The store works with blocking psycopg connections from a pool, on worker threads, so one
store serves every event loop (the async faces and the ``*_sync`` faces alike); writes
are single transactions (``INSERT ... ON CONFLICT``), so concurrent writers, in this
process or others, lose nothing.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
import threading
from collections.abc import Callable, Sequence
from typing import Any, Final, Literal, TypeVar

from ostinato.retrieval import (
    DEFAULT_BATCH_SIZE,
    Document,
    Embedding,
    EmbeddingModel,
    Filter,
    SearchRequest,
    VectorStoreBase,
    VectorStoreError,
)
from ostinato_vector_pgvector._sql_filter import where_clause

__all__ = ["DEFAULT_TABLE", "PgVectorStore"]

#: The table documents are kept in unless told otherwise.
DEFAULT_TABLE: Final = "ostinato_documents"
_IDENTIFIER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")
_log = logging.getLogger("ostinato.retrieval")

T = TypeVar("T")


def _vector_text(vector: Sequence[float]) -> str:
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"


class PgVectorStore(VectorStoreBase):
    """A vector store in PostgreSQL (pgvector).

    Args:
        embedding_model: embeds documents and queries.
        url: the database, as a libpq URL (``postgresql://user:password@host:5432/db``).
        table: the table of documents (letters, digits, ``_``), looked up on the
            connection's ``search_path``; made when missing.
        index: ``"none"`` (exact search: every filter and ``top_k`` exact) or
            ``"hnsw"`` (an approximate HNSW index on the cosine distance, made with the
            table: fast on large tables; with a selective filter a search may return
            fewer than ``top_k`` documents, as with any post-filtered ANN index).
        create_extension: run ``CREATE EXTENSION IF NOT EXISTS vector`` before making the
            table (needs the privilege; turn off where an administrator installed it).
        pool_min_size, pool_max_size: connections kept open, and at most.
        timeout: seconds to wait for a connection before failing.
        dimensions, batch_size: as :class:`~ostinato.retrieval.VectorStoreBase`.

    Raises:
        ValueError: a bad table name or index kind.
        VectorStoreError: at first use, the server is unreachable or lacks pgvector.
    """

    __slots__ = ("_index", "_lock", "_pool", "_pool_args", "_ready", "_table", "_url", "_vector")

    store_name = "pgvector"

    def __init__(
        self,
        embedding_model: EmbeddingModel,
        url: str,
        *,
        table: str = DEFAULT_TABLE,
        index: Literal["none", "hnsw"] = "none",
        create_extension: bool = True,
        pool_min_size: int = 1,
        pool_max_size: int = 4,
        timeout: float = 10.0,
        dimensions: int | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> None:
        super().__init__(embedding_model, dimensions=dimensions, batch_size=batch_size)
        if not isinstance(table, str) or not _IDENTIFIER.fullmatch(table):
            raise ValueError(
                f"table must be letters, digits and _ (not starting with a digit), got {table!r}"
            )
        if index not in ("none", "hnsw"):
            raise ValueError(f"index must be 'none' or 'hnsw', got {index!r}")
        if not isinstance(url, str) or not url:
            raise ValueError("url must be a libpq URL: postgresql://user:password@host/db")
        self._url = url
        self._table = table
        self._index = index
        self._vector = create_extension
        self._pool_args = (pool_min_size, pool_max_size, timeout)
        self._pool: Any = None
        self._lock = threading.Lock()
        self._ready = False

    @property
    def table(self) -> str:
        """The table of documents."""
        return self._table

    # -- connections -------------------------------------------------------------------

    def _connections(self) -> Any:
        with self._lock:
            if self._pool is None:
                from psycopg_pool import ConnectionPool

                low, high, timeout = self._pool_args
                pool = ConnectionPool(
                    self._url,
                    min_size=low,
                    max_size=max(low, high),
                    timeout=timeout,
                    kwargs={"autocommit": True},
                    open=False,
                    name="ostinato-vector-pgvector",
                )
                try:
                    pool.open(wait=True, timeout=timeout)
                except Exception as exc:
                    pool.close()
                    raise VectorStoreError(
                        f"cannot connect to PostgreSQL for the pgvector store: {exc}\n"
                        "fix: check the URL and that the server is up"
                    ) from None
                self._pool = pool
            return self._pool

    async def _run(self, work: Callable[[Any], T]) -> T:
        def run() -> T:
            with self._connections().connection() as connection:
                return work(connection)

        return await asyncio.to_thread(run)

    def close(self) -> None:
        """Close the store's connections (a later use opens new ones)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    async def aclose(self) -> None:
        """:meth:`close`, off the event loop."""
        await asyncio.to_thread(self.close)

    # -- schema ------------------------------------------------------------------------

    def _name(self) -> Any:
        from psycopg import sql

        return sql.Identifier(self._table)

    def _stored_length(self, connection: Any) -> int | None:
        row = connection.execute(
            "SELECT atttypmod FROM pg_attribute "
            "WHERE attrelid = to_regclass(%s) AND attname = 'embedding' AND NOT attisdropped",
            (self._table,),
        ).fetchone()
        return None if row is None or row[0] is None or row[0] < 1 else int(row[0])

    async def _stored_dimensions(self) -> int | None:
        return await self._run(self._stored_length)

    def _ensure_table(self, connection: Any, dimensions: int) -> bool:
        """Make the table (and index) if missing; whether it exists now."""
        if self._ready:
            return True
        from psycopg import errors, sql

        with connection.transaction():
            connection.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (self._table,))
            if self._vector:
                try:
                    with connection.transaction():
                        connection.execute("CREATE EXTENSION IF NOT EXISTS vector")
                except errors.Error as exc:
                    raise VectorStoreError(
                        f"cannot create the vector extension: {exc}\nfix: install pgvector "
                        "on the server, have an administrator run CREATE EXTENSION vector, "
                        "then pass create_extension=False"
                    ) from None
            connection.execute(
                sql.SQL(
                    "CREATE TABLE IF NOT EXISTS {} (id text PRIMARY KEY, text text NOT NULL, "
                    "metadata jsonb NOT NULL, embedding vector({}) NOT NULL)"
                ).format(self._name(), sql.Literal(dimensions))
            )
            if self._index == "hnsw":
                connection.execute(
                    sql.SQL(
                        "CREATE INDEX IF NOT EXISTS {} ON {} "
                        "USING hnsw (embedding vector_cosine_ops)"
                    ).format(sql.Identifier(f"{self._table}_hnsw"), self._name())
                )
        stored = self._stored_length(connection)
        if stored is not None and stored != dimensions:
            raise VectorStoreError(
                f"the table {self._table} holds vectors of {stored} dimensions, not {dimensions}"
            )
        self._ready = True
        return True

    # -- the store ---------------------------------------------------------------------

    async def _upsert(self, documents: Sequence[Document], vectors: Sequence[Embedding]) -> None:
        rows = [
            (d.id, d.text, json.dumps(dict(d.metadata)), _vector_text(v))
            for d, v in zip(documents, vectors, strict=True)
        ]
        dimensions = len(vectors[0])

        def work(connection: Any) -> None:
            from psycopg import sql

            self._ensure_table(connection, dimensions)
            statement = sql.SQL(
                "INSERT INTO {} (id, text, metadata, embedding) "
                "VALUES (%s, %s, %s::jsonb, %s::vector) ON CONFLICT (id) DO UPDATE SET "
                "text = EXCLUDED.text, metadata = EXCLUDED.metadata, "
                "embedding = EXCLUDED.embedding"
            ).format(self._name())
            with connection.transaction(), connection.cursor() as cursor:
                cursor.executemany(statement, rows)

        await self._run(work)

    async def _exists(self) -> bool:
        def work(connection: Any) -> bool:
            row = connection.execute("SELECT to_regclass(%s)", (self._table,)).fetchone()
            return row is not None and row[0] is not None

        return self._ready or await self._run(work)

    async def _remove(self, ids: Sequence[str]) -> None:
        if not await self._exists():
            return

        def work(connection: Any) -> None:
            from psycopg import sql

            statement = sql.SQL("DELETE FROM {} WHERE id = ANY(%s)").format(self._name())
            connection.execute(statement, (list(ids),))

        await self._run(work)

    async def _remove_where(self, expression: Filter) -> None:
        if not await self._exists():
            return
        condition, parameters = where_clause(expression)

        def work(connection: Any) -> None:
            from psycopg import sql

            statement = sql.SQL("DELETE FROM {} WHERE ").format(self._name()) + sql.SQL(condition)
            connection.execute(statement, parameters)

        await self._run(work)

    async def _nearest(self, vector: Embedding, request: SearchRequest) -> list[Document]:
        if not await self._exists():
            return []
        condition, parameters = where_clause(request.filter_expression)
        query = _vector_text(vector)
        # The id breaks ties in an exact search; an index serves ORDER BY distance alone.
        order = " ORDER BY distance" + ("" if self._index == "hnsw" else ", id")

        def work(connection: Any) -> list[tuple[Any, ...]]:
            from psycopg import sql

            statement = sql.SQL(
                "SELECT id, text, metadata, embedding <=> %s::vector AS distance FROM {} "
            ).format(self._name()) + sql.SQL("WHERE " + condition + order + " LIMIT %s")
            rows: list[tuple[Any, ...]] = connection.execute(
                statement, [query, *parameters, request.top_k]
            ).fetchall()
            return rows

        found: list[Document] = []
        for id_, text, metadata, distance in await self._run(work):
            score = 0.0 if distance is None or math.isnan(distance) else 1.0 - float(distance)
            if request.accepts(score):
                found.append(Document(text, metadata or {}, id_, score))
        return found
