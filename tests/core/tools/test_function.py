from __future__ import annotations

import asyncio
import contextvars
import json
import threading
from typing import Annotated

import pydantic
import pytest

from ostinato.errors import ConfigurationError, ToolArgumentsError, ToolExecutionError
from ostinato.tools import (
    FunctionToolCallback,
    ToolCallback,
    ToolContext,
    ToolDefinition,
    ToolMetadata,
    tool,
)

request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")


class Query(pydantic.BaseModel):
    text: str
    limit: int = 10


def current_weather(city: Annotated[str, "the city"], days: int = 1) -> str:
    """Current weather for a city.

    Longer text the model does not need.
    """
    return f"{city}:{days}"


def test_it_is_a_tool_callback_with_definition_and_metadata() -> None:
    cb = FunctionToolCallback(current_weather)
    assert isinstance(cb, ToolCallback)
    assert cb.tool_definition == ToolDefinition(
        "current_weather",
        "Current weather for a city.",
        '{"type":"object","properties":{"city":{"description":"the city","type":"string"},'
        '"days":{"default":1,"type":"integer"}},"required":["city"],'
        '"additionalProperties":false}',
    )
    assert cb.tool_metadata == ToolMetadata()
    assert cb.function is current_weather
    assert repr(cb) == "FunctionToolCallback(name='current_weather', function=current_weather)"


def test_description_falls_back_to_the_name_split_into_words() -> None:
    def getCurrentWeather_now(city: str) -> str:
        return city

    cb = FunctionToolCallback(getCurrentWeather_now)
    assert cb.tool_definition.description == "get current weather now"


def test_explicit_arguments_win_over_the_decorator_which_wins_over_defaults() -> None:
    @tool(name="weather", description="From the decorator", return_direct=True, timeout=5)
    def f(city: str) -> str:
        """From the docstring."""
        return city

    decorated = FunctionToolCallback(f)
    assert (decorated.tool_definition.name, decorated.tool_definition.description) == (
        "weather",
        "From the decorator",
    )
    assert decorated.tool_metadata == ToolMetadata(return_direct=True, timeout=5)
    explicit = FunctionToolCallback.from_function(
        f, name="w2", description="Explicit", return_direct=False, sequential=True, timeout=1
    )
    assert (explicit.tool_definition.name, explicit.tool_definition.description) == (
        "w2",
        "Explicit",
    )
    assert explicit.tool_metadata == ToolMetadata(return_direct=False, sequential=True, timeout=1)


def test_bad_construction_arguments() -> None:
    with pytest.raises(ConfigurationError, match="a tool name must be a non-blank string"):
        FunctionToolCallback(current_weather, name=" ")
    with pytest.raises(ConfigurationError, match=r"FunctionToolCallback\(timeout=...\)"):
        FunctionToolCallback(current_weather, timeout=0)
    with pytest.raises(ConfigurationError, match="a tool must be callable"):
        FunctionToolCallback(42)  # type: ignore[arg-type]


async def test_call_validates_and_converts_arguments() -> None:
    cb = FunctionToolCallback(current_weather)
    assert await cb.call('{"city": "Paris", "days": "3"}') == "Paris:3"
    assert await cb.call('{"city": "Oslo", "unknown": 1}') == "Oslo:1", "extra keys are ignored"


async def test_blank_arguments_mean_an_empty_object() -> None:
    def ping() -> str:
        return "pong"

    cb = FunctionToolCallback(ping)
    assert await cb.call("") == "pong"
    assert await cb.call("  ") == "pong"


async def test_nested_models_arrive_as_model_instances() -> None:
    seen: list[Query] = []

    def search(query: Query) -> int:
        seen.append(query)
        return len(query.text)

    cb = FunctionToolCallback(search)
    assert await cb.call('{"query": {"text": "abc"}}') == "3"
    assert seen == [Query(text="abc", limit=10)]


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ('{"city": ' + "9" * 5000 + "}", "ValueError: Exceeds the limit"),
        ("[" * 100_000 + "]" * 100_000, "RecursionError"),
    ],
    ids=["huge integer", "deep nesting"],
)
async def test_json_python_cannot_read_is_an_arguments_error(arguments: str, reason: str) -> None:
    # Not a JSONDecodeError: without care it would pass for the tool failing.
    cb = FunctionToolCallback(current_weather)
    with pytest.raises(ToolArgumentsError) as info:
        await cb.call(arguments)
    message = str(info.value)
    assert message.startswith(
        "invalid arguments for tool 'current_weather': the arguments cannot be read ("
    )
    assert reason in message and len(message) < 400


