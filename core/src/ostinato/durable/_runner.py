"""Running a :class:`~ostinato.durable.TurnRequest` on a worker: the turn an engine's
workflow executes.

A :class:`TurnRunner` holds one auto-configured client (built once per worker process)
and resolves a request's tools by name: a tool set a plugin registered, or an importable
source. A turn that stops for approvals waits for the decisions through the engine's
``wait_for_decisions`` (inside the engine, with no process holding it) and resumes. The
engine enters :func:`~ostinato.durable.durable_turn` around :meth:`TurnRunner.run`;
this module knows no engine.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ostinato.errors import ConfigurationError, ToolResolutionError

if TYPE_CHECKING:
    from ostinato.client import ChatClient
    from ostinato.config import AutoConfiguration
    from ostinato.durable._turns import TurnRequest
    from ostinato.events import EventListener, LoopEvent, TurnLog
    from ostinato.model import ChatResponse
    from ostinato.plugins import FactoryContext, Registry
    from ostinato.runtime import Steering
    from ostinato.tools import ApprovalDecision, PendingToolCalls, ToolCallback

__all__ = ["DecisionWaiter", "TurnRunner", "resolve_tools"]

#: ``(pending) -> decisions``: waits (durably) until someone decides the waiting calls.
DecisionWaiter = Callable[["PendingToolCalls"], Awaitable[Mapping[str, "ApprovalDecision"]]]


def resolve_tools(
    names: Sequence[str], registry: Registry, context: FactoryContext
) -> list[ToolCallback]:
    """The tools of ``names``: each a registered tool set, else an importable source.

    Raises:
        ToolResolutionError: a name is neither (the message lists the tool sets).
    """
    from ostinato.plugins._factory_calls import call_factory
    from ostinato.tools._loading import load_tools

    tools: list[ToolCallback] = []
    for name in names:
        registration = registry.tools.get(name)
        if registration is not None:
            tools.extend(call_factory("register_tools", registration, context))
            continue
        try:
            tools.extend(load_tools([name]))
        except ConfigurationError as error:
            sets = ", ".join(sorted(registry.tools)) or "none"
            raise ToolResolutionError(
                f"the durable turn names the tool {name!r}, which this worker cannot resolve\n"
                f"  registered tool sets: {sets}\n"
                f"  as an importable source: {str(error).splitlines()[0]}\n"
                "fix: name a tool set a plugin installed on every worker registers, or a "
                "module:attribute every worker can import",
                source=name,
            ) from error
    return tools


class TurnRunner:
    """Runs durable turns in a worker, on one auto-configured client.

    Args:
        container: the auto-configuration (default: built from the environment).
        listeners: listeners of every turn's loop events (:mod:`ostinato.events`), called
            in the worker as in process; a replayed turn emits its events again.
    """

    __slots__ = ("_client", "_container", "_context", "_listeners", "_stateless_client", "_tools")

    def __init__(
        self,
        container: AutoConfiguration | None = None,
        *,
        listeners: Sequence[EventListener] = (),
    ) -> None:
        if container is None:
            from ostinato.config import AutoConfiguration

            container = AutoConfiguration()
        self._container = container
        self._client: ChatClient | None = None
        self._stateless_client: ChatClient | None = None
        self._context: FactoryContext | None = None
        self._tools: dict[tuple[str, ...], list[ToolCallback]] = {}
        self._listeners = tuple(listeners)

    @property
    def client(self) -> ChatClient:
        """The worker's client (built on first use)."""
        if self._client is None:
            self._client = self._container.chat_client()
        return self._client

    def _stateless(self) -> ChatClient:
        """The worker's client without its memory advisors (built on first use)."""
        if self._stateless_client is None:
            from ostinato.advisors import MemoryAdvisor

            mutated = self.client.mutate().remove_default_advisors(MemoryAdvisor)
            self._stateless_client = mutated.build()
        return self._stateless_client

    def tools(self, names: Sequence[str]) -> list[ToolCallback]:
        """The resolved tools of ``names`` (cached per tuple of names).

        Raises:
            ToolResolutionError: a name cannot be resolved here.
        """
        key = tuple(names)
        found = self._tools.get(key)
        if found is None:
            if self._context is None:
                from ostinato.config._factories import factory_context

                container = self._container
                self._context = factory_context(
                    container.registry(), container.settings(), container.plugin_settings()
                )
            found = resolve_tools(key, self._context.registry, self._context)
            self._tools[key] = found
        return found

    async def run(
        self,
        request: TurnRequest,
        wait_for_decisions: DecisionWaiter,
        steering: Steering | None = None,
        *,
        log: TurnLog | None = None,
    ) -> ChatResponse:
        """Run the turn to its answer, waiting for decisions whenever it stops for them.

        The answer is the final round's, as the call face returns it in process: a
        round's text before its tool calls, or an answer a steered message followed,
        reached the turn's readers but is not the answer. An output guard outside the
        loop holds the stream back and gives the whole turn's text, checked; the answer
        is then what it let through. The turn streams its rounds (so its text reaches its
        readers piece by piece);
        ``steering`` (an engine's, reading recorded input) adds messages at its round
        boundaries; ``log``: the turn's log (the engine's), which numbers and keeps its
        events."""
        from ostinato.client import AdvisorParams
        from ostinato.model import ChatResponse
        from ostinato.tools import PendingToolCalls

        tools = self.tools(request.tools)
        params: list[Any] = []
        if request.conversation_id is not None:
            params.append(AdvisorParams.conversation_id(request.conversation_id))
        client = self.client if request.remember else self._stateless()
        spec = client.prompt()
        if request.system is not None:
            spec = spec.system(request.system)
        if request.history:
            spec = spec.messages(list(request.history))
        spec = spec.user(request.user).tools(*tools).advisors(*params)
        if steering is not None:
            spec = spec.steering(steering)
        rounds = _Rounds()
        listeners: tuple[EventListener, ...] = (*self._listeners, rounds)
        if log is not None:
            listeners = (*listeners, log)
        for listener in listeners:
            spec = spec.listener(listener)
        response = await _streamed(spec, rounds)
        while (pending := PendingToolCalls.of(response)) is not None:
            decisions = await wait_for_decisions(pending)
            spec = client.prompt().tools(*tools).advisors(*params).resume(pending, decisions)
            if steering is not None:
                spec = spec.steering(steering)
            for listener in listeners:
                spec = spec.listener(listener)
            response = await _streamed(spec, rounds)
        answer = response.chat_response
        return answer if answer is not None else ChatResponse([])


