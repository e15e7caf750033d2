"""A reader of durable turns' logs in a process of its own (``python -m
tests.plugins.dbos.log_reader URL SEED TURN...``): it follows each turn, drops its
connection at random points and reattaches after the last position it read, and prints
every event it read as one JSON line ``{"turn": ..., "event": ...}``, then ``END``."""

from __future__ import annotations

import json
import random
import sys
import threading
import time

from ostinato_dbos import DbosEngine, DbosSettings
from tests.plugins.dbos.workers import PROJECT

__all__ = ["follow"]

_print = threading.Lock()


def follow(engine: DbosEngine, turn_id: str, rng: random.Random) -> None:
    """Read turn ``turn_id`` to its end, reattaching by position."""
    handle = engine.turn(turn_id)
    position = 0
    while True:
        reading = handle.events(after=position, timeout=120)
        budget = rng.randint(1, 12)  # how many events before the connection drops
        ended = True
        for event in reading:
            if event.seq != position + 1:
                raise AssertionError(f"{turn_id}: read {event.seq} after {position}")
            position = event.seq
            with _print:
                print(json.dumps({"turn": turn_id, "event": event.to_dict()}), flush=True)
            budget -= 1
            if budget == 0:
                ended = False
                break
        reading.close()  # dropped (or over)
        if ended:
            return
        time.sleep(rng.uniform(0, 0.05))


def main(url: str, seed: int, turns: list[str]) -> None:
    settings = DbosSettings(project=PROJECT, database_url=url)  # type: ignore[arg-type]
    with DbosEngine(settings, event_poll_seconds=0.02) as engine:
        threads = [
            threading.Thread(target=follow, args=(engine, t, random.Random(f"{seed}/{t}")))
            for t in turns
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    print("END", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3:])
