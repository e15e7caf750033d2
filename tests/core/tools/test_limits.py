"""ToolCallLimits, turn counting, and the limit behaviours of the manager."""

from __future__ import annotations

import dataclasses

import pytest

from ostinato.errors import ConfigurationError, ToolCallLimitExceeded
from ostinato.messages import (
    AssistantMessage,
    Message,
    ToolResponse,
    ToolResponseMessage,
    UserMessage,
)
from ostinato.tools import (
    DefaultToolCallingManager,
    LimitBehavior,
    LimitBreach,
    StaticToolCallbackResolver,
    ToolCallLimits,
    count_prior_tool_calls,
    tool_call_limit_generation,
)
from tests.core.tools.fakes import (
    MISSION,
    RecordingCallback,
    calls,
    prompt_with,
    responses_of,
    tool_response,
)

PER_TOOL_BREACH = (
    "Tool call limit (1) exceeded for tool 'toolA'. "
    "No further calls to this tool are allowed in this turn."
)
TOTAL_BREACH = (
    "Total tool call limit (1) exceeded for this turn. No further tool calls are allowed."
)


def prior(*names: str) -> ToolResponseMessage:
    return ToolResponseMessage(tuple(ToolResponse(f"id-{n}", n, "r") for n in names))


# --- the value object ------------------------------------------------------------------


def test_defaults_match_the_reference() -> None:
    limits = ToolCallLimits()
    assert limits.max_calls_per_tool == 40
    assert limits.max_total_tool_calls == 150
    assert limits.per_tool == {}
    assert limits.excluded_tools == frozenset()
    assert limits.on_limit_exceeded is LimitBehavior.THROW


def test_minus_one_means_unlimited_like_none() -> None:
    limits = ToolCallLimits(-1, per_tool={"a": -1}, max_total_tool_calls=-1)
    assert limits == ToolCallLimits(None, per_tool={"a": None}, max_total_tool_calls=None)
    assert limits.check("a", 10_000, 10_000) is None
    assert ToolCallLimits.unlimited() == ToolCallLimits(None, max_total_tool_calls=None)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_calls_per_tool": 0}, "max_calls_per_tool must be a positive number of calls"),
        ({"max_total_tool_calls": -5}, "max_total_tool_calls must be a positive number.*got -5"),
        ({"per_tool": {"a": 0}}, r"per_tool\['a'\] must be a positive number.*got 0"),
        ({"max_calls_per_tool": 2.5}, "got 2.5"),
        ({"max_calls_per_tool": True}, "got True"),
        ({"excluded_tools": "toolA"}, "must be a collection of tool names, got the string"),
        (
            {"per_tool": {"a": 1}, "excluded_tools": {"a"}},
            "'a' are both limited in per_tool and listed in excluded_tools",
        ),
        ({"on_limit_exceeded": "explode"}, "on_limit_exceeded must be one of"),
    ],
)
def test_invalid_limits_are_value_errors(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message) as info:
        ToolCallLimits(**kwargs)  # type: ignore[arg-type]
    assert isinstance(info.value, ValueError)


def test_behaviour_accepts_spring_spellings() -> None:
    assert LimitBehavior("RETURN_ERROR_RESPONSE") is LimitBehavior.RETURN_ERROR_RESPONSE
    assert LimitBehavior("return-error-response") is LimitBehavior.RETURN_ERROR_RESPONSE
    assert ToolCallLimits(on_limit_exceeded="THROW").on_limit_exceeded is LimitBehavior.THROW  # type: ignore[arg-type]


def test_limits_are_frozen_and_hashable() -> None:
    limits = ToolCallLimits(per_tool={"a": 2})
    with pytest.raises(dataclasses.FrozenInstanceError):
        limits.max_calls_per_tool = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        limits.per_tool["b"] = 1  # type: ignore[index]
    assert hash(limits) == hash(ToolCallLimits(per_tool={"a": 2}))


def test_per_tool_overrides_and_exclusions() -> None:
    limits = ToolCallLimits(2, per_tool={"a": 5, "b": None}, excluded_tools={"c"})
    assert [limits.limit_for(n) for n in "abcd"] == [5, None, None, 2]
    assert limits.with_tool_limit("c", 1).limit_for("c") == 1
    assert limits.excluding("a").limit_for("a") is None
    assert "a" not in limits.excluding("a").per_tool


