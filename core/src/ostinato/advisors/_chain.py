"""The advisor chain: an ordered, single-use cursor over advisors, ending at the model.

A chain is built per ``call()``/``stream()`` from the advisors in registration order,
sorted by order with a *stable* sort, so advisors of equal order keep registration order
(here and in every copy; Spring AI's copies reverse them). The model advisors
sit innermost at ``LOWEST_PRECEDENCE``. ``next_call``/``next_stream`` hand the request
to the next advisor; ``copy(after)`` makes a fresh chain of the advisors after one — the
recursive tool loop calls it once per model round. Each hop runs inside the registered
advisor scopes (:mod:`ostinato.instrumentation`); with none registered it pays one check.
A chain carries its client's unit stack (:attr:`AdvisorChain.units`) and the turn scope
numbering the units of its run (:attr:`AdvisorChain.turn`), the same in every copy.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Coroutine, Iterable, Sequence
from contextlib import ExitStack
from typing import Any

from ostinato.advisors._api import (
    Advisor,
    CallAdvisor,
    MemoryAdvisor,
    Ordered,
    StreamAdvisor,
    ToolAdvisor,
)
from ostinato.advisors._exchange import ChatClientRequest, ChatClientResponse
from ostinato.advisors._order import advisors_inside_tool_loop, in_execution_order
from ostinato.errors import AdvisorChainError
from ostinato.instrumentation import (
    _ADVISOR_SCOPES,
    AdvisorScope,
    AdvisorScopeActivation,
)
from ostinato.units._stack import UnitStack
from ostinato.units._unit import TurnScope

__all__ = ["AdvisorChain"]


_Tail = tuple[tuple[Advisor, ...], tuple[CallAdvisor, ...], tuple[StreamAdvisor, ...]]

_NO_UNITS = UnitStack()


class AdvisorChain:
    """An ordered, single-use walk through the call and stream advisors of one request.

    Args:
        advisors: the advisors in registration order (model advisors included). They are
            sorted by order; equal orders keep this order.
        units: the unit stack the model rounds, tool calls and memory reads and writes of
            this run go through (default: none, every unit runs as is).
        turn: the turn scope numbering the run's units when no scope is current
            (default: a new one).

    Attributes:
        units: the unit stack (kept in every copy).
        turn: the turn scope (kept in every copy).
    """

    __slots__ = (
        "_advisors",
        "_call",
        "_call_pos",
        "_stream",
        "_stream_pos",
        "_tails",
        "turn",
        "units",
    )

    def __init__(
        self,
        advisors: Iterable[Advisor],
        units: UnitStack | None = None,
        turn: TurnScope | None = None,
    ) -> None:
        self._advisors = in_execution_order(advisors)
        self._call = tuple(a for a in self._advisors if isinstance(a, CallAdvisor))
        self._stream = tuple(a for a in self._advisors if isinstance(a, StreamAdvisor))
        self._call_pos = 0
        self._stream_pos = 0
        self._tails: dict[int, _Tail] | None = None
        self.units = units if units is not None else _NO_UNITS
        self.turn = turn if turn is not None else TurnScope()

    @classmethod
    def _from_parts(
        cls,
        advisors: tuple[Advisor, ...],
        call: tuple[CallAdvisor, ...],
        stream: tuple[StreamAdvisor, ...],
        units: UnitStack,
        turn: TurnScope,
    ) -> AdvisorChain:
        chain = cls.__new__(cls)
        chain._advisors = advisors
        chain._call = call
        chain._stream = stream
        chain._call_pos = 0
        chain._stream_pos = 0
        chain._tails = None
        chain.units = units
        chain.turn = turn
        return chain

    @property
    def advisors(self) -> tuple[Advisor, ...]:
        """Every advisor of the chain, in execution order (never changes)."""
        return self._advisors

    @property
    def call_advisors(self) -> tuple[CallAdvisor, ...]:
        """The call-path advisors in execution order (never changes)."""
        return self._call

    @property
    def stream_advisors(self) -> tuple[StreamAdvisor, ...]:
        """The stream-path advisors in execution order (never changes)."""
        return self._stream

    def next_call(self, request: ChatClientRequest) -> Coroutine[Any, Any, ChatClientResponse]:
        """Hand ``request`` to the next call advisor; await the result for its response.

        It returns the advisor's own coroutine rather than being one: a coroutine here
        would stay on the await stack of every suspension below it (each read of the
        model's reply goes through every frame of the chain, once per advisor hop).

        Raises:
            AdvisorChainError: no call advisor is left (raised here, not when awaited).
        """
        if self._call_pos >= len(self._call):
            raise AdvisorChainError("No CallAdvisors available to execute")
        advisor = self._call[self._call_pos]
        self._call_pos += 1
        if _ADVISOR_SCOPES.scopes:
            return _scoped_call(_ADVISOR_SCOPES.scopes, advisor, request, self)
        return advisor.advise_call(request, self)

    def next_stream(self, request: ChatClientRequest) -> AsyncIterator[ChatClientResponse]:
        """Hand ``request`` to the next stream advisor; iterate the result for its responses."""
        if self._stream_pos >= len(self._stream):
            raise AdvisorChainError("No StreamAdvisors available to execute")
        advisor = self._stream[self._stream_pos]
        self._stream_pos += 1
        if _ADVISOR_SCOPES.scopes:
            return _scoped_stream(_ADVISOR_SCOPES.scopes, advisor, request, self)
        return advisor.advise_stream(request, self)

    def copy(self, after: Advisor | None) -> AdvisorChain:
        """A fresh chain of the advisors that come after ``after`` (which must be in this chain)."""
        if after is None:
            raise ValueError("The after advisor must not be null")
        # The tool loop copies the same chain after the same advisor every round: the
        # advisors after it are worked out once. (``after`` is held by this chain, so its
        # id cannot be reused while the chain lives.)
        tails = self._tails
        if tails is None:
            tails = self._tails = {}
        tail = tails.get(id(after))
        if tail is None:
            for i, advisor in enumerate(self._advisors):
                if advisor is after:
                    rest = self._advisors[i + 1 :]
                    tail = tails[id(after)] = (
                        rest,
                        tuple(a for a in rest if isinstance(a, CallAdvisor)),
                        tuple(a for a in rest if isinstance(a, StreamAdvisor)),
                    )
                    break
            else:
                raise ValueError(f"The specified advisor is not part of the chain: {after.name}")
        return AdvisorChain._from_parts(*tail, self.units, self.turn)

    def describe(self) -> str:
        """A readable rendering: each advisor's order and name, outer to inner, and which
        ones run inside the tool loop (once per model round)."""
        return describe_chain(self._advisors)

    def __repr__(self) -> str:
        names = ", ".join(f"{a.name}({a.order})" for a in self._advisors)
        return f"AdvisorChain([{names}])"


async def _scoped_call(
    scopes: tuple[AdvisorScope, ...],
    advisor: CallAdvisor,
    request: ChatClientRequest,
    chain: AdvisorChain,
) -> ChatClientResponse:
    with ExitStack() as stack:
        for scope in scopes:
            activate = stack.enter_context(scope(advisor, request, False))
            stack.enter_context(activate())
        return await advisor.advise_call(request, chain)


def _active(activations: list[AdvisorScopeActivation]) -> ExitStack:
    stack = ExitStack()
    with stack:
        for activate in activations:
            stack.enter_context(activate())
        return stack.pop_all()


async def _scoped_stream(
    scopes: tuple[AdvisorScope, ...],
    advisor: StreamAdvisor,
    request: ChatClientRequest,
    chain: AdvisorChain,
) -> AsyncIterator[ChatClientResponse]:
    # The scopes are current in each step of the stream, never across a yield (there the
    # consumer's code runs, under its own scopes).
    activations: list[AdvisorScopeActivation] = []
    with ExitStack() as stack:
        for scope in scopes:
            with _active(activations):
                activations.append(stack.enter_context(scope(advisor, request, True)))
        with _active(activations):
            stream = advisor.advise_stream(request, chain)
        try:
            while True:
                with _active(activations):
                    try:
                        chunk = await anext(stream)
                    except StopAsyncIteration:
                        break
                yield chunk
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                with _active(activations):
                    await aclose()


def _order_text(order: int) -> str:
    if order == Ordered.HIGHEST_PRECEDENCE:
        return "HIGHEST"
    if order == Ordered.LOWEST_PRECEDENCE:
        return "LOWEST"
    if order < Ordered.HIGHEST_PRECEDENCE + 100_000:
        return f"HIGHEST+{order - Ordered.HIGHEST_PRECEDENCE}"
    if order > Ordered.LOWEST_PRECEDENCE - 100_000:
        return f"LOWEST-{Ordered.LOWEST_PRECEDENCE - order}"
    return str(order)


def describe_chain(advisors: Sequence[Advisor]) -> str:
    """Render ``advisors`` (already in execution order) as an indented table."""
    inside = advisors_inside_tool_loop(advisors)
    tool_found = any(isinstance(a, ToolAdvisor) for a in advisors)
    lines = ["advisor chain, outer to inner:"]
    width = max((len(_order_text(a.order)) for a in advisors), default=0)
    for advisor in advisors:
        kinds = []
        if isinstance(advisor, ToolAdvisor):
            kinds.append("tool loop")
        if isinstance(advisor, MemoryAdvisor):
            kinds.append("memory")
        paths = [
            p
            for p, present in (
                ("call", isinstance(advisor, CallAdvisor)),
                ("stream", isinstance(advisor, StreamAdvisor)),
            )
            if present
        ]
        where = ""
        if any(a is advisor for a in inside):
            where = "  (inside the tool loop: once per model round)"
        elif tool_found and not isinstance(advisor, ToolAdvisor):
            where = "  (outside the tool loop: once per turn)"
        tag = f" [{', '.join(kinds)}]" if kinds else ""
        lines.append(
            f"  {_order_text(advisor.order):>{width}}  {advisor.name}{tag} "
            f"<{'/'.join(paths)}>{where}"
        )
    return "\n".join(lines)
