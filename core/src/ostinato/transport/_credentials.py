"""Checking an API key before it goes into an HTTP header.

A key read from a file or a secret store often ends with a newline; one pasted from a
web page may hold a non-breaking space or a typographic quote. Sent as they are, the HTTP
library rejects the header with an error that quotes it — the key would end up in the
exception message, the logs and the traceback — or fails with a bare
``UnicodeEncodeError``. So adapters pass their key through :func:`header_api_key` when
they are built: surrounding whitespace is dropped, and any other character a header
cannot carry raises :class:`~ostinato.errors.ConfigurationError` saying where it is,
never what the key is.

:func:`split_userinfo` takes the ``user:password@`` out of an API root: the password goes
into an ``Authorization: Basic`` header (as httpx would send it) and the URL requests are
sent to — which the HTTP library logs — carries no credential.
"""

from __future__ import annotations

import base64
from typing import Protocol
from urllib.parse import unquote, urlsplit, urlunsplit

from ostinato.errors import ConfigurationError

__all__ = ["SecretLike", "header_api_key", "header_value", "split_userinfo"]


class SecretLike(Protocol):
    """A value hiding its text (pydantic's ``SecretStr``)."""

    def get_secret_value(self) -> str:
        """The secret text."""
        ...


def _describe(char: str) -> str:
    code = ord(char)
    if code < 0x20 or code == 0x7F:
        return f"a control character (U+{code:04X})"
    if char.isspace():
        return f"a space character (U+{code:04X})"
    return f"a non-ASCII character (U+{code:04X})"


def header_api_key(api_key: str | SecretLike | None, *, provider: str) -> str | None:
    """The text of ``api_key`` fit for an HTTP header: stripped, ``None`` when empty.

    Raises:
        ConfigurationError: the key holds a character a header cannot carry; the message
            says which and where, without the key.
    """
    if api_key is None:
        return None
    text = api_key if isinstance(api_key, str) else api_key.get_secret_value()
    return header_value(text, what=f"the {provider} API key", spaces=False) or None


def header_value(value: str, *, what: str, spaces: bool = True) -> str:
    """``value`` stripped and checked for an HTTP header (a key may be in any header).

    ``spaces=False`` refuses inner spaces too (an API key has none).

    Raises:
        ConfigurationError: a character the header cannot carry; the message names
            ``what``, the character and its position, never the value.
    """
    text = value.strip()
    for position, char in enumerate(text):
        if not ("\x21" <= char <= "\x7e" or (spaces and char in " \t")):
            raise ConfigurationError(
                f"{what} holds {_describe(char)} at position {position} (of {len(text)}), "
                "which an HTTP header cannot carry; the value is not shown\n"
                "fix: copy it again, without quotes, spaces or line breaks"
            )
    return text


def split_userinfo(url: str) -> tuple[str, str | None]:
    """``url`` without its userinfo, and the ``Authorization`` value the userinfo stands for.

    ``https://user:pw@host/v1`` gives ``("https://host/v1", "Basic dXNlcjpwdw==")``; a URL
    without userinfo comes back as it is, with ``None``. httpx sends a URL's userinfo as
    this same header; taking it out of the URL keeps it out of httpx's log lines.
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return url, None
    if "@" not in parts.netloc:
        return url, None
    userinfo, _, host = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    pair = f"{unquote(user)}:{unquote(password)}".encode()
    clean = urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
    return clean, f"Basic {base64.b64encode(pair).decode('ascii')}"
