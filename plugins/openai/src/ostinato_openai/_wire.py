"""``OpenAIWireFormat``: Chat Completions apart from HTTP.

The body (from cached templates), the completion and the chunk parsers, the request id
and rate-limit headers, and the error body: what :class:`~ostinato_openai.OpenAIChatModel`
holds as its :class:`~ostinato.http.WireFormat`. Nothing here sees a connection, so it is
tested by feeding it recorded bodies.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from ostinato.http import ErrorBody, ErrorReport, PayloadCache, WireContext
from ostinato.model import ChatResponse
from ostinato.prompt import Prompt
from ostinato.transport import excerpt
from ostinato_openai._chunks import ChunkParser
from ostinato_openai._completion import parse_completion
from ostinato_openai._errors import REQUEST_ID_HEADERS, read_error
from ostinato_openai._normalise import RATE_LIMIT_HEADERS, rate_limit
from ostinato_openai._options import OpenAIChatOptions
from ostinato_openai._request import BodyTemplate

__all__ = ["OpenAIWireFormat"]

#: How many options objects a wire format remembers what it derived from (see ``_Prepared``).
_PREPARED_CACHE_SIZE: Final = 64

_METADATA_HEADERS: Final = frozenset((*REQUEST_ID_HEADERS, *RATE_LIMIT_HEADERS))


class _Prepared:
    """What a wire format derives from one options object: the options it sends (unset
    fields filled from its defaults) and the body templates. Options are immutable, so this
    is computed once per options object — a tool loop sends the same options every round."""

    __slots__ = ("options", "sent", "templates")

    def __init__(self, options: object, sent: OpenAIChatOptions) -> None:
        self.options = options  # keeps the key's object alive, so its id stays unique
        self.sent = sent
        self.templates: dict[bool, BodyTemplate] = {}

    def template(self, stream: bool) -> BodyTemplate:
        template = self.templates.get(stream)
        if template is None:
            template = self.templates[stream] = BodyTemplate(self.sent, stream=stream)
        return template


class OpenAIWireFormat:
    """The Chat Completions wire format (OpenAI and its imitators).

    Args:
        context: the provider's name, the default options, the endpoint named in errors
            and the secret masked in them.
    """

    __slots__ = ("_context", "_payloads", "_prepared")

    def __init__(self, context: WireContext[OpenAIChatOptions]) -> None:
        self._context = context
        self._prepared: dict[int, _Prepared] = {}
        self._payloads = PayloadCache()

    def _prepare(self, prompt: Prompt) -> _Prepared:
        options = prompt.options
        key = id(options)
        prepared = self._prepared.get(key)
        if prepared is not None and prepared.options is options:
            return prepared
        defaults = self._context.default_options
        if options is None:
            sent = defaults
        else:
            sent = OpenAIChatOptions.from_options(options).filled_from(defaults)
        prepared = _Prepared(options, sent)
        cache = self._prepared
        if len(cache) >= _PREPARED_CACHE_SIZE:
            cache.clear()  # bounded: a long-lived model must not keep every options object
        cache[key] = prepared
        return prepared

    def options_for(self, prompt: Prompt) -> OpenAIChatOptions:
        """The options a request for ``prompt`` is sent with (unset fields from the defaults)."""
        return self._prepare(prompt).sent

    def request_body(self, prompt: Prompt, *, stream: bool) -> dict[str, Any]:
        """The JSON body of a request for ``prompt``."""
        return self._prepare(prompt).template(stream).body(prompt, self._payloads)

    def reply(
        self, content: bytes, headers: Mapping[str, str], sent: Mapping[str, Any]
    ) -> ChatResponse:
        """The response a ``chat.completion`` body holds.

        Raises:
            ErrorBody: the body is an error object.
            MalformedResponseError: it is not JSON, not a completion, or holds no choice.
        """
        context = self._context
        payload = context.json(content)
        if isinstance(payload, Mapping) and payload.get("error") and "choices" not in payload:
            raise ErrorBody(payload)
        limits, request_id = _metadata(headers)
        parsed = parse_completion(payload, provider=context.provider, rate_limit=limits)
        if not parsed.generations:
            raise context.malformed(
                f"the reply from {context.url} holds no answer (no choice): "
                f"{excerpt(json.dumps(payload), context.secret)}"
            )
        if request_id is None:
            return parsed
        meta = parsed.metadata
        return parsed.copy(metadata=meta.copy(metadata={**meta.metadata, "request_id": request_id}))

    def stream_events(self, headers: Mapping[str, str], sent: Mapping[str, Any]) -> ChunkParser:
        """A parser of ``chat.completion.chunk`` events, ended by ``[DONE]``."""
        context = self._context
        limits, request_id = _metadata(headers)
        parser = ChunkParser(
            provider=context.provider,
            rate_limit=limits,
            secret=context.secret,
            request_id=request_id,
        )
        parser.url = context.url
        return parser

    def error(
        self,
        payload: Any,
        status: int | None,
        headers: Mapping[str, str],
        fallback: str | None,
        sent: Mapping[str, Any],
    ) -> ErrorReport:
        """What an OpenAI-style error body says (and the shapes of its imitators)."""
        return read_error(payload, status, headers, fallback)


def _metadata(headers: Mapping[str, str]) -> tuple[dict[str, Any], str | None]:
    """The rate limits and request id a reply's headers carry."""
    # One pass over the headers: each httpx ``headers.get`` scans them all.
    raw: Any = headers
    try:
        pairs = raw.multi_items()  # httpx's headers: the list as received
    except AttributeError:
        pairs = headers.items()
    wanted: dict[str, str] = {}
    for key, value in pairs:  # names in lower case, as httpx gives them
        if key in _METADATA_HEADERS:
            # Repeated headers join with commas, as ``headers[key]`` does.
            wanted[key] = f"{wanted[key]}, {value}" if key in wanted else value
    if not wanted:
        return {}, None
    request_id = next((wanted[h] for h in REQUEST_ID_HEADERS if h in wanted), None)
    return rate_limit(wanted), request_id
