"""Result specs: what ``call()`` and ``stream()`` return. Lazy; async inside, sync faces on top.

A :class:`CallResponseSpec` runs the chain the first time a result is asked for and keeps
that result, so ``content()`` then ``chat_response()`` make one model call. ``entity()``
runs its own request (format instructions added). A :class:`StreamResponseSpec` runs the
chain each time one of its iterators is consumed.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any, TypeVar, overload

from ostinato._aio import closing_stream
from ostinato.advisors import ChatClientResponse
from ostinato.context_keys import (
    EVENT_SINK,
    NATIVE_STRUCTURED_OUTPUT,
    OUTPUT_FORMAT,
    OUTPUT_SCHEMA,
    SENT_OPTIONS,
)
from ostinato.model import ChatResponse

if TYPE_CHECKING:
    from ostinato.client._spec import ChatClientRequestSpec
    from ostinato.events import LoopEvent

__all__ = ["CallResponseSpec", "StreamResponseSpec"]

T = TypeVar("T")


def _clean(response: ChatClientResponse) -> ChatClientResponse:
    return response.without_context_keys(SENT_OPTIONS, EVENT_SINK)


class CallResponseSpec:
    """The blocking results of one request."""

    __slots__ = ("_result", "_spec")

    def __init__(self, spec: ChatClientRequestSpec) -> None:
        self._spec = spec
        self._result: ChatClientResponse | None = None

    # -- async --------------------------------------------------------------------------

    # The three below each run the chain themselves rather than through one another: a
    # coroutine layer stays on the await stack through every read of every model round.

    async def achat_client_response(self) -> ChatClientResponse:
        """The final response with the advisor context (runs the chain once)."""
        result = self._result
        if result is None:
            chain = self._spec.build_chain()
            request = await self._spec.abuild_request()
            result = self._result = _clean(await chain.next_call(request))
        return result

    async def achat_response(self) -> ChatResponse | None:
        """The final :class:`ChatResponse` (``None`` only if an advisor returned none)."""
        result = self._result
        if result is None:
            chain = self._spec.build_chain()
            request = await self._spec.abuild_request()
            result = self._result = _clean(await chain.next_call(request))
        return result.chat_response

    async def acontent(self) -> str | None:
        """The first generation's text of the final response."""
        result = self._result
        if result is None:
            chain = self._spec.build_chain()
            request = await self._spec.abuild_request()
            result = self._result = _clean(await chain.next_call(request))
        response = result.chat_response
        return response.text if response is not None else None

    @overload
    async def aentity(
        self, output_type: type[T], *, validate_schema: bool = False, native: bool | None = None
    ) -> T: ...
    @overload
    async def aentity(
        self, output_type: Any, *, validate_schema: bool = False, native: bool | None = None
    ) -> Any: ...
    async def aentity(
        self, output_type: Any, *, validate_schema: bool = False, native: bool | None = None
    ) -> Any:
        """The answer converted to ``output_type`` (a pydantic model, dataclass, list...).

        Format instructions with the type's JSON schema are added to the user message.
        With ``native=True`` (or ``AdvisorParams.native_structured_output()`` among the
        request's or the client's advisor params, when ``native`` is left ``None``) the
        provider enforces the schema instead (``ChatOptions.output_schema``); a model
        that cannot raises :class:`~ostinato.errors.StructuredOutputNotSupportedError`
        before anything is sent. With ``validate_schema=True`` a
        :class:`~ostinato.advisors.StructuredOutputValidationAdvisor` re-asks the model
        (up to 3 times) while its answer does not match the schema.
        """
        from ostinato.client._entity import EntityConverter

        if native is None:
            native = self._spec.advisor_params.get(NATIVE_STRUCTURED_OUTPUT) is True
        if native:
            from ostinato.model import check_native_structured_output

            check_native_structured_output(self._spec.model)
        converter = EntityConverter(output_type, native=native)
        extra = []
        if validate_schema:
            from ostinato.advisors import StructuredOutputValidationAdvisor

            extra.append(
                StructuredOutputValidationAdvisor(output_json_schema=json.dumps(converter.schema))
            )
        chain = self._spec.build_chain(extra)
        schema_entry = (
            {OUTPUT_SCHEMA: json.dumps(converter.schema)}
            if native
            else {OUTPUT_FORMAT: converter.format_instructions}
        )
        request = await self._spec.abuild_request(schema_entry)
        response = await chain.next_call(request)
        return converter.convert(response.chat_response.text if response.chat_response else None)

    # -- sync faces ---------------------------------------------------------------------

    def chat_client_response(self) -> ChatClientResponse:
        """Blocking twin of :meth:`achat_client_response`."""
        from ostinato.runtime import run_sync

        return run_sync(self.achat_client_response(), async_name="achat_client_response")

    def chat_response(self) -> ChatResponse | None:
        """Blocking twin of :meth:`achat_response`."""
        from ostinato.runtime import run_sync

        return run_sync(self.achat_response(), async_name="achat_response")

    def content(self) -> str | None:
        """Blocking twin of :meth:`acontent`."""
        from ostinato.runtime import run_sync

        return run_sync(self.acontent(), async_name="acontent")

    @overload
    def entity(
        self, output_type: type[T], *, validate_schema: bool = False, native: bool | None = None
    ) -> T: ...
    @overload
    def entity(
        self, output_type: Any, *, validate_schema: bool = False, native: bool | None = None
    ) -> Any: ...
    def entity(
        self, output_type: Any, *, validate_schema: bool = False, native: bool | None = None
    ) -> Any:
        """Blocking twin of :meth:`aentity`."""
        from ostinato.runtime import run_sync

        return run_sync(
            self.aentity(output_type, validate_schema=validate_schema, native=native),
            async_name="aentity",
        )


