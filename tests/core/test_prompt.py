"""Prompt accessors and augmentation; ChatOptions / ToolCallingChatOptions combination."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pytest

from ostinato._frozen import FrozenDict
from ostinato.errors import ConfigurationError
from ostinato.messages import AssistantMessage, SystemMessage, UserMessage
from ostinato.prompt import ChatOptions, Prompt, ToolCallingChatOptions
from ostinato.tools import ToolDefinition, ToolMetadata
from tests.fakes.conversations import tool_calls, tool_results


@dataclass(frozen=True)
class FakeTool:
    """The smallest ToolCallback: only its name matters here."""

    name: str

    @property
    def tool_definition(self) -> ToolDefinition:
        return ToolDefinition(self.name, f"the {self.name} tool", "{}")

    @property
    def tool_metadata(self) -> ToolMetadata:
        return ToolMetadata()

    async def call(self, arguments: str, context: object = None) -> str:
        return self.name


A, B, C = FakeTool("a"), FakeTool("b"), FakeTool("c")

SYS1, SYS2 = SystemMessage("first system"), SystemMessage("second system")
U1, U2 = UserMessage("first question"), UserMessage("second question")
CALL, TOOL = tool_calls("c1"), tool_results("c1")
ANSWER = AssistantMessage("answer")


# --- Prompt ---------------------------------------------------------------------------


def test_a_string_is_one_user_message():
    assert Prompt("hi").messages == (UserMessage("hi"),)


def test_a_single_message_or_any_iterable_of_messages():
    assert Prompt(SYS1).messages == (SYS1,)
    assert Prompt(iter([SYS1, U1])).messages == (SYS1, U1)
    assert Prompt().messages == ()
    assert Prompt().options is None


def test_an_element_that_is_not_a_message_is_a_type_error():
    with pytest.raises(TypeError, match="a Prompt holds messages, got str"):
        Prompt([SYS1, "not a message"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="got dict"):
        Prompt([{"type": "user", "text": "hi"}])  # type: ignore[list-item]


def test_system_message_is_the_first_one():
    assert Prompt([U1, SYS1, SYS2]).system_message is SYS1


def test_system_message_is_a_new_empty_one_when_absent():
    prompt = Prompt([U1])
    assert prompt.system_message == SystemMessage("")
    assert prompt.messages == (U1,)  # not inserted


def test_user_message_is_the_last_one():
    assert Prompt([U1, ANSWER, U2, ANSWER]).user_message is U2


def test_user_message_is_a_new_empty_one_when_absent():
    assert Prompt([SYS1, ANSWER]).user_message == UserMessage("")


def test_last_user_or_tool_response_message():
    assert Prompt([U1, CALL, TOOL]).last_user_or_tool_response_message is TOOL
    assert Prompt([U1, CALL, TOOL, ANSWER, U2]).last_user_or_tool_response_message is U2
    assert Prompt([SYS1, ANSWER]).last_user_or_tool_response_message == UserMessage("")


def test_user_messages_in_order():
    assert Prompt([SYS1, U1, ANSWER, U2]).user_messages == (U1, U2)


def test_augment_system_message_replaces_the_first_one():
    options = ChatOptions(model="m")
    prompt = Prompt([U1, SYS1, SYS2], options)
    augmented = prompt.augment_system_message(lambda m: SystemMessage(m.text + "!"))
    assert augmented.messages == (U1, SystemMessage("first system!"), SYS2)
    assert augmented.options is options
    assert prompt.messages == (U1, SYS1, SYS2)  # the original is untouched


def test_augment_system_message_inserts_at_index_0_when_absent():
    augmented = Prompt([U1, ANSWER]).augment_system_message(
        lambda m: SystemMessage(m.text + "be brief")
    )
    assert augmented.messages == (SystemMessage("be brief"), U1, ANSWER)


def test_augment_system_message_with_a_string_sets_the_text_and_keeps_metadata():
    prompt = Prompt([SystemMessage("old", {"k": "v"}), U1])
    assert prompt.augment_system_message("new").messages == (
        SystemMessage("new", {"k": "v"}),
        U1,
    )
    assert Prompt([U1]).augment_system_message("new").messages == (SystemMessage("new"), U1)


def test_augment_user_message_replaces_the_last_one():
    prompt = Prompt([U1, ANSWER, U2, ANSWER])
    augmented = prompt.augment_user_message(lambda m: UserMessage(m.text.upper()))
    assert augmented.messages == (U1, ANSWER, UserMessage("SECOND QUESTION"), ANSWER)


def test_augment_user_message_appends_when_absent():
    augmented = Prompt([SYS1, ANSWER]).augment_user_message(lambda m: UserMessage(m.text + "hi"))
    assert augmented.messages == (SYS1, ANSWER, UserMessage("hi"))
    assert Prompt([SYS1]).augment_user_message("hey").messages == (SYS1, UserMessage("hey"))


def test_copy_and_without_options():
    options = ChatOptions(model="m")
    prompt = Prompt([U1], options)
    assert prompt.copy().options is options  # copy(options=None) keeps them
    assert prompt.copy(messages=[U2]).messages == (U2,)
    other = ChatOptions(model="n")
    assert prompt.copy(options=other).options is other
    assert prompt.without_options().options is None
    assert prompt.without_options().messages == (U1,)


def test_prompt_is_an_immutable_value():
    assert Prompt("hi", ChatOptions(model="m")) == Prompt(
        [UserMessage("hi")], ChatOptions(model="m")
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        Prompt("hi").messages = ()  # type: ignore[misc]


def test_contents_joins_every_text():
    assert Prompt([SYS1, U1, CALL, TOOL]).contents == "first systemfirst question"


# --- ChatOptions.combine_with ------------------------------------------------------------


def test_combine_with_none_is_self():
    options = ChatOptions(model="m")
    assert options.combine_with(None) is options


def test_scalars_overwrite_only_when_set():
    base = ChatOptions(model="m", temperature=0.2, max_tokens=100, top_p=0.9)
    combined = base.combine_with(ChatOptions(temperature=0.7, top_k=5))
    assert combined == ChatOptions(model="m", temperature=0.7, max_tokens=100, top_p=0.9, top_k=5)
    assert base.temperature == 0.2  # immutable


def test_set_falsy_scalars_still_overwrite():
    combined = ChatOptions(temperature=0.7, max_tokens=100).combine_with(
        ChatOptions(temperature=0.0, max_tokens=0)
    )
    assert combined.temperature == 0.0
    assert combined.max_tokens == 0


def test_stop_sequences_concatenate():
    combined = ChatOptions(stop_sequences=["a"]).combine_with(
        ChatOptions(stop_sequences=["b", "c"])
    )
    assert combined.stop_sequences == ("a", "b", "c")
    assert ChatOptions().combine_with(ChatOptions(stop_sequences=["x"])).stop_sequences == ("x",)
    assert ChatOptions(stop_sequences=["x"]).combine_with(ChatOptions()).stop_sequences == ("x",)


def test_a_single_string_is_not_a_stop_sequence_list():
    with pytest.raises(TypeError, match="not one str"):
        ChatOptions(stop_sequences="stop")  # type: ignore[arg-type]


def test_tool_callbacks_append_and_tool_context_merges_with_other_winning():
    base = ToolCallingChatOptions(
        model="m", tool_callbacks=[A], tool_context={"user": "ada", "tenant": "t1"}
    )
    other = ToolCallingChatOptions(tool_callbacks=[B, C], tool_context={"tenant": "t2", "x": 1})
    combined = base.combine_with(other)
    assert combined.tool_callbacks == (A, B, C)
    assert combined.tool_context == {"user": "ada", "tenant": "t2", "x": 1}
    assert isinstance(combined.tool_context, FrozenDict)
    assert combined.model == "m"


def test_empty_tools_and_context_of_the_other_change_nothing():
    base = ToolCallingChatOptions(tool_callbacks=[A], tool_context={"k": 1})
    assert base.combine_with(ToolCallingChatOptions()) is base


def test_result_keeps_the_class_of_self():
    tooling = ToolCallingChatOptions(model="m", tool_callbacks=[A])
    combined = tooling.combine_with(ChatOptions(temperature=0.5))
    assert type(combined) is ToolCallingChatOptions
    assert combined.tool_callbacks == (A,)
    assert combined.temperature == 0.5

    plain = ChatOptions(model="m").combine_with(
        ToolCallingChatOptions(temperature=0.5, tool_callbacks=[B])
    )
    assert type(plain) is ChatOptions  # the other's tool fields have nowhere to go
    assert plain == ChatOptions(model="m", temperature=0.5)


def test_subclass_fields_combine_field_by_field():
    @dataclass(frozen=True, slots=True, kw_only=True)
    class ProviderOptions(ToolCallingChatOptions):
        seed: int | None = None
        reasoning_effort: str | None = None

    base = ProviderOptions(seed=1, reasoning_effort="low", tool_callbacks=[A])
    combined = base.combine_with(ProviderOptions(reasoning_effort="high", tool_callbacks=[B]))
    assert type(combined) is ProviderOptions
    assert combined.seed == 1
    assert combined.reasoning_effort == "high"
    assert combined.tool_callbacks == (A, B)


def test_an_empty_mapping_field_without_a_default_does_not_overwrite_when_combined():
    @dataclass(frozen=True, slots=True, kw_only=True)
    class ProviderOptions(ToolCallingChatOptions):
        extra_body: dict[str, int] = dataclasses.field(default_factory=dict)

    base = ProviderOptions(extra_body={"k": 1})
    assert base.combine_with(ProviderOptions(temperature=0.3)).extra_body == {"k": 1}
    assert base.combine_with(ProviderOptions(extra_body={"j": 2})).extra_body == {"j": 2}
    assert base.combine_with(ProviderOptions()).filled_from(base) == base


def test_copy_replaces_fields():
    options = ChatOptions(model="m", stop_sequences=["a"])
    assert options.copy(stop_sequences=["b"]).stop_sequences == ("b",)
    assert options.copy(model="n") == ChatOptions(model="n", stop_sequences=["a"])


# --- ToolCallingChatOptions ----------------------------------------------------------------


def test_with_tool_callbacks_replaces():
    options = ToolCallingChatOptions(tool_callbacks=[A, B])
    assert options.with_tool_callbacks([C]).tool_callbacks == (C,)
    assert options.with_tool_callbacks([]).tool_callbacks == ()
    assert options.tool_callbacks == (A, B)


def test_add_tool_callbacks_appends():
    options = ToolCallingChatOptions(tool_callbacks=[A])
    assert options.add_tool_callbacks(B, C).tool_callbacks == (A, B, C)
    assert options.tool_names == ("a",)
    assert options.add_tool_callbacks(B, C).tool_names == ("a", "b", "c")


def test_with_tool_context_merges():
    options = ToolCallingChatOptions(tool_context={"a": 1, "b": 2})
    merged = options.with_tool_context({"b": 3, "c": 4})
    assert merged.tool_context == {"a": 1, "b": 3, "c": 4}
    assert options.tool_context == {"a": 1, "b": 2}


def test_tool_fields_are_immutable():
    options = ToolCallingChatOptions(tool_callbacks=[A], tool_context={"a": 1})
    assert isinstance(options.tool_callbacks, tuple)
    with pytest.raises(TypeError, match="read-only"):
        options.tool_context["a"] = 2  # type: ignore[index]


def test_merge_tool_callbacks_overrides():
    assert ToolCallingChatOptions.merge_tool_callbacks([A], [B, C]) == (A,)
    assert ToolCallingChatOptions.merge_tool_callbacks([], [B, C]) == (B, C)
    assert ToolCallingChatOptions.merge_tool_callbacks(None, [B]) == (B,)
    assert ToolCallingChatOptions.merge_tool_callbacks(None, None) == ()


def test_merge_tool_context_merges_with_runtime_winning():
    merged = ToolCallingChatOptions.merge_tool_context({"a": 1, "b": 2}, {"b": 0, "c": 3})
    assert merged == {"a": 1, "b": 2, "c": 3}
    assert ToolCallingChatOptions.merge_tool_context(None, {"c": 3}) == {"c": 3}
    assert ToolCallingChatOptions.merge_tool_context({"a": 1}, None) == {"a": 1}
    assert ToolCallingChatOptions.merge_tool_context(None, None) == {}


def test_validate_tool_callbacks_accepts_unique_names():
    ToolCallingChatOptions.validate_tool_callbacks([A, B, C])
    ToolCallingChatOptions.validate_tool_callbacks([])


def test_validate_tool_callbacks_names_every_duplicate_once():
    with pytest.raises(ConfigurationError) as info:
        ToolCallingChatOptions.validate_tool_callbacks([A, B, FakeTool("a"), C, FakeTool("b"), A])
    message = str(info.value)
    assert "Multiple tools with the same name (a, b) found in ToolCallingChatOptions" in message
    assert "@tool(name=...)" in message


def test_filled_from_takes_only_unset_fields_and_concatenates_nothing():
    defaults = ToolCallingChatOptions(
        model="m", temperature=0.5, stop_sequences=("END",), tool_context={"user": "ada"}
    )
    mine = ToolCallingChatOptions(temperature=0.0, stop_sequences=("STOP",))
    filled = mine.filled_from(defaults)
    assert filled.model == "m"
    assert filled.temperature == 0.0  # set here: kept, although falsy
    assert filled.stop_sequences == ("STOP",)  # replaced, not concatenated
    assert dict(filled.tool_context) == {"user": "ada"}
    assert filled.filled_from(defaults) == filled  # filling twice changes nothing
    assert (
        ToolCallingChatOptions().filled_from(ToolCallingChatOptions()) == ToolCallingChatOptions()
    )


def test_filled_from_base_options_leaves_the_subclass_fields():
    mine = ToolCallingChatOptions(tool_context={"k": 1})
    filled = mine.filled_from(ChatOptions(model="m", max_tokens=10))
    assert type(filled) is ToolCallingChatOptions
    assert (filled.model, filled.max_tokens, dict(filled.tool_context)) == ("m", 10, {"k": 1})


def test_a_subclass_of_tool_calling_options_gets_from_options_and_frozen_mappings():
    import dataclasses

    from ostinato._frozen import FrozenDict
    from ostinato.prompt import ChatOptions, ToolCallingChatOptions

    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class ProviderOptions(ToolCallingChatOptions):
        extra_body: dict[str, object] | None = None
        format: str | dict[str, object] | None = None

    options = ProviderOptions(extra_body={"a": {"b": 1}}, format={"type": "object"})
    assert isinstance(options.extra_body, FrozenDict)
    assert isinstance(options.format, FrozenDict)
    assert ProviderOptions(format="json").format == "json"
    assert ProviderOptions.from_options(options) is options
    assert ProviderOptions.from_options(None) == ProviderOptions()
    converted = ProviderOptions.from_options(ChatOptions(model="m", temperature=0.5))
    assert type(converted) is ProviderOptions
    assert (converted.model, converted.temperature) == ("m", 0.5)
