"""Usage and its algebra across rounds (summed per turn, as Spring AI does)."""

from __future__ import annotations

import pytest

from ostinato.messages import AssistantMessage
from ostinato.model import (
    ChatResponse,
    ChatResponseMetadata,
    Generation,
    MessageAggregator,
    Usage,
    UsageAccumulator,
    accumulate_response_usage,
    cumulative_usage,
)


def response(usage: Usage, text: str = "x", **meta: object) -> ChatResponse:
    return ChatResponse(
        [Generation(AssistantMessage(text))], ChatResponseMetadata(usage=usage, **meta)
    )


# --- Usage -------------------------------------------------------------------------------


def test_total_defaults_to_prompt_plus_completion():
    assert Usage(10, 20).total_tokens == 30


def test_an_explicit_total_is_kept():
    assert Usage(10, 20, 45).total_tokens == 45


def test_none_counts_become_zero_and_cache_counts_stay_none():
    usage = Usage(None, None)
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (0, 0, 0)
    assert usage.cache_read_input_tokens is None
    assert usage.cache_write_input_tokens is None
    assert usage.is_empty


def test_empty_means_total_zero():
    assert Usage().is_empty
    assert not Usage(1, 0).is_empty
    assert not Usage(0, 0, 5).is_empty


def test_native_usage_is_not_part_of_equality():
    assert Usage(1, 2, native_usage={"raw": 1}) == Usage(1, 2, native_usage={"raw": 2})
    assert Usage(1, 2) != Usage(1, 2, cache_read_input_tokens=0)


def test_addition_sums_fields_and_drops_native_usage():
    total = Usage(10, 20, 30, 100, 5, native_usage="a") + Usage(1, 2, 4, 200, None, "b")
    assert total == Usage(11, 22, 34, 300, 5)
    assert total.native_usage is None
    assert (Usage(1, 1) + Usage(2, 2)).cache_read_input_tokens is None


def test_adding_something_else_is_a_type_error():
    with pytest.raises(TypeError):
        Usage(1, 2) + 3  # type: ignore[operator]


def test_repr_and_json_form():
    assert repr(Usage(1, 2)) == "Usage(1/2/3)"
    assert repr(Usage(1, 2, 3, 4, 5)) == "Usage(1/2/3, cache_read=4, cache_write=5)"
    assert Usage(1, 2, 3, 4, None, native_usage=object()).to_dict() == {
        "prompt_tokens": 1,
        "completion_tokens": 2,
        "total_tokens": 3,
        "cache_read_input_tokens": 4,
        "cache_write_input_tokens": None,
    }


# --- cumulative_usage (behaviour 119) ----------------------------------------------------


def test_cumulative_usage_sums_current_and_previous():
    assert cumulative_usage(Usage(10, 20, 30), Usage(1, 2, 3)) == Usage(11, 22, 33)


def test_cumulative_total_is_the_sum_of_totals_not_recomputed():
    total = cumulative_usage(Usage(10, 20, 35), Usage(1, 2, 4))
    assert (total.prompt_tokens, total.completion_tokens, total.total_tokens) == (11, 22, 39)


def test_without_previous_it_is_the_same_current_instance():
    current = Usage(10, 20, 30, native_usage={"raw": True})
    assert cumulative_usage(current, None) is current
    assert cumulative_usage(current, None).native_usage == {"raw": True}


def test_with_empty_current_it_is_the_previous_instance():
    previous = Usage(1, 2, 3)
    assert cumulative_usage(Usage(0, 0, 0), previous) is previous
    assert cumulative_usage(None, previous) is previous


def test_neither_is_empty_usage():
    assert cumulative_usage(None, None).is_empty


def test_cache_counts_are_summed_and_stay_none_only_when_both_are():
    total = cumulative_usage(
        Usage(1, 1, cache_read_input_tokens=100, cache_write_input_tokens=5),
        Usage(1, 1, cache_read_input_tokens=200, cache_write_input_tokens=None),
    )
    assert total.cache_read_input_tokens == 300
    assert total.cache_write_input_tokens == 5
    both_none = cumulative_usage(Usage(1, 1), Usage(1, 1))
    assert both_none.cache_read_input_tokens is None
    assert both_none.cache_write_input_tokens is None


def test_the_sum_drops_native_usage():
    total = cumulative_usage(Usage(1, 1, native_usage="now"), Usage(1, 1, native_usage="then"))
    assert total.native_usage is None


