"""A clock and a sleep that never wait, for retry tests."""

from __future__ import annotations

__all__ = ["FakeTime"]


class FakeTime:
    """Sleeping only moves the clock forward and records the wait."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        """The current fake time."""
        return self.now

    async def sleep(self, seconds: float) -> None:
        """Record the wait and move the clock."""
        self.sleeps.append(seconds)
        self.now += seconds
