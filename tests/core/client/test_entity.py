"""entity(): format instructions from a type's schema, and the answer parsed back into it
(EntityConverter), including the answers that cannot be."""

from __future__ import annotations

import dataclasses

import pydantic
import pytest

from ostinato import ChatClient
from ostinato.client import EntityConverter
from ostinato.client._entity import strip_code_fence
from ostinato.errors import OutputParsingError
from ostinato.testing import ScriptedChatModel


class Person(pydantic.BaseModel):
    name: str
    age: int


def test_entity_parses_the_answer_and_adds_format_instructions():
    model = ScriptedChatModel(['```json\n{"name": "John", "age": 30}\n```'])
    person = ChatClient.create(model).prompt("Who?").call().entity(Person)
    assert person == Person(name="John", age=30)
    last_user = model.prompts[0].messages[-1]
    assert last_user.text.startswith("Who?\n")
    assert '"age"' in last_user.text and "JSON" in last_user.text


def test_entity_of_a_list_type():
    model = ScriptedChatModel(['[{"name": "A", "age": 1}, {"name": "B", "age": 2}]'])
    people = ChatClient.create(model).prompt("Who?").call().entity(list[Person])
    assert [p.name for p in people] == ["A", "B"]


def test_entity_error_says_what_was_wrong():
    model = ScriptedChatModel(['{"name": "John"}'])
    with pytest.raises(OutputParsingError, match="not a valid Person") as info:
        ChatClient.create(model).prompt("Who?").call().entity(Person)
    assert info.value.text == '{"name": "John"}'


def test_entity_with_schema_validation_asks_again():
    model = ScriptedChatModel(['{"name": "John"}', '{"name": "John", "age": 30}'])
    person = ChatClient.create(model).prompt("Who?").call().entity(Person, validate_schema=True)
    assert person == Person(name="John", age=30)
    assert model.call_count == 2
    assert "Output JSON validation failed because of:" in model.prompts[1].messages[-1].text


async def test_aentity_is_the_async_twin():
    model = ScriptedChatModel(['{"name": "Ann", "age": 5}'])
    person = await ChatClient.create(model).prompt("Who?").call().aentity(Person)
    assert person == Person(name="Ann", age=5)


def test_entity_runs_its_own_request_even_after_content():
    model = ScriptedChatModel(["plain", '{"name": "Ann", "age": 5}'])
    call = ChatClient.create(model).prompt("Who?").call()
    assert call.content() == "plain"
    assert call.entity(Person) == Person(name="Ann", age=5)
    assert model.call_count == 2
    assert "JSON" not in model.prompts[0].messages[-1].text


# -- EntityConverter ----------------------------------------------------------------------


@dataclasses.dataclass
class Point:
    x: int
    y: int


def test_format_instructions_carry_the_schema():
    converter = EntityConverter(Point)
    assert converter.schema["properties"].keys() == {"x", "y"}
    assert '"required": ["x", "y"]' in converter.format_instructions
    assert "no Markdown code fences" in converter.format_instructions


@pytest.mark.parametrize(
    "text",
    [
        '{"x": 1, "y": 2}',
        '  {"x": 1, "y": 2}\n',
        '```json\n{"x": 1, "y": 2}\n```',
        '```\n{"x": 1, "y": 2}\n```',
    ],
)
def test_convert_accepts_plain_and_fenced_json(text):
    assert EntityConverter(Point).convert(text) == Point(1, 2)


@pytest.mark.parametrize("text", [None, "", "   "])
def test_convert_refuses_no_text_naming_the_type(text):
    with pytest.raises(OutputParsingError, match="returned no text to convert to Point") as info:
        EntityConverter(Point).convert(text)
    assert info.value.text == text


def test_convert_refuses_json_of_the_wrong_shape_with_an_excerpt():
    long = '{"x": "' + "a" * 500 + '"}'
    with pytest.raises(OutputParsingError, match="not a valid Point") as info:
        EntityConverter(Point).convert(long)
    message = str(info.value)
    assert "answer: " in message and "…" in message
    assert len(message) < len(long) + 500
    assert info.value.text == long


def test_convert_refuses_text_that_is_not_json():
    with pytest.raises(OutputParsingError, match="not a valid int"):
        EntityConverter(int).convert("forty-two")


def test_strip_code_fence_leaves_unfenced_text_trimmed():
    assert strip_code_fence("  [1, 2]  ") == "[1, 2]"
    assert strip_code_fence("```python\nprint()\n```") == "print()"
