"""Two hundred tools through a ChatClient: the model searches, finds the right tool and calls
it, and never sees more than three tool definitions in one request. Call and stream."""

from __future__ import annotations

import functools
import json

import pytest

from ostinato import ChatClient, ToolCallingAdvisor
from ostinato.client import AdvisorParams
from ostinato.messages import ToolResponseMessage
from ostinato.model import ChatResponse
from ostinato.prompt import Prompt, ToolCallingChatOptions
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato.tools import FunctionToolCallback, ToolCallback
from ostinato_tool_search import RegexToolIndex, ToolIndex, ToolSearchToolCallingAdvisor
from tests.plugins.tool_search.fakes import RecordingToolIndex

pytestmark = pytest.mark.parametrize("mode", ["call", "stream"])

VERBS = {
    "get": "Fetch one",
    "list": "List every",
    "create": "Create a new",
    "update": "Change an existing",
    "delete": "Remove an existing",
    "archive": "Archive an old",
    "export": "Export to CSV each",
    "count": "Count how many there are of each",
    "watch": "Subscribe to changes of a",
    "audit": "Show the audit trail of a",
}
NOUNS = {
    "Weather": "weather report for a city",
    "Invoice": "invoice of a customer account",
    "Customer": "customer profile in the CRM",
    "Shipment": "shipment tracked by a carrier",
    "Ticket": "support ticket in the helpdesk",
    "Flight": "flight booking of a traveller",
    "Payment": "card payment at the checkout",
    "Employee": "employee record in human resources",
    "Repository": "git repository on the code host",
    "Calendar": "calendar event in a shared agenda",
    "Warehouse": "warehouse stock level of a product",
    "Contract": "legal contract awaiting signature",
    "Campaign": "marketing campaign with a budget",
    "Server": "cloud server instance in a region",
    "Recipe": "cooking recipe with ingredients",
    "Playlist": "music playlist of a listener",
    "Vehicle": "fleet vehicle with its mileage",
    "Patient": "patient appointment at a clinic",
    "Course": "training course with enrolled students",
    "Parcel": "land parcel in the cadastre",
}
TARGET = "getWeather"


@functools.cache
def catalogue() -> tuple[ToolCallback, ...]:
    """200 tools (10 verbs x 20 nouns), each answering with its own name and arguments."""

    def make(name: str, description: str) -> ToolCallback:
        def run(subject: str) -> str:
            return json.dumps({"tool": name, "subject": subject})

        return FunctionToolCallback(run, name=name, description=f"{description}.")

    return tuple(
        make(f"{verb}{noun}", f"{verb_text} {noun_text}")
        for verb, verb_text in VERBS.items()
        for noun, noun_text in NOUNS.items()
    )


def last_tool_answer(prompt: Prompt) -> str:
    message = prompt.messages[-1]
    assert isinstance(message, ToolResponseMessage), f"expected a tool answer, got {message!r}"
    return message.responses[0].response_data


def call_the_best_match(prompt: Prompt) -> ChatResponse:
    """Round 2: the model reads the search answer and calls the first tool named."""
    names = json.loads(last_tool_answer(prompt))
    return tool_call_response((names[0], {"subject": "Lisbon"}))


def answer_from_the_tool(prompt: Prompt) -> ChatResponse:
    """Round 3: the model reports what the tool said."""
    result = json.loads(last_tool_answer(prompt))
    return text_response(f"{result['tool']} answered for {result['subject']}")


def searching_model() -> ScriptedChatModel:
    search = tool_call_response(
        ("toolSearchTool", {"query": "fetch the weather report for a city", "maxResults": 2})
    )
    return ScriptedChatModel([search, call_the_best_match, answer_from_the_tool])


def ask(client: ChatClient, mode: str, conversation: str = "conv-1") -> str | None:
    spec = (
        client.prompt("What is the weather in Lisbon?")
        .tools(*catalogue())
        .advisors(AdvisorParams.conversation_id(conversation))
    )
    if mode == "call":
        return spec.call().content()
    return "".join(spec.stream().content())


