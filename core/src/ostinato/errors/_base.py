"""The exceptions of ostinato but a model provider's (see :mod:`ostinato.errors`)."""

from __future__ import annotations

from typing import Final, Generic, TypeVar

#: The type of a tool call limit breach's partial result (the tools'
#: ``ToolExecutionResult``).
_PartialResultT = TypeVar("_PartialResultT")


__all__ = [
    "AdvisorChainError",
    "ApprovalError",
    "ConfigurationError",
    "DurableTurnError",
    "EventSchemaError",
    "NoToolCallError",
    "OstinatoError",
    "OutputParsingError",
    "PluginError",
    "PromptTemplateError",
    "ResumeError",
    "RetryableToolError",
    "StructuredOutputNotSupportedError",
    "SyncFromLoopError",
    "ToolArgumentsError",
    "ToolCallLimitExceeded",
    "ToolError",
    "ToolExecutionError",
    "ToolInDoubtError",
    "ToolNotFoundError",
    "ToolResolutionError",
    "ToolTimeoutError",
    "TurnLogError",
    "UnitRebuildError",
    "UsageLimitExceeded",
]


class OstinatoError(Exception):
    """Root of every exception ostinato raises on purpose."""


class ConfigurationError(OstinatoError, ValueError):
    """A setting, builder argument or environment variable has a value that cannot work.

    The message names what was found, what was expected and what to change.
    """


class ToolResolutionError(ConfigurationError):
    """A durable turn names a tool that a worker cannot resolve by name: neither a tool
    set a plugin registered nor an importable ``module:attribute`` or ``.py`` path.

    Attributes:
        source: the name as the turn gave it.
    """

    def __init__(self, message: str, *, source: str) -> None:
        super().__init__(message)
        self.source = source


class PluginError(OstinatoError):
    """A plugin could not be imported or registered, or two plugins claim one name."""


class AdvisorChainError(OstinatoError, RuntimeError):
    """The advisor chain was used in a way it does not support."""


class SyncFromLoopError(OstinatoError, RuntimeError):
    """A blocking (sync) face was called from the thread of ostinato's private event loop.

    Waiting there would deadlock; the message names the async twin to use instead.
    """


class OutputParsingError(OstinatoError, ValueError):
    """The model's answer could not be parsed into the requested type (``entity()``).

    Attributes:
        text: the model's answer as received.
    """

    def __init__(self, message: str, *, text: str | None) -> None:
        super().__init__(message)
        self.text = text


class PromptTemplateError(OstinatoError, ValueError):
    """A prompt template could not be rendered: a placeholder that is not a plain name,
    an unmatched brace, a parameter the template needs but was not given, or one given
    that the template does not use (the message names them)."""


class StructuredOutputNotSupportedError(OstinatoError):
    """``entity(..., native=True)`` asked a model that cannot enforce a JSON schema itself.

    Attributes:
        model: the model's ``repr``.
    """

    def __init__(self, message: str, *, model: str) -> None:
        super().__init__(message)
        self.model = model


class ApprovalError(OstinatoError):
    """An approver raised, ran past its timeout, or returned something that is not an
    approval decision. The turn ends; no call that waited for a decision ran.

    Attributes:
        tool_name: the tool whose call was being decided.
        call_id: the id of that call.
    """

    def __init__(self, message: str, *, tool_name: str, call_id: str) -> None:
        super().__init__(message)
        self.tool_name = tool_name
        self.call_id = call_id


class ResumeError(OstinatoError, ValueError):
    """A pending value (or the decisions given with it) cannot resume a turn: it is not
    valid JSON of the expected shape, of another schema version, names tools the request
    does not have, or the decisions do not match the calls waiting for one. Raised before
    any model call or tool run."""


class DurableTurnError(OstinatoError):
    """A durable turn ended without an answer: it failed on its worker (the message
    holds the worker's error), was cancelled, or no turn has this id.

    Attributes:
        turn_id: the turn's id.
        status: its status when the error was raised (a ``TurnStatus`` value).
    """

    def __init__(self, message: str, *, turn_id: str, status: str) -> None:
        super().__init__(message)
        self.turn_id = turn_id
        self.status = status


class UnitRebuildError(OstinatoError, ValueError):
    """A unit's description (``Unit.describe()``, with its kind) cannot be rebuilt into a
    unit: an unknown kind, a field missing or of the wrong shape (the message says which,
    what it held and what was expected)."""


class EventSchemaError(OstinatoError, ValueError):
    """A loop event's JSON form could not be read: another ``schema_version``, an
    unknown kind, or a missing or malformed field (the message says which)."""


class TurnLogError(OstinatoError, LookupError):
    """A turn's log cannot be read as asked: no log has this turn id (``unknown_turn``),
    the position is past the log's end (``past_end``), or the events after it are no
    longer kept (``expired``: older than the log's retention).

    Attributes:
        turn_id: the turn asked for.
        position: the position asked for (``after``), or ``None``.
        reason: ``"unknown_turn"``, ``"past_end"`` or ``"expired"``.
    """

    def __init__(
        self, message: str, *, turn_id: str | None, position: int | None, reason: str
    ) -> None:
        super().__init__(message)
        self.turn_id = turn_id
        self.position = position
        self.reason = reason


