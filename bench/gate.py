"""The regression gate: instructions per model call against a committed baseline.

``python -m bench.gate [--update] [--tolerance 0.03] [--baseline PATH]``

Measures ostinato's instructions per model call (``bench.instructions``, callgrind:
repeatable whatever the machine's load) for the ``async`` and ``stream`` modes on the
main scenario, and fails (exit status 3) when one grew more than ``--tolerance`` (3 %)
over ``bench/baseline.json``. ``--update`` writes the measured counts as the new
baseline instead: do it deliberately, and say why in the commit that changes the file.
The count shifts by up to ~1 % between checkouts of the same commit (path strings and
object layout; two runs in one checkout agree within 0.02 %), well inside the tolerance.
``--baseline PATH`` compares against another file: one with counts 10 % lower is how the
gate is seen to fail (``make bench-gate-check``).

valgrind comes from the system's packages: ``make bench-quick`` runs
``scripts/install-valgrind`` first (apt-get as root; it says why when it cannot). Without
valgrind the gate says so and exits 0 on a developer's machine, but fails (exit status 4)
where ``CI`` is set, so that CI cannot pass without the gate having run; set
``OSTINATO_BENCH_GATE=skip`` to accept that on purpose.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from bench.instructions import measure
from bench.runner import MAIN_MODEL, Server

__all__ = ["BASELINE", "MODES", "check", "main", "without_valgrind"]

#: The committed baseline: instructions per model call, by mode.
BASELINE: Final = Path(__file__).resolve().parent / "baseline.json"
#: The modes the gate measures.
MODES: Final = ("async", "stream")
_ROOT: Final = Path(__file__).resolve().parent.parent


def check(measured: dict[str, float], baseline: dict[str, float], tolerance: float) -> list[str]:
    """The lines saying which modes grew past ``tolerance`` (empty: the gate passes)."""
    failures = []
    for mode, count in measured.items():
        allowed = baseline[mode] * (1 + tolerance)
        if count > allowed:
            growth = count / baseline[mode] - 1
            failures.append(
                f"{mode}: {count:,.0f} instructions per model call, {growth:+.1%} over the "
                f"baseline {baseline[mode]:,.0f} (allowed: {allowed:,.0f})"
            )
    return failures


def without_valgrind(environ: Mapping[str, str]) -> int:
    """The exit status when valgrind is missing: 0, or 4 in CI (unless skipped on purpose);
    the reason is printed."""
    if environ.get("CI") and environ.get("OSTINATO_BENCH_GATE") != "skip":
        print(
            "bench.gate: FAILED valgrind is not installed, so the regression gate cannot run "
            "in CI\nfix: install valgrind (scripts/install-valgrind as root, or apt-get "
            "install valgrind), or set OSTINATO_BENCH_GATE=skip to run CI without the gate",
            file=sys.stderr,
        )
        return 4
    print("bench.gate: skipped, valgrind is not installed (apt-get install valgrind)")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(prog="python -m bench.gate", description=__doc__)
    parser.add_argument("--update", action="store_true", help="write the baseline instead")
    parser.add_argument("--tolerance", type=float, default=0.03)
    parser.add_argument("--conversations", type=int, default=10)
    parser.add_argument(
        "--baseline", type=Path, default=BASELINE, help="the counts to compare against"
    )
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        return without_valgrind(os.environ)
    options = argparse.Namespace(
        contender="ostinato",
        model=MAIN_MODEL,
        measure="instructions",
        conversations=args.conversations,
        history=0,
        top=0,
        keep=None,
    )
    measured: dict[str, float] = {}
    server = Server([], {**os.environ})
    try:
        for mode in MODES:
            options.mode = mode
            measured[mode] = measure(_ROOT, options, server.base_url)["instructions"]
            print(f"bench.gate: {mode} {measured[mode]:,.0f} instructions per model call")
    finally:
        server.close()
    if args.update:
        counts = {m: round(c) for m, c in measured.items()}
        args.baseline.write_text(json.dumps(counts, indent=2) + "\n")
        print(f"bench.gate: baseline written to {args.baseline}")
        return 0
    baseline = json.loads(args.baseline.read_text())
    failures = check(measured, baseline, args.tolerance)
    for line in failures:
        print(f"bench.gate: FAILED {line}", file=sys.stderr)
    if not failures:
        print(f"bench.gate: within {args.tolerance:.0%} of {args.baseline.name}")
    return 3 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
