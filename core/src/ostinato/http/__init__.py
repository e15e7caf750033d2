"""The httpx base of the HTTP chat model adapters: a provider plugin writes its wire format only.

* :class:`HttpxChatModel`: timeouts, pool limits, user agent, headers, the call and
  stream drivers (retries, size limit, deadlines), redirects and error mapping. An adapter
  subclasses it and writes its request body, its reply and stream-event parsers and how
  it reads an error body.
* :class:`ProviderSettings`: the connection settings every provider plugin reads from
  ``OSTINATO_<PROVIDER>_*`` (base URL, key, timeouts, retries, pool, extra headers and
  query, size limit, deadlines); :func:`connection_arguments` turns them into the model's
  keyword arguments.
* :func:`error_from_transport`, :func:`error_payload`, :func:`redirect_error`: a failed
  exchange, an error body and a 3xx as typed :class:`~ostinato.errors.ModelError` s.
* :func:`check_base_url`: a base URL refused early, with what was expected.

Only adapters import this package: it needs httpx (``pip install ostinato[http]``), and
``import ostinato`` never imports it. Names are loaded on first access (PEP 562), so
importing a settings class does not import httpx.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ostinato.http._base_url import check_base_url
    from ostinato.http._client import (
        DEFAULT_LIMITS,
        DEFAULT_TIMEOUT,
        httpx_timeout,
        make_client,
    )
    from ostinato.http._contract import Connection, EventParser
    from ostinato.http._error_report import ErrorReport, json_text, model_error
    from ostinato.http._errors import (
        error_from_transport,
        error_payload,
        reason_phrase,
        redirect_error,
    )
    from ostinato.http._factory import connection_arguments
    from ostinato.http._framing import Framing, NDJSONFraming, SSEFraming
    from ostinato.http._model import HttpxChatModel
    from ostinato.http._pool import LinearConnectionPool, use_linear_pool
    from ostinato.http._settings import (
        DEFAULT_CALL_DEADLINE,
        DEFAULT_FIRST_EVENT_TIMEOUT,
        ProviderSettings,
        provider_env,
    )
    from ostinato.http._wire import (
        StreamParserBase,
        arguments_object,
        error_object,
        plain,
        tool_schema,
        unexpected_reply,
    )

__all__ = [
    "DEFAULT_CALL_DEADLINE",
    "DEFAULT_FIRST_EVENT_TIMEOUT",
    "DEFAULT_LIMITS",
    "DEFAULT_TIMEOUT",
    "Connection",
    "ErrorReport",
    "EventParser",
    "Framing",
    "HttpxChatModel",
    "LinearConnectionPool",
    "NDJSONFraming",
    "ProviderSettings",
    "SSEFraming",
    "StreamParserBase",
    "arguments_object",
    "check_base_url",
    "connection_arguments",
    "error_from_transport",
    "error_object",
    "error_payload",
    "httpx_timeout",
    "json_text",
    "make_client",
    "model_error",
    "plain",
    "provider_env",
    "reason_phrase",
    "redirect_error",
    "tool_schema",
    "unexpected_reply",
    "use_linear_pool",
]

_LAZY = {
    "DEFAULT_CALL_DEADLINE": "_settings",
    "DEFAULT_FIRST_EVENT_TIMEOUT": "_settings",
    "DEFAULT_LIMITS": "_client",
    "DEFAULT_TIMEOUT": "_client",
    "Connection": "_contract",
    "ErrorReport": "_error_report",
    "EventParser": "_contract",
    "Framing": "_framing",
    "HttpxChatModel": "_model",
    "LinearConnectionPool": "_pool",
    "NDJSONFraming": "_framing",
    "ProviderSettings": "_settings",
    "SSEFraming": "_framing",
    "StreamParserBase": "_wire",
    "arguments_object": "_wire",
    "error_object": "_wire",
    "plain": "_wire",
    "tool_schema": "_wire",
    "unexpected_reply": "_wire",
    "check_base_url": "_base_url",
    "connection_arguments": "_factory",
    "error_from_transport": "_errors",
    "error_payload": "_errors",
    "httpx_timeout": "_client",
    "json_text": "_error_report",
    "model_error": "_error_report",
    "make_client": "_client",
    "provider_env": "_settings",
    "reason_phrase": "_errors",
    "redirect_error": "_errors",
    "use_linear_pool": "_pool",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ostinato.http' has no attribute {name!r}")
    value = getattr(import_module(f"ostinato.http.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
