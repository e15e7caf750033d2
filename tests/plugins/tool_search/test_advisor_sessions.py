"""ToolSearchToolCallingAdvisor beyond Spring AI: turns without a conversation id,
requests without tools, robustness, copies, and memory inside the loop. Call and stream."""

from __future__ import annotations

import contextlib

import pytest

from ostinato.advisors import ChatClientRequest, ToolCallingAdvisor
from ostinato.errors import ConfigurationError, ModelError
from ostinato.memory import CONVERSATION_ID
from ostinato.messages import (
    AssistantMessage,
    ToolCall,
    ToolResponse,
    ToolResponseMessage,
    UserMessage,
)
from ostinato.prompt import Prompt, ToolCallingChatOptions
from ostinato.testing import ScriptedChatModel, ScriptedStream, text_response, tool_call_response
from ostinato_tool_search import (
    SESSION_ID_TOOL_CONTEXT_KEY,
    TURN_CONTEXT_KEY,
    RegexToolIndex,
    ToolSearchToolCallingAdvisor,
    ToolSearchToolCallingAdvisorBuilder,
)
from tests.core.advisors.loop_harness import MODES, chain_for, run
from tests.plugins.tool_search.fakes import RecordingToolIndex, StaticTool, static_tools

pytestmark = pytest.mark.parametrize("mode", MODES)


def turn(
    *tools: StaticTool, conversation: str | None = None, text: str = "hello"
) -> ChatClientRequest:
    options = ToolCallingChatOptions(tool_callbacks=tools or static_tools("tool1", "tool2"))
    context = {CONVERSATION_ID: conversation} if conversation else {}
    return ChatClientRequest(Prompt([UserMessage(text)], options), context)


def search(query: str) -> object:
    return tool_call_response(("toolSearchTool", {"query": query}))


# -- a turn without a conversation id has its own session ------------------------------------


async def test_without_a_conversation_id_the_turn_gets_a_session_dropped_at_its_end(mode):
    index = RecordingToolIndex()
    advisor = ToolSearchToolCallingAdvisor(tool_index=index)
    weather = StaticTool("weather", "Current weather for a city", answer="sunny")
    model = ScriptedChatModel(
        [search("weather"), tool_call_response(("weather", {})), "It is sunny"]
    )
    outcome = await run(mode, advisor, model, turn(weather, *static_tools("stocks")))
    assert outcome.text == "It is sunny"
    assert weather.calls == ["{}"]
    (session,) = index.indexed_sessions
    assert session.startswith("ostinato.tool_search.turn:")
    assert index.searches == [(session, "weather", None)]
    assert index.cleared == [session]
    assert index.session_ids == []
    assert len(advisor.indexed_sessions) == 0


async def test_each_turn_without_a_conversation_id_indexes_afresh(mode):
    index = RecordingToolIndex()
    advisor = ToolSearchToolCallingAdvisor(tool_index=index)
    model = ScriptedChatModel(["a", "b"])
    await run(mode, advisor, model, turn())
    await run(mode, advisor, model, turn())
    first, second = index.indexed_sessions
    assert first != second
    assert index.cleared == [first, second]


async def test_a_stream_closed_early_still_drops_the_turns_session(mode):
    if mode == "call":
        pytest.skip("a stream-only exit")
    index = RecordingToolIndex()
    advisor = ToolSearchToolCallingAdvisor(tool_index=index)
    chain = chain_for(ScriptedChatModel(["a long answer in many chunks"]), advisor)
    async with contextlib.aclosing(chain.next_stream(turn())) as stream:
        async for _ in stream:
            break
    assert len(index.cleared) == 1
    assert index.session_ids == []


async def test_a_failing_model_still_drops_the_turns_session_in_a_stream(mode):
    if mode == "call":
        pytest.skip("a stream-only exit")
    index = RecordingToolIndex()
    advisor = ToolSearchToolCallingAdvisor(tool_index=index)
    broken = ScriptedStream([text_response("par"), ModelError("connection lost")])
    with pytest.raises(ModelError, match="connection lost"):
        await run(mode, advisor, ScriptedChatModel([broken]), turn())
    assert index.session_ids == []


async def test_responses_do_not_carry_the_turn_state(mode):
    model = ScriptedChatModel([search("tool1"), "done"])
    outcome = await run(mode, ToolSearchToolCallingAdvisor(), model, turn())
    assert all(TURN_CONTEXT_KEY not in chunk.context for chunk in outcome.emitted)


async def test_the_session_rides_in_the_tool_context_of_each_round(mode):
    model = ScriptedChatModel([search("tool1"), "done"])
    await run(mode, ToolSearchToolCallingAdvisor(), model, turn(conversation="conv-7"))
    for prompt in model.prompts:
        assert isinstance(prompt.options, ToolCallingChatOptions)
        assert prompt.options.tool_context[SESSION_ID_TOOL_CONTEXT_KEY] == "conv-7"


# -- requests the advisor leaves alone ---------------------------------------------------------


async def test_a_request_without_tools_passes_through_untouched(mode):
    index = RecordingToolIndex()
    model = ScriptedChatModel(["hi"])
    request = ChatClientRequest(Prompt([UserMessage("hello")], ToolCallingChatOptions()))
    outcome = await run(mode, ToolSearchToolCallingAdvisor(tool_index=index), model, request)
    assert outcome.text == "hi"
    assert model.prompts[0].messages == (UserMessage("hello"),)
    assert model.prompts[0].options == ToolCallingChatOptions()
    assert index.indexed == []


