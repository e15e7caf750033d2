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
    ``deadline`` (a ``TimeoutError`` from inside ``step`` itself passes through)."""
    scope = asyncio.timeout_at(deadline)
    try:
        async with scope:
            return await step
    except TimeoutError:
        if not scope.expired():
            raise
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
