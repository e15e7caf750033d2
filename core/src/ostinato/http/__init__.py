"""The httpx base of the HTTP chat model adapters: a provider plugin writes its wire format only.

* :class:`HttpxChatModel`: timeouts, pool limits, user agent, headers, the call and
  stream drivers (retries, size limit, deadlines), redirects and error mapping. An adapter
  subclasses it and writes its request body, its reply and stream-event parsers and how
  it reads an error body.
* :class:`ProviderSettings`: the connection settings every provider plugin reads from
  ``OSTINATO_<PROVIDER>_*`` (base URL, key, timeouts, retries, pool, extra headers and
  query, size limit, deadlines), and :class:`ChatProviderSettings` with them the default
  options every chat API takes (temperature, top_p, max_tokens, extra body);
  :func:`connection_arguments` turns them into the model's keyword arguments, and
  :func:`model_factory` makes an adapter's ``create_chat_model``.
* :func:`error_from_transport`, :func:`error_payload`, :func:`redirect_error`: a failed
  exchange, an error body and a 3xx as typed :class:`~ostinato.errors.ModelError` s.
* :class:`MessageEncoder`: the walk over a conversation, an adapter writing one method per
  message kind; :class:`PayloadCache`: each message encoded once.
* :func:`check_base_url`: a base URL refused early, with what was expected.

Only adapters import this package: it needs httpx (``pip install ostinato[http]``), and
``import ostinato`` never imports it. Names are loaded on first access (PEP 562), so
importing a settings class does not import httpx.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ostinato._lazy import lazy_package

if TYPE_CHECKING:
    from ostinato.http._base_url import check_base_url as check_base_url
    from ostinato.http._client import DEFAULT_LIMITS as DEFAULT_LIMITS
    from ostinato.http._client import DEFAULT_TIMEOUT as DEFAULT_TIMEOUT
    from ostinato.http._client import httpx_timeout as httpx_timeout
    from ostinato.http._client import make_client as make_client
    from ostinato.http._contract import Connection as Connection
    from ostinato.http._contract import EventParser as EventParser
    from ostinato.http._contract import ModelArguments as ModelArguments
    from ostinato.http._error_report import ErrorReport as ErrorReport
    from ostinato.http._error_report import json_text as json_text
    from ostinato.http._error_report import model_error as model_error
    from ostinato.http._errors import error_from_transport as error_from_transport
    from ostinato.http._errors import error_payload as error_payload
    from ostinato.http._errors import reason_phrase as reason_phrase
    from ostinato.http._errors import redirect_error as redirect_error
    from ostinato.http._factory import ModelFactory as ModelFactory
    from ostinato.http._factory import connection_arguments as connection_arguments
    from ostinato.http._factory import model_factory as model_factory
    from ostinato.http._framing import Framing as Framing
    from ostinato.http._framing import NDJSONFraming as NDJSONFraming
    from ostinato.http._framing import SSEFraming as SSEFraming
    from ostinato.http._message_encoder import MessageEncoder as MessageEncoder
    from ostinato.http._message_encoder import Payload as Payload
    from ostinato.http._message_encoder import PayloadCache as PayloadCache
    from ostinato.http._model import HttpxChatModel as HttpxChatModel
    from ostinato.http._pool import LinearConnectionPool as LinearConnectionPool
    from ostinato.http._pool import use_linear_pool as use_linear_pool
    from ostinato.http._settings import DEFAULT_CALL_DEADLINE as DEFAULT_CALL_DEADLINE
    from ostinato.http._settings import DEFAULT_FIRST_EVENT_TIMEOUT as DEFAULT_FIRST_EVENT_TIMEOUT
    from ostinato.http._settings import ChatProviderSettings as ChatProviderSettings
    from ostinato.http._settings import ProviderSettings as ProviderSettings
    from ostinato.http._settings import provider_env as provider_env
    from ostinato.http._settings import provider_field as provider_field
    from ostinato.http._wire import StreamParserBase as StreamParserBase
    from ostinato.http._wire import arguments_object as arguments_object
    from ostinato.http._wire import error_object as error_object
    from ostinato.http._wire import output_schema as output_schema
    from ostinato.http._wire import plain as plain
    from ostinato.http._wire import tool_schema as tool_schema
    from ostinato.http._wire import unexpected_reply as unexpected_reply
    from ostinato.http._wire import whole_reply as whole_reply
else:
    __all__, __getattr__, __dir__ = lazy_package(
        __name__,
        globals(),
        {
            "DEFAULT_CALL_DEADLINE": "ostinato.http._settings",
            "DEFAULT_FIRST_EVENT_TIMEOUT": "ostinato.http._settings",
            "DEFAULT_LIMITS": "ostinato.http._client",
            "DEFAULT_TIMEOUT": "ostinato.http._client",
            "ChatProviderSettings": "ostinato.http._settings",
            "Connection": "ostinato.http._contract",
            "ErrorReport": "ostinato.http._error_report",
            "EventParser": "ostinato.http._contract",
            "Framing": "ostinato.http._framing",
            "HttpxChatModel": "ostinato.http._model",
            "LinearConnectionPool": "ostinato.http._pool",
            "MessageEncoder": "ostinato.http._message_encoder",
            "ModelArguments": "ostinato.http._contract",
            "ModelFactory": "ostinato.http._factory",
            "NDJSONFraming": "ostinato.http._framing",
            "Payload": "ostinato.http._message_encoder",
            "PayloadCache": "ostinato.http._message_encoder",
            "ProviderSettings": "ostinato.http._settings",
            "SSEFraming": "ostinato.http._framing",
            "StreamParserBase": "ostinato.http._wire",
            "arguments_object": "ostinato.http._wire",
            "error_object": "ostinato.http._wire",
            "output_schema": "ostinato.http._wire",
            "plain": "ostinato.http._wire",
            "tool_schema": "ostinato.http._wire",
            "unexpected_reply": "ostinato.http._wire",
            "check_base_url": "ostinato.http._base_url",
            "connection_arguments": "ostinato.http._factory",
            "error_from_transport": "ostinato.http._errors",
            "error_payload": "ostinato.http._errors",
            "httpx_timeout": "ostinato.http._client",
            "json_text": "ostinato.http._error_report",
            "model_error": "ostinato.http._error_report",
            "make_client": "ostinato.http._client",
            "model_factory": "ostinato.http._factory",
            "provider_env": "ostinato.http._settings",
            "provider_field": "ostinato.http._settings",
            "reason_phrase": "ostinato.http._errors",
            "redirect_error": "ostinato.http._errors",
            "use_linear_pool": "ostinato.http._pool",
            "whole_reply": "ostinato.http._wire",
        },
    )
