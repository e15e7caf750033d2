"""ChatResponse, Generation and their metadata: helpers and the JSON form."""

from __future__ import annotations

import dataclasses
import json

import pytest

from ostinato.messages import AssistantMessage, Media, ToolCall
from ostinato.model import (
    ChatGenerationMetadata,
    ChatResponse,
    ChatResponseMetadata,
    FinishReason,
    Generation,
    Usage,
)

CALL = ToolCall("c1", "weather", '{"city": "Paris"}')


def generation(text: str | None = "hi", finish: str | None = None, *calls: ToolCall) -> Generation:
    return Generation(AssistantMessage(text, calls), ChatGenerationMetadata(finish))


def test_result_is_none_without_generations():
    empty = ChatResponse()
    assert empty.result is None
    assert empty.results == ()
    assert empty.text is None
    assert empty.usage.is_empty
    assert not empty.has_tool_calls()
    assert not empty.has_finish_reasons("stop")


def test_result_is_the_first_generation():
    first, second = generation("one"), generation("two")
    response = ChatResponse([first, second])
    assert response.result is first
    assert response.results == (first, second)
    assert response.text == "one"


def test_has_tool_calls_when_any_generation_asks():
    assert ChatResponse([generation("a"), generation(None, None, CALL)]).has_tool_calls()
    assert not ChatResponse([generation("a"), generation("b")]).has_tool_calls()


def test_has_finish_reasons_ignores_case():
    response = ChatResponse([generation("a", "STOP"), generation("b", "tool_calls")])
    assert response.has_finish_reasons("stop")
    assert response.has_finish_reasons("Tool_Calls", "length")
    assert not response.has_finish_reasons("length")
    assert not response.has_finish_reasons()
    assert not ChatResponse([generation("a", None)]).has_finish_reasons("stop")


def test_generation_accessors():
    g = generation("text", FinishReason.LENGTH)
    assert g.text == "text"
    assert g.finish_reason == "length"
    assert Generation(AssistantMessage("x")).metadata.is_empty


def test_generation_metadata_accessors():
    meta = ChatGenerationMetadata("stop", {"hate"}, {"raw_finish_reason": "end_turn"})
    assert meta.get("raw_finish_reason") == "end_turn"
    assert meta.get("missing", 0) == 0
    assert "raw_finish_reason" in meta
    assert "missing" not in meta
    assert meta.content_filters == frozenset({"hate"})
    assert not meta.is_empty
    assert ChatGenerationMetadata().is_empty


def test_response_metadata_drops_none_values_and_is_read_only():
    meta = ChatResponseMetadata(metadata={"kept": 1, "dropped": None})
    assert dict(meta.metadata) == {"kept": 1}
    assert meta.get("kept") == 1
    with pytest.raises(TypeError, match="read-only"):
        meta.metadata["x"] = 1  # type: ignore[index]
    assert ChatResponseMetadata().id == ""
    assert ChatResponseMetadata().model == ""
    assert ChatResponseMetadata().usage.is_empty


def test_with_usage_and_copy_keep_the_rest():
    response = ChatResponse(
        [generation("a")], ChatResponseMetadata(id="r", model="m", metadata={"k": "v"})
    )
    with_usage = response.with_usage(Usage(1, 2))
    assert with_usage.usage == Usage(1, 2)
    assert with_usage.generations == response.generations
    assert (with_usage.metadata.id, with_usage.metadata.model) == ("r", "m")
    assert with_usage.metadata.get("k") == "v"
    assert response.usage.is_empty  # immutable
    replaced = response.copy(generations=[generation("b")])
    assert replaced.text == "b"
    assert replaced.metadata is response.metadata
    assert response.copy() == response


def test_responses_are_immutable_values():
    response = ChatResponse([generation("a")])
    assert response == ChatResponse([generation("a")])
    with pytest.raises(dataclasses.FrozenInstanceError):
        response.generations = ()  # type: ignore[misc]


def test_json_form_round_trips():
    response = ChatResponse(
        [
            Generation(
                AssistantMessage(
                    "answer",
                    (CALL,),
                    {"reasoning": "because", "reasoning_signature": "sig"},
                    (Media("image/png", data=b"\x00\x01"),),
                ),
                ChatGenerationMetadata("tool_calls", {"b", "a"}, {"raw": "tool_use"}),
            ),
            Generation(AssistantMessage(None)),
        ],
        ChatResponseMetadata(
            id="resp-1",
            model="gpt-x",
            usage=Usage(10, 20, 35, 4, None, native_usage={"dropped": True}),
            rate_limit={"requests_remaining": 99},
            prompt_metadata={"filter": "none"},
            metadata={"system_fingerprint": "fp"},
        ),
    )
    data = json.loads(json.dumps(response.to_dict()))
    assert data["generations"][0]["metadata"]["content_filters"] == ["a", "b"]
    assert "native_usage" not in data["metadata"]["usage"]
    rebuilt = ChatResponse.from_dict(data)
    assert rebuilt == response
    assert rebuilt.usage.total_tokens == 35
    assert rebuilt.usage.native_usage is None
    assert rebuilt.result is not None
    assert rebuilt.result.output.reasoning == "because"


def test_json_form_of_an_empty_response():
    assert ChatResponse.from_dict(ChatResponse().to_dict()) == ChatResponse()
    assert ChatResponse.from_dict({}) == ChatResponse()


def test_repr_shows_generations_and_usage():
    text = repr(ChatResponse([generation("hi")], ChatResponseMetadata(usage=Usage(1, 2))))
    assert text.startswith("ChatResponse([Generation(output=AssistantMessage('hi'), ")
    assert text.endswith("], usage=Usage(1/2/3))")


def test_from_dict_reads_an_output_without_its_type_key_as_an_assistant_message():
    data = ChatResponse([Generation(AssistantMessage("hi"))]).to_dict()
    del data["generations"][0]["output"]["type"]
    assert ChatResponse.from_dict(data).result.output == AssistantMessage("hi")


def test_from_dict_refuses_an_output_that_is_not_an_assistant_message():
    data = ChatResponse([Generation(AssistantMessage("hi"))]).to_dict()
    data["generations"][0]["output"] = {"type": "user", "text": "hi"}
    with pytest.raises(ValueError, match="must be an assistant message, got type 'user'"):
        ChatResponse.from_dict(data)
