"""Crash safety of calls with effects in a durable turn: never a silent second run.

A durable engine re-runs, after a crash, the unit that was in flight (at least once).
That is right for a read-only or idempotent call, and for an undeclared one (as before
effect classes existed); for a side-effecting or destructive call it may do the effect
twice. So an engine's recorder runs such a call through :func:`run_guarded`:

1. a recorded step marks the call *in doubt* before it starts (``in_doubt <tool>``);
2. the call runs as a second recorded step (``tool_call <tool>``), its outcome recorded.

Replayed after a crash, a mark recorded by an earlier run whose call step has no record
means the call was in flight (or about to start) when the worker died: whether it took
effect is unknown. The call step then records that it is in doubt instead of running,
a :class:`~ostinato.events.ToolInDoubt` event is emitted, and the tool's rule
(:meth:`ToolMetadata.in_doubt_rule <ostinato.tools.ToolMetadata.in_doubt_rule>`)
resolves it (:func:`resolve_in_doubt`):

* ``reconcile``: a recorded step asks the tool's hook whether the effect happened for
  the call's idempotency key; the text it returns is the call's outcome, ``None`` runs
  the call (a new attempt, marked again); a hook that raises fails the turn;
* ``approve``: the engine asks for a decision (durably, as for an approval): approved,
  the call runs again (a new attempt, marked again); denied, the model reads that it was
  not run again;
* ``fail``: the turn fails with :class:`~ostinato.errors.ToolInDoubtError`.

Engine-neutral: an engine supplies :class:`RecordedSteps` (a step that is recorded, and
says whether it ran now or was read back; a durable wait for a decision). An engine
whose history tells by itself that a call was started and not finished (an activity
started with no automatic retry that timed out) calls :func:`resolve_in_doubt` directly.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final, Protocol

from ostinato._tool_contract import InDoubtRule, ToolEffect
from ostinato.errors import ToolError, ToolInDoubtError

if TYPE_CHECKING:
    from ostinato.units._tool_unit import ToolInvocation

__all__ = [
    "GUARDED_EFFECTS",
    "RecordedSteps",
    "ask_reconcile_hook",
    "in_doubt_rule",
    "resolve_in_doubt",
    "run_guarded",
    "unit_key",
]

#: The effects whose calls are guarded.
GUARDED_EFFECTS: Final = frozenset({ToolEffect.SIDE_EFFECTING, ToolEffect.DESTRUCTIVE})

_IN_DOUBT: Final = {"in_doubt": True}


class RecordedSteps(Protocol):
    """What an engine gives the guard, for one tool call of a durable turn."""

    async def step(self, name: str, body: Callable[[], Awaitable[Any]]) -> tuple[Any, bool]:
        """Run ``body`` as a recorded step named ``name``, its JSON result recorded:
        ``(result, True)`` when it ran now, ``(recorded result, False)`` when it was
        read back from an earlier run (``body`` did not run)."""
        ...

    async def ask(self, unit: ToolInvocation, key: str | None) -> bool | str:
        """Wait (durably) for a decision on the in-doubt call ``unit``: ``True`` to run
        it again, else the reason it was denied."""
        ...


def in_doubt_rule(unit: ToolInvocation) -> InDoubtRule | None:
    """The rule resolving ``unit`` if a crash leaves it in doubt (``None``: the call
    may simply run again — read-only, idempotent, undeclared)."""
    if unit.effect not in GUARDED_EFFECTS:
        return None
    rule: InDoubtRule | None = unit.callback.tool_metadata.in_doubt_rule()
    return rule


def unit_key(unit: ToolInvocation) -> str | None:
    """The idempotency key the tool sees while ``unit`` runs (``"<turn>/<sequence>"``)."""
    turn = unit.turn
    if turn is None or turn.turn_id is None:
        return None
    return f"{turn.turn_id}/{unit.sequence}"


async def run_guarded(
    unit: ToolInvocation,
    next: Callable[[ToolInvocation], Awaitable[str | ToolError]],
    steps: RecordedSteps,
    rule: InDoubtRule,
) -> str | ToolError:
    """Run ``unit`` (``next``: the rest of the stack) guarded as the module says."""
    attempt = 0
    while True:
        suffix = f" #{attempt}" if attempt else ""
        _, marked_now = await steps.step(f"in_doubt {unit.name}{suffix}", _mark)
        body = _body(unit, next, marked_now)
        recorded, _ = await steps.step(f"tool_call {unit.name}{suffix}", body)
        if recorded != _IN_DOUBT:
            return unit.decode(recorded["outcome"])
        resolved = await resolve_in_doubt(unit, rule, steps, attempt)
        if resolved is not None:
            return resolved
        attempt += 1  # the call runs again, marked again


def _body(
    unit: ToolInvocation,
    next: Callable[[ToolInvocation], Awaitable[str | ToolError]],
    marked_now: bool,
) -> Callable[[], Awaitable[Any]]:
    async def body() -> Any:
        if not marked_now:  # marked by a run that died before recording the call
            return _IN_DOUBT
        return {"outcome": unit.encode(await next(unit))}

    return body


async def _mark() -> str:
    return "started"


async def resolve_in_doubt(
    unit: ToolInvocation, rule: InDoubtRule, steps: RecordedSteps, attempt: int = 0
) -> str | None:
    """Tell the in-doubt call ``unit`` and resolve it by ``rule``: the text the model
    reads for it, or ``None`` when it is to run again.

    Raises:
        ToolInDoubtError: the rule is ``fail``, or the reconcile hook raised.
    """
    key = unit_key(unit)
    await _tell(unit, rule, key)
    call = unit.call
    if rule is InDoubtRule.FAIL:
        raise ToolInDoubtError(
            f"the call {call.id!r} to the {unit.effect} tool '{call.name}' was in flight when "
            f"its worker stopped, and whether it took effect is unknown (idempotency key "
            f"{key}); its rule is 'fail', so the turn fails rather than run it again\n"
            "fix: check whether the effect happened, then start a new turn; or give the tool "
            "a reconcile hook (@tool(reconcile=...)) or the rule 'approve'",
            tool_name=call.name,
            call_id=call.id,
            key=key,
        )
    if rule is InDoubtRule.RECONCILE:
        suffix = f" #{attempt}" if attempt else ""
        found, _ = await steps.step(
            f"reconcile {unit.name}{suffix}", lambda: ask_reconcile_hook(unit)
        )
        if "error" in found:
            raise ToolInDoubtError(
                f"the call {call.id!r} to tool '{call.name}' was in flight when its worker "
                f"stopped, and its reconcile hook could not tell whether it took effect "
                f"(idempotency key {key}): {found['error']}\n"
                "fix: make the hook answer (the result text, or None when the effect did not "
                "happen), check the effect by hand, then start a new turn",
                tool_name=call.name,
                call_id=call.id,
                key=key,
            )
        text: str | None = found["text"]
        return text
    decision = await steps.ask(unit, key)
    if decision is True:
        return None
    return (
        f"Tool call '{call.name}' was not run again: it was in flight when its worker "
        f"stopped, whether it took effect is unknown, and running it again was denied "
        f"({decision})."
    )


async def ask_reconcile_hook(unit: ToolInvocation) -> dict[str, Any]:
    """Ask the tool's reconcile hook whether the in-doubt call ``unit`` took effect:
    ``{"text": <its result, or None when the effect did not happen>}``, or
    ``{"error": <why it could not tell>}`` (no hook, or the hook raised). This is the
    body of the recorded ``reconcile`` step (an engine that records it elsewhere, as an
    activity, calls it there)."""
    hook = unit.callback.tool_metadata.reconcile
    if hook is None:
        return {"error": "the tool's metadata has no reconcile hook"}
    try:
        answer = hook(unit.arguments, unit_key(unit) or "")
        if inspect.isawaitable(answer):
            answer = await answer
    except Exception as error:
        return {"error": f"{type(error).__name__}: {error}"}
    return {"text": None if answer is None else str(answer)}


async def _tell(unit: ToolInvocation, rule: InDoubtRule, key: str | None) -> None:
    from ostinato.events import current_event_sink

    sink = current_event_sink()
    if sink is None:
        return
    from ostinato.events import ToolInDoubt

    effect = "" if unit.effect is None else unit.effect.value
    await sink.emit(ToolInDoubt(sink.round, unit.call, effect, rule.value, key))
