"""``AnthropicChatModel``: the :class:`~ostinato.model.ChatModel` speaking the Messages API.

It talks to ``POST <base>/v1/messages``. The connection (headers, timeouts, pool,
retries with ``x-should-retry`` and ``retry-after`` honoured, size limit, deadlines,
redirects, error mapping, the read loops) is :class:`~ostinato.http.HttpxChatModel`'s;
this module writes the ``x-api-key``, ``anthropic-version`` and ``anthropic-beta``
headers, and the model holds :class:`~ostinato_anthropic.AnthropicWireFormat` (the
body, the message and event parsers, the error body).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Unpack

from ostinato.http import HttpxChatModel, ModelArguments
from ostinato.prompt import Prompt
from ostinato.transport import DEFAULT_LIMITS, DEFAULT_TIMEOUT
from ostinato_anthropic._options import AnthropicChatOptions
from ostinato_anthropic._settings import DEFAULT_API_VERSION, DEFAULT_BASE_URL
from ostinato_anthropic._wire import AnthropicWireFormat

__all__ = ["DEFAULT_LIMITS", "DEFAULT_TIMEOUT", "AnthropicChatModel"]


class AnthropicChatModel(HttpxChatModel[AnthropicChatOptions]):
    """A Claude model behind the Messages API.

    Args:
        model: the default model name (shortcut for ``default_options.model``).
        default_options: the options every request starts from.
        base_url: the API root (``https://api.anthropic.com``; a trailing ``/v1`` is
            allowed); requests go to ``<base>/v1/messages``.
        api_version: the ``anthropic-version`` header.
        betas: beta features for the ``anthropic-beta`` header of every request (a
            request's ``AnthropicChatOptions.betas`` are added).
        provider: the name errors carry (``"anthropic"``).
        **connection: ``api_key`` (sent as ``x-api-key``), ``timeout``, ``retry_policy``,
            ``extra_headers``, ``extra_query``, ``limits``, ``http_client_factory``,
            ``max_response_bytes``, ``call_deadline``, ``first_event_timeout``: see
            :class:`~ostinato.http.HttpxChatModel`.
    """

    provider = "anthropic"
    default_base_url = DEFAULT_BASE_URL
    native_structured_output = True
    path = "/v1/messages"
    wire_format = AnthropicWireFormat
    stream_end = "ended without message_stop"

    def __init__(
        self,
        *,
        api_version: str = DEFAULT_API_VERSION,
        betas: Iterable[str] = (),
        **arguments: Unpack[ModelArguments[AnthropicChatOptions]],
    ) -> None:
        self._betas = tuple(betas)
        base_url = arguments.get("base_url") or DEFAULT_BASE_URL
        arguments["base_url"] = base_url.rstrip("/").removesuffix("/v1")
        super().__init__(headers={"anthropic-version": api_version}, **arguments)

    def _auth_headers(self, api_key: str) -> dict[str, str]:
        return {"x-api-key": api_key}

    def _request_headers(self, prompt: Prompt, *, stream: bool) -> Mapping[str, str]:
        headers = super()._request_headers(prompt, stream=stream)
        betas = list(dict.fromkeys((*self._betas, *(self.options_for(prompt).betas or ()))))
        return {**headers, "anthropic-beta": ",".join(betas)} if betas else headers
