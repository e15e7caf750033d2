"""The chat memory repository conformance kit: one test suite every repository subclasses.

A repository's test module subclasses :class:`ChatMemoryRepositoryConformance` and says
how to make a fresh repository; the kit then checks the contract ostinato's memory relies
on: every message type (tool calls, tool responses, media, metadata) round-trips exactly,
absent and empty values included (:func:`~ostinato.testing.every_message_type` is the
conversation it stores), order is kept, ``save_all`` replaces a conversation whole (an
empty list removes it), conversations are isolated, odd ids are kept apart and listed
exactly, large messages survive, deletion and listing agree, reads are copies, blank ids
are refused, the blocking faces agree with the async ones, concurrent writers to many
conversations lose nothing, concurrent writers to one leave one whole write, ``update``
is atomic (nothing lost, a failed change stores nothing). Stores that can be away add
:class:`UnreachableStoreConformance`: every operation then raises a typed error::

    from ostinato.testing.memory_conformance import (
        ChatMemoryRepositoryConformance,
        UnreachableStoreConformance,
    )

    class TestAcmeRepository(ChatMemoryRepositoryConformance, UnreachableStoreConformance):
        unreachable_error = AcmeStoreUnavailableError

        async def make_repository(self):
            return AcmeChatMemoryRepository(url=ACME_URL, namespace=uuid.uuid4().hex)

        async def make_unreachable_repository(self):
            return AcmeChatMemoryRepository(url="acme://127.0.0.1:9", timeout=0.5)

The tests are ``async``: run them with pytest-asyncio (``asyncio_mode = "auto"``, or the
class-level ``asyncio`` mark they carry). This package imports pytest, so it is not
re-exported by :mod:`ostinato.testing`; it imports no database driver. See
``docs/plugins.md``.

A store with a session log (:class:`~ostinato.memory.SessionLog`) adds
:class:`SessionLogConformance` and implements ``make_session_log()``: append-only
positions, atomic appends, summary ranges, branches, search and concurrent writers.
"""

from ostinato.testing.memory_conformance._base import RepositoryConformanceBase
from ostinato.testing.memory_conformance._concurrency import ConcurrencyConformance
from ostinato.testing.memory_conformance._contract import ContractConformance
from ostinato.testing.memory_conformance._samples import (
    ODD_CONVERSATION_IDS,
    every_message_type,
    turn,
)
from ostinato.testing.memory_conformance._session import SessionLogConformance
from ostinato.testing.memory_conformance._unreachable import UnreachableStoreConformance

__all__ = [
    "ODD_CONVERSATION_IDS",
    "ChatMemoryRepositoryConformance",
    "ConcurrencyConformance",
    "ContractConformance",
    "RepositoryConformanceBase",
    "SessionLogConformance",
    "UnreachableStoreConformance",
    "every_message_type",
    "turn",
]


class ChatMemoryRepositoryConformance(ContractConformance, ConcurrencyConformance):
    """Every check of the kit but the unreachable store's (add
    :class:`UnreachableStoreConformance` for a store that can be away)."""
