"""A unit of each kind round-trips through its description: described in this process,
rebuilt and run by another process's auto-configured client (``rebuild_child``), its
encoded result comes back and decodes equal to running the unit here.

Both clients are configured alike, from the same variables (the test plugin's model and
tool set, and chat memory in a SQLite file of their own): a model round's answer echoes
what the model was sent, so the two agree only when the messages, options and tools made
the trip; the memory write runs first, so the memory read there reads what the write
wrote there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import ostinato
from ostinato.errors import ToolError
from ostinato.messages import AssistantMessage, SystemMessage, ToolCall, UserMessage
from ostinato.model import ChatResponse, MessageAggregator
from ostinato.prompt import Prompt, ToolCallingChatOptions
from ostinato.tools import ToolCallback, ToolContext
from ostinato.units import (
    MemoryRead,
    MemoryWrite,
    ModelCall,
    ModelStream,
    ToolInvocation,
    Unit,
)
from tests.fakes import unit_worker_plugin
from tests.fakes.distributions import FakeDistributions, clean_environment, fake_distributions

__all__ = ["clean_environment", "fake_distributions"]

ROOT = Path(__file__).resolve().parents[3]
_CONVERSATION = "trip-1"


@pytest.fixture
def here(
    fake_distributions: FakeDistributions,
    clean_environment: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> ostinato.ChatClient:
    """This process's client, auto-configured from the test plugin's variables."""
    unit_worker_plugin.install(fake_distributions)
    for name, value in unit_worker_plugin.ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("OSTINATO_MEMORY_SQLITE_PATH", str(tmp_path / "here.sqlite3"))
    return ostinato.chat_client()


def _elsewhere(
    fakes: FakeDistributions, tmp_path: Path, units: list[Unit[Any]]
) -> list[dict[str, Any]]:
    """What the other process answered for ``units``, one answer each, in order."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("OSTINATO_")},
        **unit_worker_plugin.ENVIRONMENT,
        "OSTINATO_MEMORY_SQLITE_PATH": str(tmp_path / "there.sqlite3"),
        "PYTHONPATH": os.pathsep.join([str(fakes.root), str(ROOT)]),
    }
    lines = [
        json.dumps({"kind": u.kind.value, "name": u.name, "description": u.describe()})
        for u in units
    ]
    done = subprocess.run(
        [sys.executable, "-m", "tests.core.durable.rebuild_child"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == len(units), done.stdout
    return answers


def _tool(client: ostinato.ChatClient, name: str) -> ToolCallback:
    options = client.prompt().build_request().prompt.options
    assert isinstance(options, ToolCallingChatOptions)
    return next(t for t in options.tool_callbacks if t.tool_definition.name == name)


def _memory(client: ostinato.ChatClient) -> Any:
    [advisor] = [a for a in client.prompt().effective_advisors() if hasattr(a, "chat_memory")]
    return advisor.chat_memory


def _units(client: ostinato.ChatClient) -> list[Unit[Any]]:
    add = _tool(client, "add")
    divide = _tool(client, "divide")
    options = ToolCallingChatOptions(temperature=0.25, max_tokens=64, tool_callbacks=(add, divide))
    question = Prompt([SystemMessage("Be brief."), UserMessage("What is 2 + 40?")], options)
    asks_a_tool = Prompt([UserMessage("Use a tool, please.")], options)
    memory = _memory(client)
    remembered = [UserMessage("Remember 42."), AssistantMessage("I will remember 42.")]

    def call(name: str, arguments: str) -> ToolInvocation:
        tool = add if name == "add" else divide
        return ToolInvocation(
            ToolCall(f"id-{name}", name, arguments), tool, arguments, ToolContext()
        )

    return [
        ModelCall(question, client.model),
        ModelStream(question, client.model),
        ModelStream(asks_a_tool, client.model),  # tool call fragments, aggregated
        call("add", '{"a": 2, "b": 40}'),
        call("divide", '{"a": 1, "b": 0}'),  # the tool fails: a ToolError comes back
        MemoryWrite(memory, _CONVERSATION, remembered),
        MemoryRead(memory, _CONVERSATION),
    ]


def _equal(unit: Unit[Any], answered: Any, local: Any) -> None:
    decoded = unit.decode(answered)
    if isinstance(local, ToolError):  # errors compare by identity: compare their JSON
        assert isinstance(decoded, type(local))
        assert unit.encode(decoded) == unit.encode(local)
    else:
        assert decoded == local


async def test_a_unit_of_each_kind_round_trips_through_another_process(
    here: ostinato.ChatClient, fake_distributions: FakeDistributions, tmp_path: Path
) -> None:
    units = _units(here)

    answers = _elsewhere(fake_distributions, tmp_path, units)

    assert [a.get("error") for a in answers] == [None] * len(units)
    for unit, answer in zip(units, answers, strict=True):
        if isinstance(unit, ModelStream):
            chunks = [chunk async for chunk in here.units.stream(unit)]
            local: Any = MessageAggregator.aggregate(chunks)
            assert [ChatResponse.from_dict(c) for c in answer["chunks"]] == chunks
        else:
            local = await here.units.run(unit)
        _equal(unit, answer["result"], local)
    kinds = [u.kind.value for u in units]
    assert sorted(set(kinds)) == [
        "memory_read",
        "memory_write",
        "model_call",
        "model_stream",
        "tool_call",
    ]
    # What made the trip, as the other side's model and memory saw it:
    model_text = ChatResponse.from_dict(answers[0]["result"]).result.output.text
    assert model_text == (
        "system: Be brief. | user: What is 2 + 40? / temperature=0.25 max_tokens=64 "
        "tools=add,divide"
    )
    [streamed_call] = ChatResponse.from_dict(answers[2]["result"]).result.output.tool_calls
    assert (streamed_call.name, json.loads(streamed_call.arguments)) == ("add", {"a": 2, "b": 40})
    assert answers[3]["result"] == {"text": "42"}
    assert answers[4]["result"]["error"] == "ToolExecutionError"
    assert [m["text"] for m in answers[6]["result"]] == ["Remember 42.", "I will remember 42."]


def test_an_unknown_tool_fails_there_naming_the_tools_it_has(
    here: ostinato.ChatClient, fake_distributions: FakeDistributions, tmp_path: Path
) -> None:
    fly = ToolInvocation(ToolCall("f1", "fly", "{}"), _tool(here, "add"), "{}", ToolContext())

    [answer] = _elsewhere(fake_distributions, tmp_path, [fly])

    assert answer == {
        "error": "ToolResolutionError: the tool_call unit calls the tool 'fly', which this "
        "client does not have\n  its tools: add, divide, key\n"
        "fix: give the client that tool (OSTINATO_TOOLS__ENABLED naming the tool set "
        "holding it, or default_tools(...) on its builder)"
    }
