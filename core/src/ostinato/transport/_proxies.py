"""Proxies from the environment, for clients that bring their own transport.

httpx reads ``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY`` and ``NO_PROXY`` (upper or
lower case) only for a client that builds its own transport. A model's client brings
one (sized pool, linear-time bookkeeping), so :func:`environment_mounts` reads them
the way httpx's own clients do and gives the client's ``mounts``: a proxied transport
for each route a proxy serves, the client's own transport for each host ``NO_PROXY``
excludes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

# httpx's own reading of the variables (NO_PROXY's rules included); it has no public name.
from httpx._utils import get_environment_proxies

__all__ = ["environment_mounts"]

T = TypeVar("T")


def environment_mounts(proxied: Callable[[str], T]) -> dict[str, T | None]:
    """The ``mounts`` the environment's proxy variables ask for, read now.

    Each URL pattern a proxy serves maps to ``proxied(proxy_url)``; each one ``NO_PROXY``
    excludes maps to ``None`` (the client's own transport). Empty when the environment
    names no proxy, or when ``NO_PROXY`` is ``*``.
    """
    return {
        pattern: None if url is None else proxied(url)
        for pattern, url in get_environment_proxies().items()
    }
