"""The served load script keeps working: a handful of conversations through one
in-process server (``make bench-quick`` runs every mode, durable included, the same way;
``make bench-serve`` is the measurement)."""

from __future__ import annotations

from tests.plugins.serve.load import render, run_mode


def test_the_load_script_runs_a_handful_of_conversations() -> None:
    run = run_mode("in-process-1", conversations=4, latency=0.01)
    assert run.conversations == 4 and len(run.first_event) == 4
    table = render([run], 0.01)
    assert "| in-process-1 |" in table and "4 concurrent conversations" in table