def test_check_per_tool_first_then_total_with_exact_texts() -> None:
    limits = ToolCallLimits(1, max_total_tool_calls=1)
    assert limits.check("toolA", 1, 1) is None
    assert limits.check("toolA", 2, 2) == LimitBreach("toolA", 1, PER_TOOL_BREACH)
    assert limits.check("toolB", 1, 2) == LimitBreach(None, 1, TOTAL_BREACH)


def test_counting_starts_at_the_last_user_message() -> None:
    messages: list[Message] = [
        UserMessage("earlier"),
        prior("toolA", "toolA"),
        UserMessage("now"),
        AssistantMessage("", ()),
        prior("toolA", "toolB"),
        prior("toolB"),
    ]
    assert count_prior_tool_calls(messages) == {"toolA": 1, "toolB": 2}
    assert count_prior_tool_calls([prior("x"), prior("x")]) == {"x": 2}
    assert count_prior_tool_calls([]) == {}


# --- through the manager -----------------------------------------------------------------


def manager(limits: ToolCallLimits, **kwargs: object) -> DefaultToolCallingManager:
    return DefaultToolCallingManager(limits=limits, **kwargs)  # type: ignore[arg-type]


async def test_per_tool_breach_throws_before_lookup_with_a_partial_result() -> None:
    # The tool is only known to a resolver and fallback is off: the breach still wins.
    tool_a = RecordingCallback("toolA")
    m = manager(
        ToolCallLimits(per_tool={"toolA": 1}),
        tool_callback_resolver=StaticToolCallbackResolver([tool_a]),
    )
    prompt = prompt_with([], [UserMessage("go"), prior("toolA")])
    with pytest.raises(ToolCallLimitExceeded) as info:
        await m.execute_tool_calls(prompt, tool_response(*calls("toolA")))
    error = info.value
    assert (error.tool_name, error.limit, str(error)) == ("toolA", 1, PER_TOOL_BREACH)
    assert error.partial_result is not None
    assert responses_of(error.partial_result) == [("toolA", "toolA", PER_TOOL_BREACH)]
    assert tool_a.calls == []


async def test_return_error_response_answers_the_call_with_the_breach_text() -> None:
    tool_a = RecordingCallback("toolA")
    m = manager(
        ToolCallLimits(per_tool={"toolA": 1}, on_limit_exceeded=LimitBehavior.RETURN_ERROR_RESPONSE)
    )
    prompt = prompt_with([tool_a], [UserMessage("go"), prior("toolA")])
    result = await m.execute_tool_calls(prompt, tool_response(*calls("toolA")))
    ((_, name, text),) = responses_of(result)
    assert name == "toolA"
    assert "limit" in text
    assert MISSION not in text
    assert tool_a.calls == []
    assert result.return_direct is False


async def test_an_excluded_tool_has_no_per_tool_limit() -> None:
    tool_a = RecordingCallback("toolA")
    m = manager(ToolCallLimits(1).excluding("toolA"))
    prompt = prompt_with([tool_a], [UserMessage("go"), prior("toolA", "toolA", "toolA")])
    result = await m.execute_tool_calls(prompt, tool_response(*calls("toolA")))
    assert responses_of(result) == [("toolA", "toolA", MISSION)]


async def test_excluded_tools_still_count_toward_the_total() -> None:
    m = manager(ToolCallLimits(max_total_tool_calls=2, excluded_tools={"toolA"}))
    prompt = prompt_with([RecordingCallback("toolA")], [UserMessage("go"), prior("toolA", "toolA")])
    with pytest.raises(ToolCallLimitExceeded) as info:
        await m.execute_tool_calls(prompt, tool_response(*calls("toolA")))
    assert (info.value.tool_name, info.value.limit) == (None, 2)


async def test_total_breach_names_no_tool() -> None:
    m = manager(ToolCallLimits(max_total_tool_calls=1))
    prompt = prompt_with([RecordingCallback("toolA")], [UserMessage("go"), prior("toolB")])
    with pytest.raises(ToolCallLimitExceeded) as info:
        await m.execute_tool_calls(prompt, tool_response(*calls("toolA")))
    assert (info.value.tool_name, info.value.limit, str(info.value)) == (None, 1, TOTAL_BREACH)


