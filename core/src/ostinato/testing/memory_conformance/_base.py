"""What a repository's test module provides to the kit, and the helpers its tests share."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from ostinato.memory import ChatMemoryRepository

__all__ = ["RepositoryConformanceBase"]


class RepositoryConformanceBase:
    """The hooks of the repository under test (no tests here).

    A subclass implements :meth:`make_repository`; :meth:`close_repository` has a default
    that calls the repository's ``aclose()`` or ``close()`` when it has one.
    """

    pytestmark = pytest.mark.asyncio

    async def make_repository(self) -> ChatMemoryRepository:
        """A repository of the store under test, holding no conversation yet.

        Called once per test, on the test's event loop. A shared store (a server) should
        give each test a place of its own (a fresh database, schema or key prefix) or be
        emptied here.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement make_repository()")

    async def close_repository(self, repository: ChatMemoryRepository) -> None:
        """Release what :meth:`make_repository` opened (default: ``aclose()`` or ``close()``)."""
        for name in ("aclose", "close"):
            closer = getattr(repository, name, None)
            if callable(closer):
                result = closer()
                if inspect.isawaitable(result):
                    await result
                return

    @asynccontextmanager
    async def opened(self) -> AsyncIterator[ChatMemoryRepository]:
        """A repository from :meth:`make_repository`, closed on the way out."""
        repository = await self.make_repository()
        assert isinstance(repository, ChatMemoryRepository), (
            f"make_repository() returned {type(repository).__name__}, "
            "not an ostinato.memory.ChatMemoryRepository"
        )
        try:
            yield repository
        finally:
            await self.close_repository(repository)

    @staticmethod
    async def blocking(function: Any, *args: Any) -> Any:
        """Call a blocking face on a worker thread (never on the test's loop)."""
        return await asyncio.to_thread(function, *args)
