from __future__ import annotations

import functools
import types

import pytest

from ostinato.errors import ConfigurationError
from ostinato.tools import FunctionToolCallback, ToolContext, tool, tool_callbacks
from tests.core.tools.fakes import RecordingCallback


class WeatherTools:
    """Weather tools."""

    def __init__(self) -> None:
        self.unit = "C"

    @tool(description="Current weather")
    def weather(self, city: str) -> str:
        return f"{city}: 20{self.unit}"

    def helper(self) -> str:
        return "not a tool"

    @tool(sequential=True)
    async def forecast(self, city: str, days: int = 2) -> str:
        """Forecast for a few days."""
        return f"{city} x{days}"

    @tool
    @staticmethod
    def units() -> list[str]:
        return ["C", "F"]

    @tool
    @classmethod
    def provider(cls) -> str:
        return cls.__name__


class MoreWeather(WeatherTools):
    @tool(name="weather_alerts")
    def alerts(self, region: str) -> str:
        return region

    def forecast(self, city: str, days: int = 2) -> str:  # type: ignore[override]  # no longer a tool
        return city


class NoTools:
    def method(self) -> None: ...


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def names(callbacks: list[object]) -> list[str]:
    return [cb.tool_definition.name for cb in callbacks]  # type: ignore[attr-defined]


async def test_methods_of_an_instance_are_bound_in_declaration_order() -> None:
    tools = WeatherTools()
    tools.unit = "F"
    callbacks = tool_callbacks(tools)
    assert names(callbacks) == ["weather", "forecast", "units", "provider"]
    assert all(isinstance(cb, FunctionToolCallback) for cb in callbacks)
    weather, forecast, units, provider = callbacks
    assert weather.tool_definition.description == "Current weather"
    assert await weather.call('{"city": "Paris"}') == "Paris: 20F"
    assert forecast.tool_metadata.sequential
    assert await forecast.call('{"city": "Oslo"}') == "Oslo x2"
    assert await units.call("{}") == '["C", "F"]'
    assert await provider.call("{}") == "WeatherTools"


def test_subclasses_inherit_tools_and_overrides_without_the_decorator_drop_them() -> None:
    assert names(tool_callbacks(MoreWeather())) == [
        "weather",
        "units",
        "provider",
        "weather_alerts",
    ]


def test_functions_decorated_or_not_and_partials() -> None:
    def multiply(a: int, b: int) -> int:
        return a * b

    def power(base: int, exponent: int) -> int:
        return base**exponent

    callbacks = tool_callbacks(add, multiply, functools.partial(power, exponent=2))
    assert names(callbacks) == ["add", "multiply", "power"]
    assert callbacks[0].tool_definition.description == "Add two numbers."
    assert callbacks[1].tool_definition.description == "multiply"


def test_tool_callbacks_are_passed_through_and_order_is_kept() -> None:
    custom = RecordingCallback("custom")
    callbacks = tool_callbacks(add, custom, WeatherTools())
    assert callbacks[1] is custom
    assert names(callbacks) == ["add", "custom", "weather", "forecast", "units", "provider"]


def test_providers_contribute_their_callbacks() -> None:
    class Provider:
        def get_tool_callbacks(self) -> list[RecordingCallback]:
            return [RecordingCallback("p1"), RecordingCallback("p2")]

    assert names(tool_callbacks(Provider(), add)) == ["p1", "p2", "add"]


def test_a_class_gives_its_static_and_class_methods_but_refuses_instance_methods() -> None:
    class StaticOnly:
        @tool
        @staticmethod
        def now() -> str:
            return "now"

    assert names(tool_callbacks(StaticOnly)) == ["now"]
    with pytest.raises(ConfigurationError, match=r"WeatherTools.weather needs an instance: pass"):
        tool_callbacks(WeatherTools)


def test_a_module_gives_its_decorated_functions() -> None:
    module = types.ModuleType("my_tools")

    @tool
    def one() -> None: ...

    def not_a_tool() -> None: ...

    @tool(name="two")
    def second() -> None: ...

    module.one = one  # type: ignore[attr-defined]
    module.not_a_tool = not_a_tool  # type: ignore[attr-defined]
    module.second = second  # type: ignore[attr-defined]
    assert names(tool_callbacks(module)) == ["one", "two"]


def test_an_object_without_tools_is_a_configuration_error_naming_its_type() -> None:
    with pytest.raises(ConfigurationError) as info:
        tool_callbacks(NoTools())
    message = str(info.value)
    assert message.startswith("No @tool methods found on NoTools (")
    assert "Decorate the methods the model may call with @tool" in message


def test_duplicate_names_name_each_source() -> None:
    @tool(name="add")
    def other_add(x: int) -> int:
        return x

    with pytest.raises(ConfigurationError) as info:
        tool_callbacks(add, WeatherTools(), other_add, MoreWeather())
    message = str(info.value)
    assert message.startswith(
        "Multiple tools with the same name ('add', 'weather', 'units', 'provider'):\n"
    )
    assert (
        f"'add': {__name__}.add, "
        f"{__name__}.test_duplicate_names_name_each_source.<locals>.other_add" in message
    )
    assert "'weather': WeatherTools.weather, MoreWeather.weather" in message
    assert message.endswith("Give each tool a unique name with @tool(name=...).")


def test_tools_get_the_tool_context() -> None:
    class WithContext:
        @tool
        def who(self, ctx: ToolContext) -> str:
            return str(ctx.get("user"))

    (cb,) = tool_callbacks(WithContext())
    assert cb.tool_definition.input_schema == (
        '{"type":"object","properties":{},"required":[],"additionalProperties":false}'
    )
