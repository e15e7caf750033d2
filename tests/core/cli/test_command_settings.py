"""One store for every command: what ``ostinato chat`` keeps, ``ostinato logs`` shows,
and the durable worker's client remembers in, unless ``OSTINATO_MEMORY_REPOSITORY`` says
otherwise."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ostinato.cli import command_container
from ostinato.cli._command_settings import for_commands
from tests.core.cli.cli_process import run_main
from tests.fakes.distributions import FakeDistributions

MEMORY = {"memory": "ostinato_memory.plugin"}


@pytest.fixture
def memory(scripted: FakeDistributions, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The memory plugin installed beside the scripted provider, no memory setting, and
    the user's data directory under the test's folder; the default SQLite file."""
    scripted.add("ostinato-memory", entry_points=MEMORY)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data" / "ostinato" / "memory.sqlite3"


def test_logs_shows_what_chat_c_stored_with_no_setting(
    memory: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_main(capsys, "chat", "-m", "scripted:echo", "-c", "trip", "I am Ada.")
    assert (code, out) == (0, "You said 'I am Ada.'; I see 0 earlier message(s).\n")
    assert memory.is_file()
    code, out, err = run_main(capsys, "logs")
    assert code == 0, err
    header, row = out.splitlines()
    assert header.split() == ["conversation", "messages", "last", "change"]
    assert re.fullmatch(r"trip +2  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", row), out
    code, out, err = run_main(capsys, "logs", "show", "trip", "--json")
    assert code == 0, err
    assert [m["text"] for m in json.loads(out)["messages"]] == [
        "I am Ada.",
        "You said 'I am Ada.'; I see 0 earlier message(s).",
    ]


def test_chat_with_memory_enabled_keeps_its_turns_where_logs_reads(
    memory: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OSTINATO_MEMORY_ENABLED", "true")
    monkeypatch.setenv("OSTINATO_MEMORY_DEFAULT_CONVERSATION_ID", "daily")
    assert run_main(capsys, "chat", "-m", "scripted:echo", "hello")[0] == 0
    code, out, _ = run_main(capsys, "logs", "--json")
    assert code == 0
    assert [c["conversation_id"] for c in json.loads(out)] == ["daily"]


def test_an_explicit_repository_wins(
    memory: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from ostinato_memory import MemorySettings

    monkeypatch.setenv("OSTINATO_MEMORY_REPOSITORY", "in-memory")
    assert for_commands(MemorySettings()).repository == "in-memory"  # type: ignore[attr-defined]
    assert run_main(capsys, "chat", "-m", "scripted:echo", "-c", "trip", "hi")[0] == 0
    assert not memory.exists()  # kept in memory, as set: gone with the process
    monkeypatch.delenv("OSTINATO_MEMORY_REPOSITORY")
    assert for_commands(MemorySettings()).repository == "sqlite"  # type: ignore[attr-defined]
    assert MemorySettings().repository == "in-memory"  # a program's own default is unchanged


def test_the_workers_client_remembers_in_the_same_store(
    memory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ostinato_memory import MessageChatMemoryAdvisor, SQLiteChatMemoryRepository

    monkeypatch.setenv("OSTINATO_MODEL", "scripted:echo")
    monkeypatch.setenv("OSTINATO_LOAD_PLUGINS", "scripted,memory")
    monkeypatch.setenv("OSTINATO_MEMORY_ENABLED", "true")
    advisors = command_container().advisors()
    [advisor] = [a for a in advisors if isinstance(a, MessageChatMemoryAdvisor)]
    repository = advisor.chat_memory.repository  # type: ignore[attr-defined]
    assert isinstance(repository, SQLiteChatMemoryRepository)
    assert repository.path == memory
