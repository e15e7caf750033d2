"""The engine under httpx's API: httpx's own (httpcore), or aiohttp's.

Models are written against ``httpx.AsyncClient`` whatever moves the bytes. ``httpx``
(the default) is httpcore on the linear-time pool; ``aiohttp`` is aiohttp's connector
under httpx's API (the ``httpx-aiohttp`` transport, ``pip install 'ostinato[aiohttp]'``):
less CPU per request, much less under concurrency, ~140 ms more to import. The engine is
chosen by the model's ``http_engine`` argument, else by ``OSTINATO_HTTP_ENGINE``.

:class:`DeferredAiohttpTransport` imports aiohttp on the first request, not when the
client is made, so that a ready client stays light. It gives the failures httpx's names
(a server that hung up is a ``RemoteProtocolError``, not a connect timeout), so timeouts,
retries and error messages read the same on both engines. This module must not import
aiohttp at import time.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import ssl
from collections.abc import AsyncIterator, Iterator
from importlib.util import find_spec
from typing import Any, Final, Literal, cast

import httpx

from ostinato.errors import ConfigurationError

__all__ = [
    "DEFAULT_ENGINE",
    "ENGINES",
    "ENGINE_VARIABLE",
    "DeferredAiohttpTransport",
    "HttpEngine",
    "check_engine",
    "prefer_server_engine",
]

HttpEngine = Literal["httpx", "aiohttp"]
#: The engines a model can run on.
ENGINES: Final[tuple[HttpEngine, ...]] = ("httpx", "aiohttp")
#: The variable choosing the engine of models that were given none.
ENGINE_VARIABLE: Final = "OSTINATO_HTTP_ENGINE"
#: The engine when neither the model nor the variable names one.
DEFAULT_ENGINE: Final[HttpEngine] = "httpx"


def check_engine(engine: str | None) -> HttpEngine:
    """``engine``, else ``OSTINATO_HTTP_ENGINE``'s (environment, then ``.env``), else
    :data:`DEFAULT_ENGINE`; checked.

    Raises:
        ConfigurationError: not one of :data:`ENGINES`, or ``aiohttp`` without
            ``httpx-aiohttp`` installed.
    """
    where = "http_engine"
    if engine is None:
        engine = os.environ.get(ENGINE_VARIABLE) or _env_file_engine() or DEFAULT_ENGINE
        where = ENGINE_VARIABLE
    if engine not in ENGINES:
        raise ConfigurationError(
            f"{where} must be one of {', '.join(ENGINES)}, got {engine!r}\n"
            f"fix: set {where} to 'httpx' (the default) or 'aiohttp'"
        )
    if engine == "aiohttp" and find_spec("httpx_aiohttp") is None:
        raise ConfigurationError(
            f"{where}='aiohttp' needs the httpx-aiohttp package, which is not installed\n"
            "fix: pip install 'ostinato[aiohttp]', or use the 'httpx' engine"
        )
    return engine


@contextlib.contextmanager
def prefer_server_engine() -> Iterator[HttpEngine]:
    """Within the block, ``aiohttp`` is the engine of models given none, when httpx-aiohttp
    is installed and neither ``OSTINATO_HTTP_ENGINE`` nor the ``.env`` file names an
    engine; yields the engine such models get. For a long-running server process
    (``ostinato serve``, ``ostinato worker``).

    A server earns back aiohttp's start-up cost (its first request imports it) on every
    request after: fewer instructions per request than httpx's own stack (see
    ``docs/performance.md``). The block sets ``OSTINATO_HTTP_ENGINE`` and restores it
    on exit; a model's ``http_engine`` argument still wins.
    """
    named = os.environ.get(ENGINE_VARIABLE) or _env_file_engine()
    if named or find_spec("httpx_aiohttp") is None:
        yield check_engine(named or None)
        return
    os.environ[ENGINE_VARIABLE] = "aiohttp"
    try:
        yield "aiohttp"
    finally:
        os.environ.pop(ENGINE_VARIABLE, None)


def _env_file_engine() -> str | None:
    """``OSTINATO_HTTP_ENGINE`` of the ``.env`` file the core settings read, if any."""
    from ostinato.settings import Settings
    from ostinato.settings._fields import env_file_values

    return env_file_values(Settings).get(ENGINE_VARIABLE) or None


class DeferredAiohttpTransport(httpx.AsyncBaseTransport):
    """httpx-aiohttp's transport, imported and built on the first request.

    Args:
        limits: ``max_connections`` (``None``: no limit) and ``keepalive_expiry`` apply.
        trust_env: proxies, ``.netrc`` credentials and certificates from the environment
            (proxies and ``.netrc`` looked for once, on the first request).
    """

    __slots__ = ("_limits", "_transport", "_trust_env")

    def __init__(self, limits: httpx.Limits, *, trust_env: bool = True) -> None:
        self._limits = limits
        self._trust_env = trust_env
        self._transport: httpx.AsyncBaseTransport | None = None

    def _build(self) -> httpx.AsyncBaseTransport:
        import aiohttp
        from httpx_aiohttp import AiohttpTransport

        limits, trust_env = self._limits, self._trust_env
        context = _ssl_context(trust_env)
        # aiohttp, trusting the environment, looks for a proxy and a .netrc entry on two
        # worker threads for every request; where the environment has neither (read
        # now, as httpx reads it when a client is made), that is skipped.
        session_trusts_env = trust_env and _environment_configures_aiohttp()

        def session() -> aiohttp.ClientSession:
            connector = aiohttp.TCPConnector(
                limit=limits.max_connections or 0,
                keepalive_timeout=limits.keepalive_expiry or 0,
                ssl=context,
            )
            return aiohttp.ClientSession(connector=connector, trust_env=session_trusts_env)

        return AiohttpTransport(limits=limits, trust_env=trust_env, client=session)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` on aiohttp; its failures raised as httpx's."""
        transport = self._transport
        if transport is None:
            transport = self._transport = self._build()
        try:
            response = await transport.handle_async_request(request)
        except Exception as exc:
            mapped = _as_httpx(exc, request)
            if mapped is exc:
                raise
            raise mapped from exc.__cause__ or exc
        response.stream = _Body(cast(httpx.AsyncByteStream, response.stream), request)
        return response

    async def aclose(self) -> None:
        """Close aiohttp's session and its connections (if a request made one)."""
        if self._transport is not None:
            await self._transport.aclose()