class UsageLimitExceeded(OstinatoError):
    """A turn reached one of its usage limits, and the limits say to raise.

    Attributes:
        limit_name: which limit (``model_requests``, ``total_tokens`` or ``tool_calls``).
        limit: the limit's value.
        used: what the turn had used when it was stopped.
    """

    def __init__(self, message: str, *, limit_name: str, limit: int, used: int) -> None:
        super().__init__(message)
        self.limit_name = limit_name
        self.limit = limit
        self.used = used


class ToolError(OstinatoError):
    """A tool could not be found, called or completed.

    Attributes:
        tool_name: the tool as the model named it (``None`` when no single tool is meant).
    """

    #: The qualified class name of what the tool raised, kept where the exception itself
    #: is gone (a failure read back from a durable turn's record); see :attr:`error_type`.
    raised_type: str | None = None

    def __init__(
        self, message: str, *, tool_name: str | None = None, retryable: bool = False
    ) -> None:
        super().__init__(message)
        self.tool_name = tool_name
        self._retryable = retryable

    @property
    def retryable(self) -> bool:
        """Whether the failure may pass on another try: said so when it was made, or the
        tool raised a :class:`RetryableToolError`. Only calls of read-only and idempotent
        tools are retried (see the tools guide)."""
        if getattr(self, "_retryable", False):
            return True
        cause = self.__cause__
        return isinstance(cause, RetryableToolError) or (
            isinstance(cause, ToolError) and cause is not self and cause.retryable
        )

    @property
    def error_type(self) -> str:
        """The qualified class name of what went wrong: for a tool that raised (the
        original exception is ``__cause__``, or only its name is known:
        :attr:`raised_type`), the class it raised (``ValueError``); else this error's own
        class (``ToolTimeoutError``, ``ToolNotFoundError``...). Loop events
        (``ToolFinished.error``) and telemetry (``error.type``) both report it."""
        cause = self.__cause__
        if cause is not None:
            return type(cause).__qualname__
        return self.raised_type or type(self).__qualname__


class RetryableToolError(OstinatoError):
    """Raised by a tool for a failure that may pass on another try (a busy service, a
    lock): the loop retries the call when the tool is read-only or idempotent, and
    reports the failure to the model like any other otherwise."""


class ToolInDoubtError(OstinatoError):
    """A side-effecting or destructive call was in flight when a durable turn's worker
    died, and whether it took effect cannot be settled: its rule is ``fail``, or its
    reconcile hook raised. The turn fails rather than run the call a second time.

    Attributes:
        tool_name: the tool.
        call_id: the model's id of the call.
        key: the call's idempotency key (``"<turn id>/<unit sequence>"``).
    """

    def __init__(self, message: str, *, tool_name: str, call_id: str, key: str | None) -> None:
        super().__init__(message)
        self.tool_name = tool_name
        self.call_id = call_id
        self.key = key


class ToolNotFoundError(ToolError):
    """The model asked for a tool that is neither attached to the request nor resolvable."""

    def __init__(
        self, message: str, *, tool_name: str | None = None, available: tuple[str, ...] = ()
    ) -> None:
        super().__init__(message, tool_name=tool_name)
        self.available = available


class ToolArgumentsError(ToolError):
    """The tool-call arguments were not valid JSON or did not match the tool's schema."""


class ToolExecutionError(ToolError):
    """The tool raised; the original exception is ``__cause__``."""


class ToolTimeoutError(ToolError):
    """The tool did not finish within its ``timeout``.

    Attributes:
        timeout: the limit in seconds.
    """

    def __init__(self, message: str, *, tool_name: str | None = None, timeout: float) -> None:
        super().__init__(message, tool_name=tool_name)
        self.timeout = timeout


class NoToolCallError(ToolError):
    """Tool execution was requested for a response that holds no tool call."""


class ToolCallLimitExceeded(ToolError, Generic[_PartialResultT]):
    """A per-tool or per-turn tool call limit was breached.

    Attributes:
        tool_name: the tool whose own limit was breached, or ``None`` for the total limit.
        limit: the limit that was breached.
        partial_result: the conversation up to and including the breach response (a
            :class:`~ostinato.tools.ToolExecutionResult`), so a caller can still show what
            ran (the tool loop turns it into its answer with
            :func:`ostinato.tools.tool_call_limit_generation`).
    """

    FINISH_REASON: Final = "toolCallLimitExceeded"
    """The finish reason of the answer the tool loop builds on a breach: the value of
    ``ostinato.FinishReason.TOOL_CALL_LIMIT_EXCEEDED``, kept here as a plain string so
    that this module imports nothing at run time."""
    METADATA_PARTIAL_TOOL_RESPONSES: Final = "partialToolResponses"
    """Generation-metadata key of that answer: the responses of the batch that did run."""

    def __init__(
        self,
        message: str,
        *,
        tool_name: str | None,
        limit: int,
        partial_result: _PartialResultT,
    ) -> None:
        super().__init__(message, tool_name=tool_name)
        self.limit = limit
        self.partial_result = partial_result