def tool_counts(model: ScriptedChatModel) -> list[int]:
    counts = []
    for prompt in model.prompts:
        assert isinstance(prompt.options, ToolCallingChatOptions)
        counts.append(len(prompt.options.tool_callbacks))
    return counts


@pytest.mark.parametrize("index", [RecordingToolIndex, RegexToolIndex], ids=["keyword", "regex"])
def test_the_model_finds_and_calls_the_right_tool_among_200(mode, index: type[ToolIndex]):
    assert len(catalogue()) == 200
    model = searching_model()
    advisor = ToolSearchToolCallingAdvisor(tool_index=index())
    client = ChatClient.builder(model, tool_advisor=advisor).build()

    assert ask(client, mode) == f"{TARGET} answered for Lisbon"

    assert tool_counts(model) == [1, 3, 3], "instead of 200 tool definitions per request"
    first, second, third = (p.options.tool_names for p in model.prompts)  # type: ignore[union-attr]
    assert first == ("toolSearchTool",)
    assert second[0] == "toolSearchTool" and second[1] == TARGET
    assert third == second, "found tools stay attached for the rest of the turn"
    assert "toolSearchTool" in model.prompts[0].messages[0].text


def test_the_same_conversation_is_indexed_once_across_calls(mode):
    index = RecordingToolIndex()
    advisor = ToolSearchToolCallingAdvisor(tool_index=index)
    model = searching_model()
    model.add(*searching_model().script)
    client = ChatClient.builder(model, tool_advisor=advisor).build()
    ask(client, mode)
    ask(client, mode)
    assert index.indexed_sessions == ["conv-1"], "the client's per-call copies share the index"
    assert tool_counts(model) == [1, 3, 3, 1, 3, 3]


def test_without_tool_search_the_model_sees_all_200(mode):
    model = ScriptedChatModel(
        [tool_call_response((TARGET, {"subject": "Lisbon"})), answer_from_the_tool]
    )
    client = ChatClient.builder(model, tool_advisor=ToolCallingAdvisor()).build()
    assert ask(client, mode) == f"{TARGET} answered for Lisbon"
    assert tool_counts(model) == [200, 200]


def conversational_model() -> ScriptedChatModel:
    """Answers from the prompt alone: search for the user's word, call the first tool found,
    then report its answer (so concurrent conversations can interleave freely)."""

    def respond(prompt: Prompt) -> ChatResponse:
        last = prompt.messages[-1]
        if not isinstance(last, ToolResponseMessage):
            word = prompt.user_message.text.split()[-1]
            return tool_call_response(("toolSearchTool", {"query": word}))
        if last.responses[0].name == "toolSearchTool":
            names = json.loads(last.responses[0].response_data)
            return tool_call_response((names[0], {"subject": "x"}))
        return text_response(json.loads(last.responses[0].response_data)["tool"])

    return ScriptedChatModel(responder=respond, latency=0.001)


async def test_concurrent_conversations_keep_to_their_own_tools(mode):
    import asyncio

    index = RecordingToolIndex()
    model = conversational_model()
    client = ChatClient.builder(
        model, tool_advisor=ToolSearchToolCallingAdvisor(tool_index=index)
    ).build()
    own = {n: catalogue()[n * 10 : n * 10 + 10] for n in range(20)}

    async def converse(n: int) -> str | None:
        wanted = own[n][n % 10].tool_definition.name
        verb = next(v for v in VERBS if wanted.startswith(v))
        spec = (
            client.prompt(f"please {verb} {wanted.removeprefix(verb).lower()}")
            .tools(*own[n])
            .advisors(AdvisorParams.conversation_id(f"conv-{n}"))
        )
        if mode == "call":
            return await spec.call().acontent()
        return "".join([text async for text in spec.stream().acontent()])

    answers = await asyncio.gather(*(converse(n) for n in range(20)))
    assert answers == [own[n][n % 10].tool_definition.name for n in range(20)]
    assert sorted(index.indexed_sessions) == sorted(f"conv-{n}" for n in range(20))
