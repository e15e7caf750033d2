"""Claiming a conversation's next durable turn, atomically across server processes.

A durable turn's id is ``turn:<conversation_id>:<n>``, ``n`` counting the conversation's
turns from 1. A server submits the conversation's next turn under the next number with
``exclusive=True``: the engine creates an id once, so of two servers submitting at the
same instant one creates the turn and the other finds the number taken; it looks again,
finds the winner running, and follows the busy policy. The claim lives in the engine's
store (a DBOS workflow id), not in any server process. The next number is found from
the conversation's few newest turns (on an engine whose ``turn_ids`` takes ``newest``)
and the ids after them, not from all of its turns (see :func:`_turns`).

The busy policies: ``reject`` refuses (``409``, naming the running turn); ``steer`` sends
the message to the running turn (the engine records it, read at its next round
boundary, or by the turn's follow-up when it came after the last one; a turn that
ended before reading it leaves the message to start a turn of its own); ``enqueue``
submits the next turn ``after`` the running one: the turn itself waits, inside the
engine, until that one has ended, so the message outlives any server's restart;
``interrupt`` cancels the conversation's unfinished turns (each ends with its calls'
cancelled results, leaving the conversation valid) and submits the next turn ``after``
them in the same way. An engine whose ``submit`` has no ``exclusive`` and
``after`` (one without ordered turns) gets the check without the claim, and no
``enqueue`` or ``interrupt``.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from typing import TYPE_CHECKING, Any

from ostinato.errors import DurableTurnError
from ostinato_serve._problems import ApiError
from ostinato_serve._running import BusyPolicy

if TYPE_CHECKING:
    from ostinato.durable import DurableEngine, TurnRequest

__all__ = [
    "DONE",
    "WINDOW",
    "Claimed",
    "claim_turn",
    "conversation_of",
    "latest_unfinished",
    "ordered",
]

#: The statuses of a turn that has ended.
DONE = ("succeeded", "failed", "cancelled")
_ATTEMPTS = 50


def conversation_of(turn_id: str) -> str | None:
    """The conversation of a served durable turn's id (``None``: not such an id)."""
    head, _, rest = turn_id.partition(":")
    conversation, sep, _ = rest.rpartition(":")
    return conversation if head == "turn" and sep and conversation else None


def _number(turn_id: str) -> int:
    tail = turn_id.rpartition(":")[2]
    return int(tail) if tail.isdigit() else 0


def ordered(engine: DurableEngine) -> bool:
    """Whether ``engine.submit`` claims ids (``exclusive``) and orders turns (``after``)."""
    parameters = inspect.signature(engine.submit).parameters
    return "exclusive" in parameters and "after" in parameters


class Claimed:
    """What a message became: a new turn (:attr:`turn_id`), or input of the running turn
    (:attr:`steered`)."""

    __slots__ = ("steered", "turn_id")

    def __init__(self, turn_id: str, steered: bool) -> None:
        self.turn_id = turn_id
        self.steered = steered


async def _status(engine: DurableEngine, turn_id: str) -> str:
    try:
        return (await asyncio.to_thread(lambda: engine.turn(turn_id).status)).value
    except DurableTurnError:
        return "unknown"


#: How many of a conversation's newest turns a busy check lists, on an engine whose
#: ``turn_ids`` takes ``newest`` (see :func:`_turns`).
WINDOW = 4


async def _numbered(engine: DurableEngine, conversation_id: str) -> list[str]:
    """The conversation's turn ids by number: on an engine whose ``turn_ids`` takes
    ``newest``, only the :data:`WINDOW` created last; else all of them."""
    find: Any = getattr(engine, "turn_ids", None)
    if find is None:
        return []
    prefix = f"turn:{conversation_id}:"
    if "newest" in inspect.signature(find).parameters:
        found = await asyncio.to_thread(functools.partial(find, prefix, newest=WINDOW))
        mine = [t for t in found if conversation_of(t) == conversation_id]
        # Other conversations' ids may share the prefix (``c`` and ``c:x``): a window
        # full of theirs says nothing of this one's, which are then all listed.
        if mine or len(found) < WINDOW:
            return sorted(mine, key=_number)
    found = await asyncio.to_thread(find, prefix)
    return sorted((t for t in found if conversation_of(t) == conversation_id), key=_number)


