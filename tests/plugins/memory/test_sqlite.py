"""``SQLiteChatMemoryRepository`` on real files: created on first use, WAL, a versioned
schema, one transaction per write, and clear errors — never an overwrite — for a corrupt
or foreign file, a newer schema, a locked database."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from ostinato.memory import SessionEntry
from ostinato.messages import AssistantMessage, UserMessage
from ostinato_memory import (
    SCHEMA_VERSION,
    ChatMemoryRepositoryError,
    DatabaseLockedError,
    NewerSchemaError,
    NotAMemoryDatabaseError,
    SQLiteChatMemoryRepository,
    SQLiteSessionLog,
    default_sqlite_path,
)

TURN = [UserMessage("hi"), AssistantMessage("hello")]


def raw(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(str(path), isolation_level=None)


def test_nothing_exists_until_first_use_then_schema_and_wal(tmp_path):
    path = tmp_path / "deep" / "dir" / "memory.sqlite3"
    repository = SQLiteChatMemoryRepository(path)
    assert not path.parent.exists()
    assert repository.find_conversation_ids_sync() == []
    assert path.exists()
    with raw(path) as check:
        meta = dict(check.execute("SELECT key, value FROM ostinato_memory_meta"))
        mode = check.execute("PRAGMA journal_mode").fetchone()[0]
    assert meta == {"application": "ostinato-memory", "schema_version": str(SCHEMA_VERSION)}
    assert mode == "wal"
    repository.close()


def test_the_default_path_is_in_the_user_data_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_sqlite_path() == tmp_path / "xdg" / "ostinato" / "memory.sqlite3"
    assert SQLiteChatMemoryRepository().path == default_sqlite_path()
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    expected = tmp_path / "home" / ".local" / "share" / "ostinato" / "memory.sqlite3"
    assert default_sqlite_path() == expected
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_sqlite_path() == expected


def test_data_survives_a_new_repository_on_the_same_file(tmp_path):
    path = tmp_path / "m.sqlite3"
    with SQLiteChatMemoryRepository(path) as first:
        first.save_all_sync("c", TURN)
    with SQLiteChatMemoryRepository(str(path)) as second:
        assert second.find_by_conversation_id_sync("c") == TURN


def test_each_write_is_one_transaction(tmp_path):
    repository = SQLiteChatMemoryRepository(tmp_path / "m.sqlite3")
    repository.find_conversation_ids_sync()
    statements: list[str] = []
    repository._connection().set_trace_callback(statements.append)
    repository.save_all_sync("c", [*TURN, *TURN])
    kinds = [s.split()[0].upper() for s in statements]
    assert kinds[0] == "BEGIN" and kinds[-1] == "COMMIT"
    assert kinds.count("BEGIN") == 1 and kinds.count("COMMIT") == 1
    repository.close()


def test_arguments_and_paths_are_checked(tmp_path):
    with pytest.raises(ValueError, match="InMemoryChatMemoryRepository"):
        SQLiteChatMemoryRepository(":memory:")
    with pytest.raises(ValueError, match="busy_timeout"):
        SQLiteChatMemoryRepository(tmp_path / "m", busy_timeout=-1)
    with pytest.raises(TypeError, match="busy_timeout"):
        SQLiteChatMemoryRepository(tmp_path / "m", busy_timeout="1")  # type: ignore[arg-type]
    folder = tmp_path / "a-directory"
    folder.mkdir()
    with pytest.raises(ChatMemoryRepositoryError, match="could not open") as error:
        SQLiteChatMemoryRepository(folder).find_conversation_ids_sync()
    assert error.value.path == str(folder)
    blocked = tmp_path / "file"
    blocked.write_text("x")
    with pytest.raises(ChatMemoryRepositoryError, match="cannot create the directory"):
        SQLiteChatMemoryRepository(blocked / "sub" / "m.sqlite3").find_conversation_ids_sync()


def unchanged_after(path: Path, error: type[Exception], match: str) -> None:
    before = path.read_bytes()
    files = sorted(path.parent.iterdir())
    repository = SQLiteChatMemoryRepository(path)
    with pytest.raises(error, match=match):
        repository.save_all_sync("c", TURN)
    with pytest.raises(error, match=match):
        repository.find_by_conversation_id_sync("c")
    assert path.read_bytes() == before
    assert sorted(path.parent.iterdir()) == files  # no journal or WAL file left behind


def test_a_file_that_is_not_sqlite_is_left_untouched(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("these are my notes, not a database\n" * 200)
    unchanged_after(path, NotAMemoryDatabaseError, "not a usable ostinato-memory database")


@pytest.mark.parametrize(
    ("statements", "match"),
    [
        pytest.param(
            [
                "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)",
                "INSERT INTO users (name) VALUES ('ada')",
            ],
            r"holds other tables \(users\)",
            id="other-tables",
        ),
        pytest.param(
            [
                "CREATE TABLE ostinato_memory_meta (key TEXT PRIMARY KEY, value TEXT)",
                "INSERT INTO ostinato_memory_meta VALUES ('application', 'someone')",
            ],
            "names 'someone'",
            id="a-meta-table-of-another-application",
        ),
    ],
)
def test_another_applications_database_is_left_untouched(tmp_path, statements, match):
    path = tmp_path / "app.db"
    with raw(path) as other:
        for statement in statements:
            other.execute(statement)
    unchanged_after(path, NotAMemoryDatabaseError, match)


def test_a_newer_schema_is_left_untouched(tmp_path):
    path = tmp_path / "m.sqlite3"
    with SQLiteChatMemoryRepository(path) as repository:
        repository.save_all_sync("c", TURN)
    with raw(path) as newer:
        newer.execute("UPDATE ostinato_memory_meta SET value = '99' WHERE key = 'schema_version'")
        newer.execute("PRAGMA journal_mode = DELETE")
    unchanged_after(path, NewerSchemaError, "(?s)schema version 99.*pip install -U ostinato-memory")


def test_a_corrupt_database_is_reported(tmp_path):
    path = tmp_path / "m.sqlite3"
    with SQLiteChatMemoryRepository(path) as repository:
        repository.save_all_sync("c", [UserMessage("x" * 100)] * 50)
    data = bytearray(path.read_bytes())
    data[4096:8192] = b"\x7f" * 4096  # the second page: garbage
    path.write_bytes(bytes(data))
    unchanged_after(path, NotAMemoryDatabaseError, "malformed")


def test_a_locked_database_is_reported_and_nothing_changes(tmp_path):
    path = tmp_path / "m.sqlite3"
    repository = SQLiteChatMemoryRepository(path, busy_timeout=0.05)
    repository.save_all_sync("c", TURN)
    holder = raw(path)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(DatabaseLockedError, match=r"is locked.*busy timeout of 0\.05s"):
            repository.save_all_sync("c", [UserMessage("lost")])
        assert repository.find_by_conversation_id_sync("c") == TURN  # readers go on (WAL)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    repository.save_all_sync("c", [UserMessage("now")])
    assert repository.find_by_conversation_id_sync("c") == [UserMessage("now")]
    repository.close()


def test_a_message_that_cannot_be_stored_changes_nothing(tmp_path):
    repository = SQLiteChatMemoryRepository(tmp_path / "m.sqlite3")
    repository.save_all_sync("c", TURN)
    bad = AssistantMessage("x", metadata={"client": object()})
    with pytest.raises(ChatMemoryRepositoryError, match=r"(?s)JSON form failed.*JSON values"):
        repository.save_all_sync("c", [UserMessage("new"), bad])
    assert repository.find_by_conversation_id_sync("c") == TURN
    repository.close()


def test_a_row_that_cannot_be_read_is_reported(tmp_path):
    path = tmp_path / "m.sqlite3"
    repository = SQLiteChatMemoryRepository(path)
    repository.save_all_sync("c", TURN)
    with raw(path) as edit:
        edit.execute('UPDATE ostinato_memory_messages SET message = \'{"type": "alien"}\'')
    with pytest.raises(ChatMemoryRepositoryError, match="message 0 of conversation 'c'"):
        repository.find_by_conversation_id_sync("c")
    repository.close()


async def test_close_then_use_again(tmp_path):
    repository = SQLiteChatMemoryRepository(tmp_path / "m.sqlite3")
    await repository.save_all("c", TURN)
    repository.close()
    assert await repository.find_by_conversation_id("c") == TURN
    repository.close()
    repository.close()


def _child(path: str, queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    from ostinato_memory import SQLiteChatMemoryRepository as Repository

    inherited = _INHERITED_REPOSITORY
    assert inherited is not None
    inherited.save_all_sync("child", [UserMessage("from the child")])
    queue.put(inherited.find_conversation_ids_sync())
    queue.put(Repository(path).find_by_conversation_id_sync("parent"))


_INHERITED_REPOSITORY: SQLiteChatMemoryRepository | None = None


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="needs the fork start method"
)
def test_a_forked_child_opens_its_own_connection(tmp_path):
    global _INHERITED_REPOSITORY
    path = tmp_path / "m.sqlite3"
    _INHERITED_REPOSITORY = SQLiteChatMemoryRepository(path)
    _INHERITED_REPOSITORY.save_all_sync("parent", TURN)
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child, args=(str(path), queue))
    child.start()
    ids, parent_turn = queue.get(timeout=30), queue.get(timeout=30)
    child.join(timeout=30)
    assert child.exitcode == 0
    assert ids == ["child", "parent"] and parent_turn == TURN
    assert _INHERITED_REPOSITORY.find_by_conversation_id_sync("child") == [
        UserMessage("from the child")
    ]
    _INHERITED_REPOSITORY.close()
    _INHERITED_REPOSITORY = None


def test_text_with_a_lone_surrogate_round_trips(tmp_path):
    # A str can hold one (a model's JSON "\\ud800"), UTF-8 cannot: it is stored escaped.
    messages = [UserMessage("a\ud800b"), AssistantMessage("ok", metadata={"k\udfff": "\ud800"})]
    with SQLiteChatMemoryRepository(tmp_path / "m.db") as repository:
        repository.save_all_sync("c", messages)
        assert repository.find_by_conversation_id_sync("c") == messages


def test_a_conversation_id_with_a_lone_surrogate_is_refused(tmp_path):
    with (
        SQLiteChatMemoryRepository(tmp_path / "m.db") as repository,
        pytest.raises(ValueError, match="lone surrogate at position 1"),
    ):
        repository.save_all_sync("c\ud800", TURN)


async def test_the_async_methods_run_on_the_repository_pool_not_the_tool_pool(tmp_path):
    # Sync tools stuck on the tool pool must not stall memory.
    names = []

    def change(stored):
        names.append(threading.current_thread().name)
        return [*stored, *TURN]

    with SQLiteChatMemoryRepository(tmp_path / "m.db") as repository:
        await repository.update("c", change)
    assert names and names[0].startswith("ostinato-memory-sqlite")


def _first_use_at_once(path: Path, repositories: list[SQLiteChatMemoryRepository]) -> None:
    """16 threads use ``path`` for the first time at the same moment: odd ones write."""
    count = 16
    barrier = threading.Barrier(count)
    errors: list[BaseException] = []

    def first_use(index: int) -> None:
        repository = repositories[index % len(repositories)]
        barrier.wait()
        try:
            if index % 2:
                repository.save_all_sync(f"c{index}", [UserMessage(f"hello {index}")])
            else:
                repository.find_by_conversation_id_sync(f"c{index}")
        except BaseException as exc:  # collected and reported below
            errors.append(exc)

    threads = [threading.Thread(target=first_use, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    expected = sorted(f"c{i}" for i in range(1, count, 2))
    assert sorted(repositories[0].find_conversation_ids_sync()) == expected
    with sqlite3.connect(path) as check:
        assert check.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


@pytest.mark.parametrize("shared", [True, False], ids=["one-repository", "one-per-thread"])
def test_threads_opening_a_fresh_file_at_once_all_succeed(tmp_path, shared):
    # Switching a fresh file to WAL needs an exclusive lock that SQLite refuses at once
    # (no busy handler) while another connection reads it: first use from many threads
    # at the same moment must neither fail nor leave the file half set up. A race, so
    # repeated; before the fix about one attempt in seventy failed.
    for attempt in range(40):
        path = tmp_path / f"fresh-{attempt}.sqlite3"
        repositories = [SQLiteChatMemoryRepository(path) for _ in range(1 if shared else 16)]
        try:
            _first_use_at_once(path, repositories)
        finally:
            for repository in repositories:
                repository.close()


def test_each_message_keeps_when_it_was_first_stored(tmp_path):
    from ostinato_memory import MessageWindowChatMemory

    with SQLiteChatMemoryRepository(tmp_path / "m.sqlite3") as repository:
        memory = MessageWindowChatMemory(repository, max_messages=4)
        memory.add_sync("c", TURN)
        first = [m.stored_at for m in repository.find_stored_messages_sync("c")]
        time.sleep(0.01)
        memory.add_sync("c", [UserMessage("again"), AssistantMessage("still here")])
        time.sleep(0.01)
        memory.add_sync("c", [UserMessage("third"), AssistantMessage("the window moves")])
        stored = repository.find_stored_messages_sync("c")
    assert [m.message.text for m in stored] == ["again", "still here", "third", "the window moves"]
    times = [m.stored_at for m in stored]
    assert all(t is not None and t.tzinfo is not None for t in times)
    assert times[0] == times[1] > first[0]  # moved to new positions, their time kept
    assert times[2] == times[3] > times[1]


def test_a_version_1_database_is_migrated_and_keeps_its_messages(tmp_path):
    path = tmp_path / "v1.sqlite3"
    with raw(path) as old:
        old.executescript(
            "CREATE TABLE ostinato_memory_meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT"
            " NULL) WITHOUT ROWID;"
            "CREATE TABLE ostinato_memory_messages (conversation_id TEXT NOT NULL, position"
            " INTEGER NOT NULL, type TEXT NOT NULL, message TEXT NOT NULL, PRIMARY KEY"
            " (conversation_id, position)) WITHOUT ROWID;"
            "INSERT INTO ostinato_memory_meta VALUES ('application', 'ostinato-memory'),"
            " ('schema_version', '1');"
            "INSERT INTO ostinato_memory_messages VALUES ('old', 0, 'user',"
            ' \'{"type":"user","text":"from before","metadata":{},"media":[]}\');'
        )
    with SQLiteChatMemoryRepository(path) as repository:
        assert [
            (m.message.text, m.stored_at) for m in repository.find_stored_messages_sync("old")
        ] == [("from before", None)]
        repository.save_all_sync("new", TURN)
        recent = repository.find_recent_conversations_sync(10)
    assert [(c.conversation_id, c.updated_at is None) for c in recent] == [
        ("new", False),
        ("old", True),  # no time recorded: last
    ]
    with raw(path) as check:
        meta = dict(check.execute("SELECT key, value FROM ostinato_memory_meta"))
    assert meta["schema_version"] == str(SCHEMA_VERSION) == "3"
    with SQLiteSessionLog(path) as log:  # version 3: the session log, in the same file
        log.append_sync("old", [SessionEntry.turn(TURN)])
        assert [h.entry.position for h in log.search_sync("old", "hello")] == [0]
