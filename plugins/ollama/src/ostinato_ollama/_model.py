"""``OllamaChatModel``: the :class:`~ostinato.model.ChatModel` speaking Ollama's native chat API.

It talks to ``POST <base>/api/chat``, a local server or ollama.com. The connection
(headers, timeouts, pool, retries, size limit, deadlines, redirects, error mapping, the
read loops) is :class:`~ostinato.http.HttpxChatModel`'s; this module writes the wire
format. Streams are NDJSON whatever the content type says (ollama.com labels them
``application/json``); a call reads its reply through the same parser, so a server that
streams anyway is understood too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from ostinato.http import ErrorReport, HttpxChatModel
from ostinato.model import ChatResponse, MessageAggregator
from ostinato.prompt import Prompt
from ostinato.transport import (
    DEFAULT_LIMITS,
    DEFAULT_TIMEOUT,
    NDJSONDecoder,
    NDJSONError,
    NDJSONFraming,
)
from ostinato_ollama._errors import read_error as read_ollama_error
from ostinato_ollama._options import OllamaChatOptions
from ostinato_ollama._reply import ReplyParser
from ostinato_ollama._request import build_request_body
from ostinato_ollama._settings import DEFAULT_BASE_URL

__all__ = ["DEFAULT_LIMITS", "DEFAULT_TIMEOUT", "OllamaChatModel"]


class OllamaChatModel(HttpxChatModel[OllamaChatOptions]):
    """A model served by Ollama, through its native ``/api/chat``.

    Args:
        model: the default model name (shortcut for ``default_options.model``).
        default_options: the options every request starts from.
        base_url: the server's root (``http://localhost:11434``, ``https://ollama.com``);
            requests go to ``<base>/api/chat``.
        provider: the name errors carry (``"ollama"``).
        **connection: ``api_key`` (sent as ``Authorization: Bearer`` for ollama.com; a
            local server needs none), ``timeout``, ``retry_policy``, ``extra_headers``,
            ``extra_query``, ``limits``, ``http_client_factory``, ``max_response_bytes``,
            ``call_deadline``, ``first_event_timeout``: see
            :class:`~ostinato.http.HttpxChatModel`.
    """

    provider = "ollama"
    default_base_url = DEFAULT_BASE_URL
    native_structured_output = True
    path = "/api/chat"
    stream_format = NDJSONFraming
    stream_accept = "application/x-ndjson"
    stream_end = "ended before its final object (done: true)"
    read_error = staticmethod(read_ollama_error)
    timeout_hint = "; loading a large model can take minutes (OSTINATO_OLLAMA_TIMEOUT)"
    connect_hint = (
        "\nfix: start the server (ollama serve) or set OSTINATO_OLLAMA_BASE_URL (or OLLAMA_HOST)"
    )

    def request_body(self, prompt: Prompt, *, stream: bool = False) -> dict[str, Any]:
        """The JSON body this model would send for ``prompt``."""
        return build_request_body(prompt, self.options_for(prompt), stream=stream)

    # -- the wire format ---------------------------------------------------------------

    def _stream_parser(self, response: httpx.Response, body: Mapping[str, Any]) -> ReplyParser:
        return ReplyParser(provider=self._provider, model=body.get("model"), secret=self._redactor)

    def _parse_reply(
        self, content: bytes, response: httpx.Response, body: Mapping[str, Any]
    ) -> ChatResponse:
        parser = self._stream_parser(response, body)
        aggregator = MessageAggregator()
        decoder = NDJSONDecoder()
        try:
            for obj in decoder.feed(content) + decoder.close():
                chunk = parser.event(obj)
                if chunk is not None:
                    aggregator.add(chunk)
        except NDJSONError as exc:
            raise self._not_json(exc.line) from None
        if not parser.done:
            raise self._malformed("the reply ended before its final object (done: true)")
        return aggregator.result()

    def _read_error(
        self,
        payload: Any,
        status: int | None,
        headers: Mapping[str, str],
        fallback: str | None,
        body: Mapping[str, Any],
    ) -> ErrorReport:
        return read_ollama_error(payload, status, headers, fallback, body.get("model"))
