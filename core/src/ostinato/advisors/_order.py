"""Where the tool loop sits among advisors: the one check of the "at most one tool advisor"
rule, and the one answer to "which advisors run inside the loop".

Everything that asks either question (the client when it builds a chain, chain
renderings, memory advisors deciding how to store) asks it here, so the answer is the
same everywhere. This module must not sort chains for running them: ``AdvisorChain``
does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ostinato.advisors._api import Advisor, ToolAdvisor
from ostinato.errors import AdvisorChainError

__all__ = ["advisors_inside_tool_loop", "check_tool_advisors", "in_execution_order"]


def in_execution_order(advisors: Iterable[Advisor]) -> tuple[Advisor, ...]:
    """``advisors`` as a chain runs them: by order, equal orders in the given order."""
    return tuple(sorted(advisors, key=lambda a: a.order))  # sorted() is stable


def check_tool_advisors(advisors: Iterable[Advisor]) -> ToolAdvisor | None:
    """The one :class:`~ostinato.advisors.ToolAdvisor` among ``advisors``, or ``None``.

    Raises:
        AdvisorChainError: there are two or more (the message names each with its order).
    """
    found = [a for a in advisors if isinstance(a, ToolAdvisor)]
    if len(found) > 1:
        listed = ", ".join(f"{a.name} (order={a.order})" for a in found)
        raise AdvisorChainError(
            f"At most one ToolAdvisor is allowed in the advisor chain, but found "
            f"{len(found)}: [{listed}]. Remove all but one, or pass "
            "AdvisorParams.tool_calling_advisor_auto_register(False) if you add your own."
        )
    return found[0] if found else None


def advisors_inside_tool_loop(advisors: Sequence[Advisor]) -> tuple[Advisor, ...]:
    """The advisors that run inside the tool loop (once per model round): those after the
    tool advisor in execution order, ``advisors`` being in registration order.

    Empty when there is no tool advisor.
    """
    ordered = in_execution_order(advisors)
    for i, advisor in enumerate(ordered):
        if isinstance(advisor, ToolAdvisor):
            return ordered[i + 1 :]
    return ()
