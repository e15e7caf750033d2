"""``OpenAIChatModel``: the :class:`~ostinato.model.ChatModel` speaking Chat Completions.

It talks to OpenAI and to every server imitating it. The connection (headers, timeouts,
pool, retries, size limit, deadlines, redirects, error mapping, the read loops) is
:class:`~ostinato.http.HttpxChatModel`'s; what the bytes mean is the
:class:`~ostinato_openai.OpenAIWireFormat` the model holds (the body, the completion
and chunk parsers, the request id and rate-limit headers, the error body).
"""

from __future__ import annotations

from typing import Final, Unpack

from ostinato.http import HttpxChatModel, ModelArguments
from ostinato.transport import DEFAULT_LIMITS, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT
from ostinato_openai._options import OpenAIChatOptions
from ostinato_openai._wire import OpenAIWireFormat

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_LIMITS",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_TIMEOUT",
    "OpenAIChatModel",
]

#: OpenAI's API root; imitators are reached by changing it.
DEFAULT_BASE_URL: Final = "https://api.openai.com/v1"


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
    wire_format = OpenAIWireFormat
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
