"""``PromptChatMemoryAdvisor``: the conversation rendered into the system message (Spring
AI's template and rendering), stored like the message advisor, through ``call()``
and ``stream()``."""

from __future__ import annotations

import pytest

from ostinato.messages import AssistantMessage, SystemMessage, UserMessage
from ostinato.testing import ScriptedChatModel, text_response
from ostinato_memory import (
    DEFAULT_SYSTEM_PROMPT_TEMPLATE,
    MessageWindowChatMemory,
    PromptChatMemoryAdvisor,
)
from tests.plugins.memory.harness import INSIDE, MODES, ask, client_for, weather, weather_call

pytestmark = pytest.mark.parametrize("mode", MODES)


def squash(text: str) -> str:
    return "".join(text.split())


async def test_the_conversation_is_rendered_into_the_system_message(mode):
    memory = MessageWindowChatMemory()
    model = ScriptedChatModel(["Hello John", "Your name is John"])
    client = client_for(model, PromptChatMemoryAdvisor(memory), system="Default system text.")
    await ask(client.prompt("my name is John"), mode)
    await ask(client.prompt("What is my name?"), mode)
    first, second = (list(p.messages) for p in model.prompts)
    assert squash(first[0].text) == squash(
        """Default system text.

        Use the conversation memory from the MEMORY section to provide accurate answers.

        ---------------------
        MEMORY:
        ---------------------
        """
    )
    assert first[1:] == [UserMessage("my name is John")]
    assert second[0].text == (
        "Default system text.\n\n"
        "Use the conversation memory from the MEMORY section to provide accurate answers.\n\n"
        "---------------------\n"
        "MEMORY:\n"
        "USER:my name is John\n"
        "ASSISTANT:Hello John\n"
        "---------------------\n\n"
    )
    assert second[1:] == [UserMessage("What is my name?")]
    assert await memory.get("c1") == [
        UserMessage("my name is John"),
        AssistantMessage("Hello John"),
        UserMessage("What is my name?"),
        AssistantMessage("Your name is John"),
    ]


async def test_a_custom_template_and_no_system_message(mode):
    memory = MessageWindowChatMemory()
    await memory.add("c1", [UserMessage("q"), AssistantMessage("a {memory} b")])
    advisor = (
        PromptChatMemoryAdvisor.builder(memory)
        .setting("system_prompt_template", "[{instructions}] remembered: {memory}")
        .build()
    )
    model = ScriptedChatModel(["ok"])
    client = client_for(model, advisor, system=None)
    await ask(client.prompt("next"), mode)
    messages = list(model.prompts[0].messages)
    # placeholders in the remembered text are not expanded again
    assert messages[0] == SystemMessage("[] remembered: USER:q\nASSISTANT:a {memory} b")
    assert messages[1:] == [UserMessage("next")]


async def test_templates_are_checked(mode):
    memory = MessageWindowChatMemory()
    with pytest.raises(ValueError, match=r"lacks \{memory\}"):
        PromptChatMemoryAdvisor(memory, system_prompt_template="{instructions} only")
    with pytest.raises(ValueError, match=r"lacks \{instructions\} and \{memory\}"):
        PromptChatMemoryAdvisor(memory, system_prompt_template="nothing")
    with pytest.raises(TypeError, match="must be a str"):
        PromptChatMemoryAdvisor(memory, system_prompt_template=None)  # type: ignore[arg-type]
    advisor = PromptChatMemoryAdvisor(memory)
    assert advisor.system_prompt_template == DEFAULT_SYSTEM_PROMPT_TEMPLATE
    assert advisor.order == PromptChatMemoryAdvisor.DEFAULT_ORDER


async def test_tool_turns_store_the_answer_and_render_only_texts(mode):
    memory = MessageWindowChatMemory()
    model = ScriptedChatModel([weather_call("Paris"), text_response("Sunny"), "Still sunny"])
    client = client_for(model, PromptChatMemoryAdvisor(memory), system=None)
    await ask(client.prompt("Weather?").tools(weather), mode)
    assert await memory.get("c1") == [UserMessage("Weather?"), AssistantMessage("Sunny")]
    await ask(client.prompt("Again?"), mode)
    assert "USER:Weather?\nASSISTANT:Sunny\n" in (model.prompts[2].messages[0].text or "")


async def test_inside_the_loop_the_open_round_is_sent_as_messages(mode):
    memory = MessageWindowChatMemory()
    call = weather_call("Paris")
    model = ScriptedChatModel([call, "Sunny"])
    client = client_for(model, PromptChatMemoryAdvisor(memory, order=INSIDE), system=None)
    await ask(client.prompt("Weather?").tools(weather), mode)
    second = list(model.prompts[1].messages)
    assert isinstance(second[0], SystemMessage)
    assert second[1:3] == [UserMessage("Weather?"), call.generations[0].output]
    assert len(second) == 4
    assert len(await memory.get("c1")) == 4
