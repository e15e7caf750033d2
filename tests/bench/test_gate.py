"""``python -m bench.gate``: the rule that fails a run, and the committed baseline's form.

The counts themselves need valgrind (``python -m bench.gate`` measures them); here the
comparison is checked on given numbers.
"""

from __future__ import annotations

import json

from bench import gate


def test_a_mode_more_than_the_tolerance_over_the_baseline_fails_the_gate() -> None:
    baseline = {"async": 1_000_000, "stream": 2_000_000}
    assert gate.check({"async": 1_030_000, "stream": 1_900_000}, baseline, 0.03) == []
    assert gate.check({"async": 1_030_001, "stream": 2_000_000}, baseline, 0.03) == [
        "async: 1,030,001 instructions per model call, +3.0% over the baseline 1,000,000 "
        "(allowed: 1,030,000)"
    ]


def test_the_committed_baseline_has_a_count_for_every_mode_measured() -> None:
    baseline = json.loads(gate.BASELINE.read_text())
    assert set(baseline) == set(gate.MODES)
    assert all(isinstance(count, int) and count > 0 for count in baseline.values())
