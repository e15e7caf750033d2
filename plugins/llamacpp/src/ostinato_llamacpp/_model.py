"""``LlamaCppChatModel``: a :class:`~ostinato.model.ChatModel` served by a local llama-server.

It speaks to the server through ostinato-openai's :class:`OpenAIChatModel` (llama-server
imitates Chat Completions) and adds what a local process needs: the server is started
on first use (in a thread, never blocking the event loop), shared with other models
running the same spec, started again after a crash, and released on :meth:`aclose`.
Failures are explained: a server that died mid-turn raises
:class:`LlamaServerCrashedError`; an HTTP 500 (typically a tool call the server could
not parse) stays a ``ServerError`` whose message says the model is small and how to
choose another.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Final

import httpx

from ostinato.errors import (
    MalformedResponseError,
    ModelConnectionError,
    ModelError,
    ServerError,
    StreamInterruptedError,
)
from ostinato.model import ChatResponse
from ostinato.prompt import Prompt
from ostinato_llamacpp._errors import PROVIDER, LlamaServerCrashedError, exit_signal, with_hint
from ostinato_llamacpp._server import LlamaServer, ServerSpec
from ostinato_llamacpp._shared import acquire_server, release_server
from ostinato_openai import OpenAIChatModel, OpenAIChatOptions, RetryPolicy

__all__ = ["LlamaCppChatModel"]

_CRASH_WAIT: Final = 2.0
_DEFAULT_TIMEOUT: Final = httpx.Timeout(600.0, connect=10.0)
_LIMITS: Final = httpx.Limits(max_connections=100, max_keepalive_connections=20)


class LlamaCppChatModel:
    """A chat model answered by ``llama-server`` on loopback.

    Args:
        server: a :class:`ServerSpec` (the model starts, shares and releases a server for
            it), a :class:`LlamaServer` the caller owns (started if needed, never
            stopped), or the URL of a server someone else runs.
        default_options: the options every request starts from (without a model name,
            the spec's alias or the GGUF's name is sent).
        hint: appended to the message of an HTTP 500 (see
            :func:`~ostinato_llamacpp.small_model_hint`); empty: nothing.
        timeout: seconds (or an ``httpx.Timeout``) per read of a response.
        startup_timeout: seconds a started server has to become healthy.
        log_dir: where started servers write their output.
        http_client_factory: makes each event loop's ``httpx.AsyncClient`` (tests).
    """

    def __init__(
        self,
        server: ServerSpec | LlamaServer | str,
        *,
        default_options: OpenAIChatOptions | None = None,
        hint: str = "",
        timeout: float | httpx.Timeout | None = None,
        startup_timeout: float = 120.0,
        log_dir: Path | None = None,
        http_client_factory: Callable[[], httpx.AsyncClient] | None = None,
    ) -> None:
        self._spec: ServerSpec | None = None
        self._server: LlamaServer | None = None
        self._url: str | None = None
        if isinstance(server, ServerSpec):
            self._spec = server
        elif isinstance(server, LlamaServer):
            self._server = server
        else:
            self._url = server.rstrip("/")
        self._owns_server = self._spec is not None
        options = default_options or OpenAIChatOptions()
        if not options.model:  # the adapter needs one; llama-server serves one model anyway
            options = options.copy(model=self._default_model_name())
        self._default_options = options
        self._hint = hint
        self._timeout = (
            timeout
            if isinstance(timeout, httpx.Timeout)
            else _DEFAULT_TIMEOUT
            if timeout is None
            else httpx.Timeout(timeout, connect=10.0)
        )
        self._startup_timeout = startup_timeout
        self._log_dir = log_dir
        self._client_factory = http_client_factory or self._make_client
        self._lock = threading.Lock()
        self._inner: OpenAIChatModel | None = None
        self._retired: list[OpenAIChatModel] = []

    def _default_model_name(self) -> str:
        spec = self._spec or (self._server.spec if self._server is not None else None)
        if spec is None:
            return "default"
        return spec.alias or spec.model.stem

    def __repr__(self) -> str:
        target = self._url or (self._spec or self.spec_of_server).model.name
        return f"LlamaCppChatModel({target!r})"

    @property
    def spec_of_server(self) -> ServerSpec:
        """The spec of the server this model uses (``ValueError`` for a URL-only model)."""
        if self._spec is not None:
            return self._spec
        if self._server is not None:
            return self._server.spec
        raise ValueError(f"this model talks to {self._url}, which it did not start")

    @property
    def default_options(self) -> OpenAIChatOptions:
        """The options requests start from."""
        return self._default_options

    @property
    def server(self) -> LlamaServer | None:
        """The server process in use (``None`` before first use, or for a URL)."""
        return self._server

    @property
    def base_url(self) -> str | None:
        """The server's root URL, once known."""
        if self._url is not None:
            return self._url
        if self._server is not None and self._server.port is not None:
            return self._server.base_url
        return None

    # -- lifecycle ---------------------------------------------------------------------

    def _make_client(self) -> httpx.AsyncClient:
        # trust_env=False: a proxy from the environment must not see loopback traffic.
        return httpx.AsyncClient(timeout=self._timeout, limits=_LIMITS, trust_env=False)

    def start(self) -> None:
        """Start (or join) the server now rather than on the first request (blocking)."""
        with self._lock:
            if self._server is None and self._spec is not None:
                self._server = acquire_server(
                    self._spec, startup_timeout=self._startup_timeout, log_dir=self._log_dir
                )
            server = self._server
        if server is not None:
            server.start()

    async def astart(self) -> None:
        """Async twin of :meth:`start` (the wait runs in a thread)."""
        if self._server is None or not self._server.running:
            await asyncio.to_thread(self.start)

    async def _ready(self) -> OpenAIChatModel:
        if self._url is None:
            await self.astart()
        url = self.base_url
        assert url is not None
        with self._lock:
            inner = self._inner
            if inner is None or inner.base_url != f"{url}/v1":
                if inner is not None:
                    self._retired.append(inner)
                inner = OpenAIChatModel(
                    default_options=self._default_options,
                    base_url=f"{url}/v1",
                    timeout=self._timeout,
                    retry_policy=RetryPolicy(max_retries=0),
                    http_client_factory=self._client_factory,
                    provider=PROVIDER,
                )
                self._inner = inner
        return inner

    async def aclose(self) -> None:
        """Close the HTTP clients and let go of the server (stopped if this was its last
        user and the model started it). The model starts it again if used later."""
        with self._lock:
            models = [*self._retired, *([self._inner] if self._inner else [])]
            self._retired.clear()
            self._inner = None
            server = self._server if self._owns_server else None
            if server is not None:
                self._server = None
        for model in models:
            await model.aclose()
        if server is not None:
            await asyncio.to_thread(release_server, server)

    def close(self) -> None:
        """Blocking twin of :meth:`aclose` (runs it on ostinato's private loop)."""
        from ostinato.runtime import run_sync

        run_sync(self.aclose)

    async def __aenter__(self) -> LlamaCppChatModel:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # -- requests ----------------------------------------------------------------------

    async def call(self, prompt: Prompt) -> ChatResponse:
        """Answer ``prompt`` in one response."""
        inner = await self._ready()
        try:
            return await inner.call(prompt)
        except ModelError as exc:
            explained = await self._explain(exc)
            if explained is exc:
                raise
            raise explained from exc

    async def stream(self, prompt: Prompt) -> AsyncIterator[ChatResponse]:
        """Answer ``prompt`` as partial responses."""
        inner = await self._ready()
        chunks = inner.stream(prompt)
        try:
            async for chunk in chunks:
                yield chunk
        except ModelError as exc:
            explained = await self._explain(exc)
            if explained is exc:
                raise
            raise explained from exc
        finally:
            # Close the inner stream now (not at garbage collection): it holds a response.
            aclose = getattr(chunks, "aclose", None)
            if aclose is not None:
                await aclose()

    async def _explain(self, error: ModelError) -> ModelError:
        server = self._server
        broken = ModelConnectionError | StreamInterruptedError | MalformedResponseError
        if server is not None and isinstance(error, broken):
            code = server.returncode
            if code is None:
                code = await asyncio.to_thread(server.wait_exit, _CRASH_WAIT)
            if code is not None:
                tail = server.log_tail()
                shown = f"\n  last output:\n    {tail.replace(chr(10), chr(10) + '    ')}"
                killed = exit_signal(code)
                by = f" (killed by {killed})" if killed else ""
                return LlamaServerCrashedError(
                    f"llamacpp: llama-server exited with status {code}{by} while answering "
                    f"({error}); the next request starts it again\n"
                    f"  model: {server.spec.model}\n  log: {server.log_path}"
                    + (shown if tail else ""),
                    exit_code=code,
                    log_path=server.log_path,
                    log_tail=tail,
                )
        if self._hint and isinstance(error, ServerError) and error.status == 500:
            return with_hint(error, self._hint)
        return error
