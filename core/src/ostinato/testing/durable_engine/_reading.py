"""How the durable engine kit reads a turn's log: what it expects a reader to see, and a
reader that follows a turn live, disconnects and reattaches by position.

Durable turns stream their rounds, so a log holds a round's pieces (``text_delta``,
``tool_call_delta``) between its ``round_started`` and ``round_finished``. How many pieces
a round has is the engine's own: one that records the model's stream as it comes writes
each piece the model sent, one that runs a round in a unit and emits its aggregate writes
one. So the kit compares a log's *kinds with each run of pieces folded into one*, after
applying the withdrawals a worker's death may leave (:func:`~ostinato.events.withdrawn`),
and checks the text apart: the text pieces of the withdrawn log's last loop (a turn
resumed after approvals runs a loop per resumption) concatenate to the turn's answer,
byte for byte.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Final

from ostinato.events import withdrawn

if TYPE_CHECKING:
    from ostinato.durable import TurnHandle
    from ostinato.events import LoopEvent

__all__ = ["PIECES", "TOOL_TURN", "LiveReader", "assert_log", "folded"]

#: The kinds of a streamed round's pieces.
PIECES: Final = frozenset({"text_delta", "tool_call_delta"})

#: What a reader sees of a turn with one tool call, whether or not a worker died in it
#: (pieces folded, withdrawals applied).
TOOL_TURN: Final = (
    "round_started",
    "tool_call_delta",
    "round_finished",
    "tool_call_requested",
    "tool_started",
    "tool_finished",
    "round_started",
    "text_delta",
    "round_finished",
    "loop_ended",
)


def folded(events: Iterable[LoopEvent]) -> list[str]:
    """The kinds of ``events`` less what was withdrawn, each run of one piece kind as one."""
    kinds: list[str] = []
    for event in withdrawn(events):
        if event.kind in PIECES and kinds and kinds[-1] == event.kind:
            continue
        kinds.append(event.kind)
    return kinds


def assert_log(
    events: Sequence[LoopEvent], turn_id: str, kinds: Sequence[str], text: str | None
) -> None:
    """``events`` (a whole log read from position 0) are the turn's: each at its
    position, 1 to n with none missing or repeated; folded, of ``kinds``; the text of
    their last loop the answer's ``text`` (``None``: not checked)."""
    positions = [e.seq for e in events]
    assert positions == list(range(1, len(events) + 1)), (
        f"the log's positions are {positions}; expected 1 to {len(events)}, each once"
    )
    strays = {e.turn_id for e in events} - {turn_id}
    assert not strays, f"events of the log carry the turn ids {strays}; expected {turn_id!r}"
    found = folded(events)
    assert found == list(kinds), (
        f"the log reads (pieces folded, withdrawals applied)\n  {found}\nexpected\n  {list(kinds)}"
    )
    if text is not None:
        kept = withdrawn(events)
        ends = [n for n, e in enumerate(kept[:-1]) if e.kind == "loop_ended"]
        last_loop = kept[ends[-1] + 1 :] if ends else kept
        streamed = "".join(getattr(e, "text", "") for e in last_loop if e.kind == "text_delta")
        assert streamed == text, f"the log's text is {streamed!r}; the answer's is {text!r}"


class LiveReader:
    """Follows a turn's log in a thread, as a user interface does: from position 0 at
    :meth:`attach`, until :meth:`disconnect` (what comes after is lost to it, as to a
    dropped connection) or the turn's end; :meth:`attach` again follows from the last
    position read. ``events`` holds every event read, in reading order."""

    def __init__(self, handle: TurnHandle, timeout: float) -> None:
        self.handle = handle
        self.timeout = timeout
        self.events: list[LoopEvent] = []
        self.attachments = 0
        self.error: BaseException | None = None
        self._seen = threading.Condition()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def position(self) -> int:
        """The position of the last event read (0: none)."""
        with self._seen:
            return self.events[-1].seq if self.events else 0

    def attach(self) -> None:
        """Start following after :attr:`position` (a connection of its own)."""
        self._stop.set()  # the previous connection, if any, is dropped
        self._stop = stop = threading.Event()
        self.attachments += 1
        self._thread = threading.Thread(
            target=self._follow, args=(self.position, stop), daemon=True
        )
        self._thread.start()

    def _follow(self, after: int, stop: threading.Event) -> None:
        stream = self.handle.events(after=after, timeout=self.timeout)
        try:
            for event in stream:
                with self._seen:
                    if stop.is_set():
                        return
                    self.events.append(event)
                    self._seen.notify_all()
        except BaseException as error:  # reported by wait_for / join
            if not stop.is_set():
                self.error = error
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()
            with self._seen:
                self._seen.notify_all()

    def wait_for(self, kind: str, round_: int, timeout: float) -> None:
        """Wait until an event of ``kind`` in round ``round_`` was read (live)."""

        def seen() -> bool:
            return self.error is not None or any(
                e.kind == kind and getattr(e, "round", None) == round_ for e in self.events
            )

        with self._seen:
            found = self._seen.wait_for(seen, timeout)
        assert self.error is None, f"the reader failed: {self.error!r}"
        assert found, (
            f"no {kind} of round {round_} reached the reader within {timeout} s while the "
            f"turn ran; it read {[e.kind for e in self.events]}"
        )

    def disconnect(self) -> int:
        """Drop the connection; the position reached."""
        with self._seen:
            self._stop.set()
            return self.events[-1].seq if self.events else 0

    def join(self, timeout: float) -> list[LoopEvent]:
        """Wait until the turn's end was read; every event read."""
        assert self._thread is not None
        self._thread.join(timeout)
        assert not self._thread.is_alive(), f"the reader did not reach the end in {timeout} s"
        assert self.error is None, f"the reader failed: {self.error!r}"
        return list(self.events)
