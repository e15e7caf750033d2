"""The httpx clients a model makes for itself: timeouts and pool limits sized for models.

Models are slow (a read may take minutes while a model loads or thinks) and a service
holds hundreds of conversations at once, so the defaults differ from httpx's: ten
minutes per read, ten seconds to connect, a thousand connections. Clients use
:class:`~ostinato.transport.LinearConnectionPool` (httpcore's own pool costs O(n²) per request
in n connections), or aiohttp's connector (:mod:`ostinato.transport._engine`, imported on the
first request).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

import httpx

from ostinato.transport._engine import DeferredAiohttpTransport, HttpEngine
from ostinato.transport._pool import use_linear_pool
from ostinato.transport._proxies import environment_mounts

__all__ = ["DEFAULT_LIMITS", "DEFAULT_TIMEOUT", "encode_body", "httpx_timeout", "make_client"]

#: Models are slow: ten minutes per read, ten seconds to connect (httpx's 5 s is too short).
DEFAULT_TIMEOUT: Final = httpx.Timeout(600.0, connect=10.0)
#: Sized for hundreds of concurrent conversations (httpx's default is 100 connections).
DEFAULT_LIMITS: Final = httpx.Limits(
    max_connections=1000, max_keepalive_connections=200, keepalive_expiry=30.0
)


def httpx_timeout(timeout: float | httpx.Timeout | None) -> httpx.Timeout:
    """``timeout`` as an ``httpx.Timeout``: the default for ``None``; seconds apply to
    every phase, connecting for at most the default's ten seconds."""
    if timeout is None:
        return DEFAULT_TIMEOUT
    if isinstance(timeout, httpx.Timeout):
        return timeout
    return httpx.Timeout(timeout, connect=min(timeout, DEFAULT_TIMEOUT.connect or timeout))


def make_client(
    timeout: httpx.Timeout, limits: httpx.Limits, engine: HttpEngine = "httpx"
) -> httpx.AsyncClient:
    """A client with ``timeout`` and ``limits`` on ``engine`` (httpx's on the linear-time
    pool), honouring the environment's proxy variables (``HTTP_PROXY``, ``HTTPS_PROXY``,
    ``ALL_PROXY``, ``NO_PROXY``) on both engines.

    On httpx's engine they are read now, as httpx's own clients read them, and a proxied
    route gets a transport with the same options; the aiohttp engine reads them (and
    ``.netrc``) on the first request.
    """
    if engine == "aiohttp":
        deferred = DeferredAiohttpTransport(limits, trust_env=True)
        return httpx.AsyncClient(timeout=timeout, limits=limits, transport=deferred)
    transport = _httpx_transport(limits)
    use_linear_pool(transport)
    mounts = environment_mounts(lambda proxy: _httpx_transport(limits, proxy))
    return httpx.AsyncClient(timeout=timeout, limits=limits, transport=transport, mounts=mounts)


def _httpx_transport(limits: httpx.Limits, proxy: str | None = None) -> httpx.AsyncHTTPTransport:
    """httpx's transport with ``limits`` (through ``proxy`` when given): the options of
    every route of a client :func:`make_client` makes."""
    return httpx.AsyncHTTPTransport(limits=limits, trust_env=True, proxy=proxy)


# json.dumps with arguments builds an encoder per call: one kept encoder writes the same text.
_COMPACT_UTF8: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def encode_body(body: Mapping[str, Any]) -> bytes:
    """``body`` as compact UTF-8 JSON (a lone surrogate escaped: it has no UTF-8 form)."""
    try:
        return _COMPACT_UTF8(body).encode()
    except UnicodeEncodeError:
        # A tool echoed "\ud800" from its JSON arguments; escaped, it is valid JSON.
        return json.dumps(body, separators=(",", ":")).encode()
