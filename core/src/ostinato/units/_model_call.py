"""A model call made outside the tool loop as a unit: :func:`call_model`.

The tool loop's own model rounds are units already. Code that asks a model for something
else within a turn — a memory advisor's summary, a guard that asks a classifier model —
calls :func:`call_model` instead of ``model.call(prompt)``: with no wrapper of the kind
it is exactly that call; otherwise it is a :class:`~ostinato.units.UnitKind.MODEL_CALL`
unit of the stack (in a durable turn it is recorded, so a replayed turn gets the answer
the first run got instead of asking again). Without ``units``, the stack the tool loop or
:func:`~ostinato.units.using_unit_stack` made current is used, if any.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ostinato.units._memory import _stack_of

if TYPE_CHECKING:
    from ostinato.model import ChatModel, ChatResponse
    from ostinato.prompt import Prompt
    from ostinato.units._stack import UnitStack
    from ostinato.units._unit import TurnScope

__all__ = ["call_model"]


async def call_model(
    model: ChatModel,
    prompt: Prompt,
    *,
    units: UnitStack | None = None,
    turn: TurnScope | None = None,
) -> ChatResponse:
    """``model.call(prompt)``, as a :attr:`~ostinato.units.UnitKind.MODEL_CALL` unit of
    ``units`` (``turn``: the caller's turn scope)."""
    stack, scope = _stack_of(units, turn)
    if stack is None or not stack.model_call:
        return await model.call(prompt)
    from ostinato.units._values import ModelCall

    response: ChatResponse = await stack.run(ModelCall(prompt, model, scope))
    return response
