"""``Guard``: an application's check of what goes to the model and what comes back.

A guard looks at the user's text before the model is called (:meth:`Guard.check_input`)
and at the answer's text after (:meth:`Guard.check_output`), and decides
(:class:`GuardDecision`): let it through (:meth:`GuardDecision.allow`), refuse it with a
reason and, optionally, the answer the user gets instead
(:meth:`GuardDecision.refuse`), or rewrite it (:meth:`GuardDecision.rewrite`: the new
text goes on in its place). Either check may be a plain or an ``async`` method; a guard
overrides the one it needs (the other allows everything). The
:class:`~ostinato.advisors.GuardAdvisor` runs guards and emits a
:class:`~ostinato.events.GuardActed` event each time one refuses or rewrites.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Final, TypeAlias

if TYPE_CHECKING:
    from ostinato.advisors._exchange import ChatClientRequest, ChatClientResponse

__all__ = ["Guard", "GuardAction", "GuardDecision", "GuardResult"]


class GuardAction(StrEnum):
    """What a guard decided."""

    ALLOW = "allow"
    """The text goes on unchanged."""
    REFUSE = "refuse"
    """The text is refused: on input the model is not called; either way the user gets
    the refusal's response."""
    REWRITE = "rewrite"
    """The text is replaced by the decision's text."""


@dataclass(frozen=True, slots=True)
class GuardDecision:
    """A guard's decision (make one with :meth:`allow`, :meth:`refuse` or :meth:`rewrite`).

    Attributes:
        action: what the guard decided.
        reason: why (shown in the :class:`~ostinato.events.GuardActed` event; empty for
            an allow).
        text: the answer a refusal gives the user (``None``: the advisor's failure
            response), or the new text of a rewrite.
    """

    action: GuardAction
    reason: str = ""
    text: str | None = None

    def __post_init__(self) -> None:
        action = GuardAction(self.action)
        object.__setattr__(self, "action", action)
        if action is GuardAction.REWRITE and not isinstance(self.text, str):
            raise TypeError(f"a rewrite needs the new text (a str), got {self.text!r}")
        if self.text is not None and not isinstance(self.text, str):
            raise TypeError(f"a guard decision's text is a str or None, got {self.text!r}")

    @classmethod
    def allow(cls) -> GuardDecision:
        """Let the text through."""
        return ALLOWED

    @classmethod
    def refuse(cls, reason: str, response: str | None = None) -> GuardDecision:
        """Refuse the text because of ``reason``; the user gets ``response`` (default:
        the guard advisor's failure response)."""
        return cls(GuardAction.REFUSE, reason, response)

    @classmethod
    def rewrite(cls, text: str, reason: str = "") -> GuardDecision:
        """Replace the text by ``text``."""
        return cls(GuardAction.REWRITE, reason, text)


#: The one allow decision.
ALLOWED: Final = GuardDecision(GuardAction.ALLOW)

#: What a check returns: a decision, or an awaitable of one (an ``async`` check).
GuardResult: TypeAlias = GuardDecision | Awaitable[GuardDecision]


class Guard:
    """Base of an application's guard: override :meth:`check_input`, :meth:`check_output`
    or both (plain or ``async`` methods).

    Attributes:
        name: the guard's name in its events (default: its class name).
    """

    @property
    def name(self) -> str:
        """The guard's name in its events."""
        return type(self).__name__

    def check_input(self, text: str, request: ChatClientRequest) -> GuardResult:
        """Decide on the user's text (the last user message) before the model is called;
        ``request`` is the whole request. Default: allow."""
        return ALLOWED

    def check_output(self, text: str, response: ChatClientResponse) -> GuardResult:
        """Decide on the answer's text once it is complete; ``response`` is the whole
        response (on the stream path, the last chunk). Default: allow."""
        return ALLOWED

    def checks_output(self) -> bool:
        """Whether this guard checks output (it overrides :meth:`check_output`): the
        advisor holds a stream back until it is complete only for such guards."""
        return type(self).check_output is not Guard.check_output
