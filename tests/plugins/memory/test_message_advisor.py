"""``MessageChatMemoryAdvisor``: remembered messages reach the model as messages, without
repeats, system message first — as in Spring AI, except that the turn is stored after it
succeeded and a tool response is never stored without its call, through ``call()`` and
``stream()``."""

from __future__ import annotations

import pytest

from ostinato.messages import AssistantMessage, SystemMessage, UserMessage
from ostinato.prompt import Prompt
from ostinato.testing import ScriptedChatModel
from ostinato_memory import MessageChatMemoryAdvisor, MessageWindowChatMemory
from tests.fakes.conversations import tool_calls, tool_results
from tests.plugins.memory.harness import MODES, ask, client_for

pytestmark = pytest.mark.parametrize("mode", MODES)


async def test_user_message_and_answer_are_stored_together(mode):
    memory = MessageWindowChatMemory()
    client = client_for(ScriptedChatModel(["Hi!"]), MessageChatMemoryAdvisor(memory), system=None)
    await ask(client.prompt(Prompt([UserMessage("Hello")])), mode)
    assert await memory.get("c1") == [UserMessage("Hello"), AssistantMessage("Hi!")]


async def test_a_lone_tool_response_is_never_kept(mode):  # differs from Spring AI
    # Spring AI stores exactly the ToolResponseMessage; with nothing that asked for
    # it, a turn-atomic memory drops it and keeps the answer.
    memory = MessageWindowChatMemory()
    model = ScriptedChatModel(["Done"])
    client = client_for(model, MessageChatMemoryAdvisor(memory), system=None)
    request = [UserMessage("Hi"), AssistantMessage("Let me check..."), tool_results("x")]
    await ask(client.prompt(Prompt(request)), mode)
    assert await memory.get("c1") == [AssistantMessage("Done")]
    assert list(model.prompts[0].messages) == request


async def test_memory_already_in_the_prompt_is_not_repeated(mode):
    memory = MessageWindowChatMemory()
    user, call = UserMessage("Weather?"), tool_calls("call-45")
    await memory.add("c1", [user, call])
    model = ScriptedChatModel(["Sunny"])
    client = client_for(model, MessageChatMemoryAdvisor(memory), system=None)
    request = [user, call, tool_results("call-45")]
    await ask(client.prompt(Prompt(request)), mode)
    assert list(model.prompts[0].messages) == request
    assert await memory.get("c1") == [*request, AssistantMessage("Sunny")]


async def test_windowed_memory_never_ends_with_a_lone_tool_response(mode):  # differs from Spring AI
    memory = MessageWindowChatMemory(max_messages=3)
    user = UserMessage("Weather?")
    first, t1 = tool_calls("call-1"), tool_results("call-1")
    second, t2 = tool_calls("call-2"), tool_results("call-2")
    await memory.add("c1", [user, first, t1, second])
    assert await memory.get("c1") == []  # snapping to a user message evicts all
    model = ScriptedChatModel(["Sunny"])
    client = client_for(model, MessageChatMemoryAdvisor(memory), system=None)
    request = [user, first, t1, second, t2]
    await ask(client.prompt(Prompt(request)), mode)
    assert list(model.prompts[0].messages) == request
    assert await memory.get("c1") == [AssistantMessage("Sunny")]  # Spring AI would keep [T2]


async def test_the_system_message_is_moved_first(mode):
    memory = MessageWindowChatMemory()
    previous = [UserMessage("Previous question"), AssistantMessage("Previous answer")]
    await memory.add("c1", previous)
    model = ScriptedChatModel(["ok"])
    client = client_for(model, MessageChatMemoryAdvisor(memory), system=None)
    system = SystemMessage("You are a helpful assistant")
    await ask(client.prompt(Prompt([UserMessage("Hello"), system])), mode)
    assert list(model.prompts[0].messages) == [system, *previous, UserMessage("Hello")]


async def test_the_second_turn_sees_the_first(mode):
    memory = MessageWindowChatMemory()
    model = ScriptedChatModel(["Hello John", "Your name is John"])
    client = client_for(model, MessageChatMemoryAdvisor(memory), system="Default system text.")
    assert await ask(client.prompt("my name is John"), mode) == "Hello John"
    assert await ask(client.prompt("What is my name?"), mode) == "Your name is John"
    assert list(model.prompts[0].messages) == [
        SystemMessage("Default system text."),
        UserMessage("my name is John"),
    ]
    assert list(model.prompts[1].messages) == [
        SystemMessage("Default system text."),
        UserMessage("my name is John"),
        AssistantMessage("Hello John"),
        UserMessage("What is my name?"),
    ]


async def test_conversations_are_kept_apart(mode):
    from ostinato import AdvisorParams

    memory = MessageWindowChatMemory()
    model = ScriptedChatModel(["one", "two", "three"])
    client = client_for(model, MessageChatMemoryAdvisor(memory), conversation_id=None)
    await ask(client.prompt("a").advisors(AdvisorParams.conversation_id("x")), mode)
    await ask(client.prompt("b").advisors(AdvisorParams.conversation_id("y")), mode)
    await ask(client.prompt("c").advisors(AdvisorParams.conversation_id("x")), mode)
    assert list(model.prompts[2].messages) == [
        SystemMessage("S"),
        UserMessage("a"),
        AssistantMessage("one"),
        UserMessage("c"),
    ]
    assert await memory.get("y") == [UserMessage("b"), AssistantMessage("two")]


async def test_a_request_without_user_text_stores_an_empty_user_message(mode):
    # As in Spring AI: the last user or tool message, else an empty user message.
    memory = MessageWindowChatMemory()
    client = client_for(ScriptedChatModel(["hi"]), MessageChatMemoryAdvisor(memory))
    await ask(client.prompt(), mode)
    assert await memory.get("c1") == [UserMessage(""), AssistantMessage("hi")]
