"""A durable turn's log across worker deaths, read from a third process: a streamed
turn's worker is SIGKILLed at random points while a reader process follows the turn,
dropping its connection at random points and reattaching by position. Over every run: no
event lost, none read twice, and the text the reader assembles is the answer, byte for
byte. ``make test-turn-log`` runs the long version (50 runs, marked ``slow``)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time

import pytest

from ostinato.durable import TurnRequest
from ostinato.errors import DurableTurnError, TurnLogError
from ostinato.events import LoopEvent, TextDelta, withdrawn
from ostinato.testing.durable_engine import FakeModelServer, long_answer
from tests.plugins.dbos.workers import ROOT, Workers, turn_request

#: Seconds between two words of the streamed answer (40 words: about a second a turn).
WORD_DELAY = 0.025


def kill_cycle(workers: Workers, seed: int, turns: int) -> dict[str, int]:
    """``turns`` streamed turns, submitted a random moment apart on one worker, killed at
    a random moment; a restarted worker finishes them. Checks what the reader read;
    returns the number of events read per turn."""
    rng = random.Random(seed)
    worker = workers.start("w1")
    ids = [f"s{seed}-{n}" for n in range(turns)]
    with workers.engine() as engine:
        handles = []
        for turn_id in ids:
            handles.append(engine.submit(long_request(turn_id), turn_id=turn_id))
            time.sleep(rng.uniform(0, 0.3))
        reader = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.plugins.dbos.log_reader",
                workers.database_url,
                str(seed),
                *ids,
            ],
            cwd=ROOT,
            env={**workers.env, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(rng.uniform(0, 1.2))  # somewhere in the turns' streams
        workers.kill(worker)
        restarted = workers.start("w1")  # recovers its turns
        answers = {h.id: h.result(timeout=workers.patience).text for h in handles}
        out, err = reader.communicate(timeout=workers.patience)
        assert reader.returncode == 0, err
        workers.terminate(restarted)
    lines = out.splitlines()
    assert lines[-1] == "END"
    read: dict[str, list[LoopEvent]] = {turn_id: [] for turn_id in ids}
    for line in lines[:-1]:
        item = json.loads(line)
        read[item["turn"]].append(LoopEvent.from_dict(item["event"]))
    for turn_id, events in read.items():
        seqs = [e.seq for e in events]
        assert seqs == list(range(1, len(seqs) + 1)), f"{turn_id}: lost or read twice: {seqs}"
        assert {e.turn_id for e in events} == {turn_id}
        text = "".join(e.text for e in withdrawn(events) if isinstance(e, TextDelta))
        assert text == answers[turn_id] == long_answer(turn_id), turn_id
        assert events[-1].kind == "loop_ended"
    return {turn_id: len(events) for turn_id, events in read.items()}


def long_request(turn_id: str) -> TurnRequest:
    """The fake model's ``long`` plan: a streamed answer of many words."""
    return TurnRequest(f"{turn_id} long", conversation_id=turn_id)


def test_killed_at_random_a_third_process_reads_every_event_once(
    workers: Workers, model_server: FakeModelServer
) -> None:
    model_server.word_delay = WORD_DELAY
    counts = kill_cycle(workers, int(os.environ.get("TURN_LOG_SEED", "1")), turns=4)
    assert all(n > 40 for n in counts.values())  # every word was a piece of its own


@pytest.mark.slow
def test_fifty_runs_killed_at_random_lose_nothing_and_repeat_nothing(
    workers: Workers, model_server: FakeModelServer
) -> None:
    model_server.word_delay = WORD_DELAY
    runs = 0
    for seed in range(100, 110):
        runs += len(kill_cycle(workers, seed, turns=5))
    assert runs == 50


def test_bad_positions_and_unknown_turns_fail_at_once(
    workers: Workers, model_server: FakeModelServer
) -> None:
    workers.start("w1")
    with workers.engine() as engine:
        handle = engine.submit(turn_request("b1", "tool"))
        handle.result(timeout=workers.patience)
        events = list(handle.events())
        last = events[-1].seq
        assert [e.seq for e in handle.events(after=last - 2)] == [last - 1, last]
        assert list(handle.events(after=last)) == []
        began = time.monotonic()
        with pytest.raises(TurnLogError) as past:
            next(iter(handle.events(after=last + 5)))
        assert past.value.reason == "past_end" and f"at {last}" in str(past.value)
        with pytest.raises(DurableTurnError, match="no durable turn has the id"):
            next(iter(engine.turn("no-such-turn").events()))
        assert engine.purge_events(older_than_seconds=0) == [handle.id]
        with pytest.raises(TurnLogError) as expired:
            next(iter(handle.events(after=1)))
        assert expired.value.reason == "expired"
        assert list(handle.events(after=last)) == []  # the end is still the end
        assert time.monotonic() - began < 10  # never a hang


def test_the_event_writer_checks_the_worker_s_lease_before_each_write(tmp_path) -> None:
    from ostinato_dbos._turn_log import EventStore, EventWriter

    store = EventStore(f"sqlite:///{tmp_path / 'events.sqlite3'}")
    checked: list[int] = []  # the rows stored when the check ran
    writer = EventWriter(store, check=lambda: checked.append(len(store.after("t", 0))))
    try:
        writer.put("t", 1, json.dumps({"kind": "text_delta", "seq": 1}))
        writer.flush()
        assert checked == [0]  # checked before the row was written (a fenced worker
        assert [seq for seq, _ in store.after("t", 0)] == [1]  # ends there, writing none)
    finally:
        writer.close()
        store.close()
