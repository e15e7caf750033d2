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

__all__ = ["SecretLike", "header_api_key", "header_value"]


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