# --- accumulate_response_usage (behaviour 120) -------------------------------------------


def test_empty_current_and_nothing_accumulated_is_none():
    assert accumulate_response_usage(response(Usage(0, 0, 0)), None) is None


def test_no_current_is_the_accumulated_response():
    accumulated = response(Usage(1, 2, 3))
    assert accumulate_response_usage(None, accumulated) is accumulated
    assert accumulate_response_usage(None, None) is None


def test_current_carries_the_sum_and_keeps_its_other_metadata():
    current = response(Usage(1, 2, 3), "final", id="r2", model="m", metadata={"k": "v"})
    accumulated = response(Usage(10, 20, 30), "tool round", id="r1")
    result = accumulate_response_usage(current, accumulated)
    assert result is not None
    assert result.usage == Usage(11, 22, 33)
    assert result.text == "final"
    assert (result.metadata.id, result.metadata.model) == ("r2", "m")
    assert result.metadata.get("k") == "v"


def test_an_accumulated_response_with_empty_usage_counts_as_absent():
    current = response(Usage(1, 2, 3, native_usage="raw"))
    assert accumulate_response_usage(current, response(Usage())) is current


def test_empty_current_after_a_counted_round_carries_the_previous_total():
    result = accumulate_response_usage(response(Usage(), "final"), response(Usage(10, 20, 30)))
    assert result is not None
    assert result.text == "final"
    assert result.usage == Usage(10, 20, 30)


# --- UsageAccumulator --------------------------------------------------------------------


def test_accumulator_sums_rounds_and_stamps_the_total():
    acc = UsageAccumulator()
    assert acc.total is None
    assert acc.accumulated is None
    acc.add(response(Usage(10, 20, 30), "tool round"))
    acc.add(response(Usage(1, 2, 3), "final"))
    assert acc.total == Usage(11, 22, 33)
    assert acc.accumulated is not None
    assert acc.accumulated.text == "final"
    final = response(Usage(1, 2, 3), "final", id="r2")
    stamped = acc.apply(final)
    assert stamped is not None
    assert stamped.usage == Usage(11, 22, 33)
    assert stamped.metadata.id == "r2"
    assert stamped.generations == final.generations


def test_accumulator_keeps_a_single_round_untouched():
    acc = UsageAccumulator()
    only = response(Usage(1, 2, 3, native_usage={"raw": 1}))
    acc.add(only)
    assert acc.apply(only) is only
    assert acc.apply(only).usage.native_usage == {"raw": 1}  # type: ignore[union-attr]


def test_accumulator_sums_cache_counts_and_drops_native_usage():
    acc = UsageAccumulator()
    acc.add(
        response(
            Usage(1, 1, cache_read_input_tokens=100, cache_write_input_tokens=5, native_usage="a")
        )
    )
    acc.add(response(Usage(1, 1, cache_read_input_tokens=200, native_usage="b")))
    total = acc.total
    assert total is not None
    assert (total.cache_read_input_tokens, total.cache_write_input_tokens) == (300, 5)
    assert total.native_usage is None


def test_accumulator_with_nothing_counted_leaves_responses_alone():
    acc = UsageAccumulator()
    acc.add(None)
    acc.add(response(Usage()))
    assert acc.total is None
    final = response(Usage(1, 2, 3))
    assert acc.apply(final) is final
    assert acc.apply(None) is None


def test_accumulator_apply_without_response_is_none():
    acc = UsageAccumulator()
    acc.add(response(Usage(1, 2, 3)))
    assert acc.apply(None) is None


def test_reasoning_tokens_are_summed_shown_and_kept_in_json():
    thinking = Usage(10, 50, reasoning_tokens=40)
    plain = Usage(5, 5)
    assert (thinking + plain).reasoning_tokens == 40
    assert (thinking + thinking).reasoning_tokens == 80
    assert (plain + plain).reasoning_tokens is None
    assert repr(thinking) == "Usage(10/50/60, reasoning=40)"
    assert thinking.to_dict()["reasoning_tokens"] == 40
    assert "reasoning_tokens" not in plain.to_dict()
    assert Usage(**thinking.to_dict()) == thinking


def test_the_stream_aggregate_keeps_reasoning_tokens():
    chunks = [
        ChatResponse([Generation(AssistantMessage("hi"))]),
        ChatResponse([], ChatResponseMetadata(usage=Usage(10, 50, reasoning_tokens=40))),
    ]
    assert MessageAggregator.aggregate(chunks).usage.reasoning_tokens == 40
