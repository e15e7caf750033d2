"""The tool loop's waits raced against the request's cancel scope.

A turn whose request carries a :class:`~ostinato.runtime.CancelScope` (under
``CANCEL_SCOPE``) runs its model rounds and tool batches under :func:`guarded`
and :func:`guarded_each`; once the scope is cancelled they give
:data:`CANCELLED` instead of a result, and the
:class:`~ostinato.advisors._tool_loop.ToolLoopTurn` ends the turn. The scope's module is
imported only here, on first use: whoever made a scope loaded it already, so a request
without one (and ``import ostinato``) imports nothing of it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from typing import TYPE_CHECKING, Final, TypeVar

from ostinato.context_keys import CANCEL_SCOPE

if TYPE_CHECKING:
    from ostinato.advisors._exchange import ChatClientRequest
    from ostinato.runtime._cancel_scope import CancelScope

__all__ = [
    "CANCELLED",
    "RoundCancelled",
    "cancel_scope_of",
    "guarded",
    "guarded_each",
]

T = TypeVar("T")


class RoundCancelled:
    """The type of :data:`CANCELLED`: what a wait guarded by the turn's cancel scope gives
    instead of its result once the scope is cancelled."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "CANCELLED"


CANCELLED: Final = RoundCancelled()
"""The turn's cancel scope was cancelled during the wait (see ``ToolLoopTurn.guard``)."""


def cancel_scope_of(request: ChatClientRequest) -> CancelScope | None:
    """The cancel scope of ``request``, if it has one (the scope's module is loaded by
    whoever made the scope, so a request without one imports nothing)."""
    scope = request.context.get(CANCEL_SCOPE)
    if scope is None:
        return None
    from ostinato.runtime._cancel_scope import CancelScope

    return scope if isinstance(scope, CancelScope) else None


async def guarded(scope: CancelScope, work: Awaitable[T]) -> T | RoundCancelled:
    """``work`` awaited, unless ``scope`` is cancelled first: then ``work`` is cancelled
    and :data:`CANCELLED` given instead."""
    from ostinato.runtime import _cancel_scope

    try:
        return await _cancel_scope.until_cancelled(scope, work)
    except _cancel_scope.TurnCancelled:
        return CANCELLED


async def guarded_each(
    scope: CancelScope, chunks: AsyncIterator[T]
) -> AsyncIterator[T | RoundCancelled]:
    """``chunks``, each awaited unless ``scope`` is cancelled first: then the pending one
    is cancelled and :data:`CANCELLED` is the last item."""
    from ostinato.runtime import _cancel_scope

    try:
        async for chunk in _cancel_scope.until_cancelled_each(scope, chunks):
            yield chunk
    except _cancel_scope.TurnCancelled:
        yield CANCELLED
