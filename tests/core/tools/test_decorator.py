from __future__ import annotations

import pytest

from ostinato.errors import ConfigurationError
from ostinato.tools import TOOL_SPEC_ATTRIBUTE, FunctionToolCallback, ToolSpec, tool, tool_spec_of


def test_bare_decorator_attaches_a_default_spec_and_keeps_the_function() -> None:
    def weather(city: str) -> str:
        return f"sunny in {city}"

    decorated = tool(weather)
    assert decorated is weather
    assert weather("Paris") == "sunny in Paris"
    assert tool_spec_of(weather) == ToolSpec()
    assert getattr(weather, TOOL_SPEC_ATTRIBUTE) == ToolSpec()


def test_decorator_with_arguments_records_them() -> None:
    @tool(
        name="get_weather",
        description="Weather now",
        return_direct=True,
        sequential=True,
        timeout=2,
    )
    async def weather(city: str) -> str:
        return city

    assert tool_spec_of(weather) == ToolSpec("get_weather", "Weather now", True, True, 2)


def test_empty_parentheses_work_like_the_bare_form() -> None:
    @tool()
    def ping() -> str:
        return "pong"

    assert tool_spec_of(ping) == ToolSpec()
    assert ping() == "pong"


def test_methods_static_and_class_methods_stay_callable() -> None:
    class Tools:
        @tool
        def instance(self, x: int) -> int:
            return x + 1

        @tool
        @staticmethod
        def static(x: int) -> int:
            return x + 2

        @tool
        @classmethod
        def klass(cls, x: int) -> int:
            return x + 3

    tools = Tools()
    assert (tools.instance(1), Tools.static(1), Tools.klass(1)) == (2, 3, 4)
    for name in ("instance", "static", "klass"):
        assert tool_spec_of(getattr(tools, name)) == ToolSpec()
        assert tool_spec_of(vars(Tools)[name]) == ToolSpec()


def test_undecorated_functions_have_no_spec() -> None:
    def plain() -> None: ...

    assert tool_spec_of(plain) is None
    assert tool_spec_of(42) is None


def test_a_positional_string_is_refused_with_a_hint() -> None:
    with pytest.raises(ConfigurationError, match=r"pass options by keyword: @tool\(name="):
        tool("weather")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": " "}, r"@tool\(name=...\) must be a non-blank string"),
        ({"description": ""}, r"@tool\(description=...\) must be a non-blank string"),
        ({"timeout": 0}, r"@tool\(timeout=...\) must be a positive number of seconds"),
        ({"timeout": -1.5}, "got -1.5"),
        ({"timeout": True}, "got True"),
        ({"timeout": float("inf")}, "got inf"),
        ({"return_direct": "yes"}, r"@tool\(return_direct=...\) must be True or False"),
    ],
)
def test_invalid_arguments_are_configuration_errors(
    kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigurationError, match=message):
        tool(**kwargs)  # type: ignore[call-overload]


def test_types_defined_next_to_a_nested_tool_resolve() -> None:
    import pydantic

    class Order(pydantic.BaseModel):
        id: int

    @tool
    def place(order: Order) -> int:
        return order.id

    schema = FunctionToolCallback(place).input_schema
    assert schema["properties"] == {"order": {"$ref": "#/$defs/Order"}}
