"""Native structured output: ``entity(..., native=True)`` sends the schema as
``output_config.format`` (``json_schema``) and reads the answer's text back."""

from __future__ import annotations

import json

import pydantic

from ostinato import ChatClient
from ostinato.prompt import Prompt
from ostinato_anthropic import AnthropicChatModel, AnthropicChatOptions
from ostinato_anthropic._request import build_request_body
from tests.plugins.anthropic.fakes import message, model_for


class Person(pydantic.BaseModel):
    name: str
    age: int


def text(value: str) -> dict[str, str]:
    return {"type": "text", "text": value}


def test_the_model_declares_native_structured_output():
    assert AnthropicChatModel.native_structured_output is True


def test_entity_native_sends_output_config_format_and_parses_the_answer():
    model, sent = model_for(message(text('{"name": "John", "age": 30}')))
    person = ChatClient.create(model).prompt("Who?").call().entity(Person, native=True)
    assert person == Person(name="John", age=30)
    body = json.loads(sent[0].content)
    assert body["messages"] == [{"role": "user", "content": [text("Who?")]}]
    assert body["output_config"] == {
        "format": {
            "type": "json_schema",
            "schema": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
                "required": ["name", "age"],
                "additionalProperties": False,
            },
        }
    }


def test_native_entity_with_validation_re_asks_with_the_schema_each_time():
    model, sent = model_for(
        message(text('{"name": "John"}')), message(text('{"name": "John", "age": 30}'))
    )
    spec = ChatClient.create(model).prompt("Who?").call()
    assert spec.entity(Person, native=True, validate_schema=True).age == 30
    bodies = [json.loads(r.content) for r in sent]
    assert all(b["output_config"]["format"]["type"] == "json_schema" for b in bodies)


def test_the_output_schema_joins_other_output_config_entries():
    options = AnthropicChatOptions(
        model="m",
        output_config={"effort": "low", "format": {"type": "other"}},
        output_schema='{"type": "object"}',
    )
    body = build_request_body(Prompt("hi"), options, stream=False)
    assert body["output_config"] == {
        "effort": "low",
        "format": {"type": "json_schema", "schema": {"type": "object"}},
    }
