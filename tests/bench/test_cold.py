"""``python -m bench.cold``: it runs a fresh process to a ready client and its turns, and
charges each import to the plugin whose code made it."""

from __future__ import annotations

import os

from bench.runner import Server

from bench import cold


def test_each_import_is_charged_to_the_plugin_that_made_it() -> None:
    importtime = "\n".join(
        (
            "import time: self [us] | cumulative | imported package",
            "import time:       100 |        100 |       opentelemetry.trace",
            "import time:        50 |        150 |     ostinato_opentelemetry._instrument",
            "import time:        20 |        170 |   ostinato_opentelemetry",
            "import time:       300 |        300 |   pydantic",
            "import time:        10 |        480 | ostinato.config",
        )
    )
    owners = cold.attribute(importtime)
    assert owners["ostinato_opentelemetry"] == {"opentelemetry": 100, "ostinato_opentelemetry": 70}
    assert owners["core"] == {"pydantic": 300, "ostinato": 10}


def test_one_fresh_process_reaches_a_ready_client_and_runs_its_turns() -> None:
    server = Server([], {**os.environ})
    try:
        results = cold.measure_cold(server, runs=1)
        stats = server.stats()
    finally:
        server.close()
    assert set(results.wall) == set(results.cpu) == set(cold.STEPS)
    assert all(value > 0 for value in (*results.wall.values(), *results.cpu.values()))
    assert results.modules > 100
    # Two processes (the bytecode-filling one, the measured one), six turns of four calls.
    assert stats["answers"] == 12 and stats["requests"] == 48
    report = cold.render_cold(results)
    assert "| first turn minus warm turn |" in report
