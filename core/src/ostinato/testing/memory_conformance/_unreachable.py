"""A store that cannot be reached: every operation raises the store's typed error."""

from __future__ import annotations

from typing import ClassVar

import pytest

from ostinato.errors import OstinatoError
from ostinato.memory import ChatMemoryRepository
from ostinato.testing.memory_conformance._base import RepositoryConformanceBase
from ostinato.testing.memory_conformance._samples import turn

__all__ = ["UnreachableStoreConformance"]


class UnreachableStoreConformance(RepositoryConformanceBase):
    """For repositories of a store that can be away (a server, a file system).

    Class attributes:
        unreachable_error: the :class:`~ostinato.errors.OstinatoError` subclass every
            operation raises when the store cannot be reached.
    """

    unreachable_error: ClassVar[type[OstinatoError]] = OstinatoError

    async def make_unreachable_repository(self) -> ChatMemoryRepository:
        """A repository configured for a store that cannot be reached (a closed port, a
        path that cannot be created). Keep its timeouts short: every operation waits."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement make_unreachable_repository()"
        )

    async def test_an_unreachable_store_raises_the_typed_error(self) -> None:
        """Each operation on an unreachable store raises :attr:`unreachable_error`."""
        assert issubclass(self.unreachable_error, OstinatoError), (
            f"unreachable_error is {self.unreachable_error!r}; "
            "make it an ostinato.errors.OstinatoError subclass"
        )
        repository = await self.make_unreachable_repository()
        try:
            with pytest.raises(self.unreachable_error):
                await repository.save_all("c", turn("1"))
            with pytest.raises(self.unreachable_error):
                await repository.find_by_conversation_id("c")
            with pytest.raises(self.unreachable_error):
                await repository.find_conversation_ids()
            with pytest.raises(self.unreachable_error):
                await repository.delete_by_conversation_id("c")
        finally:
            await self.close_repository(repository)
