"""The memory-postgres tests' PostgreSQL server (from the ``pgserver`` wheel, which ships
pgvector), with the ``vector`` extension made once in ``public`` and a fresh schema per
test (``search_path`` = that schema, then ``public``)."""

from __future__ import annotations

import uuid
from urllib.parse import quote

import psycopg
import pytest

from tests.plugins.memory_postgres.conftest import postgres_server
from tests.servers import PostgresServer

__all__ = ["pgvector_server", "pgvector_url", "postgres_server"]


@pytest.fixture(scope="session")
def pgvector_server(postgres_server: PostgresServer) -> PostgresServer:
    """The session's server, with pgvector installed in ``public``."""
    postgres_server.start()
    with psycopg.connect(postgres_server.url, autocommit=True) as connection:
        connection.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
    return postgres_server


@pytest.fixture
def pgvector_url(pgvector_server: PostgresServer) -> str:
    """A URL of the running server on a schema of this test's own (then ``public``)."""
    pgvector_server.start()
    schema = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(pgvector_server.url, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")  # type: ignore[arg-type]
    return f"{pgvector_server.url}?options={quote(f'-csearch_path={schema},public')}"