class _Rounds:
    """Which round of the turn's loop started last (0 before the first)."""

    __slots__ = ("round",)

    def __init__(self) -> None:
        self.round = 0

    def __call__(self, event: LoopEvent) -> None:
        from ostinato.events import RoundStarted

        if isinstance(event, RoundStarted):
            self.round = event.round


async def _streamed(spec: Any, rounds: _Rounds) -> Any:
    """The turn's answer, its rounds streamed: the aggregate of the chunks that came in
    the last round that streamed any, with the last chunk's context (where a turn stopped
    for approvals keeps its pending calls).

    An earlier round's text (a preamble before tool calls, an answer a steered message
    followed) reached the stream as that round ran and is not the answer. An advisor
    outside the loop that holds the stream back until the turn is complete (an output
    guard) gives its chunks in the last round, so the answer is what it let through."""
    from ostinato.advisors import ChatClientResponse
    from ostinato.model import MessageAggregator

    aggregator = MessageAggregator()
    context: Any = {}
    streaming = -1  # the round whose chunks the aggregator holds
    async for chunk in spec.stream().achat_client_responses():
        context = chunk.context
        if chunk.chat_response is not None:
            if rounds.round != streaming:
                aggregator, streaming = MessageAggregator(), rounds.round
            aggregator.add(chunk.chat_response)
    return ChatClientResponse(aggregator.result(), context)
