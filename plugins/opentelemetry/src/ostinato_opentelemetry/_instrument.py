"""Instrumenting clients: the advisors a client needs and the process-wide tool scope."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from ostinato.instrumentation import add_tool_scope
from ostinato_opentelemetry._model_span import ModelCallSpanAdvisor
from ostinato_opentelemetry._settings import OpenTelemetrySettings
from ostinato_opentelemetry._telemetry import Telemetry
from ostinato_opentelemetry._tool_span import tool_scope
from ostinato_opentelemetry._turn_span import TurnSpanAdvisor

if TYPE_CHECKING:
    from ostinato.client import ChatClientBuilder

__all__ = ["instrument", "instrumentation_advisors", "uninstrument_tools"]

_lock = threading.Lock()
_remove_tool_scope: list[object] = []


def _install_tool_scope(telemetry: Telemetry) -> None:
    with _lock:
        if not _remove_tool_scope:
            _remove_tool_scope.append(add_tool_scope(tool_scope(telemetry)))


def uninstrument_tools() -> None:
    """Stop opening ``execute_tool`` spans (tool calls are traced process-wide)."""
    with _lock:
        while _remove_tool_scope:
            remove = _remove_tool_scope.pop()
            if callable(remove):
                remove()


def instrumentation_advisors(
    settings: OpenTelemetrySettings | None = None, *, provider_name: str | None = None
) -> tuple[TurnSpanAdvisor, ModelCallSpanAdvisor]:
    """The turn and model call advisors, sharing one :class:`Telemetry`; also starts
    tracing tool calls (process-wide, once: the first settings decide content capture)."""
    telemetry = Telemetry.create(settings or OpenTelemetrySettings(), provider_name)
    _install_tool_scope(telemetry)
    return TurnSpanAdvisor(telemetry), ModelCallSpanAdvisor(telemetry)


def instrument(
    builder: ChatClientBuilder,
    *,
    provider_name: str | None = None,
    settings: OpenTelemetrySettings | None = None,
) -> ChatClientBuilder:
    """Instrument a client built by hand: ``instrument(ChatClient.builder(model)).build()``.

    Adds the turn span and model call span advisors to ``builder`` and traces tool calls.

    Args:
        builder: the client's builder; returned, changed.
        provider_name: ``gen_ai.provider.name`` (``openai``, ``anthropic``…); default
            ``OSTINATO_OTEL_PROVIDER_NAME``, else ``ostinato``.
        settings: the plugin's settings; default read from ``OSTINATO_OTEL_*``.
    """
    return builder.default_advisors(
        *instrumentation_advisors(settings, provider_name=provider_name)
    )
