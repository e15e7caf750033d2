"""Profile one contender against the fake server, in process, with pyinstrument or py-spy.

``python -m bench.profiling [--contender ostinato] [--mode async] [--concurrency 1]
[--conversations 200] [--history 0] [--tool pyinstrument|py-spy]``

pyinstrument prints its call tree (``--html FILE`` writes the interactive page); py-spy
re-runs this command under ``py-spy record`` and writes a speedscope/flamegraph file
(``--output``). The server runs in its own process, pinned like in the benchmark.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.contenders import CONTENDERS, load
from bench.probes import probe_env
from bench.runner import MAIN_MODEL, Server, _pinning
from bench.scenario import Scenario
from bench.worker import run_batch

__all__ = ["main"]


def _drive(args: argparse.Namespace, base_url: str) -> None:
    contender = load(args.contender)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    loop.run_until_complete(contender.setup(base_url))
    batch = {
        "mode": args.mode,
        "model": args.model,
        "conversations": args.conversations,
        "concurrency": args.concurrency,
        "history": args.history,
    }
    run_batch(contender, loop, **{**batch, "conversations": 3})  # warm-up
    if args.tool == "pyinstrument":
        from pyinstrument import Profiler

        profiler = Profiler(interval=0.0002, async_mode="disabled")
        with profiler:
            result = run_batch(contender, loop, **batch)
        if args.html:
            Path(args.html).write_text(profiler.output_html())
        print(profiler.output_text(unicode=True, color=False, show_all=False))
    else:
        result = run_batch(contender, loop, **batch)
    calls = args.conversations * Scenario.parse(args.model).model_calls
    print(
        f"{args.contender} {args.mode}: {result['wall_s'] / calls * 1e6:,.0f} µs wall, "
        f"{result['cpu_s'] / calls * 1e6:,.0f} µs CPU per model call "
        f"({'profiled' if args.tool == 'pyinstrument' else 'not profiled'})",
        file=sys.stderr,
    )
    if result["wrong"]:
        raise SystemExit(f"wrong answers: {result['wrong']!r}")
    loop.run_until_complete(contender.aclose())


def main(argv: list[str] | None = None) -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(prog="python -m bench.profiling", description=__doc__)
    parser.add_argument("--contender", default="ostinato", choices=list(CONTENDERS))
    parser.add_argument("--mode", default="async")
    parser.add_argument("--model", default=MAIN_MODEL)
    parser.add_argument("--conversations", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--history", type=int, default=0)
    parser.add_argument(
        "--tool", default="pyinstrument", choices=["pyinstrument", "py-spy", "none"]
    )
    parser.add_argument("--html", help="pyinstrument: also write the HTML report here")
    parser.add_argument("--output", default="profile.speedscope.json", help="py-spy's output")
    parser.add_argument("--base-url", help=argparse.SUPPRESS)  # set when re-run under py-spy
    args = parser.parse_args(argv)
    if args.base_url:
        _drive(args, args.base_url)
        return
    client_pin, server_pin, _ = _pinning()
    with tempfile.TemporaryDirectory() as pycache:
        env = probe_env(pycache)
        server = Server(server_pin, env)
        try:
            if args.tool == "py-spy":
                py_spy = shutil.which("py-spy")
                if py_spy is None:
                    raise SystemExit("py-spy is not installed (uv sync --group bench)")
                inner = [sys.executable, "-m", "bench.profiling", *(argv or sys.argv[1:])]
                inner += ["--tool", "none", "--base-url", server.base_url]
                fmt = "speedscope" if args.output.endswith(".json") else "flamegraph"
                subprocess.run(
                    [
                        *client_pin,
                        py_spy,
                        "record",
                        "--rate",
                        "2000",
                        "--format",
                        fmt,
                        "--output",
                        args.output,
                        "--",
                        *inner,
                    ],
                    check=True,
                    env={**os.environ, **env},
                )
            else:
                if client_pin:
                    os.sched_setaffinity(0, {int(client_pin[-1])})
                _drive(args, server.base_url)
        finally:
            server.close()


if __name__ == "__main__":
    main()
