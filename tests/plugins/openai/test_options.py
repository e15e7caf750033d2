"""``OpenAIChatOptions``: a frozen value that combines field by field."""

from __future__ import annotations

import dataclasses

import pytest

from ostinato.prompt import ChatOptions, Prompt, ToolCallingChatOptions
from ostinato_openai import OpenAIChatModel, OpenAIChatOptions


def test_is_a_frozen_tool_calling_options():
    options = OpenAIChatOptions(model="m", seed=1)
    assert isinstance(options, ToolCallingChatOptions)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.seed = 2  # type: ignore[misc]


def test_mappings_are_frozen():
    options = OpenAIChatOptions(extra_body={"a": 1}, response_format={"type": "json_object"})
    with pytest.raises(TypeError):
        options.extra_body["b"] = 2  # type: ignore[index]
    with pytest.raises(TypeError):
        options.response_format["x"] = 1  # type: ignore[index]


def test_combine_with_overwrites_set_fields_and_keeps_the_class():
    base = OpenAIChatOptions(model="a", seed=1, temperature=0.5, stop_sequences=("x",))
    combined = base.combine_with(
        OpenAIChatOptions(seed=2, reasoning_effort="high", stop_sequences=("y",))
    )
    assert combined == OpenAIChatOptions(
        model="a", seed=2, temperature=0.5, reasoning_effort="high", stop_sequences=("x", "y")
    )
    portable = base.combine_with(ChatOptions(temperature=0.1))
    assert type(portable) is OpenAIChatOptions
    assert portable.temperature == 0.1
    assert portable.seed == 1


def test_from_options_keeps_the_portable_fields():
    options = OpenAIChatOptions.from_options(ChatOptions(model="m", max_tokens=5, top_k=3))
    assert (options.model, options.max_tokens, options.top_k) == ("m", 5, 3)
    same = OpenAIChatOptions(model="m")
    assert OpenAIChatOptions.from_options(same) is same
    assert OpenAIChatOptions.from_options(None) == OpenAIChatOptions()


def test_filled_from_fills_only_what_is_unset_and_never_concatenates():
    defaults = OpenAIChatOptions(model="d", seed=1, stop_sequences=("x",), extra_body={"k": 1})
    filled = OpenAIChatOptions(seed=2, stop_sequences=("y",)).filled_from(defaults)
    assert filled == OpenAIChatOptions(
        model="d", seed=2, stop_sequences=("y",), extra_body={"k": 1}
    )
    # Options already built on the defaults come out unchanged.
    built = defaults.combine_with(OpenAIChatOptions(temperature=0.3))
    assert built.filled_from(defaults) == built


def test_the_model_fills_request_options_from_its_defaults():
    model = OpenAIChatModel(
        default_options=OpenAIChatOptions(model="d", seed=9, max_completion_tokens=50)
    )
    assert model.options_for(Prompt("hi")) is model.default_options
    sent = model.options_for(Prompt("hi", ChatOptions(temperature=0.2)))
    assert (sent.model, sent.seed, sent.temperature, sent.max_completion_tokens) == (
        "d",
        9,
        0.2,
        50,
    )
    assert model.request_body(Prompt("hi", OpenAIChatOptions(model="other")))["model"] == "other"


def test_model_shortcut_sets_the_default_model():
    model = OpenAIChatModel(model="gpt-x", default_options=OpenAIChatOptions(seed=1))
    assert model.default_options == OpenAIChatOptions(model="gpt-x", seed=1)
    assert "gpt-x" in repr(model)
