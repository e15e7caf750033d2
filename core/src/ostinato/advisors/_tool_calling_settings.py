"""``ToolCallingAdvisorSettings``: what a :class:`~ostinato.advisors.ToolCallingAdvisor` is
configured with, as one frozen value checked when it is made.

``ToolCallingAdvisor.copy(**changes)`` is ``replace`` on these settings; this module must
not know the loop itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Self

from ostinato.advisors._api import Ordered
from ostinato.advisors._no_progress import NoProgressAction, no_progress_action
from ostinato.advisors._usage_limits import UsageLimits
from ostinato.model import ChatResponse
from ostinato.tools import ToolCallingManager

__all__ = [
    "ToolCallingAdvisorSettings",
    "ToolExecutionEligibilityChecker",
    "default_eligibility_checker",
]

ToolExecutionEligibilityChecker = Callable[[ChatResponse], bool]
"""Decides whether a model response is a tool round (its tools get executed)."""


def default_eligibility_checker(response: ChatResponse) -> bool:
    """A response is a tool round when it asks for at least one tool call."""
    return response is not None and response.has_tool_calls()


@dataclass(frozen=True, slots=True)
class ToolCallingAdvisorSettings:
    """The settings of a :class:`~ostinato.advisors.ToolCallingAdvisor`, checked on creation.

    Attributes:
        tool_calling_manager: executes tool calls.
        tool_execution_eligibility_checker: decides which responses are tool rounds.
        advisor_order: position in the chain, strictly between the precedence bounds.
        conversation_history_enabled: forward the whole turn each round; when ``False``
            only ``[system message, last tool response]``.
        max_iterations: the most model rounds one turn may take (at least 1).
        final_answer_on_limit: at the iteration cap, a tool-call limit breach, a usage
            limit reached (unless it raises) or a turn ended for no progress, ask the model
            once more, without tools, to answer with what it has (instead of ending with
            a text saying which limit stopped it); the turn still ends with that limit's
            reason. Default ``False``: the turn ends with that text.
        no_progress_repeats: the same tool with the same arguments asked for this many
            rounds in a row is no progress (at least 2). Default ``None``: detection is
            off and every call the model asks for runs (a polling tool asked for the same
            status again gets a fresh answer).
        no_progress_action: what happens on no progress, once detection is on:
            ``"tell"`` the model the earlier result instead of running the call again
            (default), or ``"end"`` the turn.
        usage_limits: what one turn may spend (model requests, tokens, tool calls;
            default ``None``: no limit). A request's limits win over these.

    Raises:
        ValueError: a setting is ``None`` or out of range (the message names it).
    """

    tool_calling_manager: ToolCallingManager
    tool_execution_eligibility_checker: ToolExecutionEligibilityChecker = (
        default_eligibility_checker
    )
    advisor_order: int = Ordered.HIGHEST_PRECEDENCE + 300
    conversation_history_enabled: bool = True
    max_iterations: int = 25
    final_answer_on_limit: bool = False
    no_progress_repeats: int | None = None
    no_progress_action: NoProgressAction = NoProgressAction.TELL
    usage_limits: UsageLimits | None = None

    def __post_init__(self) -> None:
        if self.tool_calling_manager is None:
            raise ValueError("tool_calling_manager must not be None")
        if self.tool_execution_eligibility_checker is None:
            raise ValueError("tool_execution_eligibility_checker must not be None")
        order = self.advisor_order
        if (
            isinstance(order, bool)
            or not isinstance(order, int)
            or not (Ordered.HIGHEST_PRECEDENCE < order < Ordered.LOWEST_PRECEDENCE)
        ):
            raise ValueError(
                "advisor_order must be between HIGHEST_PRECEDENCE and LOWEST_PRECEDENCE "
                f"(exclusive), got {order}"
            )
        rounds = self.max_iterations
        if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
            raise ValueError(f"max_iterations must be a positive int, got {rounds!r}")
        object.__setattr__(
            self, "conversation_history_enabled", bool(self.conversation_history_enabled)
        )
        object.__setattr__(self, "final_answer_on_limit", bool(self.final_answer_on_limit))
        repeats = self.no_progress_repeats
        if repeats is not None and (
            isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 2
        ):
            raise ValueError(
                f"no_progress_repeats must be an int of at least 2, or None to turn "
                f"no-progress detection off; got {repeats!r}"
            )
        object.__setattr__(self, "no_progress_action", no_progress_action(self.no_progress_action))
        if self.usage_limits is not None and not isinstance(self.usage_limits, UsageLimits):
            raise ValueError(
                f"usage_limits must be a UsageLimits or None, got "
                f"{type(self.usage_limits).__name__}"
            )

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The setting names, in declaration order."""
        return tuple(f.name for f in dataclasses.fields(cls))

    def replace(self, **changes: Any) -> Self:
        """These settings with ``changes`` applied (checked again).

        Raises:
            TypeError: a name in ``changes`` is not a setting (the message lists them).
        """
        unknown = sorted(set(changes) - set(self.names()))
        if unknown:
            raise TypeError(
                f"{type(self).__name__} has no setting(s) {', '.join(unknown)}; "
                f"known: {', '.join(self.names())}"
            )
        return dataclasses.replace(self, **changes)

    def as_dict(self) -> dict[str, Any]:
        """The settings by name (shallow: the values themselves)."""
        return {name: getattr(self, name) for name in self.names()}
