"""Tools that hang or block: timeouts fire, the loop goes on, other conversations go on.

A hanging tool (async or sync) with a timeout is abandoned after it and the model reads
that it timed out. A sync tool blocks only its own thread: conversations around it — with
tools, with SQLite memory — keep answering, even when every thread of the tool pool is
taken by tools that never return.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from ostinato import AdvisorParams, ChatClient, tool
from ostinato.messages import SystemMessage, ToolCall, ToolResponseMessage, UserMessage
from ostinato.model import ChatResponse
from ostinato.prompt import Prompt
from ostinato.runtime import tool_thread_pool_size
from ostinato.testing import ScriptedChatModel, tool_call_response
from ostinato_memory import (
    MessageChatMemoryAdvisor,
    MessageWindowChatMemory,
    SQLiteChatMemoryRepository,
)

MODES = ["call", "stream"]
TIMEOUT = 0.2


async def ask(client: ChatClient, text: str, mode: str, conversation: str = "c") -> str | None:
    spec = client.prompt().user(text).advisors(AdvisorParams.conversation_id(conversation))
    if mode == "call":
        return await spec.call().acontent()
    return "".join([piece async for piece in spec.stream().acontent()])


def calls_then_reports(tool_name: str) -> ScriptedChatModel:
    """A model asking for ``tool_name`` once, then answering with what the tool said."""

    def respond(prompt: Prompt) -> ChatResponse | str:
        last = prompt.messages[-1]
        if isinstance(last, ToolResponseMessage):
            return f"tool said: {last.responses[0].response_data}"
        return tool_call_response(ToolCall("call-1", tool_name, "{}"))

    return ScriptedChatModel(responder=respond)


async def timed_turn(tool_: object, name: str, mode: str) -> tuple[str, float]:
    """One turn of a client with ``tool_`` whose model calls ``name`` then reports what it
    said: the answer, and the seconds the turn took."""
    client = ChatClient.builder(calls_then_reports(name)).default_tools(tool_).build()
    started = time.monotonic()
    answer = await ask(client, "go", mode)
    return answer, time.monotonic() - started


@pytest.fixture
def gate() -> Iterator[threading.Event]:
    """Released at the end of the test, so blocked tool threads finish."""
    event = threading.Event()
    yield event
    event.set()


@pytest.mark.parametrize("mode", MODES)
async def test_a_hanging_async_tool_times_out_and_the_loop_goes_on(mode):
    @tool(description="Never returns", timeout=TIMEOUT)
    async def hang() -> str:
        await asyncio.Event().wait()
        return "never"

    answer, took = await timed_turn(hang, "hang", mode)
    assert answer == f"tool said: Error: tool 'hang' timed out after {TIMEOUT} s"
    assert TIMEOUT <= took < TIMEOUT + 2.0


@pytest.mark.parametrize("mode", MODES)
async def test_a_blocked_sync_tool_times_out_and_the_loop_goes_on(mode, gate):
    entered = threading.Event()

    @tool(description="Blocks its thread", timeout=TIMEOUT)
    def block() -> str:
        entered.set()
        gate.wait(30)
        return "released"

    answer, took = await timed_turn(block, "block", mode)
    assert answer == f"tool said: Error: tool 'block' timed out after {TIMEOUT} s"
    assert entered.is_set()
    assert took < TIMEOUT + 2.0


def memory_client(model: ScriptedChatModel, path, *tools: object) -> ChatClient:
    memory = MessageWindowChatMemory(SQLiteChatMemoryRepository(path), max_messages=1000)
    return (
        ChatClient.builder(model)
        .default_advisors(MessageChatMemoryAdvisor(memory))
        .default_tools(*tools)
        .build()
    )


def echo_or_answer(prompt: Prompt) -> ChatResponse | str:
    """``?`` questions go through the ``quick`` tool first; the rest is answered at once."""
    messages = [m for m in prompt.messages if not isinstance(m, SystemMessage)]
    last = messages[-1]
    if isinstance(last, ToolResponseMessage):
        return f"done: {last.responses[0].response_data}"
    assert isinstance(last, UserMessage)
    if last.text.endswith("?"):
        return tool_call_response(ToolCall("call-q", "quick", '{"text": "' + last.text + '"}'))
    return f"answer to {last.text}"


def calling(name: str, when: Callable[[str], bool]) -> Callable[[Prompt], ChatResponse | str]:
    """A responder that calls the tool ``name`` (no arguments) when ``when`` holds for the
    user's text, and otherwise answers like :func:`echo_or_answer`."""

    def respond(prompt: Prompt) -> ChatResponse | str:
        last = prompt.messages[-1]
        if isinstance(last, UserMessage) and when(last.text):
            return tool_call_response(ToolCall(f"call-{name}", name, "{}"))
        return echo_or_answer(prompt)

    return respond


@tool(description="A quick sync tool")
def quick(text: str) -> str:
    """Answers at once (on the tool pool, like every sync tool)."""
    return text.upper()


@pytest.mark.parametrize("mode", MODES)
async def test_a_blocking_sync_tool_does_not_block_other_conversations(mode, gate, tmp_path):
    entered = threading.Event()

    @tool(description="Blocks until released")
    def block() -> str:
        entered.set()
        gate.wait(30)
        return "released"

    respond = calling("block", when=lambda text: text == "block")
    client = memory_client(ScriptedChatModel(responder=respond), tmp_path / "m.db", block, quick)
    blocked = asyncio.create_task(ask(client, "block", mode, "blocked"))
    await asyncio.get_running_loop().run_in_executor(None, entered.wait, 5)
    assert entered.is_set()

    # Twenty other conversations, with memory and sync tools, answer meanwhile.
    others = [ask(client, f"q{i}?" if i % 2 else f"t{i}", mode, f"other-{i}") for i in range(20)]
    async with asyncio.timeout(10):
        answers = await asyncio.gather(*others)
    assert answers == [f"done: Q{i}?" if i % 2 else f"answer to t{i}" for i in range(20)]
    assert not blocked.done()

    gate.set()
    async with asyncio.timeout(10):
        assert await blocked == "done: released"


async def test_memory_keeps_working_when_every_tool_thread_is_stuck(gate, tmp_path):
    entered = threading.Semaphore(0)

    @tool(description="Never returns in time", timeout=TIMEOUT)
    def stuck() -> str:
        entered.release()
        gate.wait(30)
        return "late"

    respond = calling("stuck", when=lambda text: text.startswith("stuck"))
    client = memory_client(ScriptedChatModel(responder=respond), tmp_path / "m.db", stuck, quick)
    threads = tool_thread_pool_size()
    # Fill every thread of the tool pool with a tool that will not return: each of these
    # conversations is told that its tool timed out, but the threads stay taken.
    async with asyncio.timeout(20):
        stuck_answers = await asyncio.gather(
            *(ask(client, f"stuck {i}", "call", f"stuck-{i}") for i in range(threads))
        )
    assert set(stuck_answers) == {f"done: Error: tool 'stuck' timed out after {TIMEOUT} s"}
    for _ in range(threads):
        assert entered.acquire(timeout=5)

    # Memory does not depend on the tool pool: a conversation without tools answers.
    async with asyncio.timeout(5):
        assert await ask(client, "hello", "call", "fresh") == "answer to hello"
        assert await ask(client, "hello again", "stream", "fresh") == "answer to hello again"
    # A sync tool waiting for a thread is bounded by its timeout, not stuck forever.
    async with asyncio.timeout(5):
        assert await ask(client, "stuck again", "call", "late") == (
            f"done: Error: tool 'stuck' timed out after {TIMEOUT} s"
        )
