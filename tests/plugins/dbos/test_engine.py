"""The submitter's side without workers: unknown turns and decisions nobody waits for
are clear errors, from the API and from ``ostinato approve``."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ostinato.cli import main
from ostinato.cli._approve_command import run_approve
from ostinato.durable import TurnRequest, TurnStatus
from ostinato.errors import DurableTurnError
from ostinato_dbos import DbosEngine, DbosSettings


def test_unknown_and_undecidable_turns_are_clear_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'dbos.sqlite3'}"
    with DbosEngine(DbosSettings(database_url=url), poll_seconds=0.01) as engine:  # type: ignore[arg-type]
        with pytest.raises(DurableTurnError, match="no durable turn has the id 'nope'"):
            _ = engine.turn("nope").status
        queued = engine.submit(TurnRequest("hi"), turn_id="t-1")
        assert queued.id == "t-1" and queued.status is TurnStatus.QUEUED
        assert engine.submit(TurnRequest("hi"), turn_id="t-1").id == "t-1"  # the same turn
        assert queued.pending() is None and engine.waiting() == []
        with pytest.raises(DurableTurnError, match="waits for no decision"):
            queued.decide({"call-1": True})
        with pytest.raises(TimeoutError, match="still ENQUEUED"):
            queued.result(timeout=0.05)
        with pytest.raises(TimeoutError, match="no event of the durable turn 't-1' within"):
            next(queued.events(timeout=0.05))
        with pytest.raises(DurableTurnError, match="no durable turn has the id 'nope'"):
            next(engine.turn("nope").events())
        with pytest.raises(DurableTurnError, match="no durable turn has the id 'nope'"):
            asyncio.run(anext(engine.turn("nope").aevents()))  # type: ignore[arg-type]
    monkeypatch.setenv("OSTINATO_DBOS_DATABASE_URL", url)
    with pytest.raises(DurableTurnError, match="the durable turn 't-1' waits for no decision"):
        run_approve(["t-1"])


def test_an_exclusive_id_is_claimed_once_and_after_names_a_known_turn(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'dbos.sqlite3'}"
    with DbosEngine(DbosSettings(database_url=url)) as engine:  # type: ignore[arg-type]
        first = engine.submit(TurnRequest("hi"), turn_id="c:1", exclusive=True)
        with pytest.raises(DurableTurnError, match="has the id 'c:1' already") as taken:
            engine.submit(TurnRequest("hi again"), turn_id="c:1", exclusive=True)
        assert taken.value.status == "exists"
        after = engine.submit(TurnRequest("then"), turn_id="c:2", after=first.id, exclusive=True)
        assert after.status is TurnStatus.QUEUED
        with pytest.raises(DurableTurnError, match="no durable turn has the id 'c:0'"):
            engine.submit(TurnRequest("never"), turn_id="c:3", after="c:0")
        assert engine.turn_ids("c:") == ["c:1", "c:2"]


def approve(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``ostinato approve *argv`` through the ostinato command, as a user runs it."""
    code = main(["approve", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_ostinato_approve_takes_unique_id_starts_and_errors_in_one_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'dbos.sqlite3'}"
    monkeypatch.setenv("OSTINATO_DBOS_DATABASE_URL", url)
    assert approve(capsys, "--list") == (0, "no durable turn waits for a decision\n", "")
    with DbosEngine(DbosSettings(database_url=url)) as engine:  # type: ignore[arg-type]
        for turn_id in ("4f1c2a-one", "4f1c9b-two"):
            engine.submit(TurnRequest("hi"), turn_id=turn_id)
    fix = "fix: `ostinato approve --list` shows the turns waiting for a decision"
    assert approve(capsys, "nope") == (
        1,
        "",
        f"ostinato: error: no durable turn has the id 'nope' (nor an id starting with it); {fix}\n",
    )
    # A unique start names the turn (here: one waiting for nothing, so that is the error).
    code, out, err = approve(capsys, "4f1c2")
    assert (code, out) == (1, "")
    assert err == (
        "ostinato: error: the durable turn '4f1c2a-one' waits for no decision (status "
        f"queued); {fix}\n"
    )
    code, _, err = approve(capsys, "4f1c")
    assert code == 1
    assert err == (
        "ostinato: error: '4f1c' starts the ids of 2 turns, none of them waiting for a "
        "decision: 4f1c2a-one, 4f1c9b-two; fix: give more of the id, enough to name one turn\n"
    )
    for output in approve(capsys, "nope")[1:]:
        assert "DBOS" not in output and "Workflow" not in output  # never the engine's text
