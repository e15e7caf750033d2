"""The model contract over HTTP: a provider's API as prompts in and responses out.

This package is the line above :mod:`ostinato.transport`: what a provider's API *means*
lives here (the request body of a prompt, the response a reply holds, the typed error an
error body says, the settings and the model class that put them together); the bytes of
one exchange (clients and pools, retries, framing, body limits, decompression,
credentials) are the transport's.

* :class:`WireFormat`: a provider's API apart from HTTP, in four methods (the request
  body of a prompt, the response of a reply, the parser of a stream's events, the report
  of an error body), built from a :class:`WireContext`; testable by feeding it bodies.
* :class:`HttpxChatModel`: timeouts, pool limits, user agent, headers, the call and
  stream drivers (retries, size limit, deadlines), redirects and error mapping. It holds
  a wire format, as an httpx client holds a transport: an adapter declares its endpoint,
  its stream framing and its :attr:`~HttpxChatModel.wire_format`.
  :class:`HttpChatModelBase` is what it shares with a model on another HTTP library
  (options, URL, retries, size limit, clients, ``aclose``).
* :class:`ProviderSettings`: the connection settings every provider plugin reads from
  ``OSTINATO_<PROVIDER>_*`` (base URL, key, timeouts, retries, pool, extra headers and
  query, size limit, deadlines), and :class:`ChatProviderSettings` with them the default
  options every chat API takes (temperature, top_p, max_tokens, extra body);
  :func:`connection_arguments` turns them into the model's keyword arguments, and
  :func:`model_factory` makes an adapter's ``create_chat_model``.
* :class:`ErrorReport` and :func:`model_error`: what an adapter read in an error body,
  and the typed :class:`~ostinato.errors.ModelError` made of it.
* :class:`MessageEncoder`: the walk over a conversation, an adapter writing one method per
  message kind; :class:`PayloadCache`: each message encoded once.

Only adapters import this package: it needs httpx (``pip install ostinato[http]``), and
``import ostinato`` never imports it. Names are loaded on first access (PEP 562), so
importing a settings class does not import httpx.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ostinato._lazy import lazy_package

if TYPE_CHECKING:
    from ostinato.http._contract import Connection as Connection
    from ostinato.http._contract import EventParser as EventParser
    from ostinato.http._contract import ModelArguments as ModelArguments
    from ostinato.http._error_report import ErrorReport as ErrorReport
    from ostinato.http._error_report import json_text as json_text
    from ostinato.http._error_report import model_error as model_error
    from ostinato.http._factory import ModelFactory as ModelFactory
    from ostinato.http._factory import connection_arguments as connection_arguments
    from ostinato.http._factory import model_factory as model_factory
    from ostinato.http._message_encoder import MessageEncoder as MessageEncoder
    from ostinato.http._message_encoder import Payload as Payload
    from ostinato.http._message_encoder import PayloadCache as PayloadCache
    from ostinato.http._model import HttpxChatModel as HttpxChatModel
    from ostinato.http._model_base import HttpChatModelBase as HttpChatModelBase
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
    from ostinato.http._wire_format import ErrorBody as ErrorBody
    from ostinato.http._wire_format import WireContext as WireContext
    from ostinato.http._wire_format import WireFormat as WireFormat
else:
    __all__, __getattr__, __dir__ = lazy_package(
        __name__,
        globals(),
        {
            "ChatProviderSettings": "ostinato.http._settings",
            "Connection": "ostinato.http._contract",
            "DEFAULT_CALL_DEADLINE": "ostinato.http._settings",
            "DEFAULT_FIRST_EVENT_TIMEOUT": "ostinato.http._settings",
            "ErrorBody": "ostinato.http._wire_format",
            "ErrorReport": "ostinato.http._error_report",
            "EventParser": "ostinato.http._contract",
            "HttpChatModelBase": "ostinato.http._model_base",
            "HttpxChatModel": "ostinato.http._model",
            "MessageEncoder": "ostinato.http._message_encoder",
            "ModelArguments": "ostinato.http._contract",
            "ModelFactory": "ostinato.http._factory",
            "Payload": "ostinato.http._message_encoder",
            "PayloadCache": "ostinato.http._message_encoder",
            "ProviderSettings": "ostinato.http._settings",
            "StreamParserBase": "ostinato.http._wire",
            "WireContext": "ostinato.http._wire_format",
            "WireFormat": "ostinato.http._wire_format",
            "arguments_object": "ostinato.http._wire",
            "connection_arguments": "ostinato.http._factory",
            "error_object": "ostinato.http._wire",
            "json_text": "ostinato.http._error_report",
            "model_error": "ostinato.http._error_report",
            "model_factory": "ostinato.http._factory",
            "output_schema": "ostinato.http._wire",
            "plain": "ostinato.http._wire",
            "provider_env": "ostinato.http._settings",
            "provider_field": "ostinato.http._settings",
            "tool_schema": "ostinato.http._wire",
            "unexpected_reply": "ostinato.http._wire",
            "whole_reply": "ostinato.http._wire",
        },
    )
