"""ChatClient: request assembly (reference §4.5), result specs, entity(), sync faces, sharing."""

from __future__ import annotations

import asyncio
import gc
import threading

import pydantic
import pytest

from ostinato import ChatClient, Prompt, tool
from ostinato.advisors import ToolCallingAdvisor
from ostinato.client import AdvisorParams
from ostinato.errors import ConfigurationError, OutputParsingError
from ostinato.memory import CONVERSATION_ID
from ostinato.messages import AssistantMessage, SystemMessage, UserMessage
from ostinato.model import Usage
from ostinato.prompt import ChatOptions, ToolCallingChatOptions
from ostinato.testing import ScriptedChatModel, ScriptedStream, text_response, tool_call_response
from ostinato.tools import ToolContext, tool_callbacks


@tool
def tool1(x: int) -> int:
    """First tool."""
    return x


@tool
def tool2(x: int) -> int:
    """Second tool."""
    return x * 2


T1, T2 = tool_callbacks(tool1)[0], tool_callbacks(tool2)[0]


def built(spec):
    return spec.build_request().prompt


# -- request assembly ---------------------------------------------------------------------


def test_messages_are_system_then_explicit_then_user():
    client = ChatClient.builder(ScriptedChatModel()).default_system("S").build()
    spec = client.prompt().messages(UserMessage("earlier"), AssistantMessage("reply")).user("now")
    assert [m.text for m in built(spec).messages] == ["S", "earlier", "reply", "now"]


def test_request_tools_replace_tools_from_options():
    spec = ChatClient.create(ScriptedChatModel()).prompt("x")
    spec.options(ToolCallingChatOptions(tool_callbacks=[T1])).tools(tool2)
    assert built(spec).options.tool_names == ("tool2",)


def test_tool_context_from_options_and_request_merge():
    spec = ChatClient.create(ScriptedChatModel()).prompt("x")
    spec.options(ToolCallingChatOptions(tool_context={"key1": "value1"})).tool_context(
        key2="value2"
    )
    assert dict(built(spec).options.tool_context) == {"key1": "value1", "key2": "value2"}


def test_plain_options_on_a_tool_model_keep_tool_options():
    spec = (
        ChatClient.create(ScriptedChatModel())
        .prompt("x")
        .options(ChatOptions(temperature=0.1))
        .tools(tool1)
    )
    options = built(spec).options
    assert isinstance(options, ToolCallingChatOptions)
    assert options.tool_names == ("tool1",)
    assert options.temperature == 0.1


def test_tool_providers_are_evaluated_lazily():
    calls = []

    class Provider:
        def get_tool_callbacks(self):
            calls.append(1)
            return [T1]

    model = ScriptedChatModel(["ok"])
    spec = ChatClient.create(model).prompt("x").tools(Provider())
    assert calls == []
    spec.call().content()
    assert calls == [1]
    assert model.prompts[0].options.tool_names == ("tool1",)


def test_duplicate_tool_names_fail_at_call_time():
    spec = ChatClient.create(ScriptedChatModel(["x"])).prompt("x").tools(T1, T1)
    with pytest.raises(ConfigurationError, match=r"Multiple tools with the same name \(tool1\)"):
        spec.call().content()


def test_defaults_and_request_settings_accumulate_without_leaking():
    model = ScriptedChatModel(["a", "b"])
    client = (
        ChatClient.builder(model)
        .default_tools(tool1)
        .default_tool_context(tenant="acme", user="default")
        .default_advisor_params(AdvisorParams.conversation_id("c-1"))
        .build()
    )
    spec = (
        client.prompt("x")
        .tools(tool2)
        .tool_context(user="u-7")
        .advisors(AdvisorParams.param("k", "v"))
    )
    request = spec.build_request()
    assert request.prompt.options.tool_names == ("tool1", "tool2")
    assert dict(request.prompt.options.tool_context) == {"tenant": "acme", "user": "u-7"}
    assert request.context[CONVERSATION_ID] == "c-1" and request.context["k"] == "v"
    fresh = client.prompt("y").build_request()
    assert fresh.prompt.options.tool_names == ("tool1",)
    assert "k" not in fresh.context


