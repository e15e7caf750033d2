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


# -- native structured output ---------------------------------------------------------


def test_native_entity_puts_the_schema_on_the_options_instead_of_instructions():
    import json

    model = ScriptedChatModel(['{"name": "John", "age": 30}'])
    person = ChatClient.create(model).prompt("Who?").call().entity(Person, native=True)
    assert person == Person(name="John", age=30)
    sent = model.prompts[0]
    assert sent.messages[-1].text == "Who?"
    schema = json.loads(sent.options.output_schema)
    assert schema["type"] == "object" and schema["required"] == ["name", "age"]


def test_native_entity_of_a_list_travels_wrapped_in_an_object():
    import json

    model = ScriptedChatModel(['{"value": [{"name": "A", "age": 1}]}'])
    people = ChatClient.create(model).prompt("Who?").call().entity(list[Person], native=True)
    assert people == [Person(name="A", age=1)]
    schema = json.loads(model.prompts[0].options.output_schema)
    assert schema["properties"]["value"]["type"] == "array"
    assert schema["required"] == ["value"] and schema["additionalProperties"] is False
    assert schema["properties"]["value"]["items"] == {"$ref": "#/$defs/Person"}
    assert "Person" in schema["$defs"]


def test_a_native_answer_without_its_wrapper_is_a_parsing_error():
    model = ScriptedChatModel(['[{"name": "A", "age": 1}]'])
    with pytest.raises(OutputParsingError, match=r'expected a JSON object \{"value": \.\.\.\}'):
        ChatClient.create(model).prompt("Who?").call().entity(list[Person], native=True)


def test_native_entity_is_refused_before_the_call_by_a_model_without_it():
    from ostinato.errors import StructuredOutputNotSupportedError

    model = ScriptedChatModel(["never"], native_structured_output=False)
    with pytest.raises(StructuredOutputNotSupportedError) as caught:
        ChatClient.create(model).prompt("Who?").call().entity(Person, native=True)
    assert "ScriptedChatModel" in str(caught.value) and caught.value.model == repr(model)
    assert "use entity(type) without native=True" in str(caught.value)
    assert model.call_count == 0


def test_a_third_party_model_without_the_declaration_is_refused():
    from ostinato.errors import StructuredOutputNotSupportedError
    from ostinato.prompt import ToolCallingChatOptions

    class HomeMadeModel:
        default_options = ToolCallingChatOptions()

        async def call(self, prompt):  # pragma: no cover - never reached
            raise AssertionError("called")

        async def stream(self, prompt):  # pragma: no cover - never reached
            yield  # an async generator

        def __repr__(self) -> str:
            return "HomeMadeModel()"

    with pytest.raises(StructuredOutputNotSupportedError, match="HomeMadeModel\\(\\) cannot"):
        ChatClient.create(HomeMadeModel()).prompt("Who?").call().entity(Person, native=True)


def test_native_structured_output_as_a_client_default_advisor_param():
    from ostinato.client import AdvisorParams

    model = ScriptedChatModel(['{"name": "Ann", "age": 5}', '{"name": "Bo", "age": 6}'])
    client = (
        ChatClient.builder(model).default_advisors(AdvisorParams.native_structured_output()).build()
    )
    assert client.prompt("Who?").call().entity(Person).name == "Ann"
    assert model.prompts[0].options.output_schema is not None
    assert client.prompt("Who?").call().entity(Person, native=False).name == "Bo"
    assert model.prompts[1].options.output_schema is None
    assert "JSON Schema" in model.prompts[1].messages[-1].text


def test_native_entity_with_validation_keeps_the_schema_on_every_attempt():
    model = ScriptedChatModel(['{"name": "John"}', '{"name": "John", "age": 30}'])
    spec = ChatClient.create(model).prompt("Who?").call()
    person = spec.entity(Person, native=True, validate_schema=True)
    assert person == Person(name="John", age=30)
    assert model.call_count == 2
    assert all(p.options.output_schema for p in model.prompts)
    assert "Output JSON validation failed because of:" in model.prompts[1].messages[-1].text


async def test_native_aentity_is_the_async_twin():
    model = ScriptedChatModel(['{"name": "Ann", "age": 5}'])
    person = await ChatClient.create(model).prompt("Who?").call().aentity(Person, native=True)
    assert person == Person(name="Ann", age=5)
    assert model.prompts[0].options.output_schema is not None
