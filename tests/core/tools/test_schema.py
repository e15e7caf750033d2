from __future__ import annotations

import dataclasses
import enum
from typing import Literal

import pydantic
import pytest

from ostinato.errors import ConfigurationError
from ostinato.tools import json_schema_for
from ostinato.tools._schema import schema_to_json, tidy_schema


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Address(pydantic.BaseModel):
    street: str
    zip_code: str | None = None


class Person(pydantic.BaseModel):
    name: str = pydantic.Field(description="full name")
    address: Address
    tags: list[str] = []


class Loose(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="allow")
    a: int


class AllOptional(pydantic.BaseModel):
    a: int = 1


@dataclasses.dataclass
class Point:
    x: float
    y: float = 0.0


def test_scalars_have_plain_schemas() -> None:
    assert json_schema_for(int) == {"type": "integer"}
    assert json_schema_for(str) == {"type": "string"}
    assert json_schema_for(bool) == {"type": "boolean"}


def test_a_model_is_an_object_root_with_defs_for_nested_objects() -> None:
    assert json_schema_for(Person) == {
        "type": "object",
        "properties": {
            "name": {"description": "full name", "type": "string"},
            "address": {"$ref": "#/$defs/Address"},
            "tags": {"default": [], "items": {"type": "string"}, "type": "array"},
        },
        "required": ["name", "address"],
        "additionalProperties": False,
        "$defs": {
            "Address": {
                "properties": {
                    "street": {"type": "string"},
                    "zip_code": {
                        "anyOf": [{"type": "string"}, {"type": "null"}],
                        "default": None,
                    },
                },
                "required": ["street"],
                "type": "object",
                "additionalProperties": False,
            }
        },
    }


def test_an_object_root_always_lists_required() -> None:
    assert json_schema_for(AllOptional) == {
        "type": "object",
        "properties": {"a": {"default": 1, "type": "integer"}},
        "required": [],
        "additionalProperties": False,
    }


def test_an_explicit_additional_properties_is_kept() -> None:
    schema = json_schema_for(Loose)
    assert schema["additionalProperties"] is True


def test_a_list_of_dataclasses_keeps_defs_at_the_root() -> None:
    assert json_schema_for(list[Point]) == {
        "items": {"$ref": "#/$defs/Point"},
        "type": "array",
        "$defs": {
            "Point": {
                "properties": {"x": {"type": "number"}, "y": {"default": 0.0, "type": "number"}},
                "required": ["x"],
                "type": "object",
                "additionalProperties": False,
            }
        },
    }


def test_enums_literals_dicts_and_optionals() -> None:
    assert json_schema_for(Colour) == {"enum": ["red", "blue"], "type": "string"}
    assert json_schema_for(Literal["a", "b"]) == {"enum": ["a", "b"], "type": "string"}
    assert json_schema_for(dict[str, int]) == {
        "additionalProperties": {"type": "integer"},
        "type": "object",
    }
    assert json_schema_for(int | None) == {"anyOf": [{"type": "integer"}, {"type": "null"}]}


def test_tidy_removes_titles_but_not_properties_named_title() -> None:
    raw = {
        "title": "Book",
        "type": "object",
        "properties": {"title": {"title": "Title", "type": "string"}},
        "$defs": {},
    }
    assert tidy_schema(raw) == {
        "type": "object",
        "properties": {"title": {"type": "string"}},
        "required": [],
        "additionalProperties": False,
    }
    assert raw["title"] == "Book", "the input is not modified"


def test_tidy_walks_any_of_items_and_data_values_are_left_alone() -> None:
    raw = {
        "anyOf": [
            {"title": "A", "type": "object", "properties": {"x": {"type": "integer"}}},
            {"type": "null"},
        ],
        "default": {"title": "kept, this is data"},
    }
    assert tidy_schema(raw) == {
        "anyOf": [
            {
                "type": "object",
                "properties": {"x": {"type": "integer"}},
                "additionalProperties": False,
            },
            {"type": "null"},
        ],
        "default": {"title": "kept, this is data"},
    }


def test_schema_json_is_compact_ordered_and_keeps_non_ascii() -> None:
    text = schema_to_json({"type": "object", "description": "café", "properties": {}})
    assert text == '{"type":"object","description":"café","properties":{}}'


def test_a_type_pydantic_cannot_describe_is_a_configuration_error() -> None:
    class Opaque:
        pass

    with pytest.raises(ConfigurationError, match=r"cannot build a JSON schema for .*Opaque"):
        json_schema_for(Opaque)
