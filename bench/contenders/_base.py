"""What every contender implements, and the two tools they all expose."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from typing import ClassVar

from bench.scenario import Scenario

__all__ = ["Contender", "add", "nap"]


async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def nap(ms: int) -> int:
    """Sleep for ``ms`` milliseconds, then return ``ms``."""
    await asyncio.sleep(ms / 1000)
    return ms


def add_sync(a: int, b: int) -> int:
    """Add two integers (a plain function: frameworks run it on a thread pool)."""
    return a + b


class Contender(ABC):
    """One way of driving the benchmark conversation against the fake server.

    The mode names are ``async`` (one awaited call), ``stream`` (streamed, text
    collected), ``sync`` (blocking) and ``async-sync-tool`` (async, with ``add`` written as
    a plain function). ``async`` is required; the others are optional.
    """

    #: The name the runner and the report use.
    name: ClassVar[str]
    #: The modes :meth:`converse` accepts besides ``async``.
    modes: ClassVar[frozenset[str]] = frozenset({"async"})
    #: Whether conversations may start from earlier history (``history > 0``).
    supports_history: ClassVar[bool] = False

    @abstractmethod
    async def setup(self, base_url: str) -> None:
        """Build clients for the server at ``base_url`` (``http://host:port/v1``)."""

    @abstractmethod
    async def converse(self, scenario: Scenario, mode: str, history: int) -> str:
        """Run one whole conversation and return the final answer's text."""

    def converse_sync(self, scenario: Scenario, history: int) -> str:
        """The ``sync`` mode: run one conversation from a thread with no event loop."""
        raise NotImplementedError(f"{self.name} has no sync mode")

    async def aclose(self) -> None:  # noqa: B027 - optional hook, nothing to close by default
        """Release connections."""

    @staticmethod
    def version() -> str:
        """The version of the framework under test."""
        return ""
