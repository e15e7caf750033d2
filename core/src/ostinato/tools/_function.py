"""``FunctionToolCallback``: a Python callable as a :class:`~ostinato.tools.ToolCallback`.

It parses and validates the model's JSON arguments against the function's signature,
fills ``ToolContext`` parameters, runs async functions on the event loop and sync ones on
the tool thread pool, and turns the result into text. Timeouts are enforced by the tool
calling manager (from :attr:`ToolMetadata.timeout`), not here.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ostinato._tool_contract import ToolContext, ToolDefinition, ToolMetadata
from ostinato.errors import ConfigurationError, ToolArgumentsError, ToolExecutionError
from ostinato.tools._conversion import tool_result_to_text
from ostinato.tools._decorator import ToolSpec, check_timeout, tool_spec_of
from ostinato.tools._schema import schema_to_json
from ostinato.units._failure import current_task, describe_exception, tool_failure

if TYPE_CHECKING:
    import pydantic

    from ostinato.tools._signature import ToolSignature

__all__ = ["FunctionToolCallback", "describe_exception"]

_EXCERPT_LIMIT = 80
_JSON_TYPE_NAMES = {
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}


def _function_name(function: Callable[..., Any]) -> str:
    target = getattr(function, "func", function)  # functools.partial
    name = getattr(target, "__name__", None)
    return name if isinstance(name, str) and name else type(function).__name__


def _excerpt(text: str) -> str:
    if len(text) > _EXCERPT_LIMIT:
        text = text[: _EXCERPT_LIMIT - 1] + "…"
    return repr(text)


def _location(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(arguments)"


class FunctionToolCallback:
    """A tool backed by a Python function, method, ``functools.partial`` or callable object.

    Settings come from the arguments given here, else from the function's ``@tool(...)``,
    else from defaults: the function's name; the docstring's first paragraph or the name
    split into words; not return-direct; not sequential; no timeout.

    Raises:
        ConfigurationError: the function cannot be a tool (see
            :func:`~ostinato.tools.tool_callbacks` for the rules).
    """

    __slots__ = ("_definition", "_function", "_metadata", "_signature")

    def __init__(
        self,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        return_direct: bool | None = None,
        sequential: bool | None = None,
        timeout: float | None = None,
    ) -> None:
        spec = tool_spec_of(function) or ToolSpec()
        if isinstance(function, staticmethod):
            function = function.__func__
        if isinstance(function, classmethod) or not callable(function):
            raise ConfigurationError(
                f"a tool must be callable, got {type(function).__name__}: {function!r}; "
                "for a class method, pass it bound (MyTools.method), not the raw classmethod"
            )
        check_timeout(timeout, "FunctionToolCallback(timeout=...)")
        tool_name = name if name is not None else spec.name or _function_name(function)
        if not isinstance(tool_name, str) or not tool_name.strip():
            raise ConfigurationError(f"a tool name must be a non-blank string, got {tool_name!r}")
        # pydantic is imported on first use, not with ostinato (import time).
        from ostinato.tools._signature import inspect_tool_function

        signature = inspect_tool_function(function, tool_name=tool_name, localns=spec.localns)
        text = description or spec.description or signature.summary
        self._function = function
        self._signature = signature
        self._definition = ToolDefinition(
            tool_name,
            text or ToolDefinition.default_description(tool_name),
            schema_to_json(signature.input_schema),
        )
        self._metadata = ToolMetadata(
            return_direct=spec.return_direct if return_direct is None else return_direct,
            sequential=spec.sequential if sequential is None else sequential,
            timeout=spec.timeout if timeout is None else timeout,
            requires_approval=spec.requires_approval,
            effect=spec.effect,
            reconcile=spec.reconcile,
            in_doubt=spec.in_doubt,
        )

    @classmethod
    def from_function(
        cls,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        return_direct: bool | None = None,
        sequential: bool | None = None,
        timeout: float | None = None,
    ) -> FunctionToolCallback:
        """The callback for ``function``; the same as calling the class (Spring's spelling)."""
        return cls(
            function,
            name=name,
            description=description,
            return_direct=return_direct,
            sequential=sequential,
            timeout=timeout,
        )

    @property
    def function(self) -> Callable[..., Any]:
        """The wrapped callable."""
        return self._function

    @property
    def tool_definition(self) -> ToolDefinition:
        """Name, description and argument schema (compact JSON text)."""
        return self._definition

    @property
    def tool_metadata(self) -> ToolMetadata:
        """Return-direct, sequential and timeout settings."""
        return self._metadata

    @property
    def input_schema(self) -> dict[str, Any]:
        """The argument schema as a dict (a fresh copy each time)."""
        result: dict[str, Any] = json.loads(self._definition.input_schema)
        return result

    @property
    def signature(self) -> ToolSignature:
        """How the function's parameters map to the arguments."""
        return self._signature

    def parse_arguments(self, arguments: str) -> pydantic.BaseModel:
        """Parse and validate ``arguments`` (JSON text; blank means ``{}``).

        Raises:
            ToolArgumentsError: not JSON (or JSON Python cannot read: a huge integer, deep
                nesting), not a JSON object, or fails the schema; the message lists each
                problem as ``field: message``.
        """
        import pydantic  # already imported by the signature; a dict lookup

        name = self._definition.name
        text = arguments if arguments and arguments.strip() else "{}"
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise ToolArgumentsError(
                f"invalid arguments for tool '{name}': the arguments are not valid JSON "
                f"({e.msg}: line {e.lineno} column {e.colno}): {_excerpt(text)}",
                tool_name=name,
            ) from None
        except (ValueError, RecursionError) as e:
            # Valid JSON Python will not read: an integer of thousands of digits, or
            # nesting deeper than the interpreter's recursion limit.
            raise ToolArgumentsError(
                f"invalid arguments for tool '{name}': the arguments cannot be read "
                f"({describe_exception(e)}): {_excerpt(text)}",
                tool_name=name,
            ) from None
        if not isinstance(data, dict):
            kind = _JSON_TYPE_NAMES.get(type(data), type(data).__name__)
            raise ToolArgumentsError(
                f"invalid arguments for tool '{name}': expected a JSON object, got {kind}: "
                f"{_excerpt(text)}",
                tool_name=name,
            )
        try:
            return self._signature.arguments_model.model_validate(data)
        except RecursionError:
            raise ToolArgumentsError(
                f"invalid arguments for tool '{name}': the arguments are nested too deeply",
                tool_name=name,
            ) from None
        except pydantic.ValidationError as e:
            problems = "; ".join(
                f"{_location(err['loc'])}: {err['msg']}" for err in e.errors(include_url=False)
            )
            raise ToolArgumentsError(
                f"invalid arguments for tool '{name}': {problems}", tool_name=name
            ) from None

    async def call(self, arguments: str, context: ToolContext | None = None) -> str:
        """Validate ``arguments``, run the function and return its result as text.

        A ``ToolContext`` parameter receives ``context`` (an empty one when ``None``).

        Raises:
            ToolArgumentsError: the arguments are unusable (see :meth:`parse_arguments`).
            ToolExecutionError: the function raised (``__cause__`` is what it raised) any
                ``Exception``, or an ``asyncio.CancelledError`` or ``GeneratorExit`` of
                its own; a ``StopIteration`` is reported as itself.
            KeyboardInterrupt, SystemExit: raised by the function, unchanged (they end
                the turn), like a cancellation of the running task.
        """
        values = self.parse_arguments(arguments)
        args, kwargs = self._signature.bind(
            values, context if context is not None else ToolContext()
        )
        task = current_task()
        try:
            if self._signature.is_async:
                result = await self._function(*args, **kwargs)
            else:
                from ostinato.runtime import run_in_tool_thread  # here: keeps the import cheap

                result = await run_in_tool_thread(self._function, *args, **kwargs)
                if inspect.isawaitable(result):  # a sync wrapper around a coroutine function
                    result = await result
            return tool_result_to_text(result)
        except BaseException as e:
            # Cancellation, KeyboardInterrupt, SystemExit propagate; see ostinato.units._failure.
            failure = tool_failure(e, task)
            if failure is None:
                raise
            raise ToolExecutionError(
                describe_exception(failure), tool_name=self._definition.name
            ) from failure

    def __repr__(self) -> str:
        target = getattr(self._function, "__qualname__", None) or repr(self._function)
        return f"FunctionToolCallback(name={self._definition.name!r}, function={target})"
