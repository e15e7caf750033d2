"""The cold path: what a fresh process pays before and during its first turn.

``python -m bench.cold [--runs 7] [--quick] [--attribute]``

Each run is a new interpreter (bytecode already compiled, interpreter start-up not
counted) in the environment running it, so in the workspace every plugin is installed,
and measures, on the fake model (``bench-k3-p2``: 4 model calls per turn, httpx engine):

* ``import ostinato``;
* the ready auto-configured client: ``import ostinato`` then ``ostinato.chat_client()``
  (every installed plugin loaded, the OpenAI model from ``OSTINATO_MODEL``);
* the first turn of the process, then five more (*warm*): the first minus the median
  warm one is what being cold costs a turn.

Medians over the runs. ``--attribute`` adds one ``-X importtime`` run of the ready client
and prints the milliseconds each plugin's hooks imported, by top-level package (the rest
is core's). Targets (issue 42): import ≤ 60 ms, ready client ≤ 250 ms, first turn within
20 ms of a warm one.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Final

from bench.probes import probe_env
from bench.runner import Server

__all__ = ["STEPS", "ColdResults", "attribute", "main", "measure_cold", "render_cold"]

#: The environment of the probes: the fake model, and the default tool advisor pinned
#: (the workspace also installs a replacement one).
_ENV: Final = {
    "OSTINATO_MODEL": "openai:bench-k3-p2",
    "OSTINATO_OPENAI_API_KEY": "bench",
    "OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR": "default",
    "OSTINATO_HTTP_ENGINE": "httpx",
}

_PROBE: Final = """
import time as _t
_start, _cpu = _t.perf_counter(), _t.process_time()
import ostinato
_import, _import_cpu = _t.perf_counter() - _start, _t.process_time() - _cpu
client = ostinato.chat_client()
_ready, _ready_cpu = _t.perf_counter() - _start, _t.process_time() - _cpu
import asyncio, json

@ostinato.tool(description="Add two integers.")
async def add(a: int, b: int) -> int:
    return a + b

async def _turns():
    times, cpu = [], []
    for _ in range(6):
        t0, c0 = _t.perf_counter(), _t.process_time()
        answer = await client.prompt("Add the numbers").tools(add).call().acontent()
        times.append(_t.perf_counter() - t0)
        cpu.append(_t.process_time() - c0)
        assert answer, answer
    return times, cpu

(turns, cpu) = asyncio.run(_turns())
print(json.dumps({
    "import": _import, "ready": _ready, "first": turns[0], "warm": turns[1:],
    "import_cpu": _import_cpu, "ready_cpu": _ready_cpu, "first_cpu": cpu[0], "warm_cpu": cpu[1:],
}))
"""


#: What each run measures, in the order of the report.
STEPS: Final = ("import", "ready", "first", "warm")


@dataclass(frozen=True, slots=True)
class ColdResults:
    """Medians in milliseconds over ``runs`` fresh processes, by step (:data:`STEPS`):
    wall-clock time, and the process's CPU time (steadier on a busy machine)."""

    runs: int
    wall: dict[str, float]
    cpu: dict[str, float]
    modules: int


def _env(base_url: str, pycache: str) -> dict[str, str]:
    env = probe_env(pycache)
    env.update(_ENV)
    env["OSTINATO_OPENAI_BASE_URL"] = base_url
    return env


def measure_cold(server: Server, *, runs: int = 7) -> ColdResults:
    """Run the probe in ``runs`` fresh interpreters (after one that fills the bytecode
    cache) against ``server``; medians.

    Raises:
        RuntimeError: a probe failed (its stderr is in the message).
    """
    with tempfile.TemporaryDirectory() as pycache:
        env = _env(server.base_url, pycache)
        samples: dict[str, list[float]] = defaultdict(list)
        for index in range(runs + 1):
            done = subprocess.run(
                [sys.executable, "-c", _PROBE],
                capture_output=True,
                text=True,
                env=env,
                timeout=120,
                check=False,
            )
            if done.returncode != 0:
                raise RuntimeError(f"cold probe failed (exit {done.returncode}):\n{done.stderr}")
            if not index:
                continue
            seen = json.loads(done.stdout.strip().splitlines()[-1])
            for key in STEPS:
                for suffix in ("", "_cpu"):
                    value = seen[key + suffix]
                    value = statistics.median(value) if key == "warm" else value
                    samples[key + suffix].append(value * 1000)
        modules = _modules_loaded(env)
    return ColdResults(
        runs=runs,
        wall={key: statistics.median(samples[key]) for key in STEPS},
        cpu={key: statistics.median(samples[key + "_cpu"]) for key in STEPS},
        modules=modules,
    )


