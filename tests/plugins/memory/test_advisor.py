"""``ChatMemoryAdvisor``: construction, the conversation id, and *what is stored when* —
outside the tool loop (the whole turn, once it succeeded) and inside it (whole tool
rounds) — each through ``call()`` and ``stream()`` of a real ``ChatClient``. Spring AI's
behaviour, except that a turn is stored only once it succeeded, and that a streamed turn
stores what a called one does."""

from __future__ import annotations

import json

import pytest

from ostinato import AdvisorParams, Ordered, ToolCallingAdvisor, tool
from ostinato.errors import ModelError
from ostinato.memory import CONVERSATION_ID
from ostinato.messages import (
    AssistantMessage,
    SystemMessage,
    ToolCall,
    ToolResponse,
    ToolResponseMessage,
    UserMessage,
)
from ostinato.model import ChatResponse
from ostinato.testing import (
    ScriptedChatModel,
    ScriptedStream,
    text_response,
    tool_call_response,
)
from ostinato.tools import DefaultToolCallingManager, ToolCallLimits
from ostinato_memory import (
    InMemoryChatMemoryRepository,
    MessageChatMemoryAdvisor,
    MessageWindowChatMemory,
    MissingConversationIdError,
)
from tests.fakes.managers import RecordingManager
from tests.plugins.memory.harness import INSIDE, MODES, ask, client_for, weather, weather_call

pytestmark = pytest.mark.parametrize("mode", MODES)

U = UserMessage("Weather in Paris?")
A1 = weather_call("Paris", text="Let me check")
T1 = ToolResponseMessage([ToolResponse("call-Paris", "weather", "Paris: 25C")])
FINAL = AssistantMessage("Sunny, 25C")


def a1() -> AssistantMessage:
    output = A1.result
    assert output is not None
    return output.output


# -- construction and conversation id ----------------------------------------------------


