"""From :class:`ProviderSettings` to an :class:`HttpxChatModel`: the adapters' factory.

:func:`connection_arguments` turns the settings into the model's connection arguments;
:func:`model_factory` makes an adapter's ``create_chat_model(model_name=None,
settings=None, *, retry_policy=None)`` from its model class, settings class and default
options builder::

    create_chat_model = model_factory(MyChatModel, MySettings, default_options_from)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

import httpx

from ostinato.http._contract import Connection
from ostinato.http._settings import ProviderSettings
from ostinato.transport import RetryPolicy

__all__ = ["ModelFactory", "connection_arguments", "model_factory"]

S = TypeVar("S", bound=ProviderSettings)
M = TypeVar("M")


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


class ModelFactory(Generic[S, M]):
    """An adapter's ``create_chat_model``: a model configured by its settings.

    Call it as ``create_chat_model(model_name=None, settings=None, *, retry_policy=None)``:
    without ``settings`` they are read from the environment (and ``.env``); an empty
    ``model_name`` takes the settings' model; ``retry_policy`` replaces the settings'.
    The model gets the default options the settings describe, the base URL, the
    adapter's own arguments and the :func:`connection_arguments`.
    """

    def __init__(
        self,
        model: Callable[..., M],
        settings: type[S],
        options: Callable[[S, str | None], Any],
        arguments: Callable[[S], Mapping[str, Any]] | None = None,
    ) -> None:
        self._model = model
        self._settings = settings
        self._options = options
        self._arguments = arguments
        name = getattr(model, "__name__", "model")
        self.__doc__ = (
            f"A {name} for ``model_name`` configured by ``settings`` (a "
            f"{settings.__name__}; read from the environment and ``.env`` when not given).\n\n"
            "Raises:\n    ConfigurationError: a setting has a bad value, or the API key is "
            "missing where the provider requires one."
        )

    def __call__(
        self,
        model_name: str | None = None,
        settings: S | None = None,
        *,
        retry_policy: RetryPolicy | None = None,
    ) -> M:
        """The model for ``model_name`` (empty: the settings' model) configured by ``settings``."""
        resolved = self._settings.resolve(settings)
        own = self._arguments(resolved) if self._arguments is not None else {}
        return self._model(
            default_options=self._options(resolved, model_name),
            base_url=resolved.base_url,
            **own,
            **connection_arguments(resolved, retry_policy),
        )

    def __repr__(self) -> str:
        return f"model_factory({getattr(self._model, '__name__', self._model)!r})"


def model_factory(
    model: Callable[..., M],
    settings: type[S],
    options: Callable[[S, str | None], Any],
    arguments: Callable[[S], Mapping[str, Any]] | None = None,
) -> ModelFactory[S, M]:
    """An adapter's ``create_chat_model(model_name=None, settings=None, *, retry_policy=None)``.

    Args:
        model: the chat model class (called with keyword arguments).
        settings: its settings class (a :class:`ProviderSettings`).
        options: ``(settings, model_name) -> default options``; ``model_name`` is ``None``
            or empty when the settings' model applies.
        arguments: ``settings -> the model's own keyword arguments`` (beyond the default
            options, base URL and connection), if it has any.
    """
    return ModelFactory(model, settings, options, arguments)
