"""Many conversations at once through one client and one SQLite file — in one event loop,
and from several processes: every message of every conversation is stored once, in
order, and never in another conversation."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ostinato import AdvisorParams
from ostinato.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResponse,
    ToolResponseMessage,
    UserMessage,
)
from ostinato.testing import ScriptedChatModel
from ostinato_memory import (
    MessageChatMemoryAdvisor,
    MessageWindowChatMemory,
    SQLiteChatMemoryRepository,
)
from tests.plugins.memory.harness import INSIDE, MODES, answer_from_prompt, ask, client_for, weather

CONVERSATIONS = 50


def expected_turn(text: str, *, inside: bool) -> list[Message]:
    """What one turn leaves in memory (see harness.answer_from_prompt)."""
    answer = AssistantMessage(f"answer to {text}")
    if not (inside and text.endswith("?")):
        return [UserMessage(text), answer]
    call_id = f"call-{text}"
    call = ToolCall(call_id, "weather", json.dumps({"city": text}))
    responses = ToolResponseMessage([ToolResponse(call_id, "weather", f"{text}: 25C")])
    return [UserMessage(text), AssistantMessage(None, (call,)), responses, answer]


def turns_of(conversation: str) -> list[str]:
    return [f"{conversation} weather?", f"{conversation} thanks", f"{conversation} tomorrow?"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("inside", [False, True], ids=["outside", "inside"])
async def test_fifty_conversations_through_one_client_and_one_file(tmp_path, mode, inside):
    repository = SQLiteChatMemoryRepository(tmp_path / "shared.sqlite3")
    memory = MessageWindowChatMemory(repository, max_messages=100)
    order = INSIDE if inside else MessageChatMemoryAdvisor.DEFAULT_ORDER
    model = ScriptedChatModel(responder=answer_from_prompt, latency=0.001, chunk_size=3)
    client = client_for(model, MessageChatMemoryAdvisor(memory, order=order), conversation_id=None)

    async def converse(conversation: str) -> None:
        for text in turns_of(conversation):
            spec = client.prompt(text).tools(weather)
            answer = await ask(spec.advisors(AdvisorParams.conversation_id(conversation)), mode)
            assert answer == f"answer to {text}"

    names = [f"conv-{i:02d}" for i in range(CONVERSATIONS)]
    await asyncio.gather(*(converse(name) for name in names))

    assert await repository.find_conversation_ids() == names
    for name in names:
        expected = [m for text in turns_of(name) for m in expected_turn(text, inside=inside)]
        assert await memory.get(name) == expected
    repository.close()


WORKER = """
import asyncio
import sys

from ostinato import AdvisorParams
from ostinato.testing import ScriptedChatModel
from ostinato_memory import (
    MessageChatMemoryAdvisor,
    MessageWindowChatMemory,
    SQLiteChatMemoryRepository,
)
from tests.plugins.memory.harness import answer_from_prompt, ask, client_for, weather

path, process, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]


async def main():
    repository = SQLiteChatMemoryRepository(path, busy_timeout=30)
    memory = MessageWindowChatMemory(repository, max_messages=1000)
    model = ScriptedChatModel(responder=answer_from_prompt, latency=0.001)
    client = client_for(model, MessageChatMemoryAdvisor(memory), conversation_id=None)

    async def converse(conversation, texts):
        for text in texts:
            spec = client.prompt(text).tools(weather)
            await ask(spec.advisors(AdvisorParams.conversation_id(conversation)), mode)

    own = [
        converse(f"p{process}-c{i}", [f"p{process}-c{i} weather?", f"p{process}-c{i} thanks"])
        for i in range(10)
    ]
    shared = converse("shared", [f"p{process} turn {k}" for k in range(5)])
    await asyncio.gather(*own, shared)
    repository.close()


asyncio.run(main())
"""


def test_several_processes_writing_one_file(tmp_path):
    path = tmp_path / "shared.sqlite3"
    worker = tmp_path / "worker.py"
    worker.write_text(textwrap.dedent(WORKER), encoding="utf-8")
    root = Path(__file__).resolve().parents[3]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
    }
    processes = [
        subprocess.Popen(
            [sys.executable, str(worker), str(path), str(p), MODES[p % 2]],
            cwd=root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for p in range(4)
    ]
    for process in processes:
        output, _ = process.communicate(timeout=120)
        assert process.returncode == 0, output

    with SQLiteChatMemoryRepository(path) as repository:
        ids = repository.find_conversation_ids_sync()
        assert ids == sorted([*(f"p{p}-c{i}" for p in range(4) for i in range(10)), "shared"])
        for p in range(4):
            for i in range(10):
                name = f"p{p}-c{i}"
                texts = [f"{name} weather?", f"{name} thanks"]
                expected = [m for t in texts for m in expected_turn(t, inside=False)]
                assert repository.find_by_conversation_id_sync(name) == expected
        shared = repository.find_by_conversation_id_sync("shared")
    # every turn of every process, once, whole (user message then its answer), and each
    # process's turns in their order
    assert len(shared) == 40
    pairs = [shared[i : i + 2] for i in range(0, 40, 2)]
    for user, answer in pairs:
        assert isinstance(user, UserMessage) and answer == AssistantMessage(
            f"answer to {user.text}"
        )
    for p in range(4):
        mine = [u.text for u, _ in pairs if u.text.startswith(f"p{p} ")]
        assert mine == [f"p{p} turn {k}" for k in range(5)]
