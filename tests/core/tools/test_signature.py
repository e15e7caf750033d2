from __future__ import annotations

import dataclasses
import enum
import functools
import inspect
from typing import Annotated, Any, Literal, Optional

import pydantic
import pytest
from typing_extensions import TypedDict

from ostinato.errors import ConfigurationError
from ostinato.tools import ToolContext
from ostinato.tools._signature import inspect_tool_function


class Unit(enum.Enum):
    """Temperature unit."""

    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Filters(pydantic.BaseModel):
    tags: list[str]
    since: str | None = None


@dataclasses.dataclass
class Range:
    low: int
    high: int = 10


class Contact(TypedDict):
    name: str
    email: str


OBJECT = {"type": "object", "required": [], "additionalProperties": False}


def schema(fn: Any) -> dict[str, Any]:
    return inspect_tool_function(fn, tool_name="t").input_schema


def test_no_parameters() -> None:
    def ping() -> str:
        return "pong"

    assert schema(ping) == {**OBJECT, "properties": {}}


def test_scalars_are_required_without_defaults() -> None:
    def f(name: str, count: int, ratio: float, flag: bool) -> None: ...

    assert schema(f) == {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "flag": {"type": "boolean"},
        },
        "required": ["name", "count", "ratio", "flag"],
        "additionalProperties": False,
    }


def test_defaults_make_parameters_optional_and_are_shown() -> None:
    def f(city: str, days: int = 3) -> None: ...

    assert schema(f) == {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"default": 3, "type": "integer"}},
        "required": ["city"],
        "additionalProperties": False,
    }


