"""The plugin's settings, read from ``OSTINATO_OTEL_*`` variables."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["OpenTelemetrySettings"]


class OpenTelemetrySettings(BaseSettings):
    """What the OpenTelemetry instrumentation records (``OSTINATO_OTEL_*``).

    Attributes:
        enabled: instrument auto-configured clients (``OSTINATO_OTEL_ENABLED``).
        capture_content: record messages, system instructions, tool definitions, tool
            arguments and results as span attributes (``OSTINATO_OTEL_CAPTURE_CONTENT``);
            off by default, since they may hold personal data.
        max_attribute_length: the most characters one captured content attribute holds;
            longer values are cut and end with ``…[truncated N chars]``
            (``OSTINATO_OTEL_MAX_ATTRIBUTE_LENGTH``).
        advisor_spans: one ``advisor {name}`` span per advisor invocation, as Spring AI
            has them (``OSTINATO_OTEL_ADVISOR_SPANS``); off by default, since they are
            noisy.
        http_spans: one HTTP ``POST`` CLIENT span per HTTP attempt of a model call, so
            retries show (``OSTINATO_OTEL_HTTP_SPANS``); turn it off when the HTTP
            client is instrumented on its own.
        provider_name: ``gen_ai.provider.name`` for clients built by hand when
            :func:`~ostinato_opentelemetry.instrument` is not told it
            (``OSTINATO_OTEL_PROVIDER_NAME``); auto-configured clients take it from
            ``OSTINATO_MODEL``.
    """

    model_config = SettingsConfigDict(env_prefix="OSTINATO_OTEL_", extra="ignore")

    enabled: bool = True
    capture_content: bool = False
    max_attribute_length: Annotated[int, Field(ge=64)] = 8192
    advisor_spans: bool = False
    http_spans: bool = True
    provider_name: str | None = None
