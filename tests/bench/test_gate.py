"""``python -m bench.gate``: the rule that fails a run, and the committed baseline's form.

The counts themselves need valgrind (``python -m bench.gate`` measures them); in the
default suite the comparison is checked on given numbers, and the slow test (``make
bench-gate-check``) runs the real gate against a baseline 10 % lower and sees it fail.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_a_baseline_ten_percent_lower_fails_the_gate_on_every_mode() -> None:
    # The committed counts measured again, against a baseline lowered by 10%: what a 10%
    # slowdown looks like to the gate.
    committed = json.loads(gate.BASELINE.read_text())
    lowered = {mode: round(count * 0.9) for mode, count in committed.items()}
    failures = gate.check(committed, lowered, 0.03)
    assert [line.split(":")[0] for line in failures] == list(gate.MODES)
    assert all("+11.1% over the baseline" in line for line in failures)


def test_without_valgrind_the_gate_skips_but_fails_in_ci(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert gate.without_valgrind({}) == 0
    assert "skipped, valgrind is not installed" in capsys.readouterr().out
    assert gate.without_valgrind({"CI": "true"}) == 4
    assert "OSTINATO_BENCH_GATE=skip" in capsys.readouterr().err
    assert gate.without_valgrind({"CI": "true", "OSTINATO_BENCH_GATE": "skip"}) == 0


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs valgrind")
def test_the_gate_fails_a_real_count_against_a_baseline_ten_percent_lower(
    tmp_path: Path,
) -> None:
    # End to end: callgrind counts ostinato's calls, and the gate exits 3 naming each mode.
    committed = json.loads(gate.BASELINE.read_text())
    lowered = tmp_path / "lowered.json"
    lowered.write_text(json.dumps({m: round(c * 0.9) for m, c in committed.items()}))
    command = [sys.executable, "-m", "bench.gate", "--baseline", str(lowered)]
    done = subprocess.run(
        [*command, "--conversations", "3"],
        capture_output=True,
        text=True,
        cwd=gate.BASELINE.parent.parent,
        timeout=900,
        check=False,
    )
    assert done.returncode == 3, done.stdout + done.stderr
    for mode in gate.MODES:
        assert f"bench.gate: FAILED {mode}: " in done.stderr
