"""``SimpleLoggerAdvisor``: log each request and its response (for debugging).

It never logs tool context values, which may hold secrets (API keys, user tokens): the
default request rendering shows the messages, the options with their values, tools by
name only, and the advisor context by key only. It must not change what passes through.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, ClassVar

from ostinato._aio import closing_stream
from ostinato.advisors._aggregation import ChatClientMessageAggregator
from ostinato.advisors._api import CallAdvisor, StreamAdvisor
from ostinato.advisors._exchange import ChatClientRequest, ChatClientResponse
from ostinato.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    UserMessage,
)
from ostinato.model import ChatResponse
from ostinato.prompt import ChatOptions

if TYPE_CHECKING:
    from ostinato.advisors._chain import AdvisorChain

__all__ = ["SimpleLoggerAdvisor", "render_request", "render_response"]


def _render_message(message: Message) -> str:
    if isinstance(message, SystemMessage):
        return f"[system] {message.text}"
    if isinstance(message, UserMessage):
        media = f" (+{len(message.media)} media)" if message.media else ""
        return f"[user] {message.text}{media}"
    if isinstance(message, AssistantMessage):
        parts = [message.text] if message.text else []
        parts += [f"{c.name}({c.arguments}) id={c.id}" for c in message.tool_calls]
        return f"[assistant] {' | '.join(parts)}"
    parts = [f"{r.name} id={r.id}: {r.response_data}" for r in message.responses]
    return f"[tool] {' | '.join(parts)}"


def _render_options(options: ChatOptions | None) -> str:
    if options is None:
        return "None"
    shown: list[str] = []
    for f in dataclasses.fields(options):
        value = getattr(options, f.name)
        if f.name == "tool_callbacks":
            if value:
                names = ", ".join(cb.tool_definition.name for cb in value)
                shown.append(f"tool_callbacks=[{names}]")
        elif f.name == "tool_context":
            if value:  # values may be secrets: say only that there is something
                shown.append(f"tool_context=<{len(value)} entries, not logged>")
        elif value is not None and value != f.default:
            shown.append(f"{f.name}={value!r}")
    return f"{type(options).__name__}({', '.join(shown)})"


def render_request(request: ChatClientRequest) -> str:
    """The default request rendering: one line per message, the options (tools by name,
    tool context not shown) and the advisor context's keys."""
    lines = [_render_message(m) for m in request.prompt.messages]
    lines.append(f"options: {_render_options(request.prompt.options)}")
    lines.append(f"context keys: {sorted(request.context)}")
    return "\n  ".join(["", *lines])


def render_response(response: ChatResponse | None) -> str:
    """The default response rendering: the response's JSON form, indented."""
    if response is None:
        return "null"
    return json.dumps(response.to_dict(), indent=2, ensure_ascii=False, default=repr)


class SimpleLoggerAdvisor(CallAdvisor, StreamAdvisor):
    """Logs the request on its way in and the response on its way out.

    On the stream path the chunks pass through unchanged and the response is logged once,
    aggregated, when the stream ends. Nothing is rendered while the level is disabled.

    Args:
        request_to_string: renders a request (default :func:`render_request`).
        response_to_string: renders a chat response, or ``None`` when an advisor answered
            without one (default :func:`render_response`).
        order: position in the chain (default 0).
        logger_name: the logger to write to (default ``"ostinato.advisors.logger"``).
        level: the level to log at (default ``logging.DEBUG``).
    """

    DEFAULT_LOGGER_NAME: ClassVar[str] = "ostinato.advisors.logger"

    __slots__ = ("_level", "_logger", "_order", "_request_to_string", "_response_to_string")

    def __init__(
        self,
        *,
        request_to_string: Callable[[ChatClientRequest], str] | None = None,
        response_to_string: Callable[[ChatResponse | None], str] | None = None,
        order: int = 0,
        logger_name: str = DEFAULT_LOGGER_NAME,
        level: int = logging.DEBUG,
    ) -> None:
        self._request_to_string = request_to_string or render_request
        self._response_to_string = response_to_string or render_response
        self._order = order
        self._logger = logging.getLogger(logger_name)
        self._level = level

    @property
    def name(self) -> str:
        """``"SimpleLoggerAdvisor"``."""
        return "SimpleLoggerAdvisor"

    @property
    def order(self) -> int:
        """The configured order."""
        return self._order

    @property
    def logger(self) -> logging.Logger:
        """The logger written to."""
        return self._logger

    def _enabled(self) -> bool:
        return self._logger.isEnabledFor(self._level)

    def log_request(self, request: ChatClientRequest) -> None:
        """Log ``request`` (when the level is enabled)."""
        if self._enabled():
            self._logger.log(self._level, "request: %s", self._request_to_string(request))

    def log_response(self, response: ChatClientResponse) -> None:
        """Log ``response``'s chat response (when the level is enabled)."""
        if self._enabled():
            text = self._response_to_string(response.chat_response)
            self._logger.log(self._level, "response: %s", text)

    async def advise_call(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> ChatClientResponse:
        """Log the request, call further in, log the response."""
        self.log_request(request)
        response = await chain.next_call(request)
        self.log_response(response)
        return response

    async def advise_stream(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> AsyncIterator[ChatClientResponse]:
        """Log the request, pass the chunks through, log their aggregate at the end."""
        self.log_request(request)
        aggregator = ChatClientMessageAggregator() if self._enabled() else None
        async with closing_stream(chain.next_stream(request)) as chunks:
            async for chunk in chunks:
                if aggregator is not None:
                    aggregator.add(chunk)
                yield chunk
        if aggregator is not None:
            aggregate = aggregator.result()
            self.log_response(aggregate or ChatClientResponse(None))