def _environment_configures_aiohttp() -> bool:
    """Whether the environment names an HTTP(S) proxy or holds a readable ``.netrc``
    (``NETRC``, else the home folder's): what aiohttp's ``trust_env`` looks for."""
    from urllib.request import getproxies

    from aiohttp.helpers import netrc_from_env

    if any(scheme in ("http", "https") for scheme in getproxies()):
        return True
    return netrc_from_env() is not None


@functools.cache
def _ssl_context(trust_env: bool) -> ssl.SSLContext:
    """httpx's verifying context (certifi, or ``SSL_CERT_FILE``), made once per process:
    loading the certificates costs tens of milliseconds."""
    return httpx.create_ssl_context(trust_env=trust_env)


class _Body(httpx.AsyncByteStream):
    """A response body whose failures are raised as httpx's, and whose early close has
    closed the socket when it returns (aiohttp closes it on the loop's next turn)."""

    __slots__ = ("_ended", "_request", "_stream")

    def __init__(self, stream: httpx.AsyncByteStream, request: httpx.Request) -> None:
        self._stream = stream
        self._request = request
        self._ended = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for piece in self._stream:
                yield piece
            self._ended = True
        except Exception as exc:
            mapped = _as_httpx(exc, self._request)
            if mapped is exc:
                raise
            raise mapped from exc.__cause__ or exc

    async def aclose(self) -> None:
        await self._stream.aclose()
        if not self._ended:  # the connection is being closed, not kept: let it finish
            await asyncio.sleep(0)


def _as_httpx(exc: Exception, request: httpx.Request) -> Exception:
    """The httpx exception httpx's own engine would raise for aiohttp's ``exc``."""
    import aiohttp

    cause: Any = exc.__cause__ if isinstance(exc, httpx.TransportError) else exc
    if not isinstance(cause, aiohttp.ClientError | TimeoutError):
        return exc
    message = f"{type(cause).__name__}: {cause}" if str(cause) else type(cause).__name__
    kind: type[httpx.TransportError]
    if isinstance(cause, aiohttp.ConnectionTimeoutError):
        kind = httpx.ConnectTimeout
    elif isinstance(cause, TimeoutError):
        kind = httpx.ReadTimeout
    elif isinstance(cause, aiohttp.ClientConnectorError):
        kind = httpx.ConnectError
    elif isinstance(cause, aiohttp.ServerDisconnectedError | aiohttp.ClientResponseError):
        kind = httpx.RemoteProtocolError
    else:  # a payload cut short, a socket error while reading
        kind = httpx.ReadError
    return kind(message, request=request)
