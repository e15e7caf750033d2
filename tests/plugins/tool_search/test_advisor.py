"""ToolSearchToolCallingAdvisor: Spring AI's tool-search behaviours, call and stream.

Each test runs the advisor through a real chain on both paths (``mode``); the index is a
real keyword index that records its calls. The eviction strategies (#111) and the regex
index (#112) have their own modules.
"""

from __future__ import annotations

import pytest

from ostinato.advisors import ChatClientRequest, Ordered
from ostinato.errors import ConfigurationError
from ostinato.memory import CONVERSATION_ID
from ostinato.messages import (
    AssistantMessage,
    SystemMessage,
    ToolCall,
    ToolResponse,
    ToolResponseMessage,
    UserMessage,
)
from ostinato.prompt import Prompt, ToolCallingChatOptions
from ostinato.testing import ScriptedChatModel, tool_call_response
from ostinato_tool_search import (
    DEFAULT_SYSTEM_MESSAGE_SUFFIX,
    LruEvictionStrategy,
    RegexToolIndex,
    ToolSearchToolCallingAdvisor,
)
from tests.core.advisors.loop_harness import MODES, run
from tests.plugins.tool_search.fakes import RecordingToolIndex, StaticTool, static_tools

pytestmark = pytest.mark.parametrize("mode", MODES)


def turn(
    *messages: object, tools: list[StaticTool] | None = None, conversation: str | None = None
) -> ChatClientRequest:
    """A request with ``messages`` (default: one user message) and ``tools``."""
    options = ToolCallingChatOptions(
        tool_callbacks=static_tools("tool1", "tool2") if tools is None else tools
    )
    context = {CONVERSATION_ID: conversation} if conversation is not None else {}
    return ChatClientRequest(Prompt(messages or (UserMessage("hello"),), options), context)  # type: ignore[arg-type]


def search_answer(*names: str, call_id: str = "search-1") -> ToolResponse:
    quoted = ", ".join(f'"{n}"' for n in names)
    return ToolResponse(call_id, "toolSearchTool", f"[{quoted}]")


def searched(*answers: ToolResponse) -> tuple[object, ...]:
    """A user message, the search calls and one tool response message holding ``answers``."""
    calls = tuple(ToolCall(a.id, "toolSearchTool", '{"query": "x"}') for a in answers)
    return (UserMessage("hello"), AssistantMessage(None, calls), ToolResponseMessage(answers))


def sent_tools(model: ScriptedChatModel, request_number: int = 0) -> set[str]:
    options = model.prompts[request_number].options
    assert isinstance(options, ToolCallingChatOptions)
    return set(options.tool_names)


# -- #99 construction ----------------------------------------------------------------------


