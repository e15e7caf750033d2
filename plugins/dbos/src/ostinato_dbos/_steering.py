"""Steering a durable DBOS turn: messages sent to it while it runs, taken at its round
boundaries, and none lost when one comes after the last of them.

A sender (:func:`send_steering`, from any process) sends the message on
:data:`STEER_TOPIC` with an id, and the turn (:class:`DbosSteering`) reads the topic at
each round boundary with ``DBOS.recv``: recorded, so a replay takes the same messages at
the same round. A message sent after the turn's last boundary would stay unread, so the
turn closes its steering once its loop has run (:func:`close_steering`): it sets the
event :data:`CLOSED_EVENT`, reads what is left (the late messages), submits them as its
follow-up (:func:`~ostinato.durable.follow_up_id`, after itself) and sets
:data:`ENDED_EVENT` to the ids it read and the follow-up's id. A follow-up that cannot be
submitted (after retries) is logged; the turn keeps its answer, and its late messages
count as unread, so a sender still waiting is told the turn ended.

The sender looks for :data:`CLOSED_EVENT` after sending. Not set: the send is in the
database before the turn closes, so the turn reads the message at a boundary or when
it closes — it is the turn's or its follow-up's. Set: the message may have come after
the turn read its last messages, so the sender waits for :data:`ENDED_EVENT` and looks
for its id there; when the turn did not read it, the sender is told the turn has ended
(and submits the message as a turn itself, as ``ostinato serve`` does). A cancelled turn
closes nothing: what was sent to it and not yet taken is dropped with it, as in process.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from ostinato.durable import TurnRequest, TurnStatus, follow_up_id, follow_up_request
from ostinato.errors import DurableTurnError
from ostinato.messages import UserMessage
from ostinato.runtime import Steering

if TYPE_CHECKING:
    from ostinato_dbos._engine import DbosEngine

__all__ = [
    "CLOSED_EVENT",
    "ENDED_EVENT",
    "STEER_TOPIC",
    "DbosSteering",
    "close_steering",
    "send_steering",
    "submit_follow_up",
]

#: The message topic steered user messages are sent on (``{"text": ..., "id": ...}``).
STEER_TOPIC: Final = "ostinato.steer"
#: The event a turn sets once its loop has run, before it reads its late messages.
CLOSED_EVENT: Final = "ostinato.steer.closed"
#: The event a turn sets once it has read its last messages: ``{"read": [ids],
#: "follow_up": id or null}``.
ENDED_EVENT: Final = "ostinato.steer.ended"
#: How long a sender waits for a closing turn to say whether it read the message.
CLOSING_WAIT_SECONDS: Final = 60.0
_DONE: Final = (TurnStatus.SUCCEEDED, TurnStatus.FAILED, TurnStatus.CANCELLED)
#: The follow-up's step: retried (a database hiccup, a turn that holds its id closing).
_FOLLOW_UP_STEP: Final[Any] = {
    "name": "steering follow-up",
    "retries_allowed": True,
    "max_attempts": 4,
    "interval_seconds": 0.5,
}
_log = logging.getLogger("ostinato_dbos")
#: How many ids of a turn's series its follow-up tries (each taken by a turn that ended).
_SERIES_TRIES: Final = 20


class DbosSteering(Steering):
    """A durable turn's steering: the messages sent to it (:data:`STEER_TOPIC`) read with
    ``DBOS.recv`` at each round boundary — recorded, so a replay takes the same messages
    at the same round; :attr:`read` keeps the ids of those read."""

    __slots__ = ("read",)

    def __init__(self) -> None:
        super().__init__()
        #: The ids of the messages read so far, in order.
        self.read: list[str] = []

    async def receive(self) -> list[UserMessage]:
        """The messages sent since the previous round boundary."""
        from dbos import DBOS

        taken: list[UserMessage] = []
        while (message := await DBOS.recv_async(STEER_TOPIC, timeout_seconds=0)) is not None:
            data = json.loads(message)
            taken.append(UserMessage(str(data["text"])))
            if data.get("id") is not None:
                self.read.append(str(data["id"]))
        return taken


async def close_steering(
    steering: DbosSteering,
    request: TurnRequest,
    turn_id: str,
    answer: str | None,
    submit: Callable[[TurnRequest], str],
) -> str | None:
    """Close the steering of the turn ``turn_id`` (run from ``request``, answering
    ``answer`` or ``None``) once its loop has run: read the late messages and submit
    them as its follow-up with ``submit`` (run as a recorded step). Returns the
    follow-up's id, or ``None`` when no message came late. Called in the workflow."""
    from dbos import DBOS

    await DBOS.set_event_async(CLOSED_EVENT, "closed")
    taken = len(steering.read)
    late = await steering.receive()
    follow: str | None = None
    read = steering.read
    if late:
        texts = [m.text or "" for m in late]
        next_request = follow_up_request(
            request, texts, turn_id=turn_id, joined=steering.joined, answer=answer
        )

        async def step() -> str:
            import asyncio

            return await asyncio.to_thread(submit, next_request)

        try:
            follow = await DBOS.run_step_async(_FOLLOW_UP_STEP, step)
        except Exception as error:  # the turn keeps its answer; the senders are told
            _log.error(
                "the follow-up of the durable turn %s could not be submitted (%s: %s); "
                "its %d late steered message(s) did not run",
                turn_id,
                type(error).__name__,
                error,
                len(late),
            )
            read = read[:taken]  # a sender still waiting learns its message was not read
    ended = {"read": read, "follow_up": follow}
    await DBOS.set_event_async(ENDED_EVENT, json.dumps(ended))
    return follow


