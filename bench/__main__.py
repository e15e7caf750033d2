"""``python -m bench``: run the benchmarks, print the report, write ``bench/results.md``.

Exit status: 0 when every batch ran the loop as required (missed targets are reported,
not failed, unless ``--strict``), 1 when a batch failed verification or a process broke.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bench.report import render, targets
from bench.runner import BenchmarkFailure, Settings, results_path, run

#: The documentation page whose "Latest results" section a full run refreshes.
DOCS_PAGE = Path(__file__).resolve().parent.parent / "docs" / "performance.md"
_START, _END = "<!-- results:start -->", "<!-- results:end -->"


def update_docs(report: str) -> bool:
    """Put ``report`` (headings one level down) between the page's result markers."""
    try:
        page = DOCS_PAGE.read_text()
    except OSError:
        return False
    start, end = page.find(_START), page.find(_END)
    if start < 0 or end < start:
        return False
    body = "\n".join(
        "#" + line if line.startswith("#") else line
        for line in report.splitlines()
        if not line.startswith("# ")  # the report's own title
    ).strip()
    DOCS_PAGE.write_text(page[: start + len(_START)] + "\n" + body + "\n" + page[end:])
    return True


#: The report's section measured by hand (``python -m bench.instructions``, minutes per
#: mode under valgrind), which a full run does not measure: carried over from the last report.
_KEPT = "## Instructions per model call"


def kept_section(previous: Path) -> str:
    """The :data:`_KEPT` section of the report at ``previous`` (empty when it has none)."""
    try:
        text = previous.read_text()
    except OSError:
        return ""
    start = text.find(_KEPT)
    if start < 0:
        return ""
    end = text.find("\n## ", start + len(_KEPT))
    return (text[start:] if end < 0 else text[start:end]).strip()


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="the CI smoke run: few repetitions (< 2 min)"
    )
    parser.add_argument("--repetitions", type=int, help="measured rounds over every cell")
    parser.add_argument("--no-peers", action="store_true", help="only the floor and ostinato")
    parser.add_argument(
        "--peer-concurrency",
        action="store_true",
        help="run the peers' 200-concurrent cell too (adds minutes)",
    )
    parser.add_argument(
        "--output",
        type=Path,
        help="where to write the Markdown report (default: bench/results.md, "
        "bench/results-quick.md with --quick)",
    )
    parser.add_argument(
        "--no-memory",
        action="store_true",
        help="skip the memory scenario (one turn with memory on each store vs without)",
    )
    parser.add_argument(
        "--no-opentelemetry",
        action="store_true",
        help="skip the OpenTelemetry scenario (a tool turn with the plugin vs without)",
    )
    parser.add_argument(
        "--no-serve",
        action="store_true",
        help="skip the served scenario (the OpenAI-compatible endpoint vs in process, "
        "200 streamed turns through it)",
    )
    parser.add_argument(
        "--no-eager",
        action="store_true",
        help="skip the early-start scenario (a paced 3-tool round with and without it)",
    )
    parser.add_argument(
        "--no-cold",
        action="store_true",
        help="skip the cold path (import, ready client, first turn vs warm; bench.cold)",
    )
    parser.add_argument("--strict", action="store_true", help="exit 2 when a target is missed")
    args = parser.parse_args(argv)
    settings = Settings.quick() if args.quick else Settings()
    changes: dict[str, Any] = {}
    if args.repetitions:
        changes["repetitions"] = args.repetitions
    if args.no_peers:
        changes["peers"] = ()
    if args.peer_concurrency:
        changes["peer_concurrency"] = True
    if changes:
        from dataclasses import replace

        settings = replace(settings, **changes)
    try:
        results = run(settings)
    except BenchmarkFailure as failure:
        print(f"benchmark FAILED: {failure}", file=sys.stderr)
        return 1
    report = render(results)
    if not args.no_memory:
        from bench.memory import measure_memory, render_memory

        report = report.rstrip("\n") + "\n\n" + render_memory(measure_memory(quick=args.quick))
    if not args.no_opentelemetry:
        from bench.opentelemetry import measure_opentelemetry, render_opentelemetry

        section = render_opentelemetry(measure_opentelemetry(quick=args.quick))
        report = report.rstrip("\n") + "\n\n" + section
    if not args.no_serve:
        from bench.serve import measure_serve, render_serve

        report = report.rstrip("\n") + "\n\n" + render_serve(measure_serve(quick=args.quick))
    if not args.no_eager:
        import os

        from bench.eager import measure_eager, render_eager
        from bench.runner import Server

        fake = Server([], dict(os.environ))
        try:
            section = render_eager(measure_eager(fake, turns=5 if args.quick else 15))
        finally:
            fake.close()
        report = report.rstrip("\n") + "\n\n" + section
    if not args.no_cold:
        import os

        from bench.cold import measure_cold, render_cold
        from bench.runner import Server

        fake = Server([], dict(os.environ))
        try:
            cold = measure_cold(fake, runs=3 if args.quick else 7)
        finally:
            fake.close()
        report = report.rstrip("\n") + "\n\n" + render_cold(cold)
    output = args.output or results_path(quick=args.quick)
    kept = kept_section(output)
    if kept:
        report = report.rstrip("\n") + "\n\n" + kept + "\n"
    output.write_text(report)
    print(report)
    print(f"written to {output}", file=sys.stderr)
    if not args.quick and args.output is None and update_docs(report):
        print(f"and to {DOCS_PAGE}", file=sys.stderr)
    if args.strict and any(t.met is False for t in targets(results)):
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
