"""What a provider adapter and :class:`~ostinato.http.HttpxChatModel` agree on.

:class:`Connection`: the connection arguments every httpx-backed model accepts;
:class:`ModelArguments` adds the model name, default options, base URL and provider name
(a subclass with arguments of its own takes the rest as
``**arguments: Unpack[ModelArguments[MyOptions]]`` and passes them on).
:class:`EventParser`: what an adapter's stream parser is to the base's read loop.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, Protocol, TypedDict, TypeVar

import httpx

from ostinato.model import ChatResponse
from ostinato.prompt import ChatOptions
from ostinato.transport import RetryPolicy, SecretLike

__all__ = ["Connection", "EventParser", "ModelArguments"]

OptionsT = TypeVar("OptionsT", bound=ChatOptions)


class EventParser(Protocol):
    """Turns the items of one stream (events or JSON lines) into partial responses."""

    #: Whether the item ending the answer arrived.
    done: bool

    def event(self, item: Any) -> ChatResponse | None:
        """The partial response ``item`` carries (``None`` when it carries nothing)."""
        ...


class Connection(TypedDict, total=False):
    """The connection arguments every :class:`~ostinato.http.HttpxChatModel` accepts."""

    api_key: str | SecretLike | None
    timeout: float | httpx.Timeout | None
    retry_policy: RetryPolicy | None
    extra_headers: Mapping[str, str] | None
    extra_query: Mapping[str, str] | None
    limits: httpx.Limits | None
    http_client_factory: Callable[[], httpx.AsyncClient] | None
    http_engine: str | None
    max_response_bytes: int
    call_deadline: float | None
    first_event_timeout: float | None


class ModelArguments(Connection, Generic[OptionsT], total=False):
    """Every argument of :class:`~ostinato.http.HttpxChatModel` a subclass passes on
    unchanged: :class:`Connection`'s, and the model's own defaults."""

    model: str | None
    default_options: OptionsT | None
    base_url: str | None
    provider: str | None
