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
  :func:`prefer_server_engine`: aiohttp for a long-running server when it is installed.

Names are loaded on first access (PEP 562): only :func:`make_client`,
:class:`LinearConnectionPool`, the ``DEFAULT_*`` client settings and the ``*_error`` /
``error_*`` helpers import httpx, so the rest serves an adapter on another HTTP library and
``import ostinato`` stays light. See ``docs/adapters.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ostinato._lazy import lazy_package

if TYPE_CHECKING:
    from ostinato.transport._attempts import AttemptFailed as AttemptFailed
    from ostinato.transport._attempts import raise_model_error as raise_model_error
    from ostinato.transport._attempts import retry_call as retry_call
    from ostinato.transport._attempts import retry_stream as retry_stream
    from ostinato.transport._base_url import check_base_url as check_base_url
    from ostinato.transport._body_limit import (
        DEFAULT_MAX_RESPONSE_BYTES as DEFAULT_MAX_RESPONSE_BYTES,
    )
    from ostinato.transport._body_limit import ERROR_BODY_BYTES as ERROR_BODY_BYTES
    from ostinato.transport._body_limit import ByteBudget as ByteBudget
    from ostinato.transport._body_limit import check_max_response_bytes as check_max_response_bytes
    from ostinato.transport._body_limit import read_body as read_body
    from ostinato.transport._body_limit import read_error_body as read_error_body
    from ostinato.transport._client import DEFAULT_LIMITS as DEFAULT_LIMITS
    from ostinato.transport._client import DEFAULT_TIMEOUT as DEFAULT_TIMEOUT
    from ostinato.transport._client import httpx_timeout as httpx_timeout
    from ostinato.transport._client import make_client as make_client
    from ostinato.transport._credentials import SecretLike as SecretLike
    from ostinato.transport._credentials import header_api_key as header_api_key
    from ostinato.transport._credentials import header_value as header_value
    from ostinato.transport._credentials import split_userinfo as split_userinfo
    from ostinato.transport._decompress import DECOMPRESSED_PIECE_BYTES as DECOMPRESSED_PIECE_BYTES
    from ostinato.transport._decompress import can_decompress as can_decompress
    from ostinato.transport._decompress import decompressed as decompressed
    from ostinato.transport._engine import prefer_server_engine as prefer_server_engine
    from ostinato.transport._errors import error_from_transport as error_from_transport
    from ostinato.transport._errors import error_payload as error_payload
    from ostinato.transport._errors import reason_phrase as reason_phrase
    from ostinato.transport._errors import redirect_error as redirect_error
    from ostinato.transport._framing import Framing as Framing
    from ostinato.transport._framing import NDJSONFraming as NDJSONFraming
    from ostinato.transport._framing import SSEFraming as SSEFraming
    from ostinato.transport._loop_clients import AsyncClosable as AsyncClosable
    from ostinato.transport._loop_clients import LoopClients as LoopClients
    from ostinato.transport._ndjson import NDJSONDecoder as NDJSONDecoder
    from ostinato.transport._ndjson import NDJSONError as NDJSONError
    from ostinato.transport._pool import LinearConnectionPool as LinearConnectionPool
    from ostinato.transport._pool import use_linear_pool as use_linear_pool
    from ostinato.transport._retry import RetryPolicy as RetryPolicy
    from ostinato.transport._retry import RetryState as RetryState
    from ostinato.transport._retry import is_retryable as is_retryable
    from ostinato.transport._retry_after import parse_retry_after as parse_retry_after
    from ostinato.transport._sse import ServerSentEvent as ServerSentEvent
    from ostinato.transport._sse import SSEDecoder as SSEDecoder
    from ostinato.transport._status import error_class_for_status as error_class_for_status
    from ostinato.transport._status import excerpt as excerpt
    from ostinato.transport._status import redact as redact
else:
    __all__, __getattr__, __dir__ = lazy_package(
        __name__,
        globals(),
        {
            "AsyncClosable": "ostinato.transport._loop_clients",
            "AttemptFailed": "ostinato.transport._attempts",
            "ByteBudget": "ostinato.transport._body_limit",
            "DECOMPRESSED_PIECE_BYTES": "ostinato.transport._decompress",
            "DEFAULT_LIMITS": "ostinato.transport._client",
            "DEFAULT_MAX_RESPONSE_BYTES": "ostinato.transport._body_limit",
            "DEFAULT_TIMEOUT": "ostinato.transport._client",
            "ERROR_BODY_BYTES": "ostinato.transport._body_limit",
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
            "prefer_server_engine": "ostinato.transport._engine",
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