def _modules_loaded(env: dict[str, str]) -> int:
    code = "import sys, ostinato; ostinato.chat_client(); print(len(sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    return int(done.stdout.strip())


_ROW: Final = re.compile(r"import time:\s+(\d+) \|\s+\d+ \|( *)(\S+)")


def attribute(importtime: str) -> dict[str, Counter[str]]:
    """Microseconds of import by owner (``core``, or the plugin package whose code
    imported it) and top-level package, from ``-X importtime`` output."""
    rows = [
        (len(m.group(2)) // 2, m.group(3), int(m.group(1)))
        for m in map(_ROW.match, importtime.splitlines())
        if m
    ]
    # A module is listed after what it imported, one level deeper: a row's owner is the
    # plugin package found first among it and the rows that imported it.
    owners: dict[str, Counter[str]] = defaultdict(Counter)
    for index, (depth, name, micros) in enumerate(rows):
        chain, level = [name], depth
        for later_depth, later, _ in rows[index + 1 :]:
            if later_depth < level:
                chain.append(later)
                level = later_depth
        owner = next(
            (n.split(".")[0] for n in chain if n.startswith("ostinato_")),
            "core",
        )
        owners[owner][name.split(".")[0]] += micros
    return owners


def _attribution(base_url: str) -> str:
    with tempfile.TemporaryDirectory() as pycache:
        env = _env(base_url, pycache)
        code = "import ostinato; ostinato.chat_client()"
        for _ in range(2):  # the first run fills the bytecode cache
            done = subprocess.run(
                [sys.executable, "-X", "importtime", "-c", code],
                capture_output=True,
                text=True,
                env=env,
                check=True,
            )
    lines = ["| imported by | ms | largest top-level packages (ms) |", "| --- | ---: | --- |"]
    owners = attribute(done.stderr)
    for owner, packages in sorted(owners.items(), key=lambda kv: -sum(kv[1].values())):
        top = ", ".join(f"{p} {us / 1000:.1f}" for p, us in packages.most_common(6))
        lines.append(f"| {owner} | {sum(packages.values()) / 1000:.1f} | {top} |")
    return "\n".join(lines)


def render_cold(results: ColdResults, attribution: str | None = None) -> str:
    """The report section (Markdown)."""
    wall, cpu = results.wall, results.cpu
    rows = [
        ("`import ostinato`", wall["import"], cpu["import"], "≤ 60 ms"),
        (
            "ready auto-configured client (every plugin installed)",
            wall["ready"],
            cpu["ready"],
            "≤ 250 ms",
        ),
        ("first turn of the process (4 model calls)", wall["first"], cpu["first"], ""),
        ("warm turn (median of the next five)", wall["warm"], cpu["warm"], ""),
        (
            "first turn minus warm turn",
            wall["first"] - wall["warm"],
            cpu["first"] - cpu["warm"],
            "≤ 20 ms",
        ),
    ]
    lines = [
        f"## Cold path — fresh process, {results.runs} runs, medians",
        "",
        "`python -m bench.cold`: each run a new interpreter in the workspace environment "
        "(every plugin installed), bytecode compiled, interpreter start-up not counted; "
        f"httpx engine, `bench-k3-p2`. The ready client has {results.modules} modules loaded.",
        "",
        "| what | wall ms | CPU ms | goal |",
        "| --- | ---: | ---: | ---: |",
        *(f"| {what} | {ms:,.1f} | {c:,.1f} | {goal} |" for what, ms, c, goal in rows),
    ]
    if attribution:
        lines += ["", "Where the ready client's imports go (one `-X importtime` run):", ""]
        lines.append(attribution)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(prog="python -m bench.cold", description=__doc__)
    parser.add_argument("--runs", type=int, default=7, help="fresh processes (default 7)")
    parser.add_argument("--quick", action="store_true", help="3 runs")
    parser.add_argument(
        "--attribute", action="store_true", help="add what each plugin imports (-X importtime)"
    )
    args = parser.parse_args(argv)
    server = Server([], {**os.environ})
    try:
        results = measure_cold(server, runs=3 if args.quick else args.runs)
        attribution = _attribution(server.base_url) if args.attribute else None
    finally:
        server.close()
    print(render_cold(results, attribution))
    return 0


if __name__ == "__main__":
    sys.exit(main())
