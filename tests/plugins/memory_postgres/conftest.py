"""A real PostgreSQL server for the session, and a fresh schema per test.

The server (from the ``pgserver`` wheel of the dev group) runs on a free loopback port in
a temporary directory and is stopped at the end; failing to start is an error. Each test
gets its own schema through the URL's ``search_path``, so tests never see each other's
conversations.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from urllib.parse import quote

import psycopg
import pytest

from tests.fakes.distributions import clean_environment, data_home
from tests.servers import PostgresServer

__all__ = ["clean_environment", "data_home", "fresh_schema_url", "postgres_server", "postgres_url"]


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """The session's PostgreSQL server (restart it if a test stopped it)."""
    with PostgresServer() as server:
        yield server


def fresh_schema_url(server: PostgresServer) -> str:
    """The server's URL with a new, empty schema as its ``search_path``."""
    schema = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(server.url, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")  # type: ignore[arg-type]
    return f"{server.url}?options={quote(f'-csearch_path={schema}')}"


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """A URL of the running server on a schema of this test's own."""
    postgres_server.start()
    return fresh_schema_url(postgres_server)
