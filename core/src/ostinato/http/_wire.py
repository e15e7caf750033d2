"""What every wire format needs, so that no adapter writes it again.

:class:`StreamParserBase` is where a stream's event parser starts (who is speaking, the
rate limits and request id of the reply, the secret to mask, ``done``) and reads an
event's JSON object. :func:`arguments_object` reads a tool call's arguments;
:func:`plain` turns frozen options (mappings, tuples) back into JSON containers;
:func:`tool_schema` reads a tool's input schema text, refusing one that is not JSON, and
:func:`output_schema` the schema an answer must follow (native structured output);
:func:`unexpected_reply` is the error of a reply that is not the object the protocol
says; :func:`error_object` finds the mapping describing an error in the usual shapes;
:func:`whole_reply` is a whole reply's :class:`~ostinato.model.ChatResponse`.
Imports no HTTP library.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from ostinato.errors import ConfigurationError, MalformedResponseError
from ostinato.http._error_report import json_text
from ostinato.model import ChatResponse, ChatResponseMetadata, Generation, Usage
from ostinato.prompt import ChatOptions
from ostinato.redaction import Redactor
from ostinato.transport import excerpt

__all__ = [
    "StreamParserBase",
    "arguments_object",
    "error_object",
    "output_schema",
    "plain",
    "tool_schema",
    "unexpected_reply",
    "whole_reply",
]


def plain(value: Any) -> Any:
    """Frozen mappings and tuples as plain JSON containers."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def tool_schema(name: str, input_schema: str) -> Any:
    """A tool's input schema parsed from its JSON text.

    Raises:
        ConfigurationError: the text is not JSON (the tool is named).
    """
    try:
        return json.loads(input_schema)
    except ValueError as exc:
        raise ConfigurationError(
            f"tool {name!r}: its input schema is not JSON ({exc}); a ToolDefinition's "
            "input_schema must be JSON schema text"
        ) from None


def output_schema(options: ChatOptions) -> dict[str, Any] | None:
    """The JSON schema the options ask the provider to enforce (``output_schema``), parsed.

    Raises:
        ConfigurationError: the text is not a JSON object.
    """
    text = options.output_schema
    if text is None:
        return None
    try:
        schema = json.loads(text)
    except ValueError as exc:
        schema = exc
    if not isinstance(schema, dict):
        raise ConfigurationError(
            f"ChatOptions.output_schema must be the JSON text of a schema object, got {text[:80]!r}"
        ) from None
    return schema


def arguments_object(arguments: str) -> dict[str, Any]:
    """A tool call's arguments as a JSON object (``{}`` when empty or not an object).

    A model that wrote arguments that are not a JSON object got an error back from the
    tool loop; the call itself is still sent back, with empty arguments.
    """
    try:
        value = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def unexpected_reply(provider: str, expected: str, body: Any) -> MalformedResponseError:
    """The error of a reply that is not ``expected`` (quoted, cut at 300 characters)."""
    shown = repr(body)
    return MalformedResponseError(
        f"{provider}: expected {expected}, got {shown[:300]}{'…' if len(shown) > 300 else ''}",
        provider=provider,
    )


def whole_reply(
    body: Mapping[str, Any],
    generations: Iterable[Generation],
    *,
    usage: Usage | None,
    rate_limit: Mapping[str, Any] | None,
    metadata: Mapping[str, Any],
) -> ChatResponse:
    """A whole (non-streamed) reply: ``generations`` with the body's ``id`` and ``model``,
    ``usage`` (``None``: an empty one), the reply's rate limits and response ``metadata``."""
    return ChatResponse(
        list(generations),
        ChatResponseMetadata(
            id=str(body.get("id") or ""),
            model=str(body.get("model") or ""),
            usage=usage if usage is not None else Usage(),
            rate_limit=rate_limit or {},
            metadata=metadata,
        ),
    )


def error_object(payload: Any) -> Mapping[str, Any] | None:
    """The mapping describing an error in ``payload`` when the shape says it plainly: a
    text or value becomes ``{"message": ...}``, ``{"error": {...}}`` gives the inner
    mapping; ``None`` for a mapping whose ``error`` is something else (the adapter reads
    its own shapes then)."""
    if not isinstance(payload, Mapping):
        return {"message": json_text(payload)} if payload is not None else {}
    inner = payload.get("error")
    return inner if isinstance(inner, Mapping) else None


class StreamParserBase:
    """The start of a parser of one streamed reply: subclass it, set its own state in
    :meth:`_start` and add ``event(item)``.

    Args:
        provider: named in errors.
        rate_limit: the reply's rate-limit headers, normalised (frozen once here).
        secret: masked in every quoted event.
        request_id: the reply's request id, if any.
    """

    __slots__ = ("_provider", "_rate_limit", "_request_id", "_secret", "done")

    def __init__(
        self,
        *,
        provider: str,
        rate_limit: Mapping[str, Any],
        secret: str | Redactor | None = None,
        request_id: str | None = None,
    ) -> None:
        self._provider = provider
        self._secret = secret
        self._request_id = request_id
        # Frozen once here rather than once per chunk.
        self._rate_limit = ChatResponseMetadata(rate_limit=rate_limit).rate_limit
        #: Whether the event ending the answer arrived.
        self.done = False
        self._start()

    def _start(self) -> None:
        """Set the subclass's own state (called at the end of ``__init__``)."""

    def _event_object(self, data: str) -> Any:
        """``data`` parsed as JSON.

        Raises:
            MalformedResponseError: it is not JSON (quoted, the secret masked).
        """
        try:
            return json.loads(data)
        except ValueError:
            pass
        raise MalformedResponseError(
            f"{self._provider}: a stream event is not JSON: {excerpt(data, self._secret)}",
            provider=self._provider,
        )