async def _turns(engine: DurableEngine, conversation_id: str) -> tuple[int, list[str]]:
    """The conversation's last turn number, and its turns that have not ended, oldest
    first (a turn ends only after those before it: it was claimed once they had ended,
    or waits for them).

    The numbers have no gaps (each turn is claimed as the one after the last), so from
    the highest number listed the turns after it are looked up by id until a number has
    none (the newest listed by creation may miss a turn created in the same instant: the
    database's clock counts milliseconds, or seconds on SQLite), then statuses are read
    from the last turn back until one that ended: a busy check reads a few turns,
    however many the conversation had.
    """
    ids = await _numbered(engine, conversation_id)
    last = _number(ids[-1]) if ids else 0
    while ids and await _status(engine, f"turn:{conversation_id}:{last + 1}") != "unknown":
        last += 1
    unfinished: list[str] = []
    for number in range(last, 0, -1):
        turn_id = f"turn:{conversation_id}:{number}"
        if await _status(engine, turn_id) in (*DONE, "unknown"):
            break
        unfinished.insert(0, turn_id)
    return last, unfinished


async def latest_unfinished(engine: DurableEngine, conversation_id: str) -> str | None:
    """The id of the conversation's latest turn that has not ended, if any."""
    return next(reversed((await _turns(engine, conversation_id))[1]), None)


def _busy_error(turn_id: str, conversation_id: str) -> ApiError:
    """``409 conversation_busy`` naming the running turn."""
    from ostinato_serve._turns import busy_error as error

    return error(turn_id, conversation_id)


async def _steer(engine: DurableEngine, turn_id: str, text: str) -> bool:
    """Send ``text`` to the turn; ``False`` when it ended meanwhile."""
    from ostinato.durable import steer_turn

    try:
        await asyncio.to_thread(steer_turn, engine.turn(turn_id), text)
    except DurableTurnError as exc:
        if exc.status in DONE:
            return False  # it ended before it read the message
        if exc.status == "closing":
            raise ApiError(503, "turn_closing", str(exc), {"Retry-After": "1"}) from None
        raise ApiError(409, "not_steerable", str(exc)) from None
    return True


async def claim_turn(
    engine: DurableEngine, request: TurnRequest, conversation_id: str, policy: BusyPolicy
) -> Claimed:
    """Submit ``request`` as the conversation's next turn, or follow ``policy`` when a
    turn of it has not ended.

    Raises:
        ApiError: ``409 conversation_busy`` (``reject``), ``422`` for ``enqueue`` or
            ``interrupt`` on an engine without ordered turns.
    """
    claims = ordered(engine)
    for _ in range(_ATTEMPTS):
        number, unfinished = await _turns(engine, conversation_id)
        after: str | None = None
        if unfinished:
            running = unfinished[-1]
            if policy is BusyPolicy.REJECT:
                raise _busy_error(running, conversation_id)
            if policy is BusyPolicy.STEER:
                if await _steer(engine, running, request.user):
                    return Claimed(running, True)
                continue  # it ended meanwhile: the message starts a turn of its own
            if not claims:
                raise ApiError(
                    422,
                    "unsupported_policy",
                    f"the busy policy {policy.value!r} needs a durable engine with ordered "
                    f"turns (the conversation {conversation_id!r} has the turn {running} "
                    'running); expected "reject" or "steer", or stop the running turn first',
                )
            if policy is BusyPolicy.INTERRUPT:
                for turn_id in unfinished:
                    stop: Any = getattr(engine.turn(turn_id), "cancel", None)
                    if stop is not None:
                        await asyncio.to_thread(stop)
            after = running
        turn_id = f"turn:{conversation_id}:{number + 1}"
        try:
            if claims:
                submit: Any = engine.submit
                await asyncio.to_thread(
                    functools.partial(submit, turn_id=turn_id, after=after, exclusive=True),
                    request,
                )
            else:
                await asyncio.to_thread(engine.submit, request, turn_id=turn_id)
        except DurableTurnError as exc:
            if exc.status == "exists":
                continue  # another server claimed this number first: look again
            raise
        return Claimed(turn_id, False)
    raise ApiError(
        503,
        "conversation_contended",
        f"the conversation {conversation_id!r} got {_ATTEMPTS} turns from other requests "
        "while this one looked for its place; retry shortly",
        {"Retry-After": "1"},
    )
