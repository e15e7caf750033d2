"""The plugin's hooks: its settings, and the instrumentation of every auto-configured
client (when ``OSTINATO_OTEL_ENABLED`` leaves it on): the turn span advisor, and the
model call and tool call span wrappers of its unit stack."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ostinato.plugins import hookimpl

if TYPE_CHECKING:
    from ostinato.advisors import Advisor
    from ostinato.plugins import FactoryContext
    from ostinato.units import UnitWrapper
    from ostinato_opentelemetry._settings import OpenTelemetrySettings

__all__ = ["SETTINGS_PREFIX", "register_advisors", "register_settings", "register_unit_wrappers"]

#: The prefix of the plugin's settings.
SETTINGS_PREFIX: Final = "OSTINATO_OTEL_"


@hookimpl
def register_settings(register: Any) -> None:
    """Register :class:`~ostinato_opentelemetry.OpenTelemetrySettings`."""
    from ostinato_opentelemetry._settings import OpenTelemetrySettings

    register(SETTINGS_PREFIX, OpenTelemetrySettings)


def _enabled(context: FactoryContext) -> tuple[OpenTelemetrySettings, str | None] | None:
    # The settings and provider name, with the SDK set up; None when turned off.
    from ostinato_opentelemetry._settings import OpenTelemetrySettings
    from ostinato_opentelemetry._setup import configure_from_environment

    settings = context.plugin_settings(OpenTelemetrySettings)
    if not settings.enabled:
        return None
    configure_from_environment()
    return settings, (context.settings.model or "").partition(":")[0] or None


def _turn_advisor(context: FactoryContext) -> Advisor | None:
    from ostinato_opentelemetry._instrument import instrumentation_advisors

    enabled = _enabled(context)
    if enabled is None:
        return None
    settings, provider = enabled
    return instrumentation_advisors(settings, provider_name=provider)[0]


def _wrappers(context: FactoryContext) -> tuple[UnitWrapper, ...] | None:
    from ostinato_opentelemetry._instrument import instrumentation_wrappers

    enabled = _enabled(context)
    if enabled is None:
        return None
    settings, provider = enabled
    return instrumentation_wrappers(settings, provider_name=provider)


@hookimpl
def register_advisors(register: Any) -> None:
    """Register the turn span advisor (``invoke_agent``, outermost)."""
    register("opentelemetry-turn", _turn_advisor)


@hookimpl
def register_unit_wrappers(register: Any) -> None:
    """Register the model call (``chat``) and tool call (``execute_tool``) span wrappers."""
    register("opentelemetry", _wrappers)