async def test_a_user_tool_named_like_the_search_tool_is_refused(mode):
    model = ScriptedChatModel(["never"])
    request = turn(StaticTool("toolSearchTool", "mine"))
    with pytest.raises(ConfigurationError, match="provides that tool itself"):
        await run(mode, ToolSearchToolCallingAdvisor(), model, request)
    assert model.call_count == 0


async def test_a_search_answer_that_is_not_a_list_of_names_is_ignored(mode):
    answer = ToolResponse(
        "s1", "toolSearchTool", "Error: invalid arguments for tool 'toolSearchTool'"
    )
    messages = [
        UserMessage("hello"),
        AssistantMessage(None, (ToolCall("s1", "toolSearchTool", "{}"),)),
        ToolResponseMessage([answer]),
    ]
    request = ChatClientRequest(
        Prompt(messages, ToolCallingChatOptions(tool_callbacks=static_tools("tool1")))
    )
    model = ScriptedChatModel(["done"])
    await run(mode, ToolSearchToolCallingAdvisor(), model, request)
    assert model.prompts[0].options.tool_names == ("toolSearchTool",)  # type: ignore[union-attr]


# -- memory inside the loop (internal history off) ------------------------------------------------


@pytest.mark.parametrize(
    ("accumulate", "third_round"),
    [(True, ("toolSearchTool", "tool1")), (False, ("toolSearchTool",))],
)
async def test_with_history_off_accumulation_keeps_found_tools(mode, accumulate, third_round):
    advisor = ToolSearchToolCallingAdvisor(
        accumulate=accumulate, conversation_history_enabled=False
    )
    model = ScriptedChatModel([search("tool1"), tool_call_response(("tool1", {})), "done"])
    await run(mode, advisor, model, turn())
    assert model.prompts[1].options.tool_names == ("toolSearchTool", "tool1")  # type: ignore[union-attr]
    assert len(model.prompts[2].messages) == 2, "only [system, last tool response] is forwarded"
    assert model.prompts[2].options.tool_names == third_round  # type: ignore[union-attr]


# -- copies and builders ------------------------------------------------------------------------------


def test_copies_keep_the_settings_and_share_the_indexed_sessions(mode):
    index = RegexToolIndex()
    original = ToolSearchToolCallingAdvisor(
        tool_index=index, max_results=4, accumulate=False, advisor_order=42
    )
    copied = original.copy(conversation_history_enabled=False)
    assert type(copied) is ToolSearchToolCallingAdvisor
    assert (copied.tool_index, copied.max_results, copied.accumulate, copied.order) == (
        index,
        4,
        False,
        42,
    )
    assert copied.conversation_history_enabled is False
    assert copied.indexed_sessions is original.indexed_sessions
    assert copied.search_tool is original.search_tool
    changed = original.copy(max_results=9)
    assert changed.search_tool.max_results == 9
    assert original.search_tool.max_results == 4
    assert changed.indexed_sessions is original.indexed_sessions
    assert (
        original.copy(tool_index=RegexToolIndex()).indexed_sessions is not original.indexed_sessions
    )
    with pytest.raises(TypeError, match="unknown setting"):
        original.copy(colour="blue")
    with pytest.raises(ConfigurationError, match="max_results"):
        original.copy(max_results=0)


def test_settings_include_the_base_ones(mode):
    settings = ToolSearchToolCallingAdvisor(max_results=2).settings()
    assert set(settings) == set(ToolCallingAdvisor().settings()) | {
        "tool_index",
        "max_results",
        "accumulate",
        "system_message_suffix",
        "eviction_strategy",
        "session_id_key",
    }


def test_the_builder_sets_every_setting_and_copies_as_itself(mode):
    index = RegexToolIndex()
    builder = (
        ToolSearchToolCallingAdvisor.builder()
        .tool_index(index)
        .max_results(3)
        .reference_tool_name_accumulation(False)
        .system_message_suffix("Search first.")
        .session_id_key("tenant")
        .advisor_order(7)
    )
    copied = builder.copy()
    assert isinstance(copied, ToolSearchToolCallingAdvisorBuilder)
    advisor = copied.build()
    assert isinstance(advisor, ToolSearchToolCallingAdvisor)
    assert (advisor.tool_index, advisor.max_results, advisor.accumulate) == (index, 3, False)
    assert (advisor.system_message_suffix, advisor.session_id_key, advisor.order) == (
        "Search first.",
        "tenant",
        7,
    )


@pytest.mark.parametrize(
    ("setting", "value", "message"),
    [
        ("tool_index", object(), "tool_index must be a ToolIndex"),
        ("eviction_strategy", object(), "eviction_strategy must be an EvictionStrategy"),
        ("accumulate", "yes", "accumulate must be True or False"),
        ("system_message_suffix", "  ", "system_message_suffix must be a non-blank string"),
        ("session_id_key", "", "session_id_key must be a non-empty string"),
        ("max_results", 0, "max_results must be a positive int"),
    ],
)
def test_bad_settings_are_refused(mode, setting, value, message):
    with pytest.raises(ConfigurationError, match=message):
        ToolSearchToolCallingAdvisor(**{setting: value})
