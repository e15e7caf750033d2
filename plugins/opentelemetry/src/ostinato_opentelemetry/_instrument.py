"""Instrumenting clients: the turn advisor and the unit wrappers a client needs, and the
process-wide scopes (HTTP attempts, advisors when asked for)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from ostinato.instrumentation import add_advisor_scope, add_model_attempt_scope
from ostinato_opentelemetry._advisor_span import advisor_scope
from ostinato_opentelemetry._http_span import http_attempt_scope
from ostinato_opentelemetry._model_span import model_call_wrapper
from ostinato_opentelemetry._settings import OpenTelemetrySettings
from ostinato_opentelemetry._telemetry import Telemetry
from ostinato_opentelemetry._tool_span import tool_call_wrapper
from ostinato_opentelemetry._turn_span import TurnSpanAdvisor

if TYPE_CHECKING:
    from ostinato.client import ChatClientBuilder
    from ostinato.units import UnitWrapper

__all__ = [
    "instrument",
    "instrumentation_advisors",
    "instrumentation_wrappers",
    "uninstrument_tools",
    "wrappers_of",
]

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
    """Remove the plugin's process-wide scopes: no more HTTP attempt or advisor spans
    until a client is instrumented again. (Tool call and model call spans come from the
    unit wrappers of each instrumented client, and end with it.)"""
    with _lock:
        for remove in _removers.values():
            remove()
        _removers.clear()


def wrappers_of(telemetry: Telemetry) -> tuple[UnitWrapper, UnitWrapper]:
    """The model round and tool call wrappers recording to ``telemetry``; installs the
    process-wide HTTP attempt (and advisor) scopes."""
    _install_scopes(telemetry)
    return model_call_wrapper(telemetry), tool_call_wrapper(telemetry)


def instrumentation_advisors(
    settings: OpenTelemetrySettings | None = None, *, provider_name: str | None = None
) -> tuple[TurnSpanAdvisor]:
    """The turn span advisor (``invoke_agent``); also installs the process-wide scopes
    tracing HTTP attempts and (when the settings ask for them) advisors.

    The ``chat`` and ``execute_tool`` spans are unit wrappers now
    (:func:`instrumentation_wrappers`): add both to a client, or use :func:`instrument`.
    """
    telemetry = Telemetry.create(settings or OpenTelemetrySettings(), provider_name)
    _install_scopes(telemetry)
    return (TurnSpanAdvisor(telemetry),)


def instrumentation_wrappers(
    settings: OpenTelemetrySettings | None = None, *, provider_name: str | None = None
) -> tuple[UnitWrapper, UnitWrapper]:
    """The unit wrappers of a client's stack (``ChatClientBuilder.unit_wrappers``): the
    ``chat`` span of each model round (call and stream, with the GenAI client metrics)
    and the ``execute_tool`` span of each tool call. Also installs the process-wide
    scopes tracing HTTP attempts and (when the settings ask for them) advisors."""
    telemetry = Telemetry.create(settings or OpenTelemetrySettings(), provider_name)
    return wrappers_of(telemetry)


def instrument(
    builder: ChatClientBuilder,
    *,
    provider_name: str | None = None,
    settings: OpenTelemetrySettings | None = None,
) -> ChatClientBuilder:
    """Instrument a client built by hand: ``instrument(ChatClient.builder(model)).build()``.

    Adds the turn span advisor and the model call and tool call span wrappers to
    ``builder`` and traces HTTP attempts and, with ``advisor_spans`` on, advisors.
    Instrument a builder once: a second time, its client fails to build, naming the
    wrapper added twice.

    Args:
        builder: the client's builder; returned, changed.
        provider_name: ``gen_ai.provider.name`` (``openai``, ``anthropic``…); default
            ``OSTINATO_OTEL_PROVIDER_NAME``, else ``ostinato``.
        settings: the plugin's settings; default read from ``OSTINATO_OTEL_*``.
    """
    telemetry = Telemetry.create(settings or OpenTelemetrySettings(), provider_name)
    return builder.default_advisors(TurnSpanAdvisor(telemetry)).unit_wrappers(
        *wrappers_of(telemetry)
    )
