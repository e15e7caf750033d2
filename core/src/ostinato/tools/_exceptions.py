"""What the model reads when a tool call goes wrong, or whether the turn fails instead.

By default every tool failure — unknown tool, unusable arguments, a tool
that raises, a tool that times out — becomes a classified tool response and the loop goes
on, so the model can correct itself. An exception processor decides, per error, between
that text and raising. It never swallows ``KeyboardInterrupt`` or ``SystemExit``; a
cancellation of the turn never reaches it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from ostinato.errors import ConfigurationError, ToolError, ToolExecutionError
from ostinato.tools._function import describe_exception

__all__ = [
    "DefaultToolExecutionExceptionProcessor",
    "ToolExecutionExceptionProcessor",
    "tool_error_text",
]


@runtime_checkable
class ToolExecutionExceptionProcessor(Protocol):
    """Turns a tool failure into the text the model reads, or raises to end the turn."""

    def process(self, error: ToolError) -> str:
        """The tool response text for ``error``; raise (it or another) to fail instead."""
        ...


def _ends_the_turn(cause: BaseException) -> bool:
    """True for what a tool call must never turn into text: KeyboardInterrupt, SystemExit...

    A tool's own ``asyncio.CancelledError`` or ``GeneratorExit`` reaches a processor only
    as a :class:`~ostinato.errors.ToolExecutionError`'s cause (a cancellation of the turn
    is never wrapped), so it is a failure like any other.
    """
    if isinstance(cause, Exception | GeneratorExit):
        return False
    import asyncio  # here: importing ostinato does not pay for asyncio

    return not isinstance(cause, asyncio.CancelledError)


def _fallback(name: str, error: BaseException) -> str:
    # Spring AI's wording, for failures that carry no message at all.
    return f"Exception occurred in tool: {name} ({type(error).__name__})"


def tool_error_text(error: ToolError) -> str:
    """The classified message the model reads for ``error``.

    * unknown tool: ``Error: unknown tool 'x'; available tools: a, b``
    * bad arguments: ``Error: invalid arguments for tool 'x': city: Field required``
    * the tool raised: ``Error: tool 'x' failed: ValueError: boom``
    * timeout: ``Error: tool 'x' timed out after 2.0 s``
    * no message at all: ``Exception occurred in tool: x (ValueError)``
    """
    name = error.tool_name or "unknown"
    if isinstance(error, ToolExecutionError):
        cause = error.__cause__
        if cause is not None:
            if not str(cause).strip():
                return _fallback(name, cause)
            detail = str(error).strip() or describe_exception(cause)
        elif not str(error).strip():
            return _fallback(name, error)
        else:
            detail = str(error).strip()
        return f"Error: tool '{name}' failed: {detail}"
    if not str(error).strip():
        return _fallback(name, error)
    return f"Error: {error}"


class DefaultToolExecutionExceptionProcessor:
    """The default processor: errors go back to the model as :func:`tool_error_text`.

    In order:

    1. a ``__cause__`` that is a ``BaseException`` but not an ``Exception`` is raised
       (``KeyboardInterrupt``, ``SystemExit``...), except the ``asyncio.CancelledError``
       and ``GeneratorExit`` a tool raised itself, which are reported like any failure;
    2. ``always_throw=True``: the error itself is raised;
    3. a ``__cause__`` that is an instance of one of ``rethrow`` (subclasses included) is
       raised unwrapped; failing that, an error that is itself an instance of one of
       ``rethrow`` is raised (e.g. ``rethrow=(ToolNotFoundError,)`` makes an unknown tool
       end the turn, as in Spring AI);
    4. otherwise the classified text is returned.
    """

    __slots__ = ("_always_throw", "_rethrow")

    def __init__(
        self, *, always_throw: bool = False, rethrow: Iterable[type[BaseException]] = ()
    ) -> None:
        rethrow = tuple(rethrow)
        for kind in rethrow:
            if not (isinstance(kind, type) and issubclass(kind, BaseException)):
                raise ConfigurationError(
                    f"rethrow must hold exception classes, got {kind!r}; "
                    "e.g. rethrow=(PermissionError,)"
                )
        self._always_throw = bool(always_throw)
        self._rethrow = rethrow

    @property
    def always_throw(self) -> bool:
        """Raise every error instead of returning text."""
        return self._always_throw

    @property
    def rethrow(self) -> tuple[type[BaseException], ...]:
        """Exception classes raised instead of reported."""
        return self._rethrow

    def process(self, error: ToolError) -> str:
        """The text for the model, or raise (see the class docstring for the rules)."""
        cause = error.__cause__
        if cause is not None and _ends_the_turn(cause):
            raise cause
        if self._always_throw:
            raise error
        if self._rethrow:
            if cause is not None and isinstance(cause, self._rethrow):
                raise cause
            if isinstance(error, self._rethrow):
                raise error
        return tool_error_text(error)

    def __repr__(self) -> str:
        names = ", ".join(k.__name__ for k in self._rethrow)
        return (
            f"DefaultToolExecutionExceptionProcessor(always_throw={self._always_throw}, "
            f"rethrow=({names}{',' if len(self._rethrow) == 1 else ''}))"
        )
