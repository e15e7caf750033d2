"""A durable turn's follow-up: the turn that runs the messages steered to it too late.

A message steered to a running turn joins it at its next round boundary. One that comes
after the turn's last boundary — while it gives its final answer, at its iteration cap,
after a limit's last round, after an error — cannot join it any more. As in process, it
runs as a turn of its own after this one: the turn's *follow-up*. An engine's turn reads
those messages once its loop has run and submits the follow-up itself, so a message its
sender was told was steered is never lost, even once that sender is gone.

The follow-up's id continues the turn's series (:func:`follow_up_id`): an id ending in
``:<n>`` (as ``ostinato serve`` numbers a conversation's turns,
``turn:<conversation>:<n>``) is followed by ``:<n+1>``, any other id ``<id>`` by
``<id>:1``. The follow-up is submitted after the turn (it runs once the turn has ended)
and takes the turn's conversation, tools and settings (:func:`follow_up_request`). This
module holds the naming and the request only; each engine submits.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ostinato.durable._turns import TurnRequest
    from ostinato.messages import Message

__all__ = ["follow_up_id", "follow_up_request"]


def follow_up_id(turn_id: str) -> str:
    """The id of the turn that follows ``turn_id`` in its series: ``"turn:c:3"`` gives
    ``"turn:c:4"``, ``"a1b2"`` gives ``"a1b2:1"``."""
    head, sep, tail = turn_id.rpartition(":")
    if sep and head and tail.isdigit() and tail.isascii():
        return f"{head}:{int(tail) + 1}"
    return f"{turn_id}:1"


def follow_up_request(
    request: TurnRequest,
    texts: Sequence[str],
    *,
    turn_id: str,
    joined: Sequence[Message] = (),
    answer: str | None = None,
) -> TurnRequest:
    """The follow-up of the turn ``turn_id`` (run from ``request``) for the messages
    ``texts`` that came too late for it: one user message (the texts, in order, a blank
    line apart), the same system message, conversation, tools and memory setting, and
    ``follows`` naming the turn.

    A turn that carries its own history (``request.history``: the caller holds the
    conversation, not memory) passes it on extended by what the turn added: its user
    message, the messages that joined it (``joined``), and its ``answer`` when it
    answered.

    Raises:
        ValueError: ``texts`` is empty.
    """
    if not texts:
        raise ValueError("a follow-up needs at least one message that came too late")
    history = request.history
    if history:
        from ostinato.messages import AssistantMessage, UserMessage

        added: list[Message] = [UserMessage(request.user), *joined]
        if answer is not None:
            added.append(AssistantMessage(answer))
        history = (*history, *added)
    return dataclasses.replace(request, user="\n\n".join(texts), history=history, follows=turn_id)