def test_prompt_object_supplies_messages_and_options():
    spec = ChatClient.create(ScriptedChatModel()).prompt(
        Prompt([SystemMessage("S"), UserMessage("U")], ChatOptions(temperature=0.5))
    )
    prompt = built(spec)
    assert [m.text for m in prompt.messages] == ["S", "U"]
    assert prompt.options.temperature == 0.5


def test_bad_arguments_are_clear():
    client = ChatClient.create(ScriptedChatModel())
    with pytest.raises(TypeError, match="prompt\\(\\) takes a str or a Prompt"):
        client.prompt(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="advisors\\(\\) takes Advisor instances"):
        client.prompt("x").advisors("nope")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tool context keys must be non-blank"):
        client.prompt("x").tool_context({" ": 1})
    with pytest.raises(ValueError, match="model must not be None"):
        ChatClient.create(None)  # type: ignore[arg-type]


def test_tool_context_reaches_tools_and_never_the_model():
    seen = {}

    @tool
    def whoami(ctx: ToolContext) -> str:
        """Who is asking."""
        seen.update(ctx)
        return "ok"

    model = ScriptedChatModel([tool_call_response(("whoami", {})), "done"])
    ChatClient.create(model).prompt("x").tools(whoami).tool_context(user="u-1").call().content()
    assert seen == {"user": "u-1"}
    assert "u-1" not in repr(model.prompts[0].messages)


# -- result specs ------------------------------------------------------------------------


def test_results_of_one_call_spec_share_one_model_call():
    model = ScriptedChatModel([text_response("hi", usage=(1, 2, 3))])
    call = ChatClient.create(model).prompt("x").call()
    assert call.content() == "hi"
    assert call.chat_response().usage == Usage(1, 2, 3)
    assert call.chat_client_response().chat_response.text == "hi"
    assert model.call_count == 1


async def test_async_twins():
    model = ScriptedChatModel(["hi", "streamed answer"])
    client = ChatClient.create(model)
    assert await client.prompt("x").call().acontent() == "hi"
    pieces = [p async for p in client.prompt("y").stream().acontent()]
    assert "".join(pieces) == "streamed answer"
    assert len(pieces) > 1


def test_stream_views():
    model = ScriptedChatModel([text_response("hello", usage=(1, 2, 3))] * 3, chunk_size=2)
    client = ChatClient.create(model)
    assert list(client.prompt("x").stream().content()) == ["he", "ll", "o"]
    responses = list(client.prompt("x").stream().chat_responses())
    assert responses[-1].usage == Usage(1, 2, 3)
    wrapped = list(client.prompt("x").stream().chat_client_responses())
    assert all("ostinato.model.sent_options" not in c.context for c in wrapped)


def test_stream_content_skips_empty_and_usage_only_chunks():
    chunks = [text_response(""), text_response("a"), text_response(None, usage=(1, 1, 2))]
    model = ScriptedChatModel([ScriptedStream(chunks)])
    assert list(ChatClient.create(model).prompt("x").stream().content()) == ["a"]


def test_abandoning_a_sync_stream_closes_the_model_stream():
    closed = threading.Event()

    class Endless(ScriptedChatModel):
        async def stream(self, prompt):
            try:
                while True:
                    await asyncio.sleep(0)
                    yield text_response("x")
            finally:
                closed.set()

    stream = ChatClient.create(Endless()).prompt("x").stream().content()
    assert next(iter(stream)) == "x"
    del stream
    gc.collect()
    assert closed.wait(5)


def test_breaking_out_of_a_sync_stream_closes_it():
    closed = threading.Event()

    class Endless(ScriptedChatModel):
        async def stream(self, prompt):
            try:
                while True:
                    await asyncio.sleep(0)
                    yield text_response("x")
            finally:
                closed.set()

    with ChatClient.create(Endless()).prompt("x").stream().content() as stream:
        for _ in stream:
            break
    assert closed.wait(5)


# -- entity ------------------------------------------------------------------------------


class Person(pydantic.BaseModel):
    name: str
    age: int


def test_entity_parses_the_answer_and_adds_format_instructions():
    model = ScriptedChatModel(['```json\n{"name": "John", "age": 30}\n```'])
    person = ChatClient.create(model).prompt("Who?").call().entity(Person)
    assert person == Person(name="John", age=30)
    last_user = model.prompts[0].messages[-1]
    assert last_user.text.startswith("Who?\n")
    assert '"age"' in last_user.text and "JSON" in last_user.text


