"""A worker process: polls the task queue, runs turn workflows (the chain, in Temporal's
sandbox), unit activities (model rounds, tool calls, memory) and follow-up submissions,
on one auto-configured client built from the worker's environment; and polls the queue of
waits (``<task queue>.waits``: turns submitted ``after`` another, waiting for it), apart,
so that waiting turns never take the slots of the units they wait for.

:class:`Worker` is what ``ostinato worker --engine temporal`` runs. It runs Temporal's
worker on an event loop of its own, in a thread. A worker that dies (SIGKILL) needs no
fencing of ours: its workflow tasks go to another worker once their sticky queue times
out, and its activities are run again once their heartbeat timeout passes.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from concurrent.futures import Future
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Final

from ostinato_temporal._settings import TemporalSettings

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ostinato.config import AutoConfiguration
    from ostinato.durable import TurnRunner
    from ostinato.events import EventListener

__all__ = ["SANDBOX_PASSTHROUGH", "Worker", "sandbox_restrictions"]

#: Modules a worker passes through the sandbox besides ostinato and its plugins: pure
#: libraries its chain may import lazily while a turn runs.
SANDBOX_PASSTHROUGH: Final = ("httpx", "httpcore", "anyio", "sniffio", "pydantic_settings")
#: How many turns' waits for the turn before them one worker holds at once (each a long
#: poll of the service, heartbeating: cheap).
_WAITS: Final = 1000


def sandbox_restrictions(plugin_modules: Sequence[str] = ()) -> Any:
    """The sandbox's restrictions for the turn workflow: Temporal's defaults, passing
    through ostinato, the plugin packages ``plugin_modules`` and
    :data:`SANDBOX_PASSTHROUGH` (imported once per process, not once per turn: the
    workflow runs on the worker's client, whose classes must be the workflow's)."""
    from temporalio.worker.workflow_sandbox import SandboxRestrictions

    modules = ["ostinato", "ostinato_temporal", *plugin_modules, *SANDBOX_PASSTHROUGH]
    return SandboxRestrictions.default.with_passthrough_modules(*modules)


class Worker:
    """One worker: :meth:`start`, then :meth:`stop`.

    Args:
        settings: the plugin's settings (default: read from the environment).
        container: the auto-configuration its turns' client is built from (default:
            the one every ``ostinato`` command builds).
        listeners: listeners of every turn's loop events, called in this worker (a
            replayed turn emits its events again).
    """

    def __init__(
        self,
        settings: TemporalSettings | None = None,
        *,
        container: AutoConfiguration | None = None,
        listeners: Sequence[EventListener] = (),
    ) -> None:
        self.settings = settings if settings is not None else TemporalSettings()
        #: This worker's identity (the setting's, else the SDK's, known once started).
        self.executor_id = self.settings.identity or ""
        self._container = container
        self._listeners = tuple(listeners)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._worker: Any = None
        self._waits: Any = None
        self._running: Future[None] | None = None
        self._waiting: Future[None] | None = None

    @property
    def queue(self) -> str:
        """The task queue it polls (the ``task_queue`` setting)."""
        return self.settings.task_queue

    def _runner(self) -> tuple[TurnRunner, TurnRunner]:
        from ostinato.cli import command_container
        from ostinato.durable import TurnRunner
        from ostinato.errors import ConfigurationError
        from ostinato_temporal._unit_wrapper import WRAPPER_NAME

        container = self._container if self._container is not None else command_container()
        runner = TurnRunner(container, listeners=self._listeners)
        units = runner.client.units  # built now: a bad setting fails the start, not a turn
        if not any(w.name == WRAPPER_NAME for w in units.wrappers):
            raise ConfigurationError(
                f"the worker's client has no {WRAPPER_NAME!r} unit wrapper: its turns' units "
                f"would run inside the workflow\n  its unit stack: {units!r}\n"
                "fix: build the worker's container with the Temporal plugin among its plugins"
            )
        # The activities resolve the turns' tools apart from the workflows: a tool set
        # the workflow resolves is imported in the sandbox (its definitions are all the
        # turn needs there); the one a tool call runs is imported as usual.
        return runner, TurnRunner(container)

    def start(self) -> None:
        """Build the turns' client (so that a worker without a usable model refuses to
        start), connect, and start polling the task queue; return once it polls.

        Raises:
            ConfigurationError: the client cannot be built, or the service cannot be
                reached.
        """
        from ostinato_temporal._activities import configure_activities
        from ostinato_temporal._worker_state import configure_runner

        runner, units = self._runner()
        configure_activities(units)
        configure_runner(runner)
        # Every plugin package loaded now (the client's): passed through with ostinato.
        plugins = sorted({n.partition(".")[0] for n in sys.modules if n.startswith("ostinato_")})
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="ostinato-temporal-worker", daemon=True
        )
        self._thread.start()
        started = asyncio.run_coroutine_threadsafe(self._start(plugins), self._loop)
        started.result()

    async def _start(self, plugins: list[str]) -> None:
        from temporalio.worker import Worker as TemporalWorker
        from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner

        from ostinato_temporal._activities import run_unit
        from ostinato_temporal._connection import connect, waits_queue
        from ostinato_temporal._ordering import submit_follow_up, wait_for_turn
        from ostinato_temporal._workflow import TurnWorkflow

        settings = self.settings
        client = await connect(settings)
        self.executor_id = client.identity
        self._worker = TemporalWorker(
            client,
            task_queue=settings.task_queue,
            workflows=[TurnWorkflow],
            activities=[run_unit, submit_follow_up],
            workflow_runner=SandboxedWorkflowRunner(restrictions=sandbox_restrictions(plugins)),
            max_concurrent_activities=settings.worker_concurrency,
            max_concurrent_workflow_tasks=settings.worker_concurrency,
            max_concurrent_local_activities=settings.worker_concurrency,
            graceful_shutdown_timeout=timedelta(seconds=settings.shutdown_grace_seconds),
            # The SDK sends a unit's heartbeats at most every 80% of its heartbeat
            # timeout: one late beat on a busy machine and the server gives the live unit
            # to another worker (a third run of a call in flight at a crash). Beats reach
            # the server every quarter of the timeout instead.
            max_heartbeat_throttle_interval=timedelta(seconds=settings.heartbeat_seconds / 4),
        )
        # The waits of turns submitted after another: a queue of their own, so that
        # waiting turns never hold the slots their predecessors' units need.
        self._waits = TemporalWorker(
            client,
            task_queue=waits_queue(settings.task_queue),
            activities=[wait_for_turn],
            max_concurrent_activities=_WAITS,
            graceful_shutdown_timeout=timedelta(0),
            max_heartbeat_throttle_interval=timedelta(seconds=settings.heartbeat_seconds / 4),
        )
        loop = asyncio.get_running_loop()
        self._running = asyncio.run_coroutine_threadsafe(self._worker.run(), loop)
        self._waiting = asyncio.run_coroutine_threadsafe(self._waits.run(), loop)
        await asyncio.sleep(0)

    def stop(self, grace_seconds: float | None = None) -> list[str]:
        """Stop polling, let the units in flight finish for the shutdown grace, and
        return the ids of the turns whose units did not: they run again elsewhere."""
        from ostinato_temporal._activities import in_flight

        loop, worker = self._loop, self._worker
        if loop is None or worker is None:
            return []
        grace = self.settings.shutdown_grace_seconds if grace_seconds is None else grace_seconds
        # The SDK reads its grace when it shuts down: --grace given to stop() wins.
        worker._config["graceful_shutdown_timeout"] = timedelta(seconds=grace)
        left: list[str] = []

        async def shutdown() -> None:
            if self._waits is not None:  # a wait cut short runs again on another worker
                await self._waits.shutdown()
            task = asyncio.ensure_future(worker.shutdown())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(task), grace + 0.5)
            left.extend(in_flight())  # cut short: they run again on another worker
            await task

        asyncio.run_coroutine_threadsafe(shutdown(), loop).result()
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(30)
        return left
