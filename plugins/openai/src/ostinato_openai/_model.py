"""``OpenAIChatModel``: the :class:`~ostinato.model.ChatModel` speaking Chat Completions.

It talks to OpenAI and to every server imitating it. The connection (headers, timeouts,
pool, retries, size limit, deadlines, redirects, error mapping, the read loops) is
:class:`~ostinato.http.HttpxChatModel`'s; this module writes the wire format: the body
(from cached templates), the completion and the chunk parsers, the request id and rate
limit headers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final, Unpack

import httpx

from ostinato.errors import MalformedResponseError
from ostinato.http import HttpxChatModel, ModelArguments, PayloadCache
from ostinato.model import ChatResponse
from ostinato.prompt import Prompt
from ostinato.transport import DEFAULT_LIMITS, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT, excerpt
from ostinato_openai._chunks import ChunkParser
from ostinato_openai._completion import parse_completion
from ostinato_openai._errors import REQUEST_ID_HEADERS
from ostinato_openai._errors import read_error as read_openai_error
from ostinato_openai._normalise import RATE_LIMIT_HEADERS, rate_limit
from ostinato_openai._options import OpenAIChatOptions
from ostinato_openai._request import BodyTemplate

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_LIMITS",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_TIMEOUT",
    "OpenAIChatModel",
]

#: OpenAI's API root; imitators are reached by changing it.
DEFAULT_BASE_URL: Final = "https://api.openai.com/v1"
#: How many options objects a model remembers what it derived from (see ``_Prepared``).
_PREPARED_CACHE_SIZE: Final = 64

_METADATA_HEADERS: Final = frozenset((*REQUEST_ID_HEADERS, *RATE_LIMIT_HEADERS))


class _Prepared:
    """What a model derives from one options object: the options it sends (unset fields
    filled from its defaults) and the body templates. Options are immutable, so this is
    computed once per options object — a tool loop sends the same options every round."""

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


class OpenAIChatModel(HttpxChatModel[OpenAIChatOptions]):
    """A chat model behind a Chat Completions endpoint (OpenAI or an imitator).

    Args:
        model: the default model name (shortcut for ``default_options.model``).
        default_options: the options every request starts from.
        base_url: the API root, e.g. ``http://localhost:11434/v1`` for Ollama.
        organization, project: OpenAI's ``OpenAI-Organization`` / ``OpenAI-Project``.
        provider: the name errors carry (``"openai"``).
        **connection: ``api_key`` (sent as ``Authorization: Bearer``; optional for local
            servers), ``timeout``, ``retry_policy``, ``extra_headers``, ``extra_query``,
            ``limits``, ``http_client_factory``, ``max_response_bytes``,
            ``call_deadline``, ``first_event_timeout``: see
            :class:`~ostinato.http.HttpxChatModel`.

    Raises:
        ConfigurationError: the API key holds a character an HTTP header cannot carry
            (the message does not show the key), or ``max_response_bytes`` is not positive.
    """

    provider = "openai"
    default_base_url = DEFAULT_BASE_URL
    native_structured_output = True
    path = "/chat/completions"
    read_error = staticmethod(read_openai_error)
    stream_end = "ended without [DONE]"

    def __init__(
        self,
        *,
        organization: str | None = None,
        project: str | None = None,
        **arguments: Unpack[ModelArguments[OpenAIChatOptions]],
    ) -> None:
        headers = {"openai-organization": organization, "openai-project": project}
        super().__init__(
            headers={name: value for name, value in headers.items() if value}, **arguments
        )
        self._prepared: dict[int, _Prepared] = {}
        self._payloads = PayloadCache()

    def _prepare(self, prompt: Prompt) -> _Prepared:
        options = prompt.options
        key = id(options)
        prepared = self._prepared.get(key)
        if prepared is not None and prepared.options is options:
            return prepared
        if options is None:
            sent = self._default_options
        else:
            sent = OpenAIChatOptions.from_options(options).filled_from(self._default_options)
        prepared = _Prepared(options, sent)
        cache = self._prepared
        if len(cache) >= _PREPARED_CACHE_SIZE:
            cache.clear()  # bounded: a long-lived model must not keep every options object
        cache[key] = prepared
        return prepared

    def options_for(self, prompt: Prompt) -> OpenAIChatOptions:
        """The options a request for ``prompt`` is sent with (unset fields from the defaults)."""
        return self._prepare(prompt).sent

    def request_body(self, prompt: Prompt, *, stream: bool = False) -> dict[str, Any]:
        """The JSON body this model would send for ``prompt``."""
        return self._prepare(prompt).template(stream).body(prompt, self._payloads)

    # -- the wire format ---------------------------------------------------------------

    def _metadata(self, response: httpx.Response) -> tuple[dict[str, Any], str | None]:
        # One pass over the headers: each httpx ``headers.get`` scans them all.
        wanted: dict[str, str] = {}
        for key, value in response.headers.multi_items():
            if key in _METADATA_HEADERS:
                # Repeated headers join with commas, as ``headers[key]`` does.
                wanted[key] = f"{wanted[key]}, {value}" if key in wanted else value
        if not wanted:
            return {}, None
        request_id = next((wanted[h] for h in REQUEST_ID_HEADERS if h in wanted), None)
        return rate_limit(wanted), request_id

    def _parse_reply(
        self, content: bytes, response: httpx.Response, body: Mapping[str, Any]
    ) -> ChatResponse:
        payload = self._json(content)
        if isinstance(payload, Mapping) and payload.get("error") and "choices" not in payload:
            raise self._error_in_reply(payload, response)
        limits, request_id = self._metadata(response)
        parsed = parse_completion(payload, provider=self._provider, rate_limit=limits)
        if not parsed.generations:
            raise self._no_answer(f": {excerpt(json.dumps(payload), self._redactor)}")
        if request_id is None:
            return parsed
        meta = parsed.metadata
        return parsed.copy(metadata=meta.copy(metadata={**meta.metadata, "request_id": request_id}))

    def _no_answer(self, detail: str) -> MalformedResponseError:
        """An empty reply: reported, never taken for an answer of no words."""
        return self._malformed(f"the reply from {self._url} holds no answer (no choice){detail}")

    def _stream_ended(self, answered: bool) -> None:
        if not answered:
            raise self._no_answer(": the stream ended before any choice")

    def _stream_parser(self, response: httpx.Response, body: Mapping[str, Any]) -> ChunkParser:
        limits, request_id = self._metadata(response)
        return ChunkParser(
            provider=self._provider,
            rate_limit=limits,
            secret=self._redactor,
            request_id=request_id,
        )
