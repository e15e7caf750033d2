"""StructuredOutputValidationAdvisor: construction, the retry loop, usage and the stream
refusal."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pydantic
import pytest

from ostinato.advisors import (
    AdvisorChain,
    CallAdvisor,
    ChatClientRequest,
    ChatClientResponse,
    Ordered,
    StructuredOutputValidationAdvisor,
    ToolCallingAdvisor,
)
from ostinato.errors import AdvisorChainError
from ostinato.messages import SystemMessage, UserMessage
from ostinato.model import Usage
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from tests.core.advisors.fakes import LoggingAdvisor
from tests.core.advisors.loop_harness import chain_for, request
from tests.fakes.managers import RecordingManager

HIGHEST = Ordered.HIGHEST_PRECEDENCE
LOWEST = Ordered.LOWEST_PRECEDENCE

PERSON_SCHEMA = json.dumps(
    {
        "type": "object",
        "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
        "required": ["name", "age"],
        "additionalProperties": False,
    }
)
VALID = '{"name":"John Doe","age":30}'
INVALID = '{"name":"John Doe"}'
FEEDBACK = "Output JSON validation failed because of:"
INSIDE = LOWEST - 1000  # ordered after the validator: runs once per attempt


@dataclass
class Address:
    city: str


@dataclass
class Customer:
    name: str
    address: Address


def advisor(max_repeat_attempts: int = 3, **kwargs) -> StructuredOutputValidationAdvisor:
    kwargs.setdefault("output_json_schema", PERSON_SCHEMA)
    return StructuredOutputValidationAdvisor(max_repeat_attempts=max_repeat_attempts, **kwargs)


async def call(validator, model, req=None, *others) -> ChatClientResponse:
    return await chain_for(model, validator, *others).next_call(req or request())


def user_text(model: ScriptedChatModel, index: int) -> str:
    return model.prompts[index].user_message.text


# -- construction ---------------------------------------------------------------------------


class TestConstruction:
    def test_neither_type_nor_schema(self):
        with pytest.raises(
            ValueError, match=r"^Either output_type or output_json_schema must be set\.$"
        ):
            StructuredOutputValidationAdvisor()
        with pytest.raises(ValueError, match="Either output_type or output_json_schema"):
            StructuredOutputValidationAdvisor.builder().build()

    def test_both_type_and_schema(self):
        with pytest.raises(
            ValueError,
            match=r"^Only output_type or output_json_schema can be set, not both\.$",
        ):
            StructuredOutputValidationAdvisor(output_type=int, output_json_schema=PERSON_SCHEMA)

    @pytest.mark.parametrize("order", [HIGHEST, LOWEST, HIGHEST - 1, LOWEST + 1])
    def test_order_must_lie_strictly_between_the_precedence_bounds(self, order):
        with pytest.raises(ValueError, match="between HIGHEST_PRECEDENCE and LOWEST_PRECEDENCE"):
            advisor(advisor_order=order)

    @pytest.mark.parametrize("attempts", [-1, -10])
    def test_negative_repeat_attempts(self, attempts):
        with pytest.raises(
            ValueError, match="max_repeat_attempts must be greater than or equal to 0"
        ):
            advisor(max_repeat_attempts=attempts)

    def test_unparseable_schema(self):
        with pytest.raises(ValueError, match=r"^Failed to parse JSON schema: Expecting"):
            StructuredOutputValidationAdvisor(output_json_schema="{not json")
        with pytest.raises(
            ValueError, match=r"^Failed to parse JSON schema: expected a JSON object"
        ):
            StructuredOutputValidationAdvisor(output_json_schema="[1, 2]")

    def test_schema_with_an_unresolvable_ref(self):
        with pytest.raises(ValueError, match=r"^Invalid JSON schema: .*'#/\$defs/Gone'"):
            StructuredOutputValidationAdvisor(output_json_schema='{"$ref": "#/$defs/Gone"}')

    def test_defaults(self):
        validator = StructuredOutputValidationAdvisor(output_json_schema=PERSON_SCHEMA)
        assert validator.name == "Structured Output Validation Advisor"
        assert validator.order == LOWEST - 2000 == StructuredOutputValidationAdvisor.DEFAULT_ORDER
        assert validator.max_repeat_attempts == 3
        assert validator.output_type is None
        assert validator.json_schema == json.loads(PERSON_SCHEMA)

    def test_schema_may_be_given_parsed(self):
        validator = StructuredOutputValidationAdvisor(output_json_schema=json.loads(PERSON_SCHEMA))
        assert validator.json_schema == json.loads(PERSON_SCHEMA)

    def test_builder(self):
        validator = (
            StructuredOutputValidationAdvisor.builder()
            .output_json_schema(PERSON_SCHEMA)
            .advisor_order(42)
            .max_repeat_attempts(0)
            .build()
        )
        assert validator.order == 42
        assert validator.max_repeat_attempts == 0
        typed = StructuredOutputValidationAdvisor.builder().output_type(list[int]).build()
        assert typed.json_schema == {"type": "array", "items": {"type": "integer"}}

    def test_output_type_gets_a_strict_schema(self):
        class Person(pydantic.BaseModel):
            name: str
            age: int
            nickname: str | None = None

        validator = StructuredOutputValidationAdvisor(output_type=Person)
        schema = validator.json_schema
        assert isinstance(schema, dict)
        assert validator.output_type is Person
        assert schema["additionalProperties"] is False
        assert schema["required"] == ["name", "age"]
        assert "title" not in schema

    def test_dataclass_output_type_nested_objects_are_closed_too(self):
        schema = StructuredOutputValidationAdvisor(output_type=Customer).json_schema
        assert isinstance(schema, dict)
        assert schema["required"] == ["name", "address"]
        assert schema["$defs"]["Address"]["additionalProperties"] is False


# -- 113-116: the retry loop ----------------------------------------------------------------


async def test_113_invalid_then_valid_is_retried_once():
    model = ScriptedChatModel([INVALID, VALID])
    response = await call(advisor(2), model)
    assert response.chat_response is not None
    assert response.chat_response.text == VALID
    assert model.call_count == 2


async def test_valid_the_first_time_calls_the_model_once():
    model = ScriptedChatModel([VALID])
    response = await call(advisor(2), model)
    assert response.chat_response is not None
    assert response.chat_response.text == VALID
    assert model.call_count == 1


async def test_114_always_invalid_exhausts_the_attempts_and_returns_the_last_answer():
    model = ScriptedChatModel([INVALID, '{"name":"second"}', '{"name":"third"}'])
    response = await call(advisor(2), model)
    assert model.call_count == 3
    assert response.chat_response is not None
    assert response.chat_response.text == '{"name":"third"}'


async def test_114_zero_repeat_attempts_calls_once():
    model = ScriptedChatModel([INVALID])
    response = await call(advisor(0), model)
    assert model.call_count == 1
    assert response.chat_response is not None
    assert response.chat_response.text == INVALID


async def test_115_usage_is_added_up_over_attempts():
    model = ScriptedChatModel(
        [text_response(INVALID, usage=(10, 20, 30)), text_response(VALID, usage=(1, 2, 3))]
    )
    response = await call(advisor(1), model)
    assert response.chat_response is not None
    assert response.chat_response.text == VALID
    assert response.chat_response.usage == Usage(11, 22, 33)


async def test_115_usage_is_added_up_when_attempts_run_out():
    model = ScriptedChatModel(
        [text_response(INVALID, usage=(10, 20, 30)), text_response('{"age":1}', usage=(1, 2, 3))]
    )
    response = await call(advisor(1), model)
    assert model.call_count == 2
    assert response.chat_response is not None
    assert response.chat_response.text == '{"age":1}'
    assert response.chat_response.usage == Usage(11, 22, 33)


async def test_116_the_retry_carries_the_reason_after_the_original_text():
    model = ScriptedChatModel([INVALID, VALID])
    req = request(UserMessage("Tell me about John"))
    await call(advisor(2), model, req)
    assert req.prompt.user_message.text == "Tell me about John"  # the original is untouched
    assert user_text(model, 0) == "Tell me about John"
    assert user_text(model, 1) == (
        f"Tell me about John\n{FEEDBACK} $: 'age' is a required property"
    )


async def test_reasons_do_not_pile_up_across_attempts():
    model = ScriptedChatModel([INVALID, '{"name":"J","age":"x"}', VALID])
    await call(advisor(3), model, request(UserMessage("Tell me about John")))
    assert user_text(model, 2) == (
        f"Tell me about John\n{FEEDBACK} $.age: 'x' is not of type 'integer'"
    )
    assert user_text(model, 2).count(FEEDBACK) == 1


async def test_only_the_last_user_message_is_changed_and_the_rest_kept():
    req = request(
        SystemMessage("be terse"),
        UserMessage("first"),
        UserMessage("second"),
    )
    req = req.with_context(conversation_id="c-1")
    seen: list[ChatClientRequest] = []

    class Spy(CallAdvisor):
        order = INSIDE

        async def advise_call(self, request, chain):
            seen.append(request)
            return await chain.next_call(request)

    model = ScriptedChatModel([INVALID, VALID])
    await call(advisor(1), model, req, Spy())
    retry = model.prompts[1]
    assert retry.messages[:2] == (SystemMessage("be terse"), UserMessage("first"))
    assert retry.messages[2].text.startswith(f"second\n{FEEDBACK}")
    assert retry.options == req.prompt.options
    assert [r.context.get("conversation_id") for r in seen] == ["c-1", "c-1"]


async def test_a_prompt_without_a_user_message_gets_one_with_the_reason():
    model = ScriptedChatModel([INVALID, VALID])
    await call(advisor(1), model, request(SystemMessage("json please")))
    assert model.prompts[1].messages[-1] == UserMessage(
        f"{FEEDBACK} $: 'age' is a required property"
    )


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (None, "Missing required json output for validation."),
        ("", "Empty JSON output for validation."),
        ("   \n ", "Empty JSON output for validation."),
        ("```json\n```", "Empty JSON output for validation."),
        ("not json", "Invalid JSON: Expecting value: line 1 column 1 (char 0)"),
        ('{"name": "J", "age": NaN}', "Invalid JSON: NaN is not valid JSON"),
        (
            '{"name": 1, "age": "x"}',
            "$.name: 1 is not of type 'string'; $.age: 'x' is not of type 'integer'",
        ),
        (
            '{"name": "J", "age": 3, "extra": true}',
            "$: additional properties are not allowed ('extra' was unexpected)",
        ),
    ],
)
async def test_failure_reasons(answer, reason):
    model = ScriptedChatModel([text_response(answer), VALID])
    await call(advisor(1), model)
    assert model.call_count == 2
    assert user_text(model, 1) == f"test message\n{FEEDBACK} {reason}"


async def test_a_response_without_a_chat_response_is_retried():
    class NoAnswerFirst(CallAdvisor):
        order = INSIDE

        def __init__(self) -> None:
            self.calls = 0

        async def advise_call(self, request, chain):
            self.calls += 1
            if self.calls == 1:
                return ChatClientResponse(None, request.context)
            return await chain.next_call(request)

    model = ScriptedChatModel([VALID])
    inner = NoAnswerFirst()
    response = await call(advisor(2), model, None, inner)
    assert inner.calls == 2
    assert model.call_count == 1
    assert response.chat_response is not None
    assert response.chat_response.text == VALID
    assert FEEDBACK + " Missing required json output for validation." in user_text(model, 0)


@pytest.mark.parametrize(
    "answer",
    [
        f"```json\n{VALID}\n```",
        f"```\n{VALID}\n```",
        f"  ```JSON\n{VALID}```  \n",
        f"```{VALID}```",
    ],
)
async def test_a_code_fence_around_the_answer_is_ignored(answer):
    model = ScriptedChatModel([answer])
    response = await call(advisor(2), model)
    assert model.call_count == 1
    assert response.chat_response is not None
    assert response.chat_response.text == answer  # returned untouched


async def test_nested_and_list_errors_are_retried():
    schema = {
        "type": "object",
        "properties": {
            "owner": {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
            },
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["owner", "tags"],
    }
    model = ScriptedChatModel(
        ['{"owner": {}, "tags": ["a", 2]}', '{"owner": {"name": "x"}, "tags": ["a"]}']
    )
    response = await call(advisor(1, output_json_schema=schema), model)
    assert model.call_count == 2
    assert response.chat_response is not None
    assert response.chat_response.text == '{"owner": {"name": "x"}, "tags": ["a"]}'
    assert user_text(model, 1).endswith(
        "$.owner: 'name' is a required property; $.tags[1]: 2 is not of type 'string'"
    )


async def test_output_type_is_validated_end_to_end():
    class Person(pydantic.BaseModel):
        name: str
        age: int

    model = ScriptedChatModel(['{"name": "J", "age": "old"}', '{"name": "J", "age": 7}'])
    response = await call(advisor(1, output_json_schema=None, output_type=Person), model)
    assert model.call_count == 2
    assert response.chat_response is not None
    assert Person.model_validate_json(response.chat_response.text or "").age == 7


async def test_advisors_inside_run_per_attempt_and_outside_once():
    log: list[str] = []

    model = ScriptedChatModel([INVALID, INVALID, VALID])
    chain = AdvisorChain(
        [
            LoggingAdvisor("outer", 0, log),
            advisor(2, advisor_order=10),
            LoggingAdvisor("inner", 20, log),
            *chain_for(model).advisors,
        ]
    )
    await chain.next_call(request())
    assert log == ["outer", "inner", "inner", "inner"]


# -- tool-call responses --------------------------------------------------------------------


async def test_tool_call_responses_use_up_attempts_without_validation():
    call_tc = tool_call_response(("lookup", {}), usage=(1, 1, 2))
    model = ScriptedChatModel([call_tc, call_tc, text_response(VALID, usage=(1, 1, 2))])
    req = request(UserMessage("who?"))
    response = await call(advisor(2), model, req)
    assert model.call_count == 3
    # not validated, so no reason was added: the same request went again each time
    assert [p.messages for p in model.prompts] == [req.prompt.messages] * 3
    assert response.chat_response is not None
    assert response.chat_response.text == VALID
    assert response.chat_response.usage == Usage(3, 3, 6)


async def test_a_tool_call_response_is_returned_when_attempts_run_out():
    model = ScriptedChatModel(
        [
            text_response(INVALID, usage=(5, 5, 10)),
            tool_call_response(("lookup", {}), usage=(1, 1, 2)),
        ]
    )
    response = await call(advisor(1), model)
    assert model.call_count == 2
    assert response.chat_response is not None
    assert response.chat_response.has_tool_calls()
    assert response.chat_response.usage == Usage(6, 6, 12)


async def test_inside_the_tool_loop_with_no_repeats_it_is_transparent_to_tool_rounds():
    manager = RecordingManager()
    model = ScriptedChatModel([tool_call_response(("lookup", {})), VALID])
    chain = chain_for(model, ToolCallingAdvisor(tool_calling_manager=manager), advisor(0))
    response = await chain.next_call(request())
    assert manager.calls == 1
    assert model.call_count == 2
    assert response.chat_response is not None
    assert response.chat_response.text == VALID


async def test_inside_the_tool_loop_a_tool_round_is_requested_again_reference_b11():
    manager = RecordingManager()
    tc = tool_call_response(("lookup", {}))
    model = ScriptedChatModel([tc, tc, VALID])
    chain = chain_for(model, ToolCallingAdvisor(tool_calling_manager=manager), advisor(1))
    response = await chain.next_call(request())
    assert model.call_count == 3
    assert model.prompts[0] == model.prompts[1]
    assert manager.calls == 1
    assert response.chat_response is not None
    assert response.chat_response.text == VALID


# -- 117: streaming is refused -----------------------------------------------------------------


async def test_117_streaming_is_not_supported():
    model = ScriptedChatModel([VALID])
    stream = chain_for(model, advisor()).next_stream(request())
    with pytest.raises(AdvisorChainError, match="does not support streaming; use call\\(\\)"):
        async for _ in stream:
            pass
    assert model.call_count == 0


async def test_none_arguments_are_rejected():
    validator = advisor()
    chain = chain_for(ScriptedChatModel(), validator)
    with pytest.raises(ValueError, match="chain"):
        await validator.advise_call(request(), None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="request"):
        await validator.advise_call(None, chain)  # type: ignore[arg-type]