def test_optional_with_default_none_is_not_required_optional_without_default_is() -> None:
    def f(a: int | None = None, b: Optional[str] = None, c: int | None = ...) -> None: ...  # type: ignore[assignment]  # noqa: UP045

    def g(c: int | None) -> None: ...

    nullable_int = {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert schema(f)["properties"]["a"] == {**nullable_int, "default": None}
    assert schema(f)["properties"]["b"] == {
        "anyOf": [{"type": "string"}, {"type": "null"}],
        "default": None,
    }
    assert schema(g) == {
        "type": "object",
        "properties": {"c": nullable_int},
        "required": ["c"],
        "additionalProperties": False,
    }


def test_descriptions_from_annotated_text_and_field() -> None:
    def f(
        city: Annotated[str, "the city name"],
        days: Annotated[int, pydantic.Field(description="how many days", ge=1, le=7)] = 1,
    ) -> None: ...

    assert schema(f) == {
        "type": "object",
        "properties": {
            "city": {"description": "the city name", "type": "string"},
            "days": {
                "default": 1,
                "description": "how many days",
                "maximum": 7,
                "minimum": 1,
                "type": "integer",
            },
        },
        "required": ["city"],
        "additionalProperties": False,
    }


def test_descriptions_from_a_google_docstring_annotated_wins() -> None:
    def f(city: Annotated[str, "from Annotated"], days: int) -> None:
        """Forecast.

        Args:
            city: from the docstring.
            days: number of days.
        """

    props = schema(f)["properties"]
    assert props["city"] == {"description": "from Annotated", "type": "string"}
    assert props["days"] == {"description": "number of days.", "type": "integer"}


def test_descriptions_from_a_rest_docstring() -> None:
    def f(query: str, limit: int = 5) -> None:
        """Search.

        :param query: what to look for.
        :param limit: at most this many.
        """

    assert schema(f)["properties"] == {
        "query": {"description": "what to look for.", "type": "string"},
        "limit": {"default": 5, "description": "at most this many.", "type": "integer"},
    }


def test_enums_and_literals() -> None:
    def f(unit: Unit, mode: Literal["fast", "slow"] = "fast") -> None: ...

    assert schema(f) == {
        "type": "object",
        "properties": {
            "unit": {"$ref": "#/$defs/Unit"},
            "mode": {"default": "fast", "enum": ["fast", "slow"], "type": "string"},
        },
        "required": ["unit"],
        "additionalProperties": False,
        "$defs": {
            "Unit": {
                "description": "Temperature unit.",
                "enum": ["celsius", "fahrenheit"],
                "type": "string",
            }
        },
    }


def test_nested_model_dataclass_and_typed_dict() -> None:
    def f(filters: Filters, span: Range, contact: Contact) -> None: ...

    assert schema(f) == {
        "type": "object",
        "properties": {
            "filters": {"$ref": "#/$defs/Filters"},
            "span": {"$ref": "#/$defs/Range"},
            "contact": {"$ref": "#/$defs/Contact"},
        },
        "required": ["filters", "span", "contact"],
        "additionalProperties": False,
        "$defs": {
            "Contact": {
                "properties": {"name": {"type": "string"}, "email": {"type": "string"}},
                "required": ["name", "email"],
                "type": "object",
                "additionalProperties": False,
            },
            "Filters": {
                "properties": {
                    "tags": {"items": {"type": "string"}, "type": "array"},
                    "since": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
                },
                "required": ["tags"],
                "type": "object",
                "additionalProperties": False,
            },
            "Range": {
                "properties": {
                    "low": {"type": "integer"},
                    "high": {"default": 10, "type": "integer"},
                },
                "required": ["low"],
                "type": "object",
                "additionalProperties": False,
            },
        },
    }


def test_lists_and_dicts() -> None:
    def f(
        ids: list[int], scores: dict[str, float], pairs: list[list[str]] | None = None
    ) -> None: ...

    assert schema(f)["properties"] == {
        "ids": {"items": {"type": "integer"}, "type": "array"},
        "scores": {"additionalProperties": {"type": "number"}, "type": "object"},
        "pairs": {
            "anyOf": [
                {"items": {"items": {"type": "string"}, "type": "array"}, "type": "array"},
                {"type": "null"},
            ],
            "default": None,
        },
    }


def test_tool_context_parameters_are_left_out() -> None:
    def f(city: str, ctx: ToolContext, other: ToolContext | None = None) -> None: ...

    sig = inspect_tool_function(f, tool_name="t")
    assert sig.input_schema == {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    }
    assert [(p.name, p.is_context) for p in sig.parameters] == [
        ("city", False),
        ("ctx", True),
        ("other", True),
    ]


def test_self_is_left_out_of_bound_methods() -> None:
    class Tools:
        def lookup(self, key: str) -> str:
            return key

        @classmethod
        def make(cls, size: int) -> int:
            return size

    assert schema(Tools().lookup)["properties"] == {"key": {"type": "string"}}
    assert schema(Tools.make)["properties"] == {"size": {"type": "integer"}}


def test_unannotated_parameters_accept_anything() -> None:
    def f(x, y=2):  # type: ignore[no-untyped-def]
        return x

    assert schema(f) == {
        "type": "object",
        "properties": {"x": {}, "y": {"default": 2}},
        "required": ["x"],
        "additionalProperties": False,
    }


def test_names_pydantic_reserves_keep_their_names_in_the_schema() -> None:
    def f(schema: str, _hidden: int = 0, model_config: str = "x", title: str = "t") -> None: ...

    sig = inspect_tool_function(f, tool_name="t")
    assert list(sig.input_schema["properties"]) == ["schema", "_hidden", "model_config", "title"]
    assert sig.input_schema["required"] == ["schema"]
    values = sig.arguments_model.model_validate({"schema": "s", "_hidden": 5, "title": "T"})
    assert sig.bind(values, ToolContext()) == (
        [],
        {"schema": "s", "_hidden": 5, "model_config": "x", "title": "T"},
    )


def test_bind_passes_positional_only_positionally_and_fills_the_context() -> None:
    def f(a: int, /, ctx: ToolContext, b: int = 2, *, c: int = 3) -> None: ...

    sig = inspect_tool_function(f, tool_name="t")
    context = ToolContext({"k": "v"})
    values = sig.arguments_model.model_validate({"a": 1, "c": 9})
    assert sig.bind(values, context) == ([1], {"ctx": context, "b": 2, "c": 9})


def test_partials_and_callable_objects() -> None:
    def base(prefix: str, name: str) -> str:
        """Greet someone."""
        return prefix + name

    class Greeter:
        """Says hello."""

        async def __call__(self, name: str) -> str:
            return name

    partial_sig = inspect_tool_function(functools.partial(base, "hi "), tool_name="t")
    assert partial_sig.input_schema["properties"] == {"name": {"type": "string"}}
    assert partial_sig.summary == "Greet someone."
    assert not partial_sig.is_async
    object_sig = inspect_tool_function(Greeter(), tool_name="t")
    assert object_sig.input_schema["properties"] == {"name": {"type": "string"}}
    assert object_sig.summary == "Says hello."
    assert object_sig.is_async


def test_local_types_resolve_through_the_namespace_given() -> None:
    class Local(pydantic.BaseModel):
        v: int

    def f(item: Local) -> None: ...

    with pytest.raises(ConfigurationError, match=r"cannot resolve the type hints of tool 't'"):
        inspect_tool_function(f, tool_name="t")
    sig = inspect_tool_function(f, tool_name="t", localns={"Local": Local})
    assert sig.input_schema["properties"] == {"item": {"$ref": "#/$defs/Local"}}


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("def f(*args: int) -> None: ...", r"has parameter \*args"),
        ("def f(**kwargs: int) -> None: ...", r"has parameter \*\*kwargs"),
        ("def f(self, x: int) -> None: ...", "looks like a method that is not bound"),
    ],
)
def test_signatures_that_cannot_be_tools(source: str, message: str) -> None:
    namespace: dict[str, Any] = {}
    exec(source, namespace)
    with pytest.raises(ConfigurationError, match=message):
        inspect_tool_function(namespace["f"], tool_name="t")


def test_a_parameter_type_pydantic_cannot_handle_is_a_configuration_error() -> None:
    def f(x: inspect.Signature) -> None: ...

    with pytest.raises(ConfigurationError, match="tool 't' has a parameter type pydantic cannot"):
        inspect_tool_function(f, tool_name="t")
