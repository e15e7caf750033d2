"""What the loop does with effect classes: :class:`EffectPolicy`, approvals by class,
the order of a batch, and retries.

A tool declares its :class:`~ostinato.tools.ToolEffect` (``@tool(effect=...)``, any
callback's ``tool_metadata.effect``, an MCP server's annotations). The default tool
calling manager runs a batch by its :class:`EffectPolicy`:

* *order*: when a batch holds a side-effecting or destructive call, the other calls
  (read-only, idempotent, undeclared) run first, together as before (cut at
  ``sequential`` calls); then the calls with effects run one at a time, in the order the
  model wrote them. Reads of a batch see the world as it was when the model asked (the
  model asked for them together, so none of them can have meant to see a write of the
  same batch), and two writes never race. After a call with effects failed, the later
  ones of the batch are not run (``stop_after_failure``): the model reads why, and
  decides again with the failure in view.
* *retries*: a retryable failure (:attr:`ToolError.retryable
  <ostinato.errors.ToolError.retryable>`) of a read-only or idempotent call is retried
  up to ``retries`` times, ``retry_delay`` seconds apart, doubling; inside a durable
  recorder, so a call and its tries are one recorded unit.
* *approvals*: the calls of the tools whose effect is in ``approve`` wait for a
  decision, as if the tools said ``requires_approval``.
* *early start*: with ``eager_start``, a read-only call whose arguments are complete
  starts while its round still streams (see :mod:`ostinato.tools._eager`).

A batch with no declared effect runs as before: none of this applies to it.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from ostinato._tool_contract import ToolCallback, ToolEffect
from ostinato.errors import ConfigurationError, ToolError
from ostinato.messages import ToolCall
from ostinato.units._stack import UnitOrder, UnitWrapper
from ostinato.units._unit import Unit, UnitKind

if TYPE_CHECKING:
    from ostinato.tools._approval import ApprovalPolicy
    from ostinato.units._tool_unit import ToolInvocation

__all__ = [
    "EFFECTFUL",
    "TOOL_RETRY",
    "EffectPolicy",
    "approve_effects",
    "effect_of",
    "ordered_groups",
    "skipped_text",
]

#: The effects whose calls run in order, after the rest of their batch.
EFFECTFUL: Final = frozenset({ToolEffect.SIDE_EFFECTING, ToolEffect.DESTRUCTIVE})


def _effects(values: Iterable[ToolEffect | str], where: str) -> frozenset[ToolEffect]:
    try:
        return frozenset(ToolEffect(v) for v in values)
    except ValueError as e:
        raise ConfigurationError(
            f"{where}: {e}; expected effect names among {', '.join(ToolEffect)}"
        ) from None


@dataclass(frozen=True, slots=True)
class EffectPolicy:
    """What the tool loop does with the effect classes of the tools it runs (see the
    module's docstring; every rule acts only on tools that declare an effect).

    Attributes:
        order_effects: run the calls with effects after the rest of their batch, one at
            a time in the model's order (``False``: every call as if undeclared).
        stop_after_failure: once a call with effects failed, answer the later ones of
            the batch without running them.
        retries: tries after the first for a retryable failure of a read-only or
            idempotent call (0: none).
        retry_delay: seconds before the first retry (doubling after each).
        approve: the effects whose calls wait for an approval decision (e.g.
            ``{"destructive"}``).
        eager_start: start read-only calls whose arguments are complete while their
            round still streams (off by default; never in a durable turn).

    Raises:
        ConfigurationError: a value is out of range or names no effect.
    """

    order_effects: bool = True
    stop_after_failure: bool = True
    retries: int = 2
    retry_delay: float = 0.1
    approve: frozenset[ToolEffect] = frozenset()
    eager_start: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.retries, bool) or not isinstance(self.retries, int) or self.retries < 0:
            raise ConfigurationError(
                f"EffectPolicy(retries=...) must be 0 or more tries, got {self.retries!r}"
            )
        delay = self.retry_delay
        if (
            isinstance(delay, bool)
            or not isinstance(delay, int | float)
            or not math.isfinite(delay)
            or delay < 0
        ):
            raise ConfigurationError(
                f"EffectPolicy(retry_delay=...) must be 0 or more seconds, got {delay!r}"
            )
        approve: Any = self.approve
        if isinstance(approve, str):
            approve = (approve,)
        object.__setattr__(self, "approve", _effects(approve, "EffectPolicy(approve=...)"))

    def retries_for(self, effect: ToolEffect | None) -> EffectPolicy | None:
        """This policy, when a call of ``effect`` is retried; else ``None``."""
        if self.retries and effect is not None and effect.repeatable:
            return self
        return None


def effect_of(tool: ToolCallback | None) -> ToolEffect | None:
    """The effect ``tool`` declares (``None``: undeclared, or no tool)."""
    if tool is None:
        return None
    effect = getattr(tool.tool_metadata, "effect", None)
    return effect if isinstance(effect, ToolEffect) else None


def approve_effects(*effects: ToolEffect | str) -> ApprovalPolicy:
    """An approval policy: a call waits for a decision when its tool's effect is one of
    ``effects``, or when the tool itself requires approval (``approval_policy(
    approve_effects("destructive"))`` on a request; ``EffectPolicy(approve=...)`` or
    ``OSTINATO_TOOLS__APPROVE_EFFECTS`` for every request)."""
    wanted = _effects(effects, "approve_effects(...)")

    def policy(call: ToolCall, tool: ToolCallback | None, /) -> bool:
        if tool is None:
            return False
        return effect_of(tool) in wanted or bool(tool.tool_metadata.requires_approval)

    return policy


def ordered_groups(
    jobs: Sequence[ToolInvocation], groups_of: Callable[[Sequence[ToolInvocation]], list[Any]]
) -> tuple[list[list[ToolInvocation]], int]:
    """The groups a batch runs in under the ordering rule: the calls without effects
    (cut by ``groups_of``), then each call with effects alone, in call order; and how
    many groups come before the first call with effects."""
    free = [job for job in jobs if job.effect not in EFFECTFUL]
    groups: list[list[ToolInvocation]] = groups_of(free)
    first = len(groups)
    groups.extend([job] for job in jobs if job.effect in EFFECTFUL)
    return groups, first


def skipped_text(call: ToolCall, failed: ToolCall) -> str:
    """What the model reads for a call with effects not run after ``failed`` failed."""
    return (
        f"Tool call '{call.name}' was not run: the call '{failed.name}' ({failed.id}) before "
        "it in this batch failed, and calls with effects run only after the ones before "
        "them succeeded. Ask for it again if it should still run."
    )


_Next = Callable[[Unit[Any]], Awaitable[Any]]


async def _retried(unit: ToolInvocation, next: _Next) -> str | ToolError:
    policy: EffectPolicy | None = unit.retry
    outcome: str | ToolError = await next(unit)
    if policy is None:
        return outcome
    import asyncio  # loaded by then: the tool loop runs on it

    delay = policy.retry_delay
    for _ in range(policy.retries):
        if not isinstance(outcome, ToolError) or not outcome.retryable:
            return outcome
        await asyncio.sleep(delay)
        delay *= 2
        outcome = await next(unit)
    return outcome


#: Retries a read-only or idempotent call's retryable failures (see the module).
TOOL_RETRY: Final = UnitWrapper(
    "tool-retry", UnitOrder.TOOL_RETRY, frozenset({UnitKind.TOOL_CALL}), _retried, acts_on="retry"
)
