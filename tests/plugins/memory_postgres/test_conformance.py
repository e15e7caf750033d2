"""The PostgreSQL repository passes the repository conformance kit, on a real server."""

from __future__ import annotations

import pytest

from ostinato.memory import ChatMemoryRepository, SessionLog
from ostinato.testing.memory_conformance import (
    ChatMemoryRepositoryConformance,
    SessionLogConformance,
    UnreachableStoreConformance,
)
from ostinato_memory import ChatMemoryStoreUnavailableError
from ostinato_memory_postgres import PostgresChatMemoryRepository, PostgresSessionLog
from tests.plugins.memory_postgres.conftest import fresh_schema_url
from tests.servers import PostgresServer, free_port


class TestPostgresRepository(ChatMemoryRepositoryConformance, UnreachableStoreConformance):
    unreachable_error = ChatMemoryStoreUnavailableError

    @pytest.fixture(autouse=True)
    def _server(self, postgres_server: PostgresServer) -> None:
        postgres_server.start()
        self.server = postgres_server

    async def make_repository(self) -> ChatMemoryRepository:
        return PostgresChatMemoryRepository(fresh_schema_url(self.server))

    async def make_unreachable_repository(self) -> ChatMemoryRepository:
        url = f"postgresql://postgres:s3cret@127.0.0.1:{free_port()}/postgres"
        return PostgresChatMemoryRepository(url, timeout=0.5)


class TestPostgresSessionLog(SessionLogConformance):
    @pytest.fixture(autouse=True)
    def _server(self, postgres_server: PostgresServer) -> None:
        postgres_server.start()
        self.server = postgres_server

    async def make_session_log(self) -> SessionLog:
        return PostgresSessionLog(fresh_schema_url(self.server))