def test_entity_of_a_list_type():
    model = ScriptedChatModel(['[{"name": "A", "age": 1}, {"name": "B", "age": 2}]'])
    people = ChatClient.create(model).prompt("Who?").call().entity(list[Person])
    assert [p.name for p in people] == ["A", "B"]


def test_entity_error_says_what_was_wrong():
    model = ScriptedChatModel(['{"name": "John"}'])
    with pytest.raises(OutputParsingError, match="not a valid Person") as info:
        ChatClient.create(model).prompt("Who?").call().entity(Person)
    assert info.value.text == '{"name": "John"}'


def test_entity_with_schema_validation_asks_again():
    model = ScriptedChatModel(['{"name": "John"}', '{"name": "John", "age": 30}'])
    person = ChatClient.create(model).prompt("Who?").call().entity(Person, validate_schema=True)
    assert person == Person(name="John", age=30)
    assert model.call_count == 2
    assert "Output JSON validation failed because of:" in model.prompts[1].messages[-1].text


# -- sync faces and sharing ----------------------------------------------------------------


async def test_sync_faces_work_inside_a_running_event_loop():
    model = ScriptedChatModel(["inside", "streamed"])
    client = ChatClient.create(model)
    assert client.prompt("x").call().content() == "inside"
    assert "".join(client.prompt("y").stream().content()) == "streamed"


def test_sync_face_from_the_private_loop_is_a_clear_error():
    inner = ChatClient.create(ScriptedChatModel(["x"]))

    @tool
    async def nested() -> str:
        """Calls a client synchronously from an async tool (running on the private loop)."""
        return inner.prompt("x").call().content() or ""

    model = ScriptedChatModel([tool_call_response(("nested", {})), "done"])
    assert ChatClient.create(model).prompt("x").tools(nested).call().content() == "done"
    told = model.prompts[1].messages[-1].responses[0].response_data
    assert "SyncFromLoopError" in told
    assert "acontent" in told
    assert inner.model.call_count == 0


def _echo_model() -> ScriptedChatModel:
    def respond(prompt: Prompt):
        last = prompt.messages[-1]
        if isinstance(last, UserMessage):
            return tool_call_response(("echo", {"value": last.text}))
        return text_response(last.responses[0].response_data)

    return ScriptedChatModel(responder=respond)


@tool
def echo(value: str) -> str:
    """Echo the value back."""
    return f"echo:{value}"


def test_a_client_shared_by_20_threads_shows_no_cross_talk():
    client = ChatClient.builder(_echo_model()).default_tools(echo).build()
    results: dict[int, str | None] = {}

    def worker(i: int) -> None:
        for j in range(5):
            results[i * 100 + j] = client.prompt(f"q{i}-{j}").call().content()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {i * 100 + j: f"echo:q{i}-{j}" for i in range(20) for j in range(5)}


async def test_200_concurrent_tasks_show_no_cross_talk():
    client = ChatClient.builder(_echo_model()).default_tools(echo).build()

    async def one(i: int) -> tuple[str | None, str]:
        if i % 2:
            return await client.prompt(f"q{i}").call().acontent(), f"echo:q{i}"
        text = "".join([p async for p in client.prompt(f"q{i}").stream().acontent()])
        return text, f"echo:q{i}"

    outcomes = await asyncio.gather(*(one(i) for i in range(200)))
    assert all(got == want for got, want in outcomes)


def test_mutate_starts_from_the_client_defaults():
    model = ScriptedChatModel()
    client = ChatClient.builder(model).default_system("S").default_tools(tool1).build()
    other = client.mutate().default_tools(tool2).build()
    assert built(client.prompt("x")).options.tool_names == ("tool1",)
    assert built(other.prompt("x")).options.tool_names == ("tool1", "tool2")
    assert built(other.prompt("x")).messages[0] == SystemMessage("S")


def test_describe_renders_the_effective_chain():
    client = ChatClient.create(ScriptedChatModel())
    text = client.prompt("x").describe()
    assert "Tool Calling Advisor [tool loop]" in text
    assert text.splitlines()[-2].strip().startswith("LOWEST  call")
    assert isinstance(client.tool_advisor, ToolCallingAdvisor)
