"""``SQLiteVectorStore``: documents and vectors in one SQLite file, the embedded default.

Vectors are float32 BLOBs compared with sqlite-vec's ``vec_distance_cosine`` (or its
exact twin in Python where no SQLite here can load sqlite-vec, see :mod:`._connect`);
metadata is JSON, filtered with SQLite's JSON functions (:mod:`._sql_filter`). The
vectors' length is written in the file with the first document, and a store opened on
the file later refuses vectors of another length. The blocking work runs on a worker
thread, one statement at a time per store; writes are transactions, so concurrent
writers (threads or processes) lose nothing.
"""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final, TypeVar

from ostinato.retrieval import (
    DEFAULT_BATCH_SIZE,
    Document,
    Embedding,
    EmbeddingModel,
    Filter,
    SearchRequest,
    VectorStoreBase,
    VectorStoreError,
    check_dimensions,
)
from ostinato_retrieval._connect import Backend, connect, pack
from ostinato_retrieval._sql_filter import where_clause

__all__ = ["DEFAULT_TABLE", "SQLiteVectorStore"]

#: The table documents are kept in unless told otherwise.
DEFAULT_TABLE: Final = "ostinato_documents"
_IDENTIFIER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")

T = TypeVar("T")


class SQLiteVectorStore(VectorStoreBase):
    """A vector store in a SQLite file.

    Args:
        embedding_model: embeds documents and queries.
        path: the database file (made, with its folder, when missing); ``":memory:"``
            for a store that lives as long as the object.
        table: the table of documents (letters, digits, ``_``); several stores may
            share a file under different tables.
        backend: ``"auto"`` (sqlite-vec where an extension loads, else exact search in
            Python), or ``"sqlite3"``, ``"sqlean"``, ``"python"`` to insist on one.
        dimensions, batch_size: as :class:`~ostinato.retrieval.VectorStoreBase`.

    Raises:
        ValueError: a bad table name.
        ConfigurationError: a backend named that cannot run here (the message says what
            to install).
        VectorStoreError: the file cannot be opened or made.
    """

    store_name = "sqlite"

    def __init__(
        self,
        embedding_model: EmbeddingModel,
        path: str | Path = "ostinato-vectors.sqlite3",
        *,
        table: str = DEFAULT_TABLE,
        backend: Backend = "auto",
        dimensions: int | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> None:
        super().__init__(embedding_model, dimensions=dimensions, batch_size=batch_size)
        if not isinstance(table, str) or not _IDENTIFIER.fullmatch(table):
            raise ValueError(
                f"table must be letters, digits and '_' (not starting with a digit), got {table!r}"
            )
        self._table = table
        self._path = str(path)
        self._lock = threading.Lock()
        try:
            if self._path != ":memory:":
                Path(self._path).parent.mkdir(parents=True, exist_ok=True)
            self._connection, self._backend = connect(self._path, backend)
        except (OSError, sqlite3.Error) as exc:
            raise VectorStoreError(
                f"the SQLite vector store {self._path!r} could not be opened: {exc}\n"
                "fix: give a path in a folder this process may write"
            ) from exc
        self._errors: tuple[type[BaseException], ...] = (sqlite3.Error,)
        if self._backend == "sqlean":
            import sqlean  # type: ignore[import-untyped]  # ships no type information

            self._errors = (sqlite3.Error, sqlean.Error)
        self._run(self._create)

    @property
    def search_backend(self) -> str:
        """What computes distances: ``sqlite3`` or ``sqlean`` (sqlite-vec loaded in it) or
        ``python`` (exact search in Python)."""
        return self._backend

    @property
    def path(self) -> str:
        """The database file."""
        return self._path

    # -- running statements ------------------------------------------------------------

    def _run(self, work: Callable[[Any], T]) -> T:
        with self._lock:
            try:
                return work(self._connection)
            except self._errors as exc:
                if self._connection.in_transaction:
                    self._connection.execute("ROLLBACK")
                raise VectorStoreError(
                    f"the SQLite vector store {self._path!r} (table {self._table}) failed: {exc}"
                ) from exc

    async def _call(self, work: Callable[[Any], T]) -> T:
        return await asyncio.to_thread(self._run, work)

    def _create(self, connection: Any) -> None:
        connection.execute(
            f"CREATE TABLE IF NOT EXISTS {self._table} (id TEXT PRIMARY KEY, "
            "text TEXT NOT NULL, metadata TEXT NOT NULL, embedding BLOB NOT NULL)"
        )
        connection.execute(
            f"CREATE TABLE IF NOT EXISTS {self._table}_settings "
            "(key TEXT PRIMARY KEY, value TEXT NOT NULL)"
        )

    def _read_dimensions(self, connection: Any) -> int | None:
        row = connection.execute(
            f"SELECT value FROM {self._table}_settings WHERE key = 'dimensions'"
        ).fetchone()
        return None if row is None else int(row[0])

    # -- the store's storage -----------------------------------------------------------

    async def _stored_dimensions(self) -> int | None:
        return await self._call(self._read_dimensions)

    async def _upsert(self, documents: Sequence[Document], vectors: Sequence[Embedding]) -> None:
        rows = [
            (d.id, d.text, json.dumps(dict(d.metadata), ensure_ascii=False), pack(v))
            for d, v in zip(documents, vectors)
        ]
        length = len(vectors[0])

        def write(connection: Any) -> None:
            connection.execute("BEGIN IMMEDIATE")
            connection.execute(
                f"INSERT OR IGNORE INTO {self._table}_settings VALUES ('dimensions', ?)",
                (str(length),),
            )
            stored = self._read_dimensions(connection)
            if stored != length:  # another store on the file wrote first
                connection.execute("ROLLBACK")
                check_dimensions(vectors[0], stored or 0, f"the vectors for {self._path!r}")
            connection.executemany(
                f"INSERT INTO {self._table} VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE "
                "SET text = excluded.text, metadata = excluded.metadata, "
                "embedding = excluded.embedding",
                rows,
            )
            connection.execute("COMMIT")

        await self._call(write)

    async def _remove(self, ids: Sequence[str]) -> None:
        def remove(connection: Any) -> None:
            connection.execute("BEGIN IMMEDIATE")
            connection.executemany(
                f"DELETE FROM {self._table} WHERE id = ?", [(key,) for key in ids]
            )
            connection.execute("COMMIT")

        await self._call(remove)

    async def _remove_where(self, expression: Filter) -> None:
        condition, parameters = where_clause(expression)
        await self._call(
            lambda c: c.execute(f"DELETE FROM {self._table} WHERE {condition}", parameters)
        )

    async def _nearest(self, vector: Embedding, request: SearchRequest) -> list[Document]:
        condition, parameters = where_clause(request.filter_expression)
        sql = (
            f"SELECT id, text, metadata, distance FROM (SELECT id, text, metadata, "
            f"vec_distance_cosine(embedding, ?) AS distance FROM {self._table} "
            f"WHERE {condition}) "
        )
        arguments: list[Any] = [pack(vector), *parameters]
        if not request.accepts(-1.0):
            sql += "WHERE distance <= ? "
            arguments.append(1.0 - request.similarity_threshold)
        sql += "ORDER BY distance, id LIMIT ?"
        arguments.append(request.top_k)
        rows = await self._call(lambda c: c.execute(sql, arguments).fetchall())
        return [
            Document(text, json.loads(metadata), key, 1.0 - float(distance))
            for key, text, metadata, distance in rows
        ]

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._connection.close()

    async def aclose(self) -> None:
        """Close the database connection (on a worker thread)."""
        await asyncio.to_thread(self.close)

    def __repr__(self) -> str:
        return (
            f"SQLiteVectorStore(path={self._path!r}, table={self._table!r}, "
            f"backend={self._backend!r})"
        )
