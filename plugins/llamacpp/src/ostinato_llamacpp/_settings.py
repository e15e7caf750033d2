"""``LlamaCppSettings``: the plugin's environment variables, prefix ``OSTINATO_LLAMACPP_``.

Flat (no ``__`` nesting), read from the environment and ``.env``. This module imports
pydantic-settings; the plugin module imports it only inside its hooks.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Final, Literal

from pydantic import Field, field_validator

from ostinato.settings import PluginSettings
from ostinato_llamacpp._artifacts import CacheLayout, default_cache_dir

__all__ = [
    "DEFAULT_INDEX_URL",
    "ENV_PREFIX",
    "GGUF_TEMPLATE",
    "SERVER_INSTALLS",
    "LlamaCppSettings",
    "ServerInstall",
]

#: The prefix of every variable of this plugin.
ENV_PREFIX: Final = "OSTINATO_LLAMACPP_"

#: Where ``ostinato local setup`` looks the pinned files up (PEP 503/691 simple index).
DEFAULT_INDEX_URL: Final = "https://pypi.org/simple"

#: How ``ostinato local setup`` gets llama-server: ``auto`` tries the prebuilt server and
#: builds from source when it does not fit or fails its probe; ``prebuilt`` and
#: ``source`` force one path.
ServerInstall = Literal["auto", "prebuilt", "source"]

#: The values of ``OSTINATO_LLAMACPP_SERVER_INSTALL``.
SERVER_INSTALLS: Final[tuple[ServerInstall, ...]] = ("auto", "prebuilt", "source")

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
        threads: ``OSTINATO_LLAMACPP_THREADS``: generation threads (default: half the
            CPUs this process may use, by affinity and cgroup quota, at least one; the
            prompt is then processed on all of them). Set, it is used for both.
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
        server_install: ``OSTINATO_LLAMACPP_SERVER_INSTALL``: ``auto`` (the prebuilt
            server when it fits and passes its probe, else a source build), ``prebuilt``
            or ``source``; also picks which of the two ``llamacpp:default`` runs.
        probe_timeout: ``OSTINATO_LLAMACPP_PROBE_TIMEOUT``: seconds the prebuilt
            server's probe may take (start, model load, one completion; default 120).
    """

    model_path: Path | None = None
    server: str | None = None
    url: str | None = None
    threads: int | None = Field(default=None, ge=1)
    context: int = Field(default=8192, ge=0)
    chat_template: str | None = None
    temperature: float | None = Field(default=None, ge=0)
    max_tokens: int | None = Field(default=2048, ge=1)
    startup_timeout: float = Field(default=120.0, gt=0)
    timeout: float = Field(default=600.0, gt=0)
    server_args: str = ""
    cache_dir: Path | None = None
    index_url: str = DEFAULT_INDEX_URL
    server_install: ServerInstall = "auto"
    probe_timeout: float = Field(default=120.0, gt=0)

    @field_validator("server_install", mode="before")
    @classmethod
    def _install_case(cls, value: object) -> object:
        if isinstance(value, str):
            return value.strip().lower() or "auto"
        return value

    @field_validator("threads", mode="before")
    @classmethod
    def _blank_threads_is_auto(cls, value: object) -> object:
        if isinstance(value, str) and value.strip().lower() in ("", "auto"):
            return None
        return value

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
    def server_threads(self) -> int:
        """``threads``, or the rule's count for this process (see ``_cpus``)."""
        from ostinato_llamacpp._cpus import default_threads

        return self.threads if self.threads is not None else default_threads()

    @property
    def server_threads_batch(self) -> int:
        """Prompt-processing threads: ``threads`` when set, else all the usable CPUs."""
        from ostinato_llamacpp._cpus import default_batch_threads

        return self.threads if self.threads is not None else default_batch_threads()

    @property
    def extra_server_args(self) -> tuple[str, ...]:
        """``server_args`` split like a shell would."""
        return tuple(shlex.split(self.server_args))