@pytest.mark.parametrize(
    ("prior_names", "expected"),
    [(["toolA"] * 40, ("toolA", 40)), (["toolB"] * 150, (None, 150))],
)
async def test_default_limits_apply_without_configuration(
    prior_names: list[str], expected: tuple[str | None, int]
) -> None:
    prompt = prompt_with([RecordingCallback("toolA")], [UserMessage("go"), prior(*prior_names)])
    with pytest.raises(ToolCallLimitExceeded) as info:
        await DefaultToolCallingManager().execute_tool_calls(prompt, tool_response(*calls("toolA")))
    assert (info.value.tool_name, info.value.limit) == expected


@pytest.mark.parametrize(
    ("limits", "prior_names"),
    [
        (ToolCallLimits(None), ["toolA"] * 45),
        (ToolCallLimits.unlimited(), ["toolA"] * 100 + ["toolB"] * 55),
    ],
)
async def test_unlimited_settings_let_calls_run(
    limits: ToolCallLimits, prior_names: list[str]
) -> None:
    prompt = prompt_with([RecordingCallback("toolA")], [UserMessage("go"), prior(*prior_names)])
    result = await manager(limits).execute_tool_calls(prompt, tool_response(*calls("toolA")))
    assert responses_of(result) == [("toolA", "toolA", MISSION)]


@pytest.mark.parametrize(
    ("limits", "earlier"),
    [
        (ToolCallLimits(per_tool={"toolA": 1}), prior("toolA")),
        (ToolCallLimits(max_total_tool_calls=1), prior(*["toolB"] * 10)),
    ],
)
async def test_calls_of_earlier_turns_do_not_count(
    limits: ToolCallLimits, earlier: ToolResponseMessage
) -> None:
    prompt = prompt_with(
        [RecordingCallback("toolA")],
        [UserMessage("Earlier turn"), earlier, UserMessage("New turn")],
    )
    result = await manager(limits).execute_tool_calls(prompt, tool_response(*calls("toolA")))
    assert responses_of(result) == [("toolA", "toolA", MISSION)]


async def test_the_current_turn_is_limited_whatever_came_before() -> None:
    prompt = prompt_with(
        [RecordingCallback("toolA")],
        [UserMessage("old"), prior("toolB"), UserMessage("New turn"), prior("toolA")],
    )
    with pytest.raises(ToolCallLimitExceeded) as info:
        await manager(ToolCallLimits(per_tool={"toolA": 1})).execute_tool_calls(
            prompt, tool_response(*calls("toolA"))
        )
    assert info.value.tool_name == "toolA"


async def test_calls_of_the_same_batch_count_and_earlier_ones_run_before_the_throw() -> None:
    tool_a, tool_b = RecordingCallback("toolA", "a", return_direct=True), RecordingCallback("toolB")
    m = manager(ToolCallLimits(per_tool={"toolA": 1}))
    prompt = prompt_with([tool_a, tool_b])
    response = tool_response(*calls("toolA"), *calls("toolB"), *calls("toolA"), *calls("toolB"))
    with pytest.raises(ToolCallLimitExceeded) as info:
        await m.execute_tool_calls(prompt, response)
    partial = info.value.partial_result
    assert responses_of(partial) == [
        ("toolA", "toolA", "a"),
        ("toolB", "toolB", MISSION),
        ("toolA", "toolA", PER_TOOL_BREACH),
    ]
    assert partial.conversation_history[:2] == (*prompt.messages, response.generations[0].output)
    assert partial.return_direct is False  # toolA (True) AND toolB (False)
    assert len(tool_b.calls) == 1, "the call after the breach never ran"
    generation = tool_call_limit_generation(info.value)
    assert generation.text == PER_TOOL_BREACH
    assert generation.metadata.finish_reason == "toolCallLimitExceeded"


async def test_return_error_response_carries_on_with_the_rest_of_the_batch() -> None:
    tool_a, tool_b = RecordingCallback("toolA"), RecordingCallback("toolB")
    m = manager(ToolCallLimits(1, on_limit_exceeded=LimitBehavior.RETURN_ERROR_RESPONSE))
    response = tool_response(*calls("toolA"), *calls("toolA"), *calls("toolB"))
    result = await m.execute_tool_calls(prompt_with([tool_a, tool_b]), response)
    assert responses_of(result) == [
        ("toolA", "toolA", MISSION),
        ("toolA", "toolA", PER_TOOL_BREACH),
        ("toolB", "toolB", MISSION),
    ]
    assert (len(tool_a.calls), len(tool_b.calls)) == (1, 1)