def submit_follow_up(engine: DbosEngine, request: TurnRequest) -> str:
    """Submit ``request`` (a follow-up: ``request.follows`` names its turn) as the next
    turn of its turn's series, after that turn, and return its id. Idempotent: run
    again, it finds its own turn. When another turn holds the id, the messages are
    steered into that one (it was submitted after this turn, so it reads them); an id
    held by a turn that has ended passes to the next in the series."""
    turn_id = request.follows
    if turn_id is None:
        raise ValueError("submit_follow_up() takes a follow-up request (follows is None)")
    target = follow_up_id(turn_id)
    for _ in range(_SERIES_TRIES):
        try:
            engine.submit(request, turn_id=target, after=turn_id, exclusive=True)
            return target
        except DurableTurnError as exc:
            if exc.status != "exists":
                raise
        held = _request_of(engine, target)
        if held is not None and held.follows == turn_id:
            return target  # submitted by an earlier run of this step
        try:
            send_steering(engine, target, request.user, message_id=f"{turn_id}/follow-up")
            return target
        except DurableTurnError as exc:
            if exc.status == "closing":
                raise
        target = follow_up_id(target)  # it ended without reading them: the next one
    raise DurableTurnError(
        f"the follow-up of the durable turn {turn_id!r} found {_SERIES_TRIES} ids of its "
        "series taken by turns that have ended; its late steered messages were not run",
        turn_id=turn_id,
        status="series_taken",
    )


def _request_of(engine: DbosEngine, turn_id: str) -> TurnRequest | None:
    found = engine.client.list_workflows(workflow_ids=[turn_id], load_input=True, load_output=False)
    inputs: Any = found[0].input if found else None
    if not inputs or not inputs.get("args"):
        return None
    try:
        return TurnRequest.from_json(inputs["args"][0])
    except (TypeError, ValueError):
        return None  # not a turn of ours


def send_steering(
    engine: DbosEngine, turn_id: str, text: str, *, message_id: str | None = None
) -> None:
    """Send ``text`` to the turn ``turn_id`` (see the module's docstring); ``message_id``:
    the message's id (default: a new one; the same id twice is one message).

    Raises:
        DurableTurnError: no turn has this id; the turn ended without reading the
            message (``status`` the turn's); it is closing and did not say within
            :data:`CLOSING_WAIT_SECONDS` whether it read it (``status`` ``"closing"``).
    """
    handle = engine.turn(turn_id)
    message_id = message_id or str(uuid.uuid4())
    if handle.status not in _DONE:
        payload = json.dumps({"text": text, "id": message_id}, ensure_ascii=False)
        engine.client.send(turn_id, payload, STEER_TOPIC, idempotency_key=message_id)
        if engine.client.get_event(turn_id, CLOSED_EVENT, timeout_seconds=0) is None:
            return  # the turn reads it: at a round boundary, or as it closes
    read = _read_when_closed(engine, turn_id)
    if message_id in read:
        return
    status = handle.status
    raise DurableTurnError(
        f"the durable turn {turn_id!r} has ended ({status.value}); nothing can join it — "
        "submit a new turn instead",
        turn_id=turn_id,
        status=status.value,
    )


def _read_when_closed(engine: DbosEngine, turn_id: str) -> list[str]:
    """The ids the turn read, once it has read its last messages (or ended)."""
    handle = engine.turn(turn_id)
    deadline = time.monotonic() + CLOSING_WAIT_SECONDS
    while True:
        ended_before = handle.status in _DONE
        text = engine.client.get_event(turn_id, ENDED_EVENT, timeout_seconds=0)
        if text is not None:
            return [str(i) for i in json.loads(text)["read"]]
        if ended_before:
            return []  # ended without closing (cancelled, or older than closing)
        if time.monotonic() >= deadline:
            raise DurableTurnError(
                f"the durable turn {turn_id!r} is ending and did not say within "
                f"{CLOSING_WAIT_SECONDS:.0f} s whether it read the message (its worker may "
                "have died: another one resumes it); follow the turn, and send the message "
                "again if neither it nor its follow-up took it",
                turn_id=turn_id,
                status="closing",
            )
        time.sleep(engine.poll_seconds)
