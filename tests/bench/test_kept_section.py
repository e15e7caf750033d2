"""``python -m bench`` keeps the report's hand-measured instruction section when it rewrites
the report (a full run does not measure instructions)."""

from __future__ import annotations

from pathlib import Path

from bench.__main__ import kept_section


def test_the_instruction_section_of_the_last_report_is_kept(tmp_path: Path) -> None:
    report = tmp_path / "results.md"
    report.write_text(
        "# Benchmark results\n\n## Targets\n\n| a |\n\n"
        "## Instructions per model call\n\n| mode | floor |\n| async | 1 |\n\n"
        "## Memory\n\n| store |\n"
    )
    assert (
        kept_section(report) == "## Instructions per model call\n\n| mode | floor |\n| async | 1 |"
    )


def test_a_report_without_it_or_no_report_keeps_nothing(tmp_path: Path) -> None:
    assert kept_section(tmp_path / "missing.md") == ""
    report = tmp_path / "results.md"
    report.write_text("# Benchmark results\n\n## Targets\n")
    assert kept_section(report) == ""


def test_the_committed_report_has_the_section() -> None:
    committed = Path(__file__).resolve().parents[2] / "bench" / "results.md"
    assert kept_section(committed).startswith("## Instructions per model call")
