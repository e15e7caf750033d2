"""A busy check of ``ostinato serve`` on a conversation with many durable turns (SQLite,
no worker: the turns are queued and cancelled): it lists the newest few in creation
order (``turn:c:10`` after ``turn:c:9``, though it sorts before it as text), looks up
the ids after the highest listed (a turn created in the same instant may be missing
from the newest), and reads the statuses of the unfinished ones at the end; an engine
whose ``turn_ids`` takes no ``newest`` lists them all and gets the same answers; a
conversation whose id starts another's (``c`` and ``c:x``) still finds its own turns."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from ostinato.durable import TurnRequest
from ostinato_dbos import DbosEngine, DbosSettings, DbosTurnHandle
from ostinato_serve._durable_claims import WINDOW, _turns, claim_turn
from ostinato_serve._problems import ApiError
from ostinato_serve._running import BusyPolicy


class Counted(DbosEngine):
    """The DBOS engine, noting each listing's ``newest`` and each turn it looked at."""

    def __init__(self, settings: DbosSettings) -> None:
        super().__init__(settings)
        self.listed: list[int | None] = []
        self.looked_at: list[str] = []

    def turn_ids(self, prefix: str, *, newest: int | None = None) -> list[str]:
        self.listed.append(newest)
        return super().turn_ids(prefix, newest=newest)

    def turn(self, turn_id: str) -> DbosTurnHandle:
        self.looked_at.append(turn_id)
        return super().turn(turn_id)


class Stale(Counted):
    """A listing of the newest that misses the last turn, as one created in the same
    instant as the one before it may be."""

    def turn_ids(self, prefix: str, *, newest: int | None = None) -> list[str]:
        found = super().turn_ids(prefix, newest=newest)
        if newest is None:
            return found
        last = max(found, key=lambda turn_id: int(turn_id.rpartition(":")[2]))
        return [turn_id for turn_id in found if turn_id != last]


class Unlimited:
    """An engine whose ``turn_ids`` takes a prefix only (as engines before ``newest``)."""

    def __init__(self, engine: DbosEngine) -> None:
        self._engine = engine

    def submit(self, request: TurnRequest, **options: Any) -> DbosTurnHandle:
        return self._engine.submit(request, **options)

    def turn(self, turn_id: str) -> DbosTurnHandle:
        return self._engine.turn(turn_id)

    def turn_ids(self, prefix: str) -> list[str]:
        return self._engine.turn_ids(prefix)


@pytest.fixture
def engine(tmp_path: Path) -> Any:
    url = f"sqlite:///{tmp_path / 'dbos.sqlite3'}"
    with Counted(DbosSettings(database_url=url)) as opened:  # type: ignore[arg-type]
        yield opened


def _submit(engine: DbosEngine, conversation: str, numbers: range) -> None:
    for n in numbers:
        request = TurnRequest("hi", conversation_id=conversation)
        engine.submit(request, turn_id=f"turn:{conversation}:{n}", exclusive=True)


async def test_a_busy_check_reads_the_newest_turns_by_creation_past_ten(
    engine: Counted, tmp_path: Path
) -> None:
    _submit(engine, "c", range(1, 10))
    await asyncio.sleep(1.05)  # SQLite's clock of creation counts seconds
    _submit(engine, "c", range(10, 13))
    for n in range(1, 11):
        engine.turn(f"turn:c:{n}").cancel()
    newest = engine.turn_ids("turn:c:", newest=3)  # created in one second: in any order
    assert sorted(newest) == ["turn:c:10", "turn:c:11", "turn:c:12"]  # not 7..9 (as text)
    assert len(engine.turn_ids("turn:c:")) == 12
    with pytest.raises(ValueError, match="newest must be a number of turns"):
        engine.turn_ids("turn:c:", newest=0)

    engine.listed.clear()
    engine.looked_at.clear()
    assert await _turns(engine, "c") == (12, ["turn:c:11", "turn:c:12"])
    assert engine.listed == [WINDOW]  # one listing, of the newest few
    # The id after the last (none), then the last turns back to the first that ended.
    assert engine.looked_at == ["turn:c:13", "turn:c:12", "turn:c:11", "turn:c:10"]
    assert await _turns(Unlimited(engine), "c") == (12, ["turn:c:11", "turn:c:12"])  # type: ignore[arg-type]
    url = f"sqlite:///{tmp_path / 'dbos.sqlite3'}"
    with Stale(DbosSettings(database_url=url)) as stale:  # type: ignore[arg-type]
        assert await _turns(stale, "c") == (12, ["turn:c:11", "turn:c:12"])
        assert stale.looked_at[:2] == ["turn:c:12", "turn:c:13"]  # found after the listed

    request = TurnRequest("again", conversation_id="c")
    with pytest.raises(ApiError) as busy:
        await claim_turn(engine, request, "c", BusyPolicy.REJECT)
    assert busy.value.status == 409 and busy.value.details == {"turn_id": "turn:c:12"}
    queued = await claim_turn(engine, request, "c", BusyPolicy.ENQUEUE)
    assert (queued.turn_id, queued.steered) == ("turn:c:13", False)
    for n in (11, 12, 13):
        engine.turn(f"turn:c:{n}").cancel()
    claimed = await claim_turn(Unlimited(engine), request, "c", BusyPolicy.REJECT)  # type: ignore[arg-type]
    assert claimed.turn_id == "turn:c:14"


async def test_a_conversation_whose_id_starts_another_finds_its_own_turns(
    engine: Counted,
) -> None:
    _submit(engine, "c", range(1, 3))
    _submit(engine, "c:x", range(1, WINDOW + 2))  # the newest window: all c:x's
    engine.listed.clear()
    assert await _turns(engine, "c") == (2, ["turn:c:1", "turn:c:2"])
    assert engine.listed == [WINDOW, None]  # a window of another's: then all of them
    assert await _turns(engine, "c:x") == (WINDOW + 1, [f"turn:c:x:{n}" for n in range(1, 6)])
    assert await _turns(engine, "nobody") == (0, [])
