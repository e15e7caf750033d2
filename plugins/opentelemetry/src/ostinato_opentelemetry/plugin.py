"""The plugin's hooks: its settings, and the instrumentation advisors of every
auto-configured client (when ``OSTINATO_OTEL_ENABLED`` leaves them on)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ostinato.plugins import hookimpl

if TYPE_CHECKING:
    from ostinato.advisors import Advisor
    from ostinato.plugins import FactoryContext

__all__ = ["SETTINGS_PREFIX", "register_advisors", "register_settings"]

#: The prefix of the plugin's settings.
SETTINGS_PREFIX: Final = "OSTINATO_OTEL_"


@hookimpl
def register_settings(register: Any) -> None:
    """Register :class:`~ostinato_opentelemetry.OpenTelemetrySettings`."""
    from ostinato_opentelemetry._settings import OpenTelemetrySettings

    register(SETTINGS_PREFIX, OpenTelemetrySettings)


def _advisor(context: FactoryContext, index: int) -> Advisor | None:
    from ostinato_opentelemetry._instrument import instrumentation_advisors
    from ostinato_opentelemetry._settings import OpenTelemetrySettings
    from ostinato_opentelemetry._setup import configure_from_environment

    settings = context.plugin_settings(OpenTelemetrySettings)
    if not settings.enabled:
        return None
    configure_from_environment()
    provider = (context.settings.model or "").partition(":")[0] or None
    return instrumentation_advisors(settings, provider_name=provider)[index]


@hookimpl
def register_advisors(register: Any) -> None:
    """Register the turn span and model call span advisors."""
    register("opentelemetry-turn", lambda context: _advisor(context, 0))
    register("opentelemetry-model-call", lambda context: _advisor(context, 1))
