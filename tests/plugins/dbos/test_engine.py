"""The submitter's side without workers: unknown turns and decisions nobody waits for
are clear errors, from the API and from ``ostinato approve``."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ostinato.durable import TurnRequest, TurnStatus
from ostinato.errors import DurableTurnError
from ostinato_dbos import DbosEngine, DbosSettings
from ostinato_dbos._commands import run_approve


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
    assert run_approve(["t-1"]) == 1
    assert "the durable turn 't-1' waits for no decision" in capsys.readouterr().err