def test_builder_and_constructor_check_their_arguments(mode):
    with pytest.raises(ValueError, match="chatMemory cannot be null"):
        MessageChatMemoryAdvisor.builder(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="chatMemory cannot be null"):
        MessageChatMemoryAdvisor(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"wrap it, MessageWindowChatMemory\(repository\)"):
        MessageChatMemoryAdvisor(InMemoryChatMemoryRepository())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="order must be an int"):
        MessageChatMemoryAdvisor(MessageWindowChatMemory(), order="1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="default_conversation_id"):
        MessageChatMemoryAdvisor(MessageWindowChatMemory(), default_conversation_id=" ")


def test_default_order_is_outside_the_tool_loop_and_order_can_be_set(mode):
    memory = MessageWindowChatMemory()
    advisor = MessageChatMemoryAdvisor.builder(memory).build()
    assert advisor.order == Ordered.HIGHEST_PRECEDENCE + 200
    assert advisor.order < ToolCallingAdvisor.DEFAULT_ORDER
    built = MessageChatMemoryAdvisor.builder(memory).order(42).default_conversation_id("d").build()
    assert (built.order, built.default_conversation_id, built.chat_memory) == (42, "d", memory)
    assert advisor.name == "MessageChatMemoryAdvisor"


def test_conversation_id_comes_from_the_context_else_the_default(mode):
    advisor = MessageChatMemoryAdvisor(MessageWindowChatMemory())
    with pytest.raises(ValueError, match="conversationId cannot be null") as error:
        advisor.conversation_id({})
    assert isinstance(error.value, MissingConversationIdError)
    assert "AdvisorParams.conversation_id" in str(error.value)
    assert "default_conversation_id" in str(error.value)
    assert advisor.conversation_id({CONVERSATION_ID: "session-42"}) == "session-42"
    with_default = MessageChatMemoryAdvisor(MessageWindowChatMemory(), default_conversation_id="d")
    assert with_default.conversation_id({}) == "d"
    assert with_default.conversation_id({CONVERSATION_ID: "session-42"}) == "session-42"


async def test_a_turn_without_conversation_id_fails_before_the_model_is_called(mode):
    model = ScriptedChatModel(["never"])
    memory = MessageWindowChatMemory()
    client = client_for(model, MessageChatMemoryAdvisor(memory), conversation_id=None)
    with pytest.raises(MissingConversationIdError, match="conversationId cannot be null"):
        await ask(client.prompt("hi"), mode)
    assert model.call_count == 0


async def test_the_request_conversation_id_wins_over_the_default(mode):
    memory = MessageWindowChatMemory()
    advisor = MessageChatMemoryAdvisor(memory, default_conversation_id="default")
    client = client_for(ScriptedChatModel(["a", "b"]), advisor, conversation_id=None)
    await ask(client.prompt("one").advisors(AdvisorParams.conversation_id("mine")), mode)
    await ask(client.prompt("two"), mode)
    assert await memory.get("mine") == [UserMessage("one"), AssistantMessage("a")]
    assert await memory.get("default") == [UserMessage("two"), AssistantMessage("b")]


# -- outside the tool loop: the turn, stored once it succeeded --------------------------


async def test_outside_stores_the_user_message_and_the_final_answer_only(mode):
    model = ScriptedChatModel([A1, text_response("Sunny, 25C")])
    memory = MessageWindowChatMemory()
    client = client_for(model, MessageChatMemoryAdvisor(memory))
    answer = await ask(client.prompt(U.text).tools(weather), mode)
    assert await memory.get("c1") == [U, FINAL]
    # the intermediate round's text reached a streaming caller, but is not the answer
    assert answer == ("Let me checkSunny, 25C" if mode == "stream" else "Sunny, 25C")
    # the tool loop forwarded its whole turn (internal history stays on outside)
    assert list(model.prompts[1].messages) == [SystemMessage("S"), U, a1(), T1]


async def test_outside_stores_nothing_before_the_turn_ends(mode):
    memory = MessageWindowChatMemory()
    seen = []

    def answer(prompt):
        seen.append(memory.repository.find_by_conversation_id_sync("c1"))  # type: ignore[attr-defined]
        return "fine"

    client = client_for(ScriptedChatModel([answer]), MessageChatMemoryAdvisor(memory))
    await ask(client.prompt("hello"), mode)
    assert seen == [[]]
    assert await memory.get("c1") == [UserMessage("hello"), AssistantMessage("fine")]


async def test_a_failed_model_call_leaves_memory_as_it_was(mode):
    memory = MessageWindowChatMemory()
    await memory.add("c1", [UserMessage("before"), AssistantMessage("kept")])
    model = ScriptedChatModel([A1, ModelError("down", provider="scripted")])
    client = client_for(model, MessageChatMemoryAdvisor(memory))
    with pytest.raises(ModelError):
        await ask(client.prompt(U.text).tools(weather), mode)
    assert await memory.get("c1") == [UserMessage("before"), AssistantMessage("kept")]


async def test_a_stream_failing_midway_leaves_memory_as_it_was(mode):
    chunks = [text_response("Sun"), ModelError("cut", provider="scripted")]
    model = ScriptedChatModel([ScriptedStream(chunks)])
    memory = MessageWindowChatMemory()
    client = client_for(model, MessageChatMemoryAdvisor(memory))
    with pytest.raises(ModelError):
        await ask(client.prompt("hello"), mode)
    assert await memory.get("c1") == []


async def test_a_turn_without_an_answer_stores_nothing(mode):
    # A response without generations (or a stream without chunks) has no answer to pair
    # the user message with: storing the message alone would break the conversation.
    empty = ChatResponse([]) if mode == "call" else ScriptedStream([])
    memory = MessageWindowChatMemory()
    client = client_for(ScriptedChatModel([empty]), MessageChatMemoryAdvisor(memory))
    await ask(client.prompt("hello"), mode)
    assert await memory.get("c1") == []


async def test_an_abandoned_stream_stores_nothing(mode):
    model = ScriptedChatModel(["a long answer in many chunks"], chunk_size=2)
    memory = MessageWindowChatMemory()
    client = client_for(model, MessageChatMemoryAdvisor(memory))
    if mode == "call":
        await ask(client.prompt("hello"), mode)
        assert len(await memory.get("c1")) == 2
        return
    async for _ in client.prompt("hello").stream().acontent():
        break
    assert await memory.get("c1") == []


async def test_a_failed_tool_round_leaves_memory_as_it_was(mode):
    memory = MessageWindowChatMemory()
    failing = ToolCallingAdvisor(tool_calling_manager=RecordingManager(RuntimeError("tool broke")))
    model = ScriptedChatModel([A1])
    client = client_for(model, MessageChatMemoryAdvisor(memory), tool_advisor=failing)
    with pytest.raises(RuntimeError, match="tool broke"):
        await ask(client.prompt(U.text).tools(weather), mode)
    assert await memory.get("c1") == []


@tool(description="Forecast, returned to the caller as is", return_direct=True)
def forecast(city: str) -> str:
    return f"forecast for {city}"


@tool(description="Alerts, returned to the caller as is", return_direct=True)
def alerts(city: str) -> str:
    return f"no alerts in {city}"


async def test_outside_return_direct_stores_each_returned_text(mode):
    from ostinato.testing import tool_call_response

    model = ScriptedChatModel(
        [tool_call_response(("forecast", {"city": "Oslo"}), ("alerts", {"city": "Oslo"}))]
    )
    memory = MessageWindowChatMemory()
    client = client_for(model, MessageChatMemoryAdvisor(memory))
    await ask(client.prompt("Oslo?").tools(forecast, alerts), mode)
    assert await memory.get("c1") == [
        UserMessage("Oslo?"),
        AssistantMessage("forecast for Oslo"),
        AssistantMessage("no alerts in Oslo"),
    ]


async def test_outside_limit_breach_stores_the_breach_text(mode):
    manager = DefaultToolCallingManager(limits=ToolCallLimits(per_tool={"weather": 1}))
    model = ScriptedChatModel([weather_call("Paris"), weather_call("Rome")])
    memory = MessageWindowChatMemory()
    client = client_for(
        model,
        MessageChatMemoryAdvisor(memory),
        tool_advisor=ToolCallingAdvisor(tool_calling_manager=manager),
    )
    answer = await ask(client.prompt("Paris and Rome?").tools(weather), mode)
    stored = await memory.get("c1")
    assert stored[0] == UserMessage("Paris and Rome?")
    assert len(stored) == 2 and isinstance(stored[1], AssistantMessage)
    assert "limit" in (stored[1].text or "") and stored[1].text == answer


async def test_outside_iteration_cap_stores_the_cap_text(mode):
    model = ScriptedChatModel([weather_call("Paris"), weather_call("Rome")])
    memory = MessageWindowChatMemory()
    client = client_for(
        model,
        MessageChatMemoryAdvisor(memory),
        tool_advisor=ToolCallingAdvisor(max_iterations=2),
    )
    answer = await ask(client.prompt("Weather?").tools(weather), mode)
    stored = await memory.get("c1")
    assert stored == [UserMessage("Weather?"), AssistantMessage(answer)]
    assert "max_iterations=2" in (answer or "")


async def test_outside_without_a_tool_loop_a_tool_call_answer_is_stored(mode):
    # Tool calling turned off: the tool-call response is the turn's answer (a manual
    # loop continues it on the next call).
    model = ScriptedChatModel([A1])
    memory = MessageWindowChatMemory()
    client = client_for(model, MessageChatMemoryAdvisor(memory))
    spec = client.prompt(U.text).tools(weather)
    await ask(spec.advisors(AdvisorParams.tool_calling_advisor_auto_register(False)), mode)
    assert await memory.get("c1") == []  # held open until its tool responses come
    model.add("Sunny, 25C")
    await ask(client.prompt().messages(U, a1(), T1).tools(weather), mode)
    assert await memory.get("c1") == [U, a1(), T1, FINAL]


async def test_a_manual_tool_loop_is_remembered_whole(mode):
    manual = AdvisorParams.tool_calling_advisor_auto_register(False)
    model = ScriptedChatModel([A1, "Sunny, 25C"])
    memory = MessageWindowChatMemory()
    client = client_for(model, MessageChatMemoryAdvisor(memory), manual)
    await ask(client.prompt(U.text).tools(weather), mode)
    await ask(client.prompt().messages(U, a1(), T1).tools(weather), mode)
    assert await memory.get("c1") == [U, a1(), T1, FINAL]
    assert list(model.prompts[1].messages) == [SystemMessage("S"), U, a1(), T1]


# -- inside the tool loop: whole tool rounds ----------------------------------------------


async def test_inside_stores_each_tool_round_whole_and_the_final_answer(mode):
    model = ScriptedChatModel([A1, text_response("Sunny, 25C")])
    memory = MessageWindowChatMemory()
    client = client_for(model, MessageChatMemoryAdvisor(memory, order=INSIDE))
    await ask(client.prompt(U.text).tools(weather), mode)
    assert await memory.get("c1") == [U, a1(), T1, FINAL]
    # round 1 sent [S, U]; round 2 the tool advisor forwarded [S, T1] and memory
    # supplied the rest (the same messages Spring AI sends)
    assert [list(p.messages) for p in model.prompts] == [
        [SystemMessage("S"), U],
        [SystemMessage("S"), U, a1(), T1],
    ]


async def test_inside_two_rounds_and_a_second_turn(mode):
    a2 = weather_call("Rome")
    t2 = ToolResponseMessage([ToolResponse("call-Rome", "weather", "Rome: 25C")])
    model = ScriptedChatModel([A1, a2, "Both sunny", "You asked about two cities"])
    memory = MessageWindowChatMemory()
    client = client_for(model, MessageChatMemoryAdvisor(memory, order=INSIDE))
    await ask(client.prompt(U.text).tools(weather), mode)
    a2_out = a2.generations[0].output
    turn1 = [U, a1(), T1, a2_out, t2, AssistantMessage("Both sunny")]
    assert await memory.get("c1") == turn1
    assert list(model.prompts[2].messages) == [SystemMessage("S"), U, a1(), T1, a2_out, t2]
    await ask(client.prompt("And?").tools(weather), mode)
    assert list(model.prompts[3].messages) == [SystemMessage("S"), *turn1, UserMessage("And?")]
    assert await memory.get("c1") == [
        *turn1,
        UserMessage("And?"),
        AssistantMessage("You asked about two cities"),
    ]


async def test_inside_without_system_message_round_two_gets_an_empty_one(mode):
    model = ScriptedChatModel([A1, "Sunny, 25C"])
    memory = MessageWindowChatMemory()
    client = client_for(model, MessageChatMemoryAdvisor(memory, order=INSIDE), system=None)
    await ask(client.prompt(U.text).tools(weather), mode)
    assert list(model.prompts[1].messages) == [SystemMessage(""), U, a1(), T1]


async def test_inside_a_failed_tool_round_stores_nothing_of_it(mode):
    memory = MessageWindowChatMemory()
    failing = ToolCallingAdvisor(
        tool_calling_manager=RecordingManager(RuntimeError("tool broke")),
        conversation_history_enabled=False,
    )
    model = ScriptedChatModel([A1, "next turn's answer"])
    advisor = MessageChatMemoryAdvisor(memory, order=INSIDE)
    client = client_for(model, advisor, tool_advisor=failing)
    with pytest.raises(RuntimeError, match="tool broke"):
        await ask(client.prompt(U.text).tools(weather), mode)
    assert await memory.get("c1") == []
    # the open round is never stored, and the next turn is not disturbed by it
    await ask(client.prompt("new question"), mode)
    assert await memory.get("c1") == [
        UserMessage("new question"),
        AssistantMessage("next turn's answer"),
    ]
    assert list(model.prompts[1].messages) == [SystemMessage("S"), UserMessage("new question")]


async def test_inside_a_model_failure_after_a_tool_round_keeps_the_whole_round(mode):
    model = ScriptedChatModel([A1, ModelError("down", provider="scripted")])
    memory = MessageWindowChatMemory()
    client = client_for(model, MessageChatMemoryAdvisor(memory, order=INSIDE))
    with pytest.raises(ModelError):
        await ask(client.prompt(U.text).tools(weather), mode)
    assert await memory.get("c1") == [U, a1(), T1]


async def test_inside_return_direct_stores_the_last_round_and_the_returned_text(mode):
    # No model round follows return-direct tools: the tool advisor tells the advisor
    # inside the loop (ToolLoopExitListener), which stores the open round whole, then the
    # answer — and holds nothing open afterwards.
    from ostinato.testing import tool_call_response

    direct = tool_call_response(("forecast", {"city": "Paris"}))
    model = ScriptedChatModel([A1, direct])
    memory = MessageWindowChatMemory()
    advisor = MessageChatMemoryAdvisor(memory, order=INSIDE)
    client = client_for(model, advisor)
    answer = await ask(client.prompt(U.text).tools(weather, forecast), mode)
    assert (answer or "").endswith("forecast for Paris")
    asked = direct.result
    assert asked is not None
    call_id = asked.output.tool_calls[0].id
    assert await memory.get("c1") == [
        U,
        a1(),
        T1,
        asked.output,
        ToolResponseMessage([ToolResponse(call_id, "forecast", "forecast for Paris")]),
        AssistantMessage("forecast for Paris"),
    ]
    assert len(advisor._open_rounds) == 0


async def test_inside_return_direct_in_the_first_round_stores_the_user_message_too(mode):
    from ostinato.testing import tool_call_response

    direct = tool_call_response(("forecast", {"city": "Oslo"}), ("alerts", {"city": "Oslo"}))
    memory = MessageWindowChatMemory()
    advisor = MessageChatMemoryAdvisor(memory, order=INSIDE)
    client = client_for(ScriptedChatModel([direct]), advisor)
    await ask(client.prompt("Oslo?").tools(forecast, alerts), mode)
    stored = await memory.get("c1")
    assert stored[0] == UserMessage("Oslo?")
    assert isinstance(stored[2], ToolResponseMessage) and len(stored[2].responses) == 2
    assert stored[3:] == [
        AssistantMessage("forecast for Oslo"),
        AssistantMessage("no alerts in Oslo"),
    ]
    assert len(advisor._open_rounds) == 0


async def test_inside_iteration_cap_stores_completed_rounds_then_the_cap_text(mode):
    # The last round's calls never ran: its tool-call message is left out (calls without
    # responses would be refused by the provider on the next turn).
    model = ScriptedChatModel([A1, weather_call("Rome")])
    memory = MessageWindowChatMemory()
    advisor = MessageChatMemoryAdvisor(memory, order=INSIDE)
    client = client_for(model, advisor, tool_advisor=ToolCallingAdvisor(max_iterations=2))
    answer = await ask(client.prompt(U.text).tools(weather), mode)
    stored = await memory.get("c1")
    assert stored[:3] == [U, a1(), T1] and len(stored) == 4
    # (A stream also delivered round 1's "Let me check"; memory keeps only the answer.)
    cap = stored[3].text or ""
    assert cap.startswith("Stopped after 2 model rounds") and (answer or "").endswith(cap)
    assert len(advisor._open_rounds) == 0


async def test_inside_limit_breach_in_the_first_round_stores_the_question_and_breach(mode):
    manager = DefaultToolCallingManager(limits=ToolCallLimits(per_tool={"weather": 1}))
    from ostinato.testing import tool_call_response

    both = tool_call_response(("weather", {"city": "Paris"}), ("weather", {"city": "Rome"}))
    memory = MessageWindowChatMemory()
    advisor = MessageChatMemoryAdvisor(memory, order=INSIDE)
    client = client_for(
        ScriptedChatModel([both]),
        advisor,
        tool_advisor=ToolCallingAdvisor(tool_calling_manager=manager),
    )
    answer = await ask(client.prompt("Paris and Rome?").tools(weather), mode)
    assert "limit" in (answer or "")
    assert await memory.get("c1") == [UserMessage("Paris and Rome?"), AssistantMessage(answer)]
    assert len(advisor._open_rounds) == 0


async def test_inside_the_next_turn_sees_a_return_direct_turn(mode):
    from ostinato.testing import tool_call_response

    model = ScriptedChatModel([tool_call_response(("forecast", {"city": "Oslo"})), "You asked."])
    memory = MessageWindowChatMemory()
    client = client_for(model, MessageChatMemoryAdvisor(memory, order=INSIDE))
    await ask(client.prompt("Oslo?").tools(forecast), mode)
    await ask(client.prompt("What did I ask?").tools(forecast), mode)
    sent = list(model.prompts[1].messages)
    assert sent[1] == UserMessage("Oslo?")
    assert sent[-2:] == [AssistantMessage("forecast for Oslo"), UserMessage("What did I ask?")]


async def test_inside_with_a_tool_advisor_keeping_its_history_nothing_is_repeated(mode):
    # A user-built tool advisor forwards the whole turn; memory recognises it (Spring AI's
    # de-duplication), also when older turns are remembered.
    model = ScriptedChatModel([A1, "Sunny, 25C"])
    memory = MessageWindowChatMemory()
    older = [UserMessage("hi"), AssistantMessage("hello")]
    await memory.add("c1", older)
    client = client_for(model, MessageChatMemoryAdvisor(memory, order=INSIDE))
    spec = client.prompt(U.text).tools(weather)
    await ask(spec.advisors(ToolCallingAdvisor()), mode)
    assert list(model.prompts[1].messages) == [SystemMessage("S"), *older, U, a1(), T1]
    assert await memory.get("c1") == [*older, U, a1(), T1, FINAL]


# -- what a stored answer says it cost ----------------------------------------------------


def _costly_turn() -> ScriptedChatModel:
    call = ToolCall("call-Paris", "weather", json.dumps({"city": "Paris"}))
    return ScriptedChatModel(
        [
            tool_call_response(call, text="Let me check", usage=(10, 5, 15)),
            text_response("Sunny, 25C", usage=(20, 7, 27)),
        ]
    )


async def test_outside_the_answer_is_stored_with_the_turns_usage(mode):
    memory = MessageWindowChatMemory()
    client = client_for(_costly_turn(), MessageChatMemoryAdvisor(memory))
    await ask(client.prompt(U.text).tools(weather), mode)
    stored = await memory.get("c1")
    assert stored == [
        U,
        AssistantMessage(
            "Sunny, 25C",
            metadata={"usage": {"prompt_tokens": 30, "completion_tokens": 12, "total_tokens": 42}},
        ),
    ]


async def test_inside_only_the_answer_carries_usage_not_the_tool_round(mode):
    memory = MessageWindowChatMemory()
    client = client_for(_costly_turn(), MessageChatMemoryAdvisor(memory, order=INSIDE))
    await ask(client.prompt(U.text).tools(weather), mode)
    stored = await memory.get("c1")
    assert [m.metadata.get("usage") for m in stored] == [
        None,
        None,  # the tool-call message as the model sent it: the next round sends it again
        None,
        {"prompt_tokens": 20, "completion_tokens": 7, "total_tokens": 27},
    ]
