"""Bounds on a whole reply, which httpx's per-read timeouts do not give.

A server sending a byte every few seconds keeps every read alive: without these a call
could last for ever. :func:`within` runs one step under an absolute deadline (on the
running event loop's clock, in the same task: no extra task, nothing left behind);
:func:`bound_hit` is the error saying which bound was hit and which variable raises it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from ostinato.errors import ConfigurationError, ModelTimeoutError

__all__ = ["bound_hit", "check_bound", "within"]

T = TypeVar("T")


def check_bound(value: float | None, name: str) -> float | None:
    """``value`` as seconds (``None``: no bound).

    Raises:
        ConfigurationError: not a number above 0.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ConfigurationError(
            f"{name} must be a number of seconds above 0 (or None for no bound), got {value!r}"
        )
    return float(value)


async def within(deadline: float, step: Awaitable[T], expired: Callable[[], Exception]) -> T:
    """The result of ``step``, or ``expired()`` raised once the loop's clock passes
    ``deadline`` (a ``TimeoutError`` from inside ``step`` itself passes through).

    What ``asyncio.timeout_at`` does, with one timer and no context manager: this runs
    once or more per model call, and the context manager's own work cost about as much
    as the timer.

    Raises:
        RuntimeError: not called inside a task.
    """
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    if task is None:
        raise RuntimeError("within() must run inside an asyncio task")
    cancelling = task.cancelling()
    fired = False

    def fire() -> None:
        nonlocal fired
        fired = True
        task.cancel()

    timer = loop.call_at(deadline, fire)
    try:
        result = await step
    except BaseException as error:
        timer.cancel()
        if not fired:
            raise
        # Our cancellation ends here; a TimeoutError raised as the step was stopped is
        # the deadline too. Another cancellation requested meanwhile goes on.
        ours = task.uncancel() <= cancelling and isinstance(error, asyncio.CancelledError)
        if not ours and not isinstance(error, TimeoutError):
            raise
    else:
        timer.cancel()
        if fired:  # the step finished regardless (it swallowed the cancellation)
            task.uncancel()
        return result
    raise expired() from None


def bound_hit(
    *, provider: str, url: str, setting: str, seconds: float, what: str, env_prefix: str
) -> ModelTimeoutError:
    """The error of a bound that was hit: what did not happen in time, the bound, and the
    variable (``<env_prefix><SETTING>``) or argument to raise."""
    return ModelTimeoutError(
        f"{provider}: {what} from {url} within {setting}={seconds:g} s (retries included)\n"
        f"fix: raise {env_prefix}{setting.upper()} (or the model's {setting} argument) if "
        "the server is this slow",
        provider=provider,
    )
