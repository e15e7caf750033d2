"""Which exceptions raised by a tool are its own failure, and which must end the turn.

asyncio and ``concurrent.futures`` give some exception types a meaning of their own, so
"the tool raised X" cannot always be told by the type alone:

* ``asyncio.CancelledError`` is how a turn is cancelled (and how a tool's timeout stops
  it). One raised while the running task has no cancellation pending
  (``task.cancelling() == 0``) was raised by the tool itself: it is a failure.
* ``GeneratorExit`` is thrown into a coroutine that is being closed, from outside any
  step of its task. One raised while the tool's own task is running was raised by the
  tool: it is a failure.
* ``StopIteration`` cannot leave a coroutine: Python puts a ``RuntimeError`` in its place.
  The failure reported is the ``StopIteration`` (its type and message).
* ``KeyboardInterrupt``, ``SystemExit`` and other ``BaseException``\\ s that are not
  ``Exception``\\ s are never a tool failure: they end the turn and reach the caller, as
  they would from any other code.

Every ``Exception`` (``StopAsyncIteration``, ``concurrent.futures.CancelledError``, a
``TimeoutError`` the tool raised itself...) is a failure like any other. This module must
not import ``asyncio`` at import time (``import ostinato`` does not pay for it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

__all__ = ["current_task", "describe_exception", "tool_failure"]

# What Python says when it replaces a StopIteration leaving a coroutine or generator.
_PEP_479_MESSAGES = frozenset(
    {
        "coroutine raised StopIteration",
        "generator raised StopIteration",
        "async generator raised StopIteration",
    }
)


def current_task() -> asyncio.Task[Any] | None:
    """The task running now, or ``None`` outside a running event loop."""
    import asyncio

    try:
        return asyncio.current_task()
    except RuntimeError:  # no running event loop (a coroutine closed by the collector)
        return None


def tool_failure(error: BaseException, task: asyncio.Task[Any] | None) -> BaseException | None:
    """The failure to report for ``error`` raised by a tool running in ``task``.

    Returns ``None`` when ``error`` is not the tool's failure and must propagate: a
    cancellation of the task, ``KeyboardInterrupt``, ``SystemExit``, a ``GeneratorExit``
    thrown in from outside. ``task`` is the task that was running when the tool started.
    """
    import asyncio

    if isinstance(error, Exception):
        cause = error.__cause__
        if (
            type(error) is RuntimeError
            and isinstance(cause, StopIteration)
            and str(error) in _PEP_479_MESSAGES
        ):
            return cause
        return error
    if isinstance(error, asyncio.CancelledError):
        running = current_task()
        return error if running is not None and running.cancelling() == 0 else None
    if isinstance(error, GeneratorExit):
        return error if task is not None and current_task() is task else None
    return None


def describe_exception(error: BaseException) -> str:
    """``"ValueError: boom"``, or just ``"ValueError"`` when the message is blank."""
    text = str(error)
    return f"{type(error).__name__}: {text}" if text.strip() else type(error).__name__
