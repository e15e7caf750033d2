"""What the ``ostinato worker`` and ``ostinato approve`` commands need of a durable engine:
:class:`DurableWorker` and :class:`EngineOperations`, engine-neutral."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from ostinato.durable._turns import TurnHandle

__all__ = ["DurableWorker", "EngineOperations"]


@runtime_checkable
class DurableWorker(Protocol):
    """A worker of a durable engine: it takes queued turns and runs them.

    Attributes:
        executor_id: the id it runs under (known once started).
        queue: the queue it takes turns from.
    """

    executor_id: str

    @property
    def queue(self) -> str:
        """The queue it takes turns from."""
        ...

    def start(self) -> None:
        """Start taking turns; return once it does.

        Raises:
            ConfigurationError: it cannot run turns (no usable model...).
        """
        ...

    def stop(self, grace_seconds: float | None = None) -> Sequence[str]:
        """Stop taking turns, finish those in flight within ``grace_seconds`` (default:
        the engine's setting), and return the ids of those handed back to the queue."""
        ...


@runtime_checkable
class EngineOperations(Protocol):
    """The operations of a :class:`~ostinato.durable.DurableEngine` the ``ostinato``
    commands use: run a worker, and find turns by the start of their id."""

    def worker(
        self,
        *,
        concurrency: int | None = None,
        executor_id: str | None = None,
        poll_seconds: float = 1.0,
    ) -> DurableWorker:
        """A worker (not started) with these options over the engine's settings.

        Args:
            concurrency: turns it runs at once (default: the engine's setting).
            executor_id: its id (default: the engine's choice).
            poll_seconds: how often it looks for queued turns (and decisions).
        """
        ...

    def turn_ids(self, prefix: str) -> Sequence[str]:
        """The ids of the durable turns starting with ``prefix``, oldest first."""
        ...

    def waiting(self) -> Sequence[str]:
        """The ids of the turns waiting for decisions."""
        ...

    def turn(self, turn_id: str) -> TurnHandle:
        """The handle of the turn ``turn_id``."""
        ...

    def close(self) -> None:
        """Release what the engine holds (connections)."""
        ...
