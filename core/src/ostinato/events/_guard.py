"""``GuardActed``: a guard refused or rewrote a turn's input or output.

Emitted by :class:`~ostinato.advisors.GuardAdvisor` into the run's event sink (so
listeners, ``events()`` readers and turn logs get it like the loop's own events), once
per decision that is not an allow. An input guard acts before the first model round
(``round`` 0), an output guard after the last.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ostinato.events._types import LoopEvent

__all__ = ["GuardActed"]


@dataclass(frozen=True, slots=True)
class GuardActed(LoopEvent):
    """A guard refused or rewrote what went to the model or came back.

    Attributes:
        round: the model round the turn was at (0 before the first).
        guard: the guard's name.
        stage: ``"input"`` (the user's text) or ``"output"`` (the answer's text).
        action: ``"refuse"`` or ``"rewrite"``.
        detail: the guard's reason (not named ``reason``: in the events' JSON form that
            key is ``loop_ended``'s exit reason).
    """

    kind: ClassVar[str] = "guard_acted"
    round: int
    guard: str
    stage: str
    action: str
    detail: str = ""
