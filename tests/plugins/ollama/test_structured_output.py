"""Native structured output: ``entity(..., native=True)`` sends the schema as ``format``
and reads the answer back."""

from __future__ import annotations

import json

import pydantic

from ostinato import ChatClient
from ostinato.prompt import Prompt
from ostinato_ollama import OllamaChatModel, OllamaChatOptions
from ostinato_ollama._request import build_request_body
from tests.plugins.ollama.fakes import model_for, reply


class Person(pydantic.BaseModel):
    name: str
    age: int


def test_the_model_declares_native_structured_output():
    assert OllamaChatModel.native_structured_output is True


def test_entity_native_sends_the_schema_as_format_and_parses_the_answer():
    model, sent = model_for(reply('{"name": "John", "age": 30}'))
    person = ChatClient.create(model).prompt("Who?").call().entity(Person, native=True)
    assert person == Person(name="John", age=30)
    body = json.loads(sent[0].content)
    assert body["messages"][-1]["content"] == "Who?"
    assert body["format"] == {
        "type": "object",
        "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
        "required": ["name", "age"],
        "additionalProperties": False,
    }


def test_native_entity_with_validation_re_asks_with_the_schema_each_time():
    model, sent = model_for(reply('{"name": "John"}'), reply('{"name": "John", "age": 30}'))
    spec = ChatClient.create(model).prompt("Who?").call()
    assert spec.entity(Person, native=True, validate_schema=True).age == 30
    assert [json.loads(r.content)["format"]["type"] for r in sent] == ["object", "object"]


def test_the_output_schema_replaces_a_format_option():
    options = OllamaChatOptions(model="m", format="json", output_schema='{"type": "object"}')
    assert build_request_body(Prompt("hi"), options, stream=False)["format"] == {"type": "object"}
