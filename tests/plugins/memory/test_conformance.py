"""The in-memory and SQLite repositories pass the repository conformance kit."""

from __future__ import annotations

from pathlib import Path

import pytest

from ostinato.memory import ChatMemoryRepository, SessionLog
from ostinato.testing.memory_conformance import (
    ChatMemoryRepositoryConformance,
    SessionLogConformance,
    UnreachableStoreConformance,
)
from ostinato_memory import (
    ChatMemoryRepositoryError,
    InMemoryChatMemoryRepository,
    InMemorySessionLog,
    SQLiteChatMemoryRepository,
    SQLiteSessionLog,
)


class TestInMemoryRepository(ChatMemoryRepositoryConformance):
    # A store in process memory cannot be away: no UnreachableStoreConformance.

    async def make_repository(self) -> ChatMemoryRepository:
        return InMemoryChatMemoryRepository()


class TestSQLiteRepository(ChatMemoryRepositoryConformance, UnreachableStoreConformance):
    unreachable_error = ChatMemoryRepositoryError

    @pytest.fixture(autouse=True)
    def _directory(self, tmp_path: Path) -> None:
        self.directory = tmp_path

    async def make_repository(self) -> ChatMemoryRepository:
        return SQLiteChatMemoryRepository(self.directory / "memory.sqlite3")

    async def make_unreachable_repository(self) -> ChatMemoryRepository:
        # A regular file where the database's directory should be: it cannot be created.
        blocker = self.directory / "not-a-directory"
        blocker.write_text("")
        return SQLiteChatMemoryRepository(blocker / "memory.sqlite3")


class TestInMemorySessionLog(SessionLogConformance):
    async def make_session_log(self) -> SessionLog:
        return InMemorySessionLog()


class TestSQLiteSessionLog(SessionLogConformance):
    @pytest.fixture(autouse=True)
    def _directory(self, tmp_path: Path) -> None:
        self.directory = tmp_path

    async def make_session_log(self) -> SessionLog:
        return SQLiteSessionLog(self.directory / "memory.sqlite3")
