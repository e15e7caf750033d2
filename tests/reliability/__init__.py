"""The reliability suite: faults, hostile input and load, with nothing lost and nothing leaked.

* ``test_faults`` — the OpenAI adapter against a loopback server failing in every way
  (``faultserver``): retries bounded in count and time, typed errors, no silent retry or
  truncation of a stream, nothing left open.
* ``test_cancellation`` — abandoning a stream closes its HTTP response (seen by the server).
* ``test_memory_on_failure`` — a failed turn leaves SQLite memory as it was.
* ``test_properties`` — hypothesis: decoders and aggregators on arbitrary splits of the
  recorded streams, exact SQLite round trips, tool-argument validation on arbitrary JSON.
* ``test_hostile_model`` / ``test_hostile_tools`` — endless tool calls, a 5 MB argument,
  500 calls, empty answers; tools that hang or block.
* ``test_load`` — 2,000 conversations, 100 at a time, 10% of model calls failing
  (``flaky`` runs that server in a child process); memory stays level.
* ``test_secrets`` — the API key never appears in any output of a failing run.
"""
