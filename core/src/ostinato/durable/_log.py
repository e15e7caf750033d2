"""A durable turn's log on the worker's side: positions that survive a replay.

A durable engine replays a turn after its worker died: recorded units return their
results without running, the code between them runs again and emits its events again.
:class:`ReplayedTurnLog` gives every event the position it had in the engine's store, so
that a replay never appends a second copy, and decides what a streamed round that was
cut short owes its readers. An engine subclasses it with its store: it loads the events
already stored when a worker (re)starts the turn, and implements :meth:`write` (append
one placed event; in order), :meth:`end`, :meth:`read` and :meth:`aread`.

How an event is recognised on replay: by its *key*, the same on every run of the turn's
code — its kind, the number of its loop in the turn (a turn resumed after approvals runs
a loop per resumption), its round, its tool call id and how many events of that key came
before it. An event whose key is stored keeps its stored position and is not written
again; any other is appended after the last stored one.

The pieces of a streamed round (``text_delta``, ``tool_call_delta``) have no such key: a
replayed round emits its aggregate as one piece, and a round run again streams other
pieces. So: when the stored log holds the round's ``round_finished``, its pieces are all
stored, and the run's pieces are not written again; when it holds pieces of the round
but not its ``round_finished`` (the worker died while the round streamed, or before the
round's end reached the store), the first piece of this run is preceded by a
:class:`~ostinato.events.RoundAbandoned` withdrawing the stored pieces of that attempt,
and this run's pieces follow it. A reader applying the withdrawals
(:func:`~ostinato.events.withdrawn`) reads each round's text exactly once. A piece told
after its round's ``round_finished`` is no piece of the round's stream but text the loop
built itself (a stop for approval says what waits; a limit says what stopped the turn):
the same on every run, it is recognised by its key like any other event.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, Final

from ostinato.events._sink import TurnLog, stamp
from ostinato.events._types import LoopEvent, RoundAbandoned

__all__ = ["ReplayedTurnLog"]

_PIECES: Final = frozenset({"text_delta", "tool_call_delta"})
Key = tuple[str, int, int, str, int]


class _Keys:
    """The running key of each event of one run (or of the stored log)."""

    __slots__ = ("loop", "seen")

    def __init__(self) -> None:
        self.loop = 0
        self.seen: Counter[tuple[str, int, int, str]] = Counter()

    def key(self, event: LoopEvent) -> Key:
        call = getattr(event, "call", None)
        base = (event.kind, self.loop, int(getattr(event, "round", 0)), getattr(call, "id", ""))
        n = self.seen[base]
        self.seen[base] = n + 1
        if event.kind == "loop_ended":
            self.loop += 1
        return (*base, n)


class _Round:
    """What the stored log holds of one round's pieces."""

    __slots__ = ("finished", "first", "pieces")

    def __init__(self) -> None:
        self.pieces: list[int] = []  # positions of the current attempt's pieces
        self.first: int | None = None
        self.finished = False


class ReplayedTurnLog(TurnLog):
    """The writing side of a durable turn's log (see the module's docstring).

    Args:
        turn_id: the durable turn's id.
        stored: the events its store holds already (from earlier runs), in order.
    """

    __slots__ = (
        "_finished",
        "_keys",
        "_last",
        "_next",
        "_rounds",
        "_run",
        "_settled",
        "_stored",
    )

    def __init__(self, turn_id: str, stored: Iterable[LoopEvent]) -> None:
        super().__init__(turn_id)
        self._stored: dict[Key, int] = {}
        self._rounds: dict[tuple[int, int], _Round] = {}
        keys = _Keys()
        last = 0
        for event in stored:
            last = event.seq
            found = self._round(keys.loop, event) if event.kind in _PIECES else None
            if found is not None and not found.finished:
                if found.first is None:
                    found.first = event.seq
                found.pieces.append(event.seq)
            elif event.kind == "round_abandoned":
                found = self._round(keys.loop, event)
                found.pieces, found.first = [], None
            else:
                if event.kind == "round_finished":
                    self._round(keys.loop, event).finished = True
                self._stored[keys.key(event)] = event.seq
        self._next = last
        self._last = last
        self._run = _Keys()
        # Pieces of this run per round: how many, and whether the round was settled.
        self._settled: dict[tuple[int, int], int] = {}
        # The rounds this run has finished: a piece told after is the loop's own text.
        self._finished: set[tuple[int, int]] = set()

    @property
    def last(self) -> int:
        """The position of the last event placed or stored."""
        return self._next

    def _round(self, loop: int, event: Any) -> _Round:
        return self._rounds.setdefault((loop, int(event.round)), _Round())

    def place(self, event: LoopEvent) -> Sequence[LoopEvent]:
        """Stamp ``event`` with its stored position, or the next one; a piece of a
        round cut short comes after the ``RoundAbandoned`` it owes."""
        where = (self._run.loop, int(getattr(event, "round", 0)))
        if event.kind in _PIECES and where not in self._finished:
            return self._place_piece(event, where)
        if event.kind == "round_finished":
            self._finished.add(where)
        seq = self._stored.get(self._run.key(event))
        if seq is None:
            self._next += 1
            seq = self._next
        return (stamp(event, self.turn_id, seq),)

    def _place_piece(self, event: LoopEvent, where: tuple[int, int]) -> Sequence[LoopEvent]:
        stored = self._rounds.get(where)
        count = self._settled.get(where)
        self._settled[where] = 0 if count is None else count + 1
        if stored is not None and stored.finished:
            # Replayed: the stored pieces are the round's; this one is not written.
            pieces = stored.pieces
            seq = pieces[min(self._settled[where], len(pieces) - 1)] if pieces else 0
            return (stamp(event, self.turn_id, seq),)
        placed: list[LoopEvent] = []
        if count is None and stored is not None and stored.first is not None:
            self._next += 1
            abandoned = RoundAbandoned(where[1], stored.first)
            placed.append(stamp(abandoned, self.turn_id, self._next))
        self._next += 1
        placed.append(stamp(event, self.turn_id, self._next))
        return placed

    def __call__(self, event: LoopEvent) -> None:
        """Write ``event`` when it is new to the store (in position order)."""
        if event.seq > self._last:
            self._last = event.seq
            self.write(event)

    def write(self, event: LoopEvent) -> None:
        """Append one placed event to the store (the engine's; positions increase)."""
        raise NotImplementedError
