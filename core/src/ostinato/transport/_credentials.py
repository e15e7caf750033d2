"""Checking an API key before it goes into an HTTP header.

A key read from a file or a secret store often ends with a newline; one pasted from a
web page may hold a non-breaking space or a typographic quote. Sent as they are, the HTTP
library rejects the header with an error that quotes it — the key would end up in the
exception message, the logs and the traceback — or fails with a bare
``UnicodeEncodeError``. So adapters pass their key through :func:`header_api_key` when
they are built: surrounding whitespace is dropped, and any other character a header
cannot carry raises :class:`~ostinato.errors.ConfigurationError` saying where it is,
never what the key is.
"""

from __future__ import annotations

from typing import Protocol

from ostinato.errors import ConfigurationError

__all__ = ["SecretLike", "header_api_key"]


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
    text = text.strip()
    for position, char in enumerate(text):
        if not "\x21" <= char <= "\x7e":
            raise ConfigurationError(
                f"the {provider} API key holds {_describe(char)} at position {position} "
                f"(of {len(text)}), which an HTTP header cannot carry; the key is not shown\n"
                "fix: copy the key again, without quotes, spaces or line breaks"
            )
    return text or None
