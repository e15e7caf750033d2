"""``WireFormat``: a provider's API apart from HTTP, held by :class:`~ostinato.http.HttpxChatModel`.

As an httpx client holds a transport that moves its bytes, an HTTP chat model holds a
wire format that says what the bytes mean, in four methods: the request body of a prompt,
the response a whole reply holds, the parser of a stream's events, and the report of an
error body. None of them sees a connection, so a wire format is tested by feeding it
recorded bodies. :class:`WireContext` is what a wire format is built with (the provider's
name, the default options, the endpoint and the secret to mask), with the helpers every
format needs; a reply that is the provider's error object sent with a 2xx status is
raised as :class:`ErrorBody`, and the model makes the typed error of it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar, cast

from ostinato.errors import MalformedResponseError
from ostinato.http._contract import EventParser
from ostinato.http._error_report import ErrorReport
from ostinato.model import ChatResponse
from ostinato.prompt import ChatOptions, Prompt
from ostinato.redaction import Redactor
from ostinato.transport import excerpt

__all__ = ["ErrorBody", "UndeclaredWireFormat", "WireContext", "WireFormat", "WireFormatClass"]

OptionsT = TypeVar("OptionsT", bound=ChatOptions)


class WireFormat(Protocol):
    """What one provider's HTTP JSON API looks like, apart from HTTP.

    ``sent`` is the request body the reply answers; ``headers`` are the reply's (any
    mapping: an ``httpx.Headers``, or a ``dict`` in a test).
    """

    def request_body(self, prompt: Prompt, *, stream: bool) -> dict[str, Any]:
        """The JSON body of a request for ``prompt`` (``stream``: asking for a stream)."""
        ...

    def reply(
        self, content: bytes, headers: Mapping[str, str], sent: Mapping[str, Any]
    ) -> ChatResponse:
        """The response a whole reply's ``content`` holds.

        Raises:
            ErrorBody: ``content`` is the provider's error object (sent with a 2xx status).
            ModelError: it is not a reply (typically a ``MalformedResponseError``).
        """
        ...

    def stream_events(self, headers: Mapping[str, str], sent: Mapping[str, Any]) -> EventParser:
        """A parser for the items (events or JSON lines) of one streamed reply."""
        ...

    def error(
        self,
        payload: Any,
        status: int | None,
        headers: Mapping[str, str],
        fallback: str | None,
        sent: Mapping[str, Any],
    ) -> ErrorReport:
        """What an error body says: ``payload`` is its JSON (else its text, already masked;
        ``None`` when empty), ``status`` ``None`` for one sent with a 2xx status, and
        ``fallback`` the reason phrase to use when it has no message."""
        ...


class WireFormatClass(Protocol):
    """What makes a model's wire format: a wire format class, called with the context."""

    def __call__(self, context: WireContext[Any], /) -> WireFormat:
        """The wire format serving the model ``context`` describes."""
        ...


class ErrorBody(Exception):
    """A reply sent with a 2xx status that is the provider's error object (some gateways
    do): raised by :meth:`WireFormat.reply`; the model reads it with
    :meth:`WireFormat.error` and raises the typed error."""

    def __init__(self, payload: Any) -> None:
        super().__init__("the reply is an error body")
        #: The error body, parsed.
        self.payload = payload


@dataclass(frozen=True, slots=True)
class WireContext(Generic[OptionsT]):
    """What a wire format is built with, and what every format needs from it.

    Attributes:
        provider: the name errors carry.
        default_options: the options a request starts from.
        url: the endpoint requests go to (named in errors).
        secret: every credential the model sends, masked in anything quoted.
    """

    provider: str
    default_options: OptionsT
    url: str = ""
    secret: Redactor = field(default_factory=Redactor)

    def options_for(self, prompt: Prompt) -> OptionsT:
        """The options a request for ``prompt`` is sent with (unset fields from the defaults)."""
        if prompt.options is None:
            return self.default_options
        defaults = self.default_options
        # Every adapter's options class has ``from_options`` and ``filled_from``.
        options_class: Any = type(defaults)
        return cast(OptionsT, options_class.from_options(prompt.options).filled_from(defaults))

    def malformed(self, what: str) -> MalformedResponseError:
        """A reply that does not say what the protocol says, described by ``what``."""
        return MalformedResponseError(f"{self.provider}: {what}", provider=self.provider)

    def not_json(self, content: bytes | str) -> MalformedResponseError:
        """The error of a reply that is not JSON (quoted, the secret masked)."""
        return self.malformed(f"the reply is not JSON: {excerpt(content, self.secret)}")

    def json(self, content: bytes) -> Any:
        """``content`` parsed as JSON.

        Raises:
            MalformedResponseError: it is not JSON (quoted, the secret masked).
        """
        try:
            return json.loads(content)
        except ValueError:
            pass
        # Raised outside the except block: the decoding error (which holds the whole
        # body, key echoes included) does not ride along as the error's context.
        raise self.not_json(content)


class UndeclaredWireFormat:
    """The wire format of a model class that declares none: every use says so."""

    __slots__ = ("_owner",)

    def __init__(self, owner: type) -> None:
        self._owner = owner

    def _missing(self) -> TypeError:
        name = self._owner.__name__
        return TypeError(
            f"{name} declares no wire_format, so it cannot build a request or read a reply\n"
            f"fix: set wire_format on {name} (a WireFormat class taking a WireContext)"
        )

    def request_body(self, prompt: Prompt, *, stream: bool) -> dict[str, Any]:
        """Raises ``TypeError``: no wire format is declared."""
        raise self._missing()

    def reply(
        self, content: bytes, headers: Mapping[str, str], sent: Mapping[str, Any]
    ) -> ChatResponse:
        """Raises ``TypeError``: no wire format is declared."""
        raise self._missing()

    def stream_events(self, headers: Mapping[str, str], sent: Mapping[str, Any]) -> EventParser:
        """Raises ``TypeError``: no wire format is declared."""
        raise self._missing()

    def error(
        self,
        payload: Any,
        status: int | None,
        headers: Mapping[str, str],
        fallback: str | None,
        sent: Mapping[str, Any],
    ) -> ErrorReport:
        """Raises ``TypeError``: no wire format is declared."""
        raise self._missing()
