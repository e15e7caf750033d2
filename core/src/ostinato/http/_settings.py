"""``ProviderSettings``: the connection settings every HTTP provider plugin reads.

A provider's settings class extends it (or :class:`ChatProviderSettings`, which adds the
default options every chat API takes), sets ``env_prefix`` (``OSTINATO_OPENAI_``) and
adds its own default-option fields; :func:`provider_field` (:func:`provider_env`) gives a
field the ecosystem's variable as a fallback (``OPENAI_API_KEY``). The base URL is
checked when the settings load (:func:`~ostinato.transport.check_base_url`'s rule), so a bad
one is reported as a setting, not as a server that cannot be reached. Imports
pydantic-settings, not httpx.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final, Self

from pydantic import AliasChoices, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from ostinato.errors import ConfigurationError
from ostinato.redaction import mask_url
from ostinato.transport import DEFAULT_MAX_RESPONSE_BYTES
from ostinato.transport._base_url import BASE_URL_FORM, base_url_problem

__all__ = [
    "DEFAULT_CALL_DEADLINE",
    "DEFAULT_FIRST_EVENT_TIMEOUT",
    "ChatProviderSettings",
    "ProviderSettings",
    "provider_env",
    "provider_field",
]

#: The most seconds a whole non-streamed reply may take, retries included.
DEFAULT_CALL_DEADLINE: Final = 1200.0
#: The most seconds a stream may take to deliver its first event, retries included.
DEFAULT_FIRST_EVENT_TIMEOUT: Final = 600.0


def provider_env(prefix: str, name: str, *fallbacks: str) -> AliasChoices:
    """The variables a field reads: ``<prefix><NAME>``, else each of ``fallbacks``."""
    return AliasChoices(prefix + name.upper(), *fallbacks)


def provider_field(prefix: str, name: str, *fallbacks: str, default: Any = None) -> Any:
    """A settings field read from ``<prefix><NAME>``, else each of ``fallbacks``::

    api_key: SecretStr | None = provider_field(ENV_PREFIX, "api_key", "OPENAI_API_KEY")
    """
    return Field(default=default, validation_alias=provider_env(prefix, name, *fallbacks))


class ProviderSettings(BaseSettings):
    """Connection, retry and limit settings of an HTTP provider (``OSTINATO_<P>_*``).

    Attributes:
        api_key: the API key (a secret, never shown).
        base_url: the API root, ``http(s)://host[:port][/path]``.
        timeout: seconds to wait for each read, write or pool slot (default 600).
        connect_timeout: seconds to wait for a connection (default 10).
        max_retries: retries after a failed attempt (default 2; 0 disables).
        max_retry_time: no retry starts later than this many seconds after the first
            attempt (default 120).
        max_connections, max_keepalive_connections: the HTTP pool limits (1000, 200).
        extra_headers: JSON object of headers added to every request.
        extra_query: JSON object of query parameters added to every request.
        max_response_bytes: the most bytes one reply may carry (default 64 MiB).
        call_deadline: the most seconds a whole non-streamed reply may take, retries
            included (default 1200): a server trickling bytes cannot hold a call longer.
        first_event_timeout: the most seconds a stream may wait for its first event,
            retries included (default 600).
    """

    #: The provider's name in messages (``openai``).
    provider: ClassVar[str] = "http"
    #: A key is required when the base URL holds this host (``api.openai.com``).
    key_required_at: ClassVar[str | None] = None

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        frozen=True,
        populate_by_name=True,
    )

    api_key: SecretStr | None = None
    base_url: str = "http://localhost"
    timeout: float = Field(default=600.0, gt=0)
    connect_timeout: float = Field(default=10.0, gt=0)
    max_retries: int = Field(default=2, ge=0)
    max_retry_time: float = Field(default=120.0, ge=0)
    max_connections: int = Field(default=1000, ge=1)
    max_keepalive_connections: int = Field(default=200, ge=0)
    extra_headers: dict[str, str] = Field(default_factory=dict)
    extra_query: dict[str, str] = Field(default_factory=dict)
    max_response_bytes: int = Field(default=DEFAULT_MAX_RESPONSE_BYTES, ge=1)
    call_deadline: float = Field(default=DEFAULT_CALL_DEADLINE, gt=0)
    first_event_timeout: float = Field(default=DEFAULT_FIRST_EVENT_TIMEOUT, gt=0)

    @classmethod
    def variable(cls, field: str) -> str:
        """The variable of ``field`` (``OSTINATO_OPENAI_CALL_DEADLINE``)."""
        return f"{cls.model_config.get('env_prefix', '')}{field}".upper()

    @classmethod
    def resolve(cls, settings: Self | None = None) -> Self:
        """``settings``, or those the environment (and ``.env``) describe, checked.

        Raises:
            ConfigurationError: a variable has a bad value, or the base URL is the
                provider's own and no API key is set.
        """
        if settings is None:
            from ostinato.settings import load_settings

            settings = load_settings(cls)
        host = cls.key_required_at
        if settings.api_key is None and host is not None and host in settings.base_url:
            field = cls.model_fields["api_key"]
            names = getattr(field.validation_alias, "choices", ())[1:]
            fallback = f" (or {' or '.join(map(str, names))})" if names else ""
            raise ConfigurationError(
                f"the {cls.provider} provider needs an API key for {settings.base_url}\n"
                f"fix: set {cls.variable('api_key')}{fallback}, or point "
                f"{cls.variable('base_url')} at a server that needs none"
            )
        return settings

    @model_validator(mode="after")
    def _usable_base_url(self) -> Self:
        problem = base_url_problem(self.base_url)
        if problem is not None:
            # Read as "expected ..." in the settings error; the URL's password is masked.
            raise ValueError(
                f"{BASE_URL_FORM} in {self.variable('base_url')}, got "
                f"{mask_url(self.base_url)!r}: {problem}"
            )
        return self


class ChatProviderSettings(ProviderSettings):
    """:class:`ProviderSettings` and the default request options every chat API takes.

    Each becomes the field of the same name of the provider's default options (see
    :func:`~ostinato.http.model_factory`); a provider narrows one by declaring it again
    (Anthropic's temperature goes up to 1 only).

    Attributes:
        temperature: sampling temperature (at least 0; unset: the server's default).
        top_p: nucleus sampling, from 0 to 1.
        max_tokens: the answer's token limit (at least 1).
        extra_body: JSON object of extra request fields.
    """

    temperature: float | None = Field(default=None, ge=0)
    top_p: float | None = Field(default=None, ge=0, le=1)
    max_tokens: int | None = Field(default=None, ge=1)
    extra_body: dict[str, Any] = Field(default_factory=dict)
