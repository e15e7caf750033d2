"""From :class:`ProviderSettings` to the connection arguments of an :class:`HttpxChatModel`.

A provider's factory adds its default options and own arguments:
``MyModel(default_options=..., **connection_arguments(settings))``.
"""

from __future__ import annotations

import httpx

from ostinato.http._contract import Connection
from ostinato.http._settings import ProviderSettings
from ostinato.transport import RetryPolicy

__all__ = ["connection_arguments"]


def connection_arguments(
    settings: ProviderSettings, retry_policy: RetryPolicy | None = None
) -> Connection:
    """The model arguments ``settings`` describe (``retry_policy`` replaces theirs)."""
    return Connection(
        api_key=settings.api_key,
        timeout=httpx.Timeout(settings.timeout, connect=settings.connect_timeout),
        retry_policy=retry_policy
        or RetryPolicy(max_retries=settings.max_retries, max_total_time=settings.max_retry_time),
        extra_headers=settings.extra_headers,
        extra_query=settings.extra_query,
        limits=httpx.Limits(
            max_connections=settings.max_connections,
            max_keepalive_connections=settings.max_keepalive_connections,
            keepalive_expiry=30.0,
        ),
        max_response_bytes=settings.max_response_bytes,
        call_deadline=settings.call_deadline,
        first_event_timeout=settings.first_event_timeout,
    )
