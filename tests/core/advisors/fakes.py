"""Advisors and tools the advisor tests share: named pass-through advisors, one that logs
its name, one that records how the tool loop ended, and two weather tools."""

from __future__ import annotations

from collections.abc import AsyncIterator

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

__all__ = ["ExitListener", "LoggingAdvisor", "NamedAdvisor", "forecast", "weather"]


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


@tool(description="The weather in a city")
def weather(city: str) -> str:
    return f"{city}: 25C"


@tool(description="The forecast, returned to the caller as is", return_direct=True)
def forecast(city: str) -> str:
    return f"forecast for {city}"
