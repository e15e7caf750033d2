from __future__ import annotations

import asyncio

import pytest

from ostinato.errors import (
    ConfigurationError,
    ToolArgumentsError,
    ToolError,
    ToolExecutionError,
    ToolNotFoundError,
    ToolTimeoutError,
)
from ostinato.tools import (
    DefaultToolExecutionExceptionProcessor,
    ToolExecutionExceptionProcessor,
    tool_error_text,
)


def failed(cause: BaseException | None, message: str | None = None) -> ToolExecutionError:
    """A ToolExecutionError for tool 'toolName' as FunctionToolCallback builds it."""
    if message is None:
        message = (
            f"{type(cause).__name__}: {cause}"
            if cause is not None and str(cause)
            else (type(cause).__name__ if cause is not None else "")
        )
    error = ToolExecutionError(message, tool_name="toolName")
    error.__cause__ = cause
    return error


PROCESS = DefaultToolExecutionExceptionProcessor().process


def test_the_default_processor_is_a_processor() -> None:
    processor = DefaultToolExecutionExceptionProcessor()
    assert isinstance(processor, ToolExecutionExceptionProcessor)
    assert (processor.always_throw, processor.rethrow) == (False, ())


def test_a_failing_tool_reads_as_failed_with_the_exception() -> None:
    assert PROCESS(failed(ValueError("boom"))) == "Error: tool 'toolName' failed: ValueError: boom"


def test_a_custom_execution_error_keeps_its_own_message() -> None:
    # Spring AI's test: the cause's message reaches the model.
    error = failed(RuntimeError("You failed this city!"), "You failed this city!")
    assert PROCESS(error) == "Error: tool 'toolName' failed: You failed this city!"


def test_an_execution_error_without_cause_uses_its_message() -> None:
    assert PROCESS(failed(None, "disk full")) == "Error: tool 'toolName' failed: disk full"


@pytest.mark.parametrize(
    ("cause", "expected"),
    [
        (RuntimeError(), "Exception occurred in tool: toolName (RuntimeError)"),
        (RuntimeError(" "), "Exception occurred in tool: toolName (RuntimeError)"),
        (KeyError(), "Exception occurred in tool: toolName (KeyError)"),
    ],
)
def test_blank_messages_use_the_reference_fallback(cause: Exception, expected: str) -> None:
    assert PROCESS(failed(cause)) == expected


def test_blank_message_without_cause_names_the_error_class() -> None:
    assert PROCESS(failed(None, "")) == "Exception occurred in tool: toolName (ToolExecutionError)"
    assert PROCESS(ToolTimeoutError(" ", tool_name="t", timeout=1)) == (
        "Exception occurred in tool: t (ToolTimeoutError)"
    )


def test_each_error_class_reads_as_classified_text() -> None:
    assert (
        PROCESS(
            ToolNotFoundError(
                "unknown tool 'x'; available tools: a, b", tool_name="x", available=("a", "b")
            )
        )
        == "Error: unknown tool 'x'; available tools: a, b"
    )
    assert (
        PROCESS(
            ToolArgumentsError(
                "invalid arguments for tool 'x': city: Field required", tool_name="x"
            )
        )
        == "Error: invalid arguments for tool 'x': city: Field required"
    )
    assert (
        PROCESS(ToolTimeoutError("tool 'x' timed out after 2.0 s", tool_name="x", timeout=2.0))
        == "Error: tool 'x' timed out after 2.0 s"
    )
    assert PROCESS(ToolError("something else")) == "Error: something else"
    assert (
        tool_error_text(failed(ValueError("v"))) == "Error: tool 'toolName' failed: ValueError: v"
    )


def test_always_throw_raises_the_error_itself() -> None:
    processor = DefaultToolExecutionExceptionProcessor(always_throw=True)
    error = failed(ValueError("boom"))
    with pytest.raises(ToolExecutionError) as info:
        processor.process(error)
    assert info.value is error
    arguments = ToolArgumentsError("bad", tool_name="x")
    with pytest.raises(ToolArgumentsError):
        processor.process(arguments)


class AuthorizationError(Exception):
    pass


class TokenExpired(AuthorizationError):
    pass


def test_rethrow_raises_a_matching_cause_unwrapped_subclasses_included() -> None:
    processor = DefaultToolExecutionExceptionProcessor(rethrow=[AuthorizationError])
    cause = TokenExpired("expired")
    with pytest.raises(TokenExpired) as info:
        processor.process(failed(cause))
    assert info.value is cause
    assert processor.process(failed(ValueError("v"))) == (
        "Error: tool 'toolName' failed: ValueError: v"
    )


def test_rethrow_also_matches_the_error_itself() -> None:
    processor = DefaultToolExecutionExceptionProcessor(rethrow=(ToolNotFoundError,))
    error = ToolNotFoundError("unknown tool 'x'; no tools are available", tool_name="x")
    with pytest.raises(ToolNotFoundError) as info:
        processor.process(error)
    assert info.value is error


@pytest.mark.parametrize("cause", [KeyboardInterrupt(), SystemExit(1)])
@pytest.mark.parametrize("always_throw", [False, True])
def test_base_exceptions_that_are_not_exceptions_are_never_swallowed(
    cause: BaseException, always_throw: bool
) -> None:
    processor = DefaultToolExecutionExceptionProcessor(always_throw=always_throw)
    with pytest.raises(type(cause)) as info:
        processor.process(failed(cause, "interrupted"))
    assert info.value is cause


@pytest.mark.parametrize(
    "cause", [asyncio.CancelledError("own"), GeneratorExit("own")], ids=lambda e: type(e).__name__
)
def test_a_tools_own_cancelled_error_or_generator_exit_is_reported_like_any_failure(
    cause: BaseException,
) -> None:
    # A cancellation of the turn is never wrapped; as a cause, it was the tool's own.
    processor = DefaultToolExecutionExceptionProcessor()
    assert processor.process(failed(cause, f"{type(cause).__name__}: own")) == (
        f"Error: tool 'toolName' failed: {type(cause).__name__}: own"
    )
    with pytest.raises(ToolExecutionError):
        DefaultToolExecutionExceptionProcessor(always_throw=True).process(failed(cause, "x"))


def test_rethrow_must_hold_exception_classes() -> None:
    with pytest.raises(ConfigurationError, match="rethrow must hold exception classes, got 'x'"):
        DefaultToolExecutionExceptionProcessor(rethrow=["x"])  # type: ignore[list-item]


def test_repr() -> None:
    assert repr(DefaultToolExecutionExceptionProcessor(rethrow=(KeyError,))) == (
        "DefaultToolExecutionExceptionProcessor(always_throw=False, rethrow=(KeyError,))"
    )


class _Outer:
    class Inner(LookupError):
        pass


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (failed(ValueError("boom")), "ValueError"),
        (failed(_Outer.Inner("gone")), "_Outer.Inner"),  # the qualified name
        (failed(None, "no cause"), "ToolExecutionError"),
        (ToolTimeoutError("slow", tool_name="t", timeout=1.0), "ToolTimeoutError"),
        (ToolNotFoundError("unknown tool 'x'", tool_name="x"), "ToolNotFoundError"),
    ],
)
def test_the_error_type_names_what_the_tool_raised(error: ToolError, expected: str) -> None:
    assert error.error_type == expected


def test_a_failure_read_back_without_its_exception_keeps_the_raised_name() -> None:
    error = ToolExecutionError("ValueError: boom", tool_name="t")
    error.raised_type = "ValueError"
    assert error.error_type == "ValueError"
