"""Keeping the credentials of the environment out of what ``ostinato`` prints.

Adapters mask the credentials they send; the command adds a last line of defence for
every error and warning it prints, because some of them quote a setting's value before
any adapter exists (a malformed base URL, a header a request cannot carry). It masks, with
:class:`ostinato.redaction.Redactor`:

* the value of every variable of ostinato and the providers whose name is a credential's
  (``OPENAI_API_KEY``, ``OSTINATO_ANTHROPIC_API_KEY``...; not any variable's, since a
  ``..._TOKEN_LIMIT=1000`` would mask every 1000);
* the password of a URL's userinfo in any variable, also in a value too malformed to be
  parsed as a URL (``user:password@host`` without a scheme);
* the credential-like entries of a JSON object of headers (``OSTINATO_OPENAI_EXTRA_HEADERS``
  holding an ``api-key``);
* and whatever looks like a credential (:func:`ostinato.redaction.mask_credentials`).

It reads ``os.environ`` at each use: what was set when the error happened counts.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from typing import Final
from urllib.parse import unquote

from ostinato.redaction import Redactor, is_credential_name

__all__ = ["environment_redactor", "mask_secrets"]

#: The variables whose credential-named ones are masked whole.
_PREFIXES: Final = ("OSTINATO_", "OPENAI_", "ANTHROPIC_", "OLLAMA_")
#: ``user:password@`` anywhere in a value, scheme or not; the password runs to the last
#: ``@`` of the word, since an unencoded one may hold ``/`` and ``@``.
_USERINFO: Final = re.compile(r"(?:^|[\s'\"(/])[^\s:/@'\"]+:([^\s'\"]+)@")


def _header_values(value: str) -> Iterator[str]:
    """The credential-like entries of a JSON object, if ``value`` is one."""
    if not value.lstrip().startswith("{"):
        return
    try:
        data = json.loads(value)
    except ValueError:
        return
    if isinstance(data, dict):
        for name, entry in data.items():
            if isinstance(name, str) and isinstance(entry, str) and is_credential_name(name):
                yield entry


def environment_redactor(environ: Mapping[str, str] | None = None) -> Redactor:
    """A redactor for every credential ``environ`` (default: ``os.environ``) holds."""
    environ = os.environ if environ is None else environ
    secrets: list[str] = []
    for name, value in environ.items():
        if not value:
            continue
        ours = name.upper().startswith(_PREFIXES)
        if ours and is_credential_name(name):
            secrets.append(value)
        secrets += [form for found in _USERINFO.findall(value) for form in (found, unquote(found))]
        if ours:
            secrets += _header_values(value)
    return Redactor(secrets)


def mask_secrets(text: str) -> str:
    """``text`` with the environment's credentials, and anything like one, masked."""
    return environment_redactor().mask(text)
