"""The adapter conformance kit: one test suite every chat model adapter subclasses.

An adapter's test module subclasses :class:`ChatModelConformance` and says how to build
the adapter on an ``httpx.MockTransport`` and what its provider replies for each
:class:`Scenario`; the kit then checks, provider-neutrally, that ``call()`` and
``stream()`` turn those replies into the normalised responses and typed errors ostinato
expects: text, tool calls (single, parallel, fragmented), tool-result follow-ups, usage,
finish reasons, structured output, each error class, retries and their bounds, streams
split at any byte, truncated or broken streams, error events, call/stream agreement, and
the HTTP response closed when a stream is abandoned or cancelled::

    from ostinato.testing.conformance import CannedResponse, ChatModelConformance, Scenario

    class TestAcmeConformance(ChatModelConformance):
        provider = "acme"

        def build_model(self, transport, *, api_key, max_retries):
            return AcmeChatModel(api_key=api_key, max_retries=max_retries, sleep=no_sleep,
                                 http_client_factory=lambda: httpx.AsyncClient(transport=transport))

        def canned(self, scenario):
            ...  # CannedResponse.json(...) / CannedResponse.text(...) per scenario

        def canned_error(self, status, message, headers):
            return CannedResponse.json({"error": {"message": message}}, status=status,
                                       headers=headers)

An adapter built on :class:`~ostinato.http.HttpxChatModel` subclasses
:class:`HttpxModelConformance` and declares ``model_class`` (and ``base_url``, the live
variables' ``live_prefix``) instead of writing ``build_model`` and ``live_model``. One whose
replies come in the usual three shapes (a whole reply, a text stream, a tool-call stream)
also subclasses :class:`ReplyShapes` and writes those shapes instead of ``canned``.

The tests are ``async``: run them with pytest-asyncio (``asyncio_mode = "auto"``, or the
class-level ``asyncio`` mark they carry). This package imports httpx and pytest, so it is
not re-exported by :mod:`ostinato.testing`. See ``docs/adapters.md``.
"""

from ostinato.testing.conformance._base import ConformanceBase
from ostinato.testing.conformance._calls import CallConformance
from ostinato.testing.conformance._canned import (
    BrokenStream,
    CannedResponse,
    GatedStream,
    PiecewiseStream,
    Replay,
    Reply,
    body_strings,
    cut_at_line,
)
from ostinato.testing.conformance._failures import ErrorConformance
from ostinato.testing.conformance._httpx import HttpxModelHooks
from ostinato.testing.conformance._live import LiveConformance
from ostinato.testing.conformance._script import (
    CONFORMANCE_API_KEY,
    TIME_TOOL,
    WEATHER_TOOL,
    Expectations,
    KitTool,
    Scenario,
)
from ostinato.testing.conformance._shapes import ReplyShapes
from ostinato.testing.conformance._streams import StreamConformance

__all__ = [
    "CONFORMANCE_API_KEY",
    "TIME_TOOL",
    "WEATHER_TOOL",
    "BrokenStream",
    "CallConformance",
    "CannedResponse",
    "ChatModelConformance",
    "ConformanceBase",
    "ErrorConformance",
    "Expectations",
    "GatedStream",
    "HttpxModelConformance",
    "HttpxModelHooks",
    "KitTool",
    "LiveConformance",
    "PiecewiseStream",
    "Replay",
    "Reply",
    "ReplyShapes",
    "Scenario",
    "StreamConformance",
    "body_strings",
    "cut_at_line",
]


class ChatModelConformance(CallConformance, StreamConformance, ErrorConformance, LiveConformance):
    """Every conformance test: subclass it in the adapter's test module (name it ``Test...``).

    Implement :meth:`~ConformanceBase.build_model`, :meth:`~ConformanceBase.canned` and
    :meth:`~ConformanceBase.canned_error`; optionally
    :meth:`~ConformanceBase.structured_output_options` and
    :meth:`~ConformanceBase.live_model`; set :attr:`~ConformanceBase.provider` and, where
    the provider cannot express a fact, :attr:`~ConformanceBase.expectations`.
    """


class HttpxModelConformance(HttpxModelHooks, ChatModelConformance):
    """Every conformance test, for a model built on :class:`~ostinato.http.HttpxChatModel`.

    Declare :attr:`~HttpxModelHooks.model_class` (and :attr:`~HttpxModelHooks.base_url`,
    :attr:`~HttpxModelHooks.live_prefix`, :attr:`~HttpxModelHooks.live_model_name` where
    they apply) instead of writing :meth:`~ConformanceBase.build_model` and
    :meth:`~ConformanceBase.live_model`; the rest is as for :class:`ChatModelConformance`.
    """
