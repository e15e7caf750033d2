"""Native structured output: ``entity(..., native=True)`` sends a strict ``json_schema``
``response_format`` (objects closed, every property required) and reads the answer back."""

from __future__ import annotations

import json

import pydantic

from ostinato import ChatClient
from ostinato.prompt import Prompt
from ostinato_openai import OpenAIChatModel, OpenAIChatOptions
from ostinato_openai._request import build_request_body
from tests.plugins.openai.fakes import completion, model_for


class Address(pydantic.BaseModel):
    city: str


class Person(pydantic.BaseModel):
    name: str
    age: int
    nickname: str = ""
    address: Address


ANSWER = '{"name": "John", "age": 30, "nickname": "J", "address": {"city": "Oslo"}}'


def test_the_model_declares_native_structured_output():
    assert OpenAIChatModel.native_structured_output is True


def test_entity_native_sends_a_strict_json_schema_and_parses_the_answer():
    model, sent = model_for(completion({"role": "assistant", "content": ANSWER}))
    person = ChatClient.create(model).prompt("Who?").call().entity(Person, native=True)
    assert person == Person(name="John", age=30, nickname="J", address=Address(city="Oslo"))
    body = json.loads(sent[0].content)
    assert body["messages"] == [{"role": "user", "content": "Who?"}]
    response_format = body["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["name"] == "response"
    assert response_format["json_schema"]["strict"] is True
    schema = response_format["json_schema"]["schema"]
    assert schema["required"] == ["name", "age", "nickname", "address"]
    assert schema["additionalProperties"] is False
    assert schema["$defs"]["Address"]["required"] == ["city"]
    assert schema["$defs"]["Address"]["additionalProperties"] is False


def test_a_list_travels_wrapped_in_an_object():
    reply = completion({"role": "assistant", "content": '{"value": [{"city": "Oslo"}]}'})
    model, sent = model_for(reply)
    cities = ChatClient.create(model).prompt("Where?").call().entity(list[Address], native=True)
    assert cities == [Address(city="Oslo")]
    schema = json.loads(sent[0].content)["response_format"]["json_schema"]["schema"]
    assert schema["type"] == "object" and schema["required"] == ["value"]
    assert schema["properties"]["value"]["type"] == "array"


def test_native_entity_with_validation_re_asks_with_the_schema_each_time():
    model, sent = model_for(
        completion({"role": "assistant", "content": '{"name": "John"}'}),
        completion({"role": "assistant", "content": ANSWER}),
    )
    spec = ChatClient.create(model).prompt("Who?").call()
    assert spec.entity(Person, native=True, validate_schema=True).name == "John"
    bodies = [json.loads(r.content) for r in sent]
    assert [b["response_format"]["type"] for b in bodies] == ["json_schema", "json_schema"]
    assert "Output JSON validation failed" in bodies[1]["messages"][-1]["content"]


def test_the_output_schema_replaces_a_response_format_option():
    options = OpenAIChatOptions(
        model="m", response_format={"type": "json_object"}, output_schema='{"type": "object"}'
    )
    body = build_request_body(Prompt("hi"), options, stream=True)
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {
            "name": "response",
            "schema": {"type": "object", "additionalProperties": False},
            "strict": True,
        },
    }
