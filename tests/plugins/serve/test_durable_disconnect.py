"""The disconnect policy of durable ``/api/turns`` turns in one server process
(:class:`~ostinato_serve._durable_disconnect.DurableReaders`): under ``cancel`` the last
reader going away cancels the turn after the grace unless a reader came back; a reader
that read to the end, a turn waiting for approval and ``detach`` cancel nothing. The
served behaviour on a real engine is ``tests/plugins/dbos/test_served_disconnect``."""

from __future__ import annotations

import asyncio
import threading

from ostinato.tools import PendingToolCalls
from ostinato_serve._durable_disconnect import DurableReaders, cancel_handle
from ostinato_serve._running import Disconnect

GRACE = 0.05


class Turn:
    """A turn's handle as the policy uses it: its id, ``pending()`` and ``cancel()``."""

    def __init__(self, turn_id: str = "turn:c:1", waiting: bool = False) -> None:
        self.id = turn_id
        self.waiting = waiting
        self.cancelled = threading.Event()

    def pending(self) -> PendingToolCalls | None:
        return PendingToolCalls(calls=(), awaiting=()) if self.waiting else None

    def cancel(self) -> None:
        self.cancelled.set()


async def _cancelled(turn: Turn, within: float = GRACE + 0.5) -> bool:
    return await asyncio.to_thread(turn.cancelled.wait, within)


async def test_the_last_reader_going_away_cancels_after_the_grace() -> None:
    readers = DurableReaders(Disconnect.CANCEL, GRACE)
    turn = Turn()
    readers.attach(turn.id)
    readers.attach(turn.id)
    readers.detach(turn, gone=True)  # another reader is left
    assert not await _cancelled(turn, GRACE * 3)
    readers.detach(turn, gone=True)
    assert await _cancelled(turn)


async def test_a_reader_coming_back_within_the_grace_keeps_the_turn() -> None:
    readers = DurableReaders(Disconnect.CANCEL, GRACE)
    turn = Turn()
    readers.attach(turn.id)
    readers.detach(turn, gone=True)
    readers.attach(turn.id)  # at once: well within the grace
    assert not await _cancelled(turn, GRACE * 4)
    readers.detach(turn, gone=False)  # it read to the end
    assert not await _cancelled(turn, GRACE * 3)
    readers.attach(turn.id)  # a later reader going away: the grace starts again
    readers.detach(turn, gone=True)
    assert await _cancelled(turn)


async def test_detach_and_a_turn_waiting_for_approval_are_not_cancelled() -> None:
    for readers, turn in (
        (DurableReaders(Disconnect.DETACH, 0), Turn()),
        (DurableReaders(Disconnect.CANCEL, 0), Turn(waiting=True)),
    ):
        readers.attach(turn.id)
        readers.detach(turn, gone=True)
        assert not await _cancelled(turn, 0.2)


def test_a_handle_without_cancel_is_left_running() -> None:
    class Uncancellable:
        id = "turn:c:1"

    assert cancel_handle(Uncancellable()) is False  # type: ignore[arg-type]
    turn = Turn()
    assert cancel_handle(turn) is True  # type: ignore[arg-type]
    assert turn.cancelled.is_set()