def test_a_missing_index_is_refused(mode):
    with pytest.raises(ConfigurationError, match="tool_index must not be None"):
        ToolSearchToolCallingAdvisor(tool_index=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tool_index must not be None"):
        ToolSearchToolCallingAdvisor.builder().tool_index(None).build()


def test_defaults(mode):
    advisor = ToolSearchToolCallingAdvisor()
    assert advisor.order == Ordered.HIGHEST_PRECEDENCE + 300
    assert advisor.name == "ToolSearchToolCallingAdvisor"
    assert advisor.max_results is None
    assert advisor.accumulate is True
    assert advisor.system_message_suffix == DEFAULT_SYSTEM_MESSAGE_SUFFIX
    assert isinstance(advisor.eviction_strategy, LruEvictionStrategy)
    assert advisor.eviction_strategy.max_sessions == 1000
    assert advisor.session_id_key == CONVERSATION_ID
    assert advisor.search_tool.tool_definition.name == "toolSearchTool"


# -- #100 indexing at loop start ------------------------------------------------------------


async def test_loop_start_indexes_the_attached_tools_once_in_order(mode):
    index = RecordingToolIndex()
    model = ScriptedChatModel(["done"])
    await run(mode, ToolSearchToolCallingAdvisor(tool_index=index), model, turn(conversation="c"))
    assert index.indexed == [("c", ["tool1", "tool2"])]


# -- #101 system message ----------------------------------------------------------------------


async def test_the_suffix_is_appended_to_the_system_message(mode):
    advisor = ToolSearchToolCallingAdvisor(system_message_suffix="\n\nCUSTOM SUFFIX FOR TESTING")
    model = ScriptedChatModel(["done"])
    await run(
        mode, advisor, model, turn(SystemMessage("Original system message"), UserMessage("hi"))
    )
    first = model.prompts[0].messages[0]
    assert isinstance(first, SystemMessage)
    assert first.text == "Original system message\n\nCUSTOM SUFFIX FOR TESTING"


async def test_without_a_system_message_the_suffix_becomes_one(mode):
    model = ScriptedChatModel(["done"])
    await run(mode, ToolSearchToolCallingAdvisor(), model, turn(UserMessage("hi")))
    assert model.prompts[0].messages == (
        SystemMessage(DEFAULT_SYSTEM_MESSAGE_SUFFIX),
        UserMessage("hi"),
    )


# -- #102 re-indexing only when the tool set changes --------------------------------------------


async def test_a_session_is_reindexed_only_when_its_tools_change(mode):
    index = RecordingToolIndex()
    advisor = ToolSearchToolCallingAdvisor(tool_index=index)
    model = ScriptedChatModel(["a", "b", "c", "d"])
    await run(mode, advisor, model, turn(conversation="conv"))
    assert len(index.indexed) == 1
    await run(mode, advisor, model, turn(tools=static_tools("tool2", "tool1"), conversation="conv"))
    assert len(index.indexed) == 1, "the same tools in another order are the same set"
    await run(mode, advisor, model, turn(tools=static_tools("tool1", "tool3"), conversation="conv"))
    assert index.indexed[-1] == ("conv", ["tool1", "tool3"])
    changed = [StaticTool("tool1", "A new description"), *static_tools("tool3")]
    await run(mode, advisor, model, turn(tools=changed, conversation="conv"))
    assert len(index.indexed) == 3, "a changed description is a changed set"
    assert index.cleared == []


async def test_a_changed_schema_reindexes(mode):
    index = RecordingToolIndex()
    advisor = ToolSearchToolCallingAdvisor(tool_index=index)
    model = ScriptedChatModel(["a", "b"])
    await run(mode, advisor, model, turn(tools=[StaticTool("t", "d")], conversation="conv"))
    schema = '{"type":"object","properties":{"x":{"type":"string"}}}'
    await run(
        mode, advisor, model, turn(tools=[StaticTool("t", "d", schema=schema)], conversation="conv")
    )
    assert len(index.indexed) == 2


# -- #103 LRU eviction ----------------------------------------------------------------------------


async def test_lru_eviction_clears_the_least_recent_session(mode):
    index = RecordingToolIndex()
    advisor = ToolSearchToolCallingAdvisor(
        tool_index=index, eviction_strategy=LruEvictionStrategy(1)
    )
    model = ScriptedChatModel(["a", "b"])
    await run(mode, advisor, model, turn(conversation="session-A"))
    await run(mode, advisor, model, turn(conversation="session-B"))
    assert index.cleared == ["session-A"]
    assert index.indexed_sessions == ["session-A", "session-B"]
    assert index.session_ids == ["session-B"]
    assert "session-A" not in advisor.indexed_sessions
    assert "session-B" in advisor.indexed_sessions


# -- #104 explicit eviction -----------------------------------------------------------------------


async def test_evicting_a_session_forces_reindexing_on_its_next_turn(mode):
    index = RecordingToolIndex()
    advisor = ToolSearchToolCallingAdvisor(tool_index=index)
    model = ScriptedChatModel(["a", "b"])
    await run(mode, advisor, model, turn(conversation="conv-1"))
    await advisor.aevict_session("conv-1")
    assert index.cleared == ["conv-1"]
    await run(mode, advisor, model, turn(conversation="conv-1"))
    assert index.indexed_sessions == ["conv-1", "conv-1"]


def test_evict_session_has_a_blocking_face(mode):
    index = RecordingToolIndex()
    advisor = ToolSearchToolCallingAdvisor(tool_index=index)
    advisor.evict_session("conv-9")
    assert index.cleared == ["conv-9"]


# -- #105-#106 tools named by search answers ---------------------------------------------------


async def test_names_of_tools_not_attached_are_ignored(mode):
    model = ScriptedChatModel(["done"])
    request = turn(
        *searched(search_answer("weatherTool", "calculatorTool")), tools=static_tools("otherTool")
    )
    await run(mode, ToolSearchToolCallingAdvisor(), model, request)
    assert sent_tools(model) == {"toolSearchTool"}


async def test_found_tools_are_sent_with_the_search_tool(mode):
    model = ScriptedChatModel(["done"])
    request = turn(
        *searched(search_answer("weatherTool")), tools=static_tools("weatherTool", "otherTool")
    )
    await run(mode, ToolSearchToolCallingAdvisor(), model, request)
    assert sent_tools(model) == {"toolSearchTool", "weatherTool"}
    assert model.prompts[0].options.tool_names[0] == "toolSearchTool"  # type: ignore[union-attr]


# -- #107-#108 accumulation ------------------------------------------------------------------------

ALL = static_tools("currentTime", "weather", "clothing", "unrelated")


async def test_without_accumulation_parallel_answers_of_the_last_search_all_count(mode):
    model = ScriptedChatModel(["done"])
    answers = (
        search_answer("currentTime", call_id="s1"),
        search_answer("weather", call_id="s2"),
        search_answer("clothing", call_id="s3"),
    )
    advisor = ToolSearchToolCallingAdvisor(accumulate=False)
    await run(mode, advisor, model, turn(*searched(*answers), tools=ALL))
    assert sent_tools(model) == {"toolSearchTool", "currentTime", "weather", "clothing"}


def two_searches() -> tuple[object, ...]:
    first = searched(search_answer("weather", call_id="s1"))
    second = searched(search_answer("clothing", call_id="s2"))[1:]
    return (*first, *second)


async def test_without_accumulation_only_the_last_search_counts(mode):
    model = ScriptedChatModel(["done"])
    await run(
        mode,
        ToolSearchToolCallingAdvisor(accumulate=False),
        model,
        turn(*two_searches(), tools=ALL),
    )
    assert sent_tools(model) == {"toolSearchTool", "clothing"}


async def test_with_accumulation_every_search_counts(mode):
    model = ScriptedChatModel(["done"])
    await run(
        mode, ToolSearchToolCallingAdvisor(accumulate=True), model, turn(*two_searches(), tools=ALL)
    )
    assert sent_tools(model) == {"toolSearchTool", "weather", "clothing"}


# -- #109 maxResults ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "expected"), [({"query": "q", "maxResults": 7}, 7), ({"query": "q"}, 3)]
)
async def test_the_models_max_results_wins_over_the_advisors(mode, arguments, expected):
    index = RecordingToolIndex()
    advisor = ToolSearchToolCallingAdvisor(tool_index=index, max_results=3)
    model = ScriptedChatModel([tool_call_response(("toolSearchTool", arguments)), "done"])
    await run(mode, advisor, model, turn(conversation="conv"))
    assert index.searches == [("conv", "q", expected)]


