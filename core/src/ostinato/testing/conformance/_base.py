"""What an adapter's test module provides, and the helpers every kit test uses.

A subclass implements :meth:`ConformanceBase.build_model`, :meth:`~ConformanceBase.canned`
and :meth:`~ConformanceBase.canned_error` (and :meth:`~ConformanceBase.structured_output_options`
when the provider can ask for JSON). The helpers build prompts, run ``call()`` and
``stream()`` against a :class:`~ostinato.testing.conformance.Replay`, and close the model.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from typing import Any, ClassVar

import httpx
import pytest

from ostinato.messages import (
    AssistantMessage,
    Message,
    ToolResponse,
    ToolResponseMessage,
    UserMessage,
)
from ostinato.model import ChatModel, ChatResponse, MessageAggregator
from ostinato.prompt import ChatOptions, Prompt, ToolCallingChatOptions
from ostinato.testing.conformance._canned import CannedResponse, Replay, Reply
from ostinato.testing.conformance._script import (
    CONFORMANCE_API_KEY,
    TIME_TOOL,
    WEATHER_TOOL,
    Expectations,
    Scenario,
)

__all__ = ["ConformanceBase"]


class ConformanceBase:
    """Hooks for the adapter under test, and shared helpers (no tests here).

    Class attributes:
        provider: the ``provider`` every :class:`~ostinato.errors.ModelError` must carry.
        expectations: the facts the canned replies encode.
    """

    provider: ClassVar[str] = ""
    expectations: ClassVar[Expectations] = Expectations()

    # -- hooks ---------------------------------------------------------------------------

    def build_model(
        self, transport: httpx.AsyncBaseTransport, *, api_key: str, max_retries: int
    ) -> ChatModel:
        """The adapter under test.

        It must send every request through ``transport`` (build its
        ``httpx.AsyncClient(transport=transport)``), authenticate with ``api_key``, retry
        at most ``max_retries`` times, and not really sleep between retries (inject a
        sleep that returns at once).
        """
        raise NotImplementedError(f"{type(self).__name__} must implement build_model()")

    def canned(self, scenario: Scenario) -> CannedResponse | None:
        """The provider's reply for ``scenario``; ``None`` skips the tests needing it."""
        raise NotImplementedError(f"{type(self).__name__} must implement canned()")

    def canned_error(self, status: int, message: str, headers: Mapping[str, str]) -> CannedResponse:
        """An error reply with ``status`` whose body carries ``message``, with ``headers``
        added (``retry-after`` for 429)."""
        raise NotImplementedError(f"{type(self).__name__} must implement canned_error()")

    def structured_output_options(self, schema: Mapping[str, Any]) -> ChatOptions | None:
        """Options asking for a JSON answer matching ``schema``; ``None`` skips the test."""
        return None

    def live_model(self) -> ChatModel | None:
        """A model against a real server for the live tests; ``None`` (default) skips them."""
        return None

    async def close_model(self, model: ChatModel) -> None:
        """Release the model's resources (calls ``aclose()`` when it has one)."""
        aclose = getattr(model, "aclose", None)
        if aclose is not None:
            await aclose()

    # -- helpers ---------------------------------------------------------------------------

    def require(self, scenario: Scenario) -> CannedResponse:
        """The canned reply for ``scenario``, or skip the test when there is none."""
        reply = self.canned(scenario)
        if reply is None:
            pytest.skip(f"{type(self).__name__} provides no {scenario.value!r} reply")
        return reply

    @contextlib.asynccontextmanager
    async def replay(
        self, *replies: Reply, max_retries: int = 0, piece_size: int | None = None
    ) -> AsyncIterator[tuple[ChatModel, Replay]]:
        """A model wired to a :class:`Replay` of ``replies``; closed afterwards."""
        recorder = Replay(replies, piece_size=piece_size)
        model = self.build_model(
            recorder.transport, api_key=CONFORMANCE_API_KEY, max_retries=max_retries
        )
        try:
            yield model, recorder
        finally:
            await self.close_model(model)

    def prompt(
        self,
        model: ChatModel,
        messages: Sequence[Message] | None = None,
        *,
        tools: Iterable[Any] = (),
        options: ChatOptions | None = None,
    ) -> Prompt:
        """A prompt on the model's default options, with ``tools`` and ``options`` laid over."""
        base = model.default_options
        tools = tuple(tools)
        if tools:
            if not isinstance(base, ToolCallingChatOptions):
                raise AssertionError(
                    f"{type(model).__name__}.default_options is a {type(base).__name__}; an "
                    "adapter's options must derive from ToolCallingChatOptions to carry tools"
                )
            base = base.combine_with(ToolCallingChatOptions(tool_callbacks=tools))
        if options is not None:
            base = base.combine_with(options)
        return Prompt(list(messages or [UserMessage(self.expectations.user_text)]), base)

    def tool_prompt(self, model: ChatModel) -> Prompt:
        """The question with both kit tools attached."""
        return self.prompt(model, tools=(WEATHER_TOOL, TIME_TOOL))

    def followup_messages(self) -> list[Message]:
        """Question, the model's weather call, and the tool's result."""
        call = self.expectations.weather_call
        return [
            UserMessage("What is the weather in Paris?"),
            AssistantMessage(None, (call,)),
            ToolResponseMessage((ToolResponse(call.id, call.name, self.expectations.tool_result),)),
        ]

    @staticmethod
    async def collect(model: ChatModel, prompt: Prompt) -> list[ChatResponse]:
        """Every chunk of ``model.stream(prompt)``, consumed under ``aclosing``."""
        chunks: list[ChatResponse] = []
        async with contextlib.aclosing(model.stream(prompt)) as stream:  # type: ignore[type-var]  # an async generator
            async for chunk in stream:
                chunks.append(chunk)
        return chunks

    async def aggregate(self, model: ChatModel, prompt: Prompt) -> ChatResponse:
        """The aggregate of ``model.stream(prompt)``."""
        return MessageAggregator.aggregate(await self.collect(model, prompt))
