"""``python -m bench.instructions``: it runs, and it reads callgrind's counts right.

The instruction count itself needs valgrind, which CI does not install: the tests run the
CPU and Python-call measures end to end and check the callgrind side on its own parts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import instructions


def test_cpu_time_per_model_call_of_the_floor_after_a_history(
    capsys: pytest.CaptureFixture[str],
) -> None:
    floor = ["--contender", "floor", "--measure", "cpu", "--repeat", "1"]
    instructions.main([*floor, "--conversations", "2", "--history", "10"])
    line = capsys.readouterr().out.strip()
    assert line.endswith("per model call")
    assert " floor async: cpu µs " in line


def test_python_calls_per_model_call_of_ostinato(capsys: pytest.CaptureFixture[str]) -> None:
    instructions.main(["--measure", "calls", "--conversations", "2", "--top", "3"])
    lines = capsys.readouterr().out.strip().splitlines()
    assert " ostinato async: python calls " in lines[0]
    assert len(lines) == 4  # the total, then the three costliest functions


def test_the_batch_is_cut_out_by_the_process_time_dumps(tmp_path: Path) -> None:
    out = tmp_path / "callgrind.4"
    out.write_text("version: 1\ncreator: callgrind-3.19.0\nevents: Ir\nsummary: 123456\n")
    assert instructions._instructions(str(out)) == 123456
    command = instructions._valgrind(str(tmp_path / "callgrind"))
    assert "--dump-before=time_process_time" in command


def test_without_valgrind_it_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(instructions.shutil, "which", lambda name: None)
    with pytest.raises(SystemExit, match="apt-get install valgrind"):
        instructions.main([])


def test_the_sync_mode_has_no_python_call_count() -> None:
    with pytest.raises(SystemExit, match="private loop thread"):
        instructions.main(["--measure", "calls", "--mode", "sync"])


def test_the_client_program_uses_only_what_every_version_has() -> None:
    code = instructions.client_code()
    assert "from bench.contenders import load" in code
    assert "from bench.worker import run_batch" in code
