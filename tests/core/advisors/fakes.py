"""Advisors and tools the advisor tests share: named pass-through advisors, one that logs
its name, one that records how the tool loop ended, a tool-calling advisor that records
its hooks, and two weather tools."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from ostinato import tool
from ostinato.advisors import (
    AdvisorChain,
    BaseAdvisor,
    ChatClientRequest,
    ChatClientResponse,
    ToolCallingAdvisor,
    ToolLoopExit,
    ToolLoopExitListener,
)

__all__ = [
    "ExitListener",
    "HookRecorder",
    "LoggingAdvisor",
    "NamedAdvisor",
    "forecast",
    "weather",
]


class NamedAdvisor(BaseAdvisor):
    """Passes everything through, under the name and at the order it is given."""

    def __init__(self, name: str, order: int = 0) -> None:
        self._name, self._order = name, order

    @property
    def name(self) -> str:
        """The name it was given."""
        return self._name

    @property
    def order(self) -> int:
        """The order it was given."""
        return self._order


class LoggingAdvisor(NamedAdvisor):
    """Appends its name to ``log`` each time a call or a stream passes through it."""

    def __init__(self, name: str, order: int = 0, log: list[str] | None = None) -> None:
        super().__init__(name, order)
        self.log = log if log is not None else []

    async def advise_call(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> ChatClientResponse:
        self.log.append(self._name)
        return await chain.next_call(request)

    async def advise_stream(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> AsyncIterator[ChatClientResponse]:
        self.log.append(self._name)
        async for chunk in chain.next_stream(request):
            yield chunk


class ExitListener(BaseAdvisor, ToolLoopExitListener):
    """Records every ending of the tool loop it is told of (and raises after recording, if
    ``fail``); passes requests and responses through. By default it sits inside the loop."""

    def __init__(self, order: int = ToolCallingAdvisor.DEFAULT_ORDER + 1, fail: bool = False):
        self._order = order
        self._fail = fail
        self.endings: list[ToolLoopExit] = []

    @property
    def order(self) -> int:
        """The order it was given."""
        return self._order

    async def on_tool_loop_exit(self, ending: ToolLoopExit) -> None:
        self.endings.append(ending)
        if self._fail:
            raise RuntimeError("listener broke")


def _recorded(hook: str) -> Any:
    """A loop hook that appends ``hook`` to the advisor's ``calls`` and passes its request
    or response through."""

    async def run(self: HookRecorder, value: Any, chain: AdvisorChain) -> Any:
        self.calls.append(hook)
        return value

    return run


class HookRecorder(ToolCallingAdvisor):
    """A tool-calling advisor that appends each of its loop hooks to ``calls`` as it runs,
    as ``<hook>_<path>`` (hooks ``initialize``, ``before``, ``after``, ``finalize``; paths
    ``call`` and ``stream``), and changes nothing."""

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        self.calls: list[str] = []

    do_initialize_loop = _recorded("initialize_call")
    do_before_call = _recorded("before_call")
    do_after_call = _recorded("after_call")
    do_finalize_loop = _recorded("finalize_call")
    do_initialize_loop_stream = _recorded("initialize_stream")
    do_before_stream = _recorded("before_stream")
    do_after_stream = _recorded("after_stream")

    async def do_finalize_loop_stream(
        self, stream: AsyncIterator[ChatClientResponse], chain: AdvisorChain
    ) -> AsyncIterator[ChatClientResponse]:
        self.calls.append("finalize_stream")
        async for chunk in stream:
            yield chunk


@tool(description="The weather in a city")
def weather(city: str) -> str:
    return f"{city}: 25C"


@tool(description="The forecast, returned to the caller as is", return_direct=True)
def forecast(city: str) -> str:
    return f"forecast for {city}"
