"""``ostinato logs``: list the configured repository's conversations, show one, ``--json``."""

from __future__ import annotations

import io
import json
import re
import time
from datetime import datetime

import pytest

from ostinato.testing.memory_conformance import every_message_type, turn
from ostinato_memory import SQLiteChatMemoryRepository
from ostinato_memory._logs_command import run_logs_command
from tests.core.cli.cli_process import run_cli
from tests.plugins.memory.logs_check import check_logs_lists_by_recency_and_shows_one


def logs(*argv: str) -> tuple[int, str]:
    """Run ``ostinato logs argv`` in this process; its exit code and standard output."""
    out = io.StringIO()
    code = run_logs_command(list(argv), out)
    return code, out.getvalue()


@pytest.fixture
def sqlite_store(tmp_path, monkeypatch):
    path = tmp_path / "m.sqlite3"
    with SQLiteChatMemoryRepository(path) as repository:
        repository.save_all_sync("u-42", every_message_type())
        time.sleep(0.01)  # stored a clear millisecond later: the most recent
        repository.save_all_sync("u-7", turn("x"))
    monkeypatch.setenv("OSTINATO_MEMORY_REPOSITORY", "sqlite")
    monkeypatch.setenv("OSTINATO_MEMORY_SQLITE_PATH", str(path))
    return path


def test_it_lists_the_conversations_most_recent_first_with_their_times(sqlite_store):
    code, out = logs()
    assert code == 0
    when = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"
    header, *rows = out.splitlines()
    assert header == "conversation  messages  last change"
    assert [re.fullmatch(rf"(u-\S+) +(\d+)  {when}", row).groups() for row in rows] == [  # type: ignore[union-attr]
        ("u-7", "2"),
        ("u-42", "5"),
    ]


def test_it_lists_as_json_and_obeys_the_count(sqlite_store):
    code, out = logs("--json", "-n", "1")
    assert code == 0
    [listed] = json.loads(out)
    assert (listed["conversation_id"], listed["message_count"]) == ("u-7", 2)
    assert datetime.fromisoformat(listed["updated_at"]).tzinfo is not None


def test_show_prints_messages_tool_calls_results_and_usage(sqlite_store):
    code, out = logs("show", "u-42")
    assert code == 0
    assert any(line.startswith("## user  ") for line in out.splitlines())
    for line in (
        "[media image/png chart.png]",
        "reasoning: two cities: two calls",
        'tool call weather({"city": "Paris"}) [call_1]',
        'weather [call_1] -> {"temp": 18}',
        "Paris 18°C; Tokyo unknown.",
        "usage: prompt_tokens 12, completion_tokens 7",
    ):
        assert line in out.splitlines(), line


def test_show_as_json_round_trips_the_messages(sqlite_store):
    from ostinato.messages import message_from_dict

    code, out = logs("show", "u-42", "--json")
    document = json.loads(out)
    assert code == 0 and document["conversation_id"] == "u-42"
    assert [message_from_dict(m) for m in document["messages"]] == every_message_type()
    assert len(document["stored_at"]) == 5
    assert all(datetime.fromisoformat(t) for t in document["stored_at"])


def test_show_says_when_each_message_was_stored(sqlite_store):
    code, out = logs("show", "u-7")
    assert code == 0
    headers = [line for line in out.splitlines() if line.startswith("## ")]
    when = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"
    assert [re.fullmatch(rf"## (\w+)  {when}", h).group(1) for h in headers] == [  # type: ignore[union-attr]
        "user",
        "assistant",
    ]


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_showing_an_unknown_conversation_is_an_error(sqlite_store, capsys, as_json):
    assert logs("show", "nope", *(["--json"] if as_json else [])) == (1, "")
    err = capsys.readouterr().err
    assert err.startswith("ostinato: error: no conversation 'nope' is stored; fix: ")
    assert "`ostinato logs`" in err


def test_a_repository_that_needs_a_setting_is_a_configuration_error(monkeypatch, capsys):
    monkeypatch.setenv("OSTINATO_MEMORY_REPOSITORY", "postgres")
    assert logs()[0] == 2
    assert "OSTINATO_MEMORY_POSTGRES_URL" in capsys.readouterr().err


def test_the_command_is_registered_with_the_cli(sqlite_store):
    proc = run_cli("logs", "--json")
    assert proc.returncode == 0, proc.stderr
    assert [c["conversation_id"] for c in json.loads(proc.stdout)] == ["u-7", "u-42"]


def test_logs_lists_sqlite_by_recency_and_shows_one(tmp_path, monkeypatch):
    monkeypatch.setenv("OSTINATO_MEMORY_REPOSITORY", "sqlite")
    monkeypatch.setenv("OSTINATO_MEMORY_SQLITE_PATH", str(tmp_path / "m.sqlite3"))
    check_logs_lists_by_recency_and_shows_one(SQLiteChatMemoryRepository(tmp_path / "m.sqlite3"))


def test_search_finds_entries_of_the_session_logs_in_one_or_every_session(sqlite_store):
    from ostinato.memory import SessionEntry
    from ostinato_memory import SQLiteSessionLog

    with SQLiteSessionLog(sqlite_store) as log:
        log.append_sync("s-1", [SessionEntry.turn(turn("vault code 4417"))])
        log.append_sync(
            "s-2", [SessionEntry.turn(turn("weather")), SessionEntry.turn(turn("vault"))]
        )
        log.fork_sync("s-2", 1, "s-2b")  # a branch: sees s-2's first entry, not its vault
    code, out = logs("search", "vault")
    assert code == 0
    assert sorted(line.split("  ")[0] for line in out.splitlines()) == ["s-1", "s-2"]
    code, out = logs("search", "vault", "code", "-s", "s-1", "--json")
    [hit] = json.loads(out)
    assert (hit["session_id"], hit["position"], hit["kind"]) == ("s-1", 0, "turn")
    assert hit["messages"][0]["text"] == "question vault code 4417"
    assert logs("search", "vault", "-s", "s-2b") == (0, "nothing stored matches 'vault'\n")
