"""Bytes on the wire: one HTTP exchange, from the request's bytes to the reply's, and
nothing of the model contract (no prompts, no responses, no provider's JSON).

This package is the line below :mod:`ostinato.http`: what moves, frames, bounds and
retries bytes lives here; what a provider's API *means* (the request body of a prompt,
the response a reply holds, the typed error an error body says) lives there.

* Streams: :class:`SSEDecoder` turns a byte stream into :class:`ServerSentEvent` s
  (OpenAI, Anthropic and their imitators), :class:`NDJSONDecoder` into JSON values
  (Ollama); both take bytes split anywhere. :class:`SSEFraming` and
  :class:`NDJSONFraming` (the :class:`Framing` protocol) put a stream's bytes through one
  of them, a line that is not JSON named with its secret masked.
* Retries: :class:`RetryPolicy` (exponential backoff with jitter, bounded in count and
  total time, honouring a server's wait; sleep, clock and randomness injectable) with
  :func:`is_retryable` and :func:`parse_retry_after`; :func:`retry_call` and
  :func:`retry_stream` run a request's attempts under it (a stream never retried once it
  delivered).
* Failures: :func:`error_class_for_status` and :func:`redact` (the same status gives the
  same :class:`~ostinato.errors.ModelError` in every adapter, and never a secret);
  :func:`error_from_transport`, :func:`error_payload` and :func:`redirect_error` (a failed
  exchange, an error body's bytes and a 3xx as typed errors).
* Bodies: :class:`ByteBudget`, :func:`read_body` and :func:`read_error_body` (a reply read
  in pieces and refused past ``max_response_bytes`` instead of held whole);
  :func:`decompressed` undoes gzip/deflate in bounded pieces, so the limit bounds memory.
* Credentials and URLs: :func:`header_api_key` (an API key checked before it goes into a
  header: a stray newline would otherwise put the key into the HTTP library's error
  message), :func:`split_userinfo` (a URL's ``user:password@`` sent as a header, not in
  the URL), :func:`check_base_url`. Masking itself is :mod:`ostinato.redaction`.
* Clients: :class:`LoopClients` (one HTTP client per running event loop);
  :func:`make_client` with :data:`DEFAULT_TIMEOUT` and :data:`DEFAULT_LIMITS` (httpx
  clients sized for models, on :class:`LinearConnectionPool` or aiohttp's connector).

Names are loaded on first access (PEP 562): only :func:`make_client`,
:class:`LinearConnectionPool`, the ``DEFAULT_*`` client settings and the ``*_error`` /
``error_*`` helpers import httpx, so the rest serves an adapter on another HTTP library and
``import ostinato`` stays light. See ``docs/adapters.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ostinato._lazy import lazy_exports

if TYPE_CHECKING:
    from ostinato.transport._attempts import (
        AttemptFailed,
        raise_model_error,
        retry_call,
        retry_stream,
    )
    from ostinato.transport._base_url import check_base_url
    from ostinato.transport._body_limit import (
        DEFAULT_MAX_RESPONSE_BYTES,
        ERROR_BODY_BYTES,
        ByteBudget,
        check_max_response_bytes,
        read_body,
        read_error_body,
    )
    from ostinato.transport._client import (
        DEFAULT_LIMITS,
        DEFAULT_TIMEOUT,
        httpx_timeout,
        make_client,
    )
    from ostinato.transport._credentials import (
        SecretLike,
        header_api_key,
        header_value,
        split_userinfo,
    )
    from ostinato.transport._decompress import (
        DECOMPRESSED_PIECE_BYTES,
        can_decompress,
        decompressed,
    )
    from ostinato.transport._errors import (
        error_from_transport,
        error_payload,
        reason_phrase,
        redirect_error,
    )
    from ostinato.transport._framing import Framing, NDJSONFraming, SSEFraming
    from ostinato.transport._loop_clients import AsyncClosable, LoopClients
    from ostinato.transport._ndjson import NDJSONDecoder, NDJSONError
    from ostinato.transport._pool import LinearConnectionPool, use_linear_pool
    from ostinato.transport._retry import RetryPolicy, RetryState, is_retryable
    from ostinato.transport._retry_after import parse_retry_after
    from ostinato.transport._sse import ServerSentEvent, SSEDecoder
    from ostinato.transport._status import error_class_for_status, excerpt, redact

__all__ = [
    "DECOMPRESSED_PIECE_BYTES",
    "DEFAULT_LIMITS",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_TIMEOUT",
    "ERROR_BODY_BYTES",
    "AsyncClosable",
    "AttemptFailed",
    "ByteBudget",
    "Framing",
    "LinearConnectionPool",
    "LoopClients",
    "NDJSONDecoder",
    "NDJSONError",
    "NDJSONFraming",
    "RetryPolicy",
    "RetryState",
    "SSEDecoder",
    "SSEFraming",
    "SecretLike",
    "ServerSentEvent",
    "can_decompress",
    "check_base_url",
    "check_max_response_bytes",
    "decompressed",
    "error_class_for_status",
    "error_from_transport",
    "error_payload",
    "excerpt",
    "header_api_key",
    "header_value",
    "httpx_timeout",
    "is_retryable",
    "make_client",
    "parse_retry_after",
    "raise_model_error",
    "read_body",
    "read_error_body",
    "reason_phrase",
    "redact",
    "redirect_error",
    "retry_call",
    "retry_stream",
    "split_userinfo",
    "use_linear_pool",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "DECOMPRESSED_PIECE_BYTES": "ostinato.transport._decompress",
        "DEFAULT_LIMITS": "ostinato.transport._client",
        "DEFAULT_MAX_RESPONSE_BYTES": "ostinato.transport._body_limit",
        "DEFAULT_TIMEOUT": "ostinato.transport._client",
        "ERROR_BODY_BYTES": "ostinato.transport._body_limit",
        "AsyncClosable": "ostinato.transport._loop_clients",
        "AttemptFailed": "ostinato.transport._attempts",
        "ByteBudget": "ostinato.transport._body_limit",
        "Framing": "ostinato.transport._framing",
        "LinearConnectionPool": "ostinato.transport._pool",
        "LoopClients": "ostinato.transport._loop_clients",
        "NDJSONDecoder": "ostinato.transport._ndjson",
        "NDJSONError": "ostinato.transport._ndjson",
        "NDJSONFraming": "ostinato.transport._framing",
        "RetryPolicy": "ostinato.transport._retry",
        "RetryState": "ostinato.transport._retry",
        "SSEDecoder": "ostinato.transport._sse",
        "SSEFraming": "ostinato.transport._framing",
        "SecretLike": "ostinato.transport._credentials",
        "ServerSentEvent": "ostinato.transport._sse",
        "can_decompress": "ostinato.transport._decompress",
        "check_base_url": "ostinato.transport._base_url",
        "check_max_response_bytes": "ostinato.transport._body_limit",
        "decompressed": "ostinato.transport._decompress",
        "error_class_for_status": "ostinato.transport._status",
        "error_from_transport": "ostinato.transport._errors",
        "error_payload": "ostinato.transport._errors",
        "excerpt": "ostinato.transport._status",
        "header_api_key": "ostinato.transport._credentials",
        "header_value": "ostinato.transport._credentials",
        "httpx_timeout": "ostinato.transport._client",
        "is_retryable": "ostinato.transport._retry",
        "make_client": "ostinato.transport._client",
        "parse_retry_after": "ostinato.transport._retry_after",
        "raise_model_error": "ostinato.transport._attempts",
        "read_body": "ostinato.transport._body_limit",
        "read_error_body": "ostinato.transport._body_limit",
        "reason_phrase": "ostinato.transport._errors",
        "redact": "ostinato.transport._status",
        "redirect_error": "ostinato.transport._errors",
        "retry_call": "ostinato.transport._attempts",
        "retry_stream": "ostinato.transport._attempts",
        "split_userinfo": "ostinato.transport._credentials",
        "use_linear_pool": "ostinato.transport._pool",
    },
)