class StreamResponseSpec:
    """The streaming results of one request; each iterator runs the chain once."""

    __slots__ = ("_spec",)

    def __init__(self, spec: ChatClientRequestSpec) -> None:
        self._spec = spec

    # -- async --------------------------------------------------------------------------

    async def achat_client_responses(self) -> AsyncIterator[ChatClientResponse]:
        """Every chunk with the advisor context."""
        chain = self._spec.build_chain()
        request = await self._spec.abuild_request()
        async with closing_stream(chain.next_stream(request)) as chunks:
            async for chunk in chunks:
                yield _clean(chunk)

    # The two below read the chain's stream directly rather than through the method
    # above: each async generator layer costs a hop per chunk.

    async def achat_responses(self) -> AsyncIterator[ChatResponse]:
        """Every chunk's :class:`ChatResponse` (including a final usage-only one)."""
        chain = self._spec.build_chain()
        request = await self._spec.abuild_request()
        async with closing_stream(chain.next_stream(request)) as chunks:
            async for chunk in chunks:
                if chunk.chat_response is not None:
                    yield chunk.chat_response

    async def acontent(self) -> AsyncIterator[str]:
        """The answer's text as it arrives (empty pieces skipped)."""
        chain = self._spec.build_chain()
        request = await self._spec.abuild_request()
        async with closing_stream(chain.next_stream(request)) as chunks:
            async for chunk in chunks:
                response = chunk.chat_response
                if response is not None:
                    text = response.text
                    if text:
                        yield text

    def aevents(self) -> AsyncIterator[LoopEvent]:
        """The turn as typed loop events (:mod:`ostinato.events`), as they happen.

        Round started, text and tool-call deltas, round finished, tool call requested,
        tool started and finished, ... and last the loop ended (with the reason, the
        final response and the summed usage). The request's listeners hear them too.
        The loop pauses while the reader lags (a bounded buffer), so a long turn is never
        held in memory whole; closing the iterator early cancels the turn. Events come
        from the tool advisor: a request without one emits none.
        """
        from ostinato.client._event_stream import run_events

        spec = self._spec
        if spec.fetches_tools():
            return _events_after_fetching(spec)
        return run_events(spec.build_chain(), spec.build_request(), spec.listeners)

    # -- sync faces ---------------------------------------------------------------------

    def events(self) -> Iterator[LoopEvent]:
        """Blocking twin of :meth:`aevents` (close it to stop early)."""
        from ostinato.runtime import iterate_sync

        return iterate_sync(self.aevents, async_name="aevents")

    def chat_client_responses(self) -> Iterator[ChatClientResponse]:
        """Blocking twin of :meth:`achat_client_responses` (close it to stop early)."""
        from ostinato.runtime import iterate_sync

        return iterate_sync(self.achat_client_responses)

    def chat_responses(self) -> Iterator[ChatResponse]:
        """Blocking twin of :meth:`achat_responses`."""
        from ostinato.runtime import iterate_sync

        return iterate_sync(self.achat_responses)

    def content(self) -> Iterator[str]:
        """Blocking twin of :meth:`acontent`."""
        from ostinato.runtime import iterate_sync

        return iterate_sync(self.acontent)


async def _events_after_fetching(spec: ChatClientRequestSpec) -> AsyncIterator[LoopEvent]:
    """:meth:`StreamResponseSpec.aevents` of a request whose tools must be fetched first."""
    from ostinato.client._event_stream import run_events

    request = await spec.abuild_request()
    async with closing_stream(run_events(spec.build_chain(), request, spec.listeners)) as events:
        async for event in events:
            yield event
