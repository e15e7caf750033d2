"""A base URL checked before any request uses it.

``not-a-url``, ``ftp://host`` or ``http://`` (no host) would otherwise fail at the first
request with "cannot reach the server", which sends the user looking for a server that
is fine. :func:`check_base_url` refuses them when the settings load or the model is
built, naming the variable, what was found (a password masked) and what is expected.
Imports no HTTP library.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from ostinato.errors import ConfigurationError
from ostinato.redaction import mask_url

__all__ = ["BASE_URL_FORM", "base_url_problem", "check_base_url"]

#: What a base URL must look like.
BASE_URL_FORM = "http(s)://host[:port][/path]"


def base_url_problem(url: str) -> str | None:
    """What is wrong with ``url`` as a base URL, in a few words; ``None`` if nothing."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError as exc:
        return f"it is not a URL ({exc})"
    if parts.scheme not in ("http", "https"):
        found = f"the scheme {parts.scheme!r}" if parts.scheme else "no scheme"
        return f"it has {found}"
    if not parts.hostname:
        return "it names no host"
    return None


def check_base_url(url: str, *, variable: str) -> str:
    """``url`` if it is an ``http``/``https`` URL with a host.

    Args:
        url: the base URL.
        variable: where it came from (``OSTINATO_OPENAI_BASE_URL``, ``base_url``), named
            in the error.

    Raises:
        ConfigurationError: what was found (its password masked) and what was expected.
    """
    problem = base_url_problem(url)
    if problem is None:
        return url
    raise ConfigurationError(
        f"{variable}={mask_url(url)!r} is not a usable base URL: {problem}; "
        f"expected {BASE_URL_FORM}\n"
        f"fix: set {variable} to the server's API root, e.g. http://localhost:8080/v1"
    )
