"""Instrumenting clients: the advisors a client needs and the process-wide scopes (tool
calls, HTTP attempts, advisors when asked for)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from ostinato.instrumentation import add_advisor_scope, add_model_attempt_scope
from ostinato_opentelemetry._advisor_span import advisor_scope
from ostinato_opentelemetry._http_span import http_attempt_scope
from ostinato_opentelemetry._model_span import ModelCallSpanAdvisor
from ostinato_opentelemetry._settings import OpenTelemetrySettings
from ostinato_opentelemetry._telemetry import Telemetry
from ostinato_opentelemetry._turn_span import TurnSpanAdvisor

if TYPE_CHECKING:
    from ostinato.client import ChatClientBuilder

__all__ = ["instrument", "instrumentation_advisors", "uninstrument_tools"]

_lock = threading.Lock()
_removers: dict[str, Callable[[], None]] = {}


def _install_scopes(telemetry: Telemetry) -> None:
    # Each scope is installed once; it reads the settings of the turn running it.
    with _lock:
        if "attempt" not in _removers:
            _removers["attempt"] = add_model_attempt_scope(http_attempt_scope())
        if telemetry.settings.advisor_spans and "advisor" not in _removers:
            _removers["advisor"] = add_advisor_scope(advisor_scope())


def uninstrument_tools() -> None:
    """Remove the plugin's process-wide scopes: no more ``execute_tool``, HTTP attempt or
    advisor spans until a client is instrumented again."""
    with _lock:
        for remove in _removers.values():
            remove()
        _removers.clear()


def instrumentation_advisors(
    settings: OpenTelemetrySettings | None = None, *, provider_name: str | None = None
) -> tuple[TurnSpanAdvisor, ModelCallSpanAdvisor]:
    """The turn and model call advisors, sharing one :class:`Telemetry`; also installs the
    process-wide scopes tracing tool calls, HTTP attempts and (when the settings ask for
    them) advisors, in the turns of instrumented clients."""
    telemetry = Telemetry.create(settings or OpenTelemetrySettings(), provider_name)
    _install_scopes(telemetry)
    return TurnSpanAdvisor(telemetry), ModelCallSpanAdvisor(telemetry)


def instrument(
    builder: ChatClientBuilder,
    *,
    provider_name: str | None = None,
    settings: OpenTelemetrySettings | None = None,
) -> ChatClientBuilder:
    """Instrument a client built by hand: ``instrument(ChatClient.builder(model)).build()``.

    Adds the turn span and model call span advisors to ``builder`` and traces tool calls,
    HTTP attempts and, with ``advisor_spans`` on, advisors.

    Args:
        builder: the client's builder; returned, changed.
        provider_name: ``gen_ai.provider.name`` (``openai``, ``anthropic``…); default
            ``OSTINATO_OTEL_PROVIDER_NAME``, else ``ostinato``.
        settings: the plugin's settings; default read from ``OSTINATO_OTEL_*``.
    """
    return builder.default_advisors(
        *instrumentation_advisors(settings, provider_name=provider_name)
    )
