"""``AnthropicWireFormat``: the Messages API apart from HTTP.

The body, the message and event parsers, the rate-limit and request-id headers and the
error body: what :class:`~ostinato_anthropic.AnthropicChatModel` holds as its
:class:`~ostinato.http.WireFormat`. Nothing here sees a connection, so it is tested by
feeding it recorded bodies.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ostinato.http import ErrorBody, ErrorReport, WireContext
from ostinato.model import ChatResponse
from ostinato.prompt import Prompt
from ostinato_anthropic._errors import read_error
from ostinato_anthropic._events import EventParser
from ostinato_anthropic._normalise import rate_limit, request_id
from ostinato_anthropic._options import AnthropicChatOptions
from ostinato_anthropic._reply import parse_message
from ostinato_anthropic._request import build_request_body

__all__ = ["AnthropicWireFormat"]


class AnthropicWireFormat:
    """The Messages API wire format.

    Args:
        context: the provider's name, the default options, the endpoint named in errors
            and the secret masked in them.
    """

    __slots__ = ("_context",)

    def __init__(self, context: WireContext[AnthropicChatOptions]) -> None:
        self._context = context

    def request_body(self, prompt: Prompt, *, stream: bool) -> dict[str, Any]:
        """The JSON body of a request for ``prompt``."""
        return build_request_body(prompt, self._context.options_for(prompt), stream=stream)

    def reply(
        self, content: bytes, headers: Mapping[str, str], sent: Mapping[str, Any]
    ) -> ChatResponse:
        """The response a ``message`` body holds.

        Raises:
            ErrorBody: the body is an error object (some gateways send one with a 2xx).
            MalformedResponseError: it is not JSON or not a message.
        """
        context = self._context
        payload = context.json(content)
        if isinstance(payload, Mapping) and payload.get("type") == "error":
            raise ErrorBody(payload)
        return parse_message(
            payload,
            provider=context.provider,
            rate_limit=rate_limit(headers),
            request_id=request_id(headers),
        )

    def stream_events(self, headers: Mapping[str, str], sent: Mapping[str, Any]) -> EventParser:
        """A parser of the stream's events, ended by ``message_stop``."""
        return EventParser(
            provider=self._context.provider,
            rate_limit=rate_limit(headers),
            secret=self._context.secret,
            request_id=request_id(headers),
        )

    def error(
        self,
        payload: Any,
        status: int | None,
        headers: Mapping[str, str],
        fallback: str | None,
        sent: Mapping[str, Any],
    ) -> ErrorReport:
        """What an Anthropic error body says (``{"type": "error", "error": {...}}``)."""
        return read_error(payload, status, headers, fallback)
