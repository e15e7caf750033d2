"""``LlamaCppEmbeddingModel``: vectors from a local ``llama-server`` run in embedding
mode, so retrieval runs on this machine with no key and no account.

``llama-server`` serves either chat or embeddings: the model starts a second server
process on the same GGUF (by default the bundled model ``ostinato local setup``
fetched) with ``--embedding --pooling mean``, shared by every embedding model asking for
the same server, and speaks the OpenAI-compatible ``POST /v1/embeddings`` to it through
:class:`~ostinato_openai.embedding.OpenAIEmbeddingModel` (the HTTP base's timeouts,
size limit, error classes and redaction). Given a URL instead, it talks to a server
someone else started with ``--embedding``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from ostinato.retrieval import EmbeddingModelSyncFaces, EmbeddingResponse
from ostinato_llamacpp._server import LlamaServer, ServerSpec
from ostinato_llamacpp._shared import acquire_server, release_server

if TYPE_CHECKING:
    from pathlib import Path

    from ostinato_llamacpp._settings import LlamaCppSettings
    from ostinato_openai.embedding import OpenAIEmbeddingModel

__all__ = ["EMBEDDING_ARGS", "LlamaCppEmbeddingModel", "embedding_spec"]

#: What makes a ``llama-server`` an embedding server: mean pooling over the tokens, and
#: batches large enough for a whole chunk (an input must fit in one micro-batch).
EMBEDDING_ARGS: Final = ("--embedding", "--pooling", "mean", "-b", "2048", "-ub", "2048")
_EMBEDDING_CONTEXT: Final = 2048


def embedding_spec(chat_spec: ServerSpec) -> ServerSpec:
    """The embedding server's spec for the model of ``chat_spec`` (its binary, threads
    and GGUF; no chat template; a 2048-token context)."""
    extra = tuple(a for a in chat_spec.extra_args if a not in EMBEDDING_ARGS)
    return replace(
        chat_spec,
        context=_EMBEDDING_CONTEXT,
        chat_template=None,
        extra_args=(*extra, *EMBEDDING_ARGS),
    )


class LlamaCppEmbeddingModel(EmbeddingModelSyncFaces):
    """An embedding model answered by a local ``llama-server`` in embedding mode.

    Args:
        server: a :class:`~ostinato_llamacpp.ServerSpec` (an embedding server is started
            on first use, shared, and released by :meth:`close`; see
            :func:`embedding_spec`), or the URL of an embedding server someone else runs.
            ``None``: the bundled model, from the ``OSTINATO_LLAMACPP_*`` settings.
        batch_size: texts per request.
        timeout: seconds a request may take.
        startup_timeout: seconds a started server has to load the model.
        log_dir: where a started server writes its output.

    Raises:
        ConfigurationError: ``server`` is ``None`` and the server binary or the bundled
            model is missing (the message says to run ``ostinato local setup``).
    """

    __slots__ = (
        "_batch",
        "_inner",
        "_lock",
        "_log_dir",
        "_server",
        "_spec",
        "_startup",
        "_timeout",
        "_url",
    )

    def __init__(
        self,
        server: ServerSpec | str | None = None,
        *,
        batch_size: int = 16,
        timeout: float = 120.0,
        startup_timeout: float = 120.0,
        log_dir: Path | None = None,
        settings: LlamaCppSettings | None = None,
    ) -> None:
        if server is None:
            from ostinato_llamacpp._factory import server_spec
            from ostinato_llamacpp._settings import LlamaCppSettings

            settings = settings or _load_settings(LlamaCppSettings)
            if settings.url is not None:
                server = str(settings.url)
            else:
                server = embedding_spec(server_spec("default", settings))
                log_dir = log_dir or settings.layout.logs
        self._spec = server if isinstance(server, ServerSpec) else None
        self._url = None if isinstance(server, ServerSpec) else server.rstrip("/")
        self._batch = batch_size
        self._timeout = timeout
        self._startup = startup_timeout
        self._log_dir = log_dir
        self._server: LlamaServer | None = None
        self._inner: OpenAIEmbeddingModel | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        target = self._url or (self._spec.model.name if self._spec else "?")
        return f"LlamaCppEmbeddingModel({target!r})"

    @property
    def server(self) -> LlamaServer | None:
        """The embedding server process in use (``None`` before first use, or for a URL)."""
        return self._server

    def start(self) -> None:
        """Start (or join) the embedding server now rather than on first use (blocking)."""
        with self._lock:
            if self._server is None and self._spec is not None:
                self._server = acquire_server(
                    self._spec, startup_timeout=self._startup, log_dir=self._log_dir
                )
            server = self._server
        if server is not None:
            server.start()

    async def _ready(self) -> OpenAIEmbeddingModel:
        if self._url is None and (self._server is None or not self._server.running):
            await asyncio.to_thread(self.start)
        url = self._url or (self._server.base_url if self._server is not None else "")
        with self._lock:
            if self._inner is None or self._inner.base_url != f"{url}/v1":
                from ostinato_openai.embedding import OpenAIEmbeddingModel

                self._inner = OpenAIEmbeddingModel(
                    model=(self._spec.alias if self._spec else None) or "default",
                    base_url=f"{url}/v1",
                    send_dimensions=False,
                    batch_size=self._batch,
                    timeout=self._timeout,
                )
            return self._inner

    async def embed(self, texts: Sequence[str]) -> EmbeddingResponse:
        """One vector per text, from the local server (started on first use)."""
        if not texts:
            return EmbeddingResponse(())
        return await (await self._ready()).embed(texts)

    async def dimensions(self) -> int:
        """The model's vector length (asked of the server once)."""
        return await (await self._ready()).dimensions()

    async def aclose(self) -> None:
        """Close the HTTP client and let go of the server (stopped when this was its last
        user); a later use starts it again."""
        with self._lock:
            inner, self._inner = self._inner, None
            server, self._server = self._server, None
        if inner is not None:
            await inner.aclose()
        if server is not None:
            await asyncio.to_thread(release_server, server)

    def close(self) -> None:
        """Blocking :meth:`aclose`."""
        from ostinato.runtime import run_sync

        run_sync(self.aclose(), async_name="aclose")


def _load_settings(kind: type[LlamaCppSettings]) -> LlamaCppSettings:
    from ostinato.settings import load_settings

    return load_settings(kind)
