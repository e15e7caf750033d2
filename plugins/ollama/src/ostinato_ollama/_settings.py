"""``OllamaSettings``: the plugin's environment variables, prefix ``OSTINATO_OLLAMA_``.

Flat (no ``__`` nesting). The base URL falls back to ``OLLAMA_HOST``, read the way the
``ollama`` command reads it (``0.0.0.0``, ``host:port``, ``https://host``...), and the
key to ``OLLAMA_API_KEY`` (ollama.com). Mappings (model options, headers, extra body)
are JSON in the environment. This module imports pydantic-settings; the plugin module
imports it only inside its hooks.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator

from ostinato.http import ChatProviderSettings, provider_field

__all__ = ["DEFAULT_BASE_URL", "DEFAULT_PORT", "ENV_PREFIX", "OllamaSettings", "ollama_base_url"]

#: The prefix of every variable of this plugin.
ENV_PREFIX = "OSTINATO_OLLAMA_"
#: Where a local Ollama listens.
DEFAULT_BASE_URL = "http://localhost:11434"
#: Ollama's port, used when a host is given without one.
DEFAULT_PORT = 11434


def ollama_base_url(host: str) -> str:
    """A base URL from an ``OLLAMA_HOST``-style value.

    No scheme means ``http``; no port means 11434 without a scheme, else the scheme's
    own; ``0.0.0.0`` (the server's "listen everywhere") means this machine. Examples:
    ``0.0.0.0`` -> ``http://127.0.0.1:11434``, ``gpu-box:8080`` -> ``http://gpu-box:8080``,
    ``https://ollama.com`` -> ``https://ollama.com``.
    """
    text = host.strip().rstrip("/")
    if not text:
        return DEFAULT_BASE_URL
    port: int | None
    if "://" not in text:
        parts = urlsplit(f"http://{text}")
        port = parts.port or DEFAULT_PORT
    else:
        parts = urlsplit(text)
        port = parts.port
    hostname = parts.hostname or "127.0.0.1"
    if hostname == "0.0.0.0":
        hostname = "127.0.0.1"
    if ":" in hostname:
        hostname = f"[{hostname}]"  # IPv6
    netloc = f"{hostname}:{port}" if port else hostname
    return f"{parts.scheme}://{netloc}{parts.path.rstrip('/')}"


class OllamaSettings(ChatProviderSettings, env_prefix=ENV_PREFIX):
    """Connection, retry and default-option settings of the ``ollama`` provider.

    Attributes:
        base_url: ``OSTINATO_OLLAMA_BASE_URL``, else ``OLLAMA_HOST`` (read as the
            ``ollama`` command reads it); default ``http://localhost:11434``.
        api_key: ``OSTINATO_OLLAMA_API_KEY``, else ``OLLAMA_API_KEY``: sent as a bearer
            token (ollama.com needs one; a local server none).
        timeout: seconds to wait for each read, write or pool slot (default 600: loading
            a model can take minutes).
        connect_timeout, max_retries, max_retry_time, max_connections,
            max_keepalive_connections, extra_headers, extra_query, max_response_bytes,
            call_deadline, first_event_timeout: see
            :class:`~ostinato.http.ProviderSettings`.
        model: the model used when ``OSTINATO_MODEL`` names none (``ollama:``).
        keep_alive: how long models stay loaded (``5m``, ``1h``, seconds, ``-1``).
        think: ``true``/``false``, or ``low``/``medium``/``high``.
        format: ``json``, or a JSON schema (as JSON text) every answer must follow.
        temperature, top_p, extra_body: see :class:`~ostinato.http.ChatProviderSettings`.
        max_tokens: as there, but any number Ollama takes (``-1``: no limit).
        num_ctx, top_k, seed: default model options.
        options: JSON object of further model options (``{"repeat_penalty": 1.1}``).
    """

    provider = "ollama"

    base_url: str = provider_field(ENV_PREFIX, "base_url", "OLLAMA_HOST", default=DEFAULT_BASE_URL)
    api_key: SecretStr | None = provider_field(ENV_PREFIX, "api_key", "OLLAMA_API_KEY")
    model: str = "qwen3"
    keep_alive: str | None = None
    think: bool | str | None = None
    format: str | dict[str, Any] | None = None
    num_ctx: int | None = Field(default=None, ge=1)
    top_k: int | None = Field(default=None, ge=1)
    seed: int | None = None
    max_tokens: int | None = None
    options: dict[str, Any] = Field(default_factory=dict)

    @field_validator("base_url", mode="after")
    @classmethod
    def _normalise_base_url(cls, value: str) -> str:
        try:
            return ollama_base_url(value)
        except ValueError:
            return value  # not a URL at all: the base URL check reports it

    @field_validator("think", mode="before")
    @classmethod
    def _think_word(cls, value: Any) -> Any:
        if isinstance(value, str):
            word = value.strip().lower()
            if word in ("true", "1", "yes", "on"):
                return True
            if word in ("false", "0", "no", "off"):
                return False
            if word not in ("low", "medium", "high"):
                raise ValueError("true, false, low, medium or high")
            return word
        return value

    @field_validator("format", mode="before")
    @classmethod
    def _format_schema(cls, value: Any) -> Any:
        if isinstance(value, str) and value.strip().startswith("{"):
            return json.loads(value)
        return value

    @property
    def keep_alive_value(self) -> str | int | None:
        """``keep_alive`` as sent: a plain number of seconds as a number (Ollama reads a
        string only as a duration with a unit)."""
        value = self.keep_alive
        if value is not None and value.strip().lstrip("-").isdigit():
            return int(value)
        return value
