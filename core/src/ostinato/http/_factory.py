"""From :class:`ProviderSettings` to an :class:`HttpxChatModel`: the adapters' factory.

:func:`connection_arguments` turns the settings into the model's connection arguments;
:func:`model_factory` makes an adapter's ``create_chat_model(model_name=None,
settings=None, *, retry_policy=None)`` from its model, settings and options classes::

    create_chat_model = model_factory(MyChatModel, MySettings, MyChatOptions)
"""

from __future__ import annotations

import dataclasses
import inspect
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


def _model_keywords(model: Callable[..., Any]) -> set[str]:
    """The keyword-only arguments ``model`` takes: a class's own, and those of each base
    its ``**arguments`` are passed on to."""
    if not isinstance(model, type):
        parameters = inspect.signature(model).parameters.values()
        return {p.name for p in parameters if p.kind is p.KEYWORD_ONLY}
    keywords: set[str] = set()
    for owner in model.__mro__:
        init = vars(owner).get("__init__")
        if init is None:
            continue
        parameters = inspect.signature(init).parameters.values()
        keywords |= {p.name for p in parameters if p.kind is p.KEYWORD_ONLY}
        if not any(p.kind is p.VAR_KEYWORD for p in parameters):
            break
    return keywords


class ModelFactory(Generic[S, M]):
    """An adapter's ``create_chat_model``: a model configured by its settings.

    Call it as ``create_chat_model(model_name=None, settings=None, *, retry_policy=None)``:
    without ``settings`` they are read from the environment (and ``.env``); an empty
    ``model_name`` takes the settings' model; ``retry_policy`` replaces the settings'.

    A settings field named like a keyword argument of the model (``base_url``,
    ``organization``) is passed to the model; one named like a field of the options (and
    not an argument of the model) goes into the default options, with ``overrides``'
    values replacing theirs; the :func:`connection_arguments` complete the model's.
    """

    def __init__(
        self,
        model: Callable[..., M],
        settings: type[S],
        options: type[Any],
        overrides: Callable[[S], Mapping[str, Any]] | None = None,
    ) -> None:
        fields = set(settings.model_fields)
        keywords = _model_keywords(model) - set(Connection.__annotations__)
        self._model = model
        self._settings = settings
        self._options = options
        self._overrides = overrides
        self._model_fields = sorted(keywords & fields - {"model"})
        option_fields = {f.name for f in dataclasses.fields(options)}
        self._option_fields = sorted(option_fields & fields - set(self._model_fields))
        name = getattr(model, "__name__", "model")
        self.__doc__ = (
            f"A {name} for ``model_name`` configured by ``settings`` (a "
            f"{settings.__name__}; read from the environment and ``.env`` when not given).\n\n"
            "Raises:\n    ConfigurationError: a setting has a bad value, or the API key is "
            "missing where the provider requires one."
        )

    def default_options(self, settings: S, model_name: str | None = None) -> Any:
        """The default request options ``settings`` describe (``model_name`` overrides
        their model)."""
        values = {name: getattr(settings, name) for name in self._option_fields}
        if self._overrides is not None:
            values.update(self._overrides(settings))
        if model_name:
            values["model"] = model_name
        return self._options(**values)

    def __call__(
        self,
        model_name: str | None = None,
        settings: S | None = None,
        *,
        retry_policy: RetryPolicy | None = None,
    ) -> M:
        """The model for ``model_name`` (empty: the settings' model) configured by ``settings``."""
        resolved = self._settings.resolve(settings)
        return self._model(
            default_options=self.default_options(resolved, model_name),
            **{name: getattr(resolved, name) for name in self._model_fields},
            **connection_arguments(resolved, retry_policy),
        )

    def __repr__(self) -> str:
        return f"model_factory({getattr(self._model, '__name__', self._model)!r})"


def model_factory(
    model: Callable[..., M],
    settings: type[S],
    options: type[Any],
    overrides: Callable[[S], Mapping[str, Any]] | None = None,
) -> ModelFactory[S, M]:
    """An adapter's ``create_chat_model(model_name=None, settings=None, *, retry_policy=None)``.

    Args:
        model: the chat model class (its keyword-only arguments, and those of the bases
            it passes ``**arguments`` on to, named like a settings field other than a
            connection setting get that field's value).
        settings: its settings class (a :class:`ProviderSettings`).
        options: its options class (a dataclass): each field named like a settings field
            that is not an argument of the model takes that field's value.
        overrides: ``settings -> option values`` replacing what the settings' fields
            give (a value the settings hold in another form).
    """
    return ModelFactory(model, settings, options, overrides)