async def test_invalid_json_is_an_arguments_error_quoting_an_excerpt() -> None:
    cb = FunctionToolCallback(current_weather)
    with pytest.raises(ToolArgumentsError) as info:
        await cb.call('{"city": "Par')
    assert info.value.tool_name == "current_weather"
    assert str(info.value).startswith(
        "invalid arguments for tool 'current_weather': the arguments are not valid JSON ("
    )
    assert str(info.value).endswith(': \'{"city": "Par\'')
    long = "x" * 500
    with pytest.raises(ToolArgumentsError) as info:
        await cb.call(long)
    assert len(str(info.value)) < 250
    assert str(info.value).endswith("x…'")


async def test_a_json_value_that_is_not_an_object_is_an_arguments_error() -> None:
    cb = FunctionToolCallback(current_weather)
    with pytest.raises(ToolArgumentsError, match=r"expected a JSON object, got an array: '\[1\]'"):
        await cb.call("[1]")


async def test_schema_failures_list_each_field() -> None:
    def book(query: Query, seats: int, names: list[str]) -> None: ...

    cb = FunctionToolCallback(book)
    with pytest.raises(ToolArgumentsError) as info:
        await cb.call('{"query": {"limit": "many"}, "names": ["a", 2]}')
    assert str(info.value) == (
        "invalid arguments for tool 'book': query.text: Field required; "
        "query.limit: Input should be a valid integer, unable to parse string as an integer; "
        "seats: Field required; names[1]: Input should be a valid string"
    )
    assert info.value.__cause__ is None


async def test_exceptions_from_the_function_become_execution_errors() -> None:
    def explode(x: int) -> None:
        raise ValueError(f"boom {x}")

    with pytest.raises(ToolExecutionError) as info:
        await FunctionToolCallback(explode).call('{"x": 1}')
    assert str(info.value) == "ValueError: boom 1"
    assert info.value.tool_name == "explode"
    assert isinstance(info.value.__cause__, ValueError)

    async def silent() -> None:
        raise KeyError

    with pytest.raises(ToolExecutionError, match=r"^KeyError$"):
        await FunctionToolCallback(silent).call("{}")


async def test_tool_context_is_injected_and_empty_when_missing() -> None:
    seen: list[ToolContext] = []

    def f(city: str, ctx: ToolContext) -> str:
        seen.append(ctx)
        return city

    cb = FunctionToolCallback(f)
    context = ToolContext({"user": "u-1"})
    assert await cb.call('{"city": "Rome"}', context) == "Rome"
    assert await cb.call('{"city": "Rome"}') == "Rome"
    assert seen[0] is context
    assert seen[1] == {}
    assert isinstance(seen[1], ToolContext)
    assert "ctx" not in cb.input_schema["properties"]


async def test_async_functions_run_on_the_loop_sync_ones_on_the_tool_pool() -> None:
    loop_thread = threading.current_thread().name
    threads: dict[str, str] = {}

    async def on_loop() -> str:
        threads["async"] = threading.current_thread().name
        return "a"

    def in_thread() -> str:
        threads["sync"] = threading.current_thread().name
        return "s"

    assert await FunctionToolCallback(on_loop).call("{}") == "a"
    assert await FunctionToolCallback(in_thread).call("{}") == "s"
    assert threads["async"] == loop_thread
    assert threads["sync"].startswith("ostinato-tool")


async def test_sync_tools_see_the_callers_context_variables() -> None:
    def read() -> str:
        return request_id.get()

    token = request_id.set("req-42")
    try:
        assert await FunctionToolCallback(read).call("{}") == "req-42"
    finally:
        request_id.reset(token)


async def test_a_sync_function_returning_an_awaitable_is_awaited() -> None:
    async def inner() -> str:
        return "inner"

    def wrapper() -> object:
        return inner()

    assert await FunctionToolCallback(wrapper).call("{}") == "inner"


async def test_results_are_converted_to_text() -> None:
    def none() -> None: ...

    def data() -> dict[str, object]:
        return {"ok": True, "n": [1, 2]}

    async def model() -> Query:
        return Query(text="q")

    assert await FunctionToolCallback(none).call("{}") == "Done"
    assert await FunctionToolCallback(data).call("{}") == '{"ok": true, "n": [1, 2]}'
    assert await FunctionToolCallback(model).call("{}") == '{"text":"q","limit":10}'


async def test_cancellation_is_not_wrapped() -> None:
    started = asyncio.Event()

    async def wait() -> None:
        started.set()
        await asyncio.Event().wait()

    task = asyncio.create_task(FunctionToolCallback(wait).call("{}"))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def test_input_schema_is_a_fresh_dict() -> None:
    cb = FunctionToolCallback(current_weather)
    cb.input_schema["properties"].clear()
    assert json.loads(cb.tool_definition.input_schema)["properties"]
    assert cb.input_schema["properties"]