# -- #110 conversation id ------------------------------------------------------------------------


async def test_the_conversation_id_names_the_session_which_outlives_the_turn(mode):
    index = RecordingToolIndex()
    advisor = ToolSearchToolCallingAdvisor(tool_index=index)
    model = ScriptedChatModel([tool_call_response(("toolSearchTool", {"query": "tool1"})), "done"])
    await run(mode, advisor, model, turn(conversation="test-conversation-123"))
    assert index.indexed_sessions == ["test-conversation-123"]
    assert index.searches[0][0] == "test-conversation-123"
    assert index.cleared == [], "finalize does not clear a conversation's index"
    assert index.session_ids == ["test-conversation-123"]


async def test_a_custom_session_key_is_read_from_the_context(mode):
    index = RecordingToolIndex()
    advisor = ToolSearchToolCallingAdvisor(tool_index=index, session_id_key="tenant")
    request = turn().with_context(tenant="acme")
    await run(mode, advisor, ScriptedChatModel(["done"]), request)
    assert index.indexed_sessions == ["acme"]


# -- #111-#112 through the loop -------------------------------------------------------------------


async def test_an_lru_of_two_evicts_the_session_not_seen_since(mode):
    index = RecordingToolIndex()
    advisor = ToolSearchToolCallingAdvisor(
        tool_index=index, eviction_strategy=LruEvictionStrategy(2)
    )
    model = ScriptedChatModel(["a", "b", "c", "d"])
    for session in ("a", "b", "a", "c"):
        await run(mode, advisor, model, turn(conversation=session))
    assert index.cleared == ["b"]
    assert sorted(index.session_ids) == ["a", "c"]


async def test_an_upper_case_query_finds_its_tool_with_the_regex_index(mode):
    tools = [StaticTool("getInventory", "Stock levels per item"), *static_tools("getInvoice")]
    model = ScriptedChatModel(
        [tool_call_response(("toolSearchTool", {"query": "GET INVENTORY"})), "done"]
    )
    advisor = ToolSearchToolCallingAdvisor(tool_index=RegexToolIndex())
    await run(mode, advisor, model, turn(tools=tools))
    assert (
        model.prompts[1].messages[-1].responses[0].response_data == '["getInventory", "getInvoice"]'
    )  # type: ignore[union-attr]
