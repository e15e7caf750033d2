"""``OllamaChatModel``: the :class:`~ostinato.model.ChatModel` speaking Ollama's native chat API.

It talks to ``POST <base>/api/chat``, a local server or ollama.com. The connection
(headers, timeouts, pool, retries, size limit, deadlines, redirects, error mapping, the
read loops) is :class:`~ostinato.http.HttpxChatModel`'s; the model holds
:class:`~ostinato_ollama.OllamaWireFormat` (the body, the reply, the error body).
Streams are NDJSON whatever the content type says (ollama.com labels them
``application/json``); a call reads its reply through the same parser, so a server that
streams anyway is understood too.
"""

from __future__ import annotations

from ostinato.http import HttpxChatModel
from ostinato.transport import DEFAULT_LIMITS, DEFAULT_TIMEOUT, NDJSONFraming
from ostinato_ollama._options import OllamaChatOptions
from ostinato_ollama._settings import DEFAULT_BASE_URL
from ostinato_ollama._wire import OllamaWireFormat

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
    wire_format = OllamaWireFormat
    timeout_hint = "; loading a large model can take minutes (OSTINATO_OLLAMA_TIMEOUT)"
    connect_hint = (
        "\nfix: start the server (ollama serve) or set OSTINATO_OLLAMA_BASE_URL (or OLLAMA_HOST)"
    )
