"""ChatClient: sync faces, sharing between threads and tasks, mutate(), describe().

Request assembly is tested in test_spec.py, result specs in test_responses.py, entity() in
test_entity.py, advisor params in test_params.py."""

from __future__ import annotations

import asyncio
import threading

from ostinato import ChatClient, Prompt, tool
from ostinato.advisors import ToolCallingAdvisor
from ostinato.messages import SystemMessage, UserMessage
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from tests.core.client.fakes import built, tool1, tool2

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


def test_remove_default_advisors_drops_those_of_a_kind_only():
    from ostinato.advisors import MemoryAdvisor, SimpleLoggerAdvisor

    class Remembering(SimpleLoggerAdvisor, MemoryAdvisor):
        pass

    logger, memory = SimpleLoggerAdvisor(), Remembering()
    client = ChatClient.builder(ScriptedChatModel(["x"])).default_advisors(logger, memory).build()
    stateless = client.mutate().remove_default_advisors(MemoryAdvisor).build()
    kept = [a for a in stateless.prompt().effective_advisors() if a is logger or a is memory]
    assert kept == [logger]
    original = [a for a in client.prompt().effective_advisors() if a is logger or a is memory]
    assert original == [logger, memory]


def test_describe_renders_the_effective_chain():
    client = ChatClient.create(ScriptedChatModel())
    text = client.prompt("x").describe()
    assert "Tool Calling Advisor [tool loop]" in text
    assert text.splitlines()[-2].strip().startswith("LOWEST  call")
    assert isinstance(client.tool_advisor, ToolCallingAdvisor)
