"""Keeping credentials out of what ostinato shows: messages, ``repr`` s, logs, ``ostinato config``.

One implementation for the whole framework:

* :class:`Redactor` holds every credential a component sends (its API key, the value of
  every credential-like header, the password of the URL's userinfo, query parameters named
  like keys) and masks each wherever it appears in a text — as sent, percent-encoded and
  JSON-escaped — then masks whatever *looks* like a credential (:func:`mask_credentials`).
  Build one with :meth:`Redactor.for_request` from everything a request carries.
* :func:`mask_credentials` masks credential-looking content in any text: the value after a
  credential-like name (``"api-key": "…"``, ``x-api-key: …``, ``?token=…``), a ``Bearer``
  or ``Basic`` token, a URL's userinfo password.
* :func:`mask_url` shows a URL without its password or key-like query parameters.
* :func:`is_credential_name` says whether a header, query parameter or field name is one a
  credential goes in (``Authorization``, ``api-key``, ``x-api-key``, ``X-Auth-Token``,
  ``client_secret``, ``Cookie``, ``X-Amz-Signature``...).

A registered value shorter than :data:`MIN_MASKED_LENGTH` characters is not masked as
bare text (masking ``"401"`` everywhere would garble every message); it is still masked
where it stands as a credential (after its name, in a URL's userinfo).

Standard library only, and nothing from ostinato: every layer may import it.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable, Mapping
from typing import Final
from urllib.parse import quote, quote_plus, unquote, urlsplit, urlunsplit

__all__ = [
    "MASK",
    "MIN_MASKED_LENGTH",
    "Redactor",
    "is_credential_name",
    "mask_credentials",
    "mask_url",
]

#: What a masked value is replaced with.
MASK: Final = "***"
#: Registered values shorter than this are masked only where they stand as credentials.
MIN_MASKED_LENGTH: Final = 4

#: Words that make a name a credential's (``x-api-key`` → ``x``, ``api``, ``key``).
_CREDENTIAL_WORDS: Final = frozenset(
    {
        "apikey",
        "auth",
        "authorization",
        "bearer",
        "cookie",
        "credential",
        "credentials",
        "key",
        "passphrase",
        "passwd",
        "password",
        "pwd",
        "secret",
        "sig",
        "signature",
        "token",
    }
)
#: Words ending in one of these are credentials too (``secretkey``, ``authtoken``).
_CREDENTIAL_SUFFIXES: Final = ("apikey", "secret", "password", "token", "accesskey", "secretkey")
#: The last word of an exception class's name (``KeyError``, ``InvalidTokenWarning``).
_EXCEPTION_WORDS: Final = frozenset({"error", "exception", "warning"})
_WORD: Final = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")

#: ``name: value`` / ``name=value`` / ``"name": "value"``; the name decides. A quoted
#: value the text cuts off (``{"api-key": "sk-…`` in malformed JSON) runs to the end.
_PAIR: Final = re.compile(
    r"""(?P<name>"[A-Za-z][\w.-]*"|'[A-Za-z][\w.-]*'|\b[A-Za-z][\w.-]*)"""
    r"""(?P<sep>\s*[:=](?!//)\s*)"""
    r"""(?P<value>"(?:[^"\\]|\\.)*(?:"|\Z)|'[^']*(?:'|\Z)"""
    r"""|(?:(?i:bearer|basic|token)\s+)?[^\s"',;&}<>)\]@?]+)"""
)
#: Authentication schemes that are never a credential themselves (``Token`` may be one).
_SCHEME_WORDS: Final = frozenset({"bearer", "basic"})
#: A bare ``Bearer``/``Basic`` token, long enough not to be a word.
_SCHEME_TOKEN: Final = re.compile(
    r"\b(?P<scheme>(?i:bearer|basic))\s+(?P<token>[A-Za-z0-9\-._~+/]{8,}=*)"
)
#: ``scheme://user:password@``.
_USERINFO: Final = re.compile(
    r"(?P<prefix>\b[A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*:)(?P<password>[^@/\s]+)(?=@)"
)


#: ``user:password@host`` with no scheme (a base URL missing its ``https://``).
_SCHEMELESS_USERINFO: Final = re.compile(r"^(?P<user>[^:/@\s]+:)[^\s]*@(?=[^@\s]*$)")


def is_credential_name(name: str) -> bool:
    """Whether ``name`` (a header, query parameter or field name) names a credential.

    The name is split into words (``x-api-key``, ``X_Auth_Token``, ``apiKey``) and one of
    them must be a credential word: ``key``, ``apikey``, ``token``, ``secret``, ``auth``,
    ``authorization``, ``password``, ``cookie``, ``signature``, ``credential``...
    ``max_tokens`` and ``keyword`` are not credentials, nor is an exception class
    (``KeyError``, ``TokenExpiredError``): ``KeyError: 'city'`` is an error, not a key.
    """
    words = [w.lower() for w in _WORD.findall(name)]
    if words and words[-1] in _EXCEPTION_WORDS:
        return False
    return any(w in _CREDENTIAL_WORDS or w.endswith(_CREDENTIAL_SUFFIXES) for w in words)


def _mask_value(value: str) -> str:
    """``value`` masked, keeping its quotes and authentication scheme."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return f"{value[0]}{MASK}{value[0]}" if len(value) > 2 else value
    scheme, _, token = value.partition(" ")
    if token.strip() and scheme.lower() in ("bearer", "basic", "token"):
        return f"{scheme} {MASK}"
    if value.lower() in _SCHEME_WORDS:  # a scheme with no token (``Bearer <token>``)
        return value
    return MASK


def _mask_pair(match: re.Match[str]) -> str:
    name, sep, value = match.group("name", "sep", "value")
    if is_credential_name(name.strip("\"'")):
        return f"{name}{sep}{_mask_value(value)}"
    if value[:1] in "\"'" and len(value) > 2:  # a quoted value may quote a credential
        return f"{name}{sep}{value[0]}{mask_credentials(value[1:-1])}{value[-1]}"
    return match.group(0)


def mask_credentials(text: str) -> str:
    """``text`` with whatever looks like a credential masked (``***``).

    Masked: the value after a credential-like name (``"api-key": "…"``,
    ``x-api-key: …``, ``api_key=…``, ``Authorization: Bearer …`` keeps ``Bearer``, and
    a ``Bearer`` or ``Basic`` with no token after it is left as it is), a
    bare ``Bearer``/``Basic`` token, and the password of a URL's userinfo. Values a
    :class:`Redactor` knows are masked wherever they are; this catches the rest.
    """
    text = _USERINFO.sub(lambda m: m.group("prefix") + MASK, text)
    text = _PAIR.sub(_mask_pair, text)
    return _SCHEME_TOKEN.sub(lambda m: f"{m.group('scheme')} {MASK}", text)


def mask_url(url: str) -> str:
    """``url`` fit to show: its userinfo password and key-like query parameters masked.

    ``https://user:pw@host/v1?api-version=1&key=abc`` →
    ``https://user:***@host/v1?api-version=1&key=***``; ``user:pw@host`` (no scheme) →
    ``user:***@host``. A text that is not a URL comes
    back with its credential-looking content masked (:func:`mask_credentials`).
    """
    if "://" not in url:
        # ``user:password@host`` without a scheme: everything between the first ':' and
        # the last '@' may be the password.
        url = _SCHEMELESS_USERINFO.sub(lambda m: f"{m.group('user')}{MASK}@", url)
    try:
        parts = urlsplit(url)
    except ValueError:
        return mask_credentials(url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user, colon, _password = userinfo.partition(":")
        netloc = f"{user}:{MASK}@{host}" if colon else f"{userinfo}@{host}"
    query = "&".join(
        f"{name}={MASK}" if sep and is_credential_name(unquote(name)) else f"{name}{sep}{value}"
        for name, sep, value in (p.partition("=") for p in parts.query.split("&"))
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _forms(secret: str) -> set[str]:
    """``secret`` as it may appear in a text: as is, percent-encoded, JSON-escaped."""
    escaped = json.dumps(secret)[1:-1]
    return {secret, quote(secret, safe=""), quote(secret), quote_plus(secret), escaped}


def _header_secrets(value: str) -> list[str]:
    """What an ``Authorization``-like header value reveals: the value, its token and, for
    ``Basic``, the decoded ``user:password`` and password."""
    found = [value]
    scheme, _, token = value.strip().partition(" ")
    token = token.strip()
    if token:
        found.append(token)
        if scheme.lower() == "basic":
            try:
                pair = base64.b64decode(token, validate=True).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError):
                pair = ""
            if pair:
                found += [pair, pair.partition(":")[2]]
    return found


class Redactor:
    """Masks the credentials one component sends wherever they appear in a text.

    >>> Redactor(["sk-abc123"]).mask('{"error": "bad key sk-abc123"}')
    '{"error": "bad key ***"}'

    Immutable; :meth:`mask` is safe from any thread. ``repr`` never shows a credential.
    """

    __slots__ = ("_count", "_pattern")

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        """Mask each of ``secrets`` (``None`` and empty ones are skipped)."""
        kept = {s for s in secrets if s}
        self._count = len(kept)
        forms = {form for s in kept for form in _forms(s) if len(form) >= MIN_MASKED_LENGTH}
        # Longest first: a key containing another is masked whole.
        ordered = sorted(forms, key=lambda f: (-len(f), f))
        self._pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None

    @classmethod
    def for_request(
        cls,
        *,
        api_key: str | None = None,
        headers: Mapping[str, str] | None = None,
        url: str | None = None,
        params: Mapping[str, str] | None = None,
        secrets: Iterable[str | None] = (),
    ) -> Redactor:
        """A redactor for everything a request carries.

        Args:
            api_key: the API key, wherever it is sent.
            headers: every header sent; the values of credential-like ones are masked
                (``Authorization``'s token and a ``Basic`` password too).
            url: the URL (or API root) requests go to; its userinfo password and
                key-like query parameters are masked.
            params: query parameters sent; key-like ones are masked.
            secrets: further values to mask.
        """
        found: list[str | None] = [api_key, *secrets]
        for name, value in (headers or {}).items():
            if is_credential_name(name):
                found += _header_secrets(value)
        for name, value in (params or {}).items():
            if is_credential_name(name):
                found.append(value)
        if url:
            try:
                parts = urlsplit(url)
            except ValueError:
                parts = None
            if parts is not None:
                if parts.password:
                    found += [parts.password, unquote(parts.password)]
                for name, _, value in (p.partition("=") for p in parts.query.split("&")):
                    if value and is_credential_name(unquote(name)):
                        found += [value, unquote(value)]
        return cls(found)

    def mask(self, text: str) -> str:
        """``text`` with every known credential, and anything looking like one, masked."""
        if self._pattern is not None:
            text = self._pattern.sub(MASK, text)
        return mask_credentials(text)

    def __bool__(self) -> bool:
        return self._count > 0

    def __repr__(self) -> str:
        return f"Redactor(<{self._count} secret{'' if self._count == 1 else 's'}>)"
