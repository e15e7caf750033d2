"""What a durable turn does when the client reading it goes away before it ended.

Both durable front doors use it: ``/v1/chat/completions``
(:mod:`ostinato_serve._openai_durable`, ``openai_on_disconnect``: a closed stream
cancels at once) and ``/api/turns`` (:mod:`ostinato_serve._durable_turns`,
``on_disconnect``). A turn is cancelled through its handle (``handle.cancel()``; a
handle without one leaves the turn running), in a thread and not awaited: the response
that noticed is over.

Under ``on_disconnect=cancel`` every reader of an ``/api/turns`` turn counts: the
stream of ``POST /api/turns``, the stream of ``POST /api/approvals/<id>`` reading the
resumed turn on, a reattached ``GET /api/turns/<id>/events``, and a non-streamed
(JSON) call waiting for the answer. A reattached reader counts because it is the same
client reading on (a page after a reload): were its going away ignored, a client that
lost one connection would leave the turn running unread, which ``cancel`` is chosen to
prevent (the in-process turns count it the same way). When the last reader in this
server process went away before the turn ended, the turn is cancelled after
``reattach_seconds`` unless a reader came back to this process meanwhile. Readers are
counted per server process: a reader that comes back through another server process
does not stop the cancel (route a client's requests to one process, or keep
``detach``). A turn waiting for approval is never cancelled this way: it has stopped,
as an in-process turn that stopped for approval has ended, and its calls stay
decidable.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from ostinato_serve._running import Disconnect

if TYPE_CHECKING:
    from ostinato.durable import TurnHandle

__all__ = ["DurableReaders", "cancel_handle", "cancel_soon"]


def cancel_handle(handle: TurnHandle, unless_waiting: bool = False) -> bool:
    """Cancel the turn through ``handle.cancel()`` (blocking); ``False`` when its
    handle has none, or (``unless_waiting``) the turn waits for approval."""
    stop: Callable[[], None] | None = getattr(handle, "cancel", None)
    if stop is None:
        return False
    if unless_waiting and handle.pending() is not None:
        return False
    stop()
    return True


def cancel_soon(
    handle: TurnHandle, delay: float = 0.0, unless_waiting: bool = False
) -> asyncio.TimerHandle:
    """Cancel the turn in a thread ``delay`` seconds from now, not awaited (see
    :func:`cancel_handle`); the returned timer stops it until then."""
    loop = asyncio.get_running_loop()

    def fire() -> None:
        loop.run_in_executor(None, cancel_handle, handle, unless_waiting)

    return loop.call_later(delay, fire)


class DurableReaders:
    """The readers of ``/api/turns`` durable turns in this server process, and what the
    last one going away does (see the module's text).

    Args:
        disconnect: ``detach`` (nothing) or ``cancel``.
        grace: the seconds a turn without readers here runs on before it is cancelled.
    """

    def __init__(self, disconnect: Disconnect = Disconnect.DETACH, grace: float = 0.0) -> None:
        self.disconnect = disconnect
        self.grace = grace
        self._readers: dict[str, int] = {}
        self._orphaned: dict[str, asyncio.TimerHandle] = {}

    def attach(self, turn_id: str) -> None:
        """A reader of ``turn_id`` came (a cancel waiting for its grace to pass stops)."""
        self._readers[turn_id] = self._readers.get(turn_id, 0) + 1
        orphaned = self._orphaned.pop(turn_id, None)
        if orphaned is not None:
            orphaned.cancel()

    def detach(self, handle: TurnHandle, gone: bool) -> None:
        """A reader of the turn went: ``gone`` when its client went away before the
        turn ended or stopped for approval (``False``: it read to the end)."""
        left = self._readers.get(handle.id, 1) - 1
        if left > 0:
            self._readers[handle.id] = left
            return
        self._readers.pop(handle.id, None)
        if gone and self.disconnect is Disconnect.CANCEL:
            loop = asyncio.get_running_loop()

            def fire() -> None:  # a reader coming back first would have stopped it
                self._orphaned.pop(handle.id, None)
                loop.run_in_executor(None, cancel_handle, handle, True)

            self._orphaned[handle.id] = loop.call_later(self.grace, fire)
