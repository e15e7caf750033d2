"""``OllamaWireFormat``: Ollama's native chat API apart from HTTP.

The body, the reply parser (one for a stream and for a whole reply: a server may stream
anyway, and a call aggregates what it gives) and the error body: what
:class:`~ostinato_ollama.OllamaChatModel` holds as its :class:`~ostinato.http.WireFormat`.
Nothing here sees a connection, so it is tested by feeding it recorded bodies.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ostinato.http import ErrorReport, WireContext
from ostinato.model import ChatResponse, MessageAggregator
from ostinato.prompt import Prompt
from ostinato.transport import NDJSONDecoder, NDJSONError
from ostinato_ollama._errors import read_error
from ostinato_ollama._options import OllamaChatOptions
from ostinato_ollama._reply import ReplyParser
from ostinato_ollama._request import build_request_body

__all__ = ["OllamaWireFormat"]


class OllamaWireFormat:
    """The ``/api/chat`` wire format: NDJSON objects, the last one ``done: true``.

    Args:
        context: the provider's name, the default options, the endpoint named in errors
            and the secret masked in them.
    """

    __slots__ = ("_context",)

    def __init__(self, context: WireContext[OllamaChatOptions]) -> None:
        self._context = context

    def request_body(self, prompt: Prompt, *, stream: bool) -> dict[str, Any]:
        """The JSON body of a request for ``prompt``."""
        return build_request_body(prompt, self._context.options_for(prompt), stream=stream)

    def reply(
        self, content: bytes, headers: Mapping[str, str], sent: Mapping[str, Any]
    ) -> ChatResponse:
        """The response a whole reply holds: its objects aggregated (one, or a stream).

        Raises:
            MalformedResponseError: a line is not JSON, or the reply ended before its
                final object.
        """
        parser = self.stream_events(headers, sent)
        aggregator = MessageAggregator()
        decoder = NDJSONDecoder()
        try:
            for obj in decoder.feed(content) + decoder.close():
                chunk = parser.event(obj)
                if chunk is not None:
                    aggregator.add(chunk)
        except NDJSONError as exc:
            raise self._context.not_json(exc.line) from None
        if not parser.done:
            raise self._context.malformed("the reply ended before its final object (done: true)")
        return aggregator.result()

    def stream_events(self, headers: Mapping[str, str], sent: Mapping[str, Any]) -> ReplyParser:
        """A parser of the stream's objects (the model named in errors is the one asked)."""
        context = self._context
        model = sent.get("model")
        return ReplyParser(provider=context.provider, model=model, secret=context.secret)

    def error(
        self,
        payload: Any,
        status: int | None,
        headers: Mapping[str, str],
        fallback: str | None,
        sent: Mapping[str, Any],
    ) -> ErrorReport:
        """What an Ollama error body says (``{"error": "..."}``), naming the model asked."""
        return read_error(payload, status, headers, fallback, sent.get("model"))
