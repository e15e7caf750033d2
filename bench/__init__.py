"""ostinato's benchmark suite: what the framework costs by itself, next to the alternatives.

Run it with ``make bench`` (``make bench-quick`` in CI). Nothing here is part of the test
suite or of any distribution. The pieces:

* :mod:`bench.scenario` — the conversation every contender drives, named by the model name
  (``bench-k3-p2``), shared by the server and the clients so both can check each other;
* :mod:`bench.server` — a raw-asyncio OpenAI-compatible fake model server with ``/stats``;
* :mod:`bench.contenders` — the same conversation through the raw-httpx floor, ostinato and
  the peer frameworks;
* :mod:`bench.worker` — one process per contender, driven over stdin/stdout;
* :mod:`bench.runner` — starts everything, interleaves the runs, verifies call counts and
  writes ``bench/results.md``;
* :mod:`bench.profiling` — pyinstrument / py-spy profiles of one contender.

Read ``docs/performance.md`` for the methodology.
"""
