"""Unit notes: a tool running as a unit of a durable turn writes a note, and a later run
of the same call (the same idempotency key) reads it back; outside a turn that keeps
notes there are none."""

from __future__ import annotations

from typing import Any

from ostinato import ChatClient, tool
from ostinato.testing import ScriptedChatModel, tool_call_response
from ostinato.units import durable_turn, idempotency_key, keeping_unit_notes, unit_notes


class MemoryNotes:
    """Notes kept in a dict, as an engine keeps them in its store."""

    def __init__(self) -> None:
        self.kept: dict[str, Any] = {}

    async def write(self, key: str, value: Any) -> None:
        self.kept[key] = value

    async def read(self, key: str) -> Any:
        return self.kept.get(key)


async def test_a_later_run_of_a_call_reads_the_note_an_earlier_run_wrote() -> None:
    seen: list[Any] = []

    @tool(description="Starts a job once, then finds it again")
    async def job() -> str:
        notes = unit_notes()
        assert notes is not None
        key = f"job {idempotency_key()}"
        found = await notes.read(key)
        seen.append(found)
        if found is None:
            await notes.write(key, {"handle": "h-1"})
        return "ok"

    notes = MemoryNotes()

    async def run_turn() -> None:
        model = ScriptedChatModel([tool_call_response(("job", {})), "Done."])
        client = ChatClient.create(model)
        with durable_turn("t-1"), keeping_unit_notes(notes):
            assert await client.prompt("Go").tools(job).call().acontent() == "Done."

    await run_turn()
    await run_turn()  # the turn again, as after a crash: the same unit, the same key
    assert seen == [None, {"handle": "h-1"}]
    assert list(notes.kept) == ["job t-1/1"]  # the tool call, the first unit wrapped
    assert unit_notes() is None
