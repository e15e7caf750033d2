"""Load-independent cost per model call: instructions (valgrind), Python calls, CPU time.

``python -m bench.instructions [--contender ostinato] [--mode async] [--measure
instructions|calls|cpu] [--tree PATH] [--conversations 20] [--history 0]``

Wall-clock timings need a quiet machine; these measures do not. Each measurement runs
the contender in a fresh client process against the benchmark's fake server (its own
process, started once), warms it with a few conversations, then runs the batch:

* ``instructions``: the client under ``valgrind --tool=callgrind``, which dumps its
  counts each time ``time.process_time`` is entered; ``run_batch`` reads it right before
  and right after the batch, so one dump holds exactly the batch's instructions (start-up,
  imports and warm-up excluded). Repeatable to a fraction of a percent whatever else the
  machine runs (``PYTHONHASHSEED`` is fixed). Slow: about a minute of CPU per run.
* ``calls``: Python function calls per model call (``cProfile`` over the batch, in the
  calling thread: not for ``sync``), and the functions that take the most time
  (``--top``).
* ``cpu``: the client process's CPU time per model call over the batch (the lowest of
  ``--repeat`` runs).

``--tree`` runs another checkout's code (its ``.venv`` and its ``bench`` contenders, e.g.
a ``git worktree`` of an older commit) against the same server, to compare two versions;
several ``--tree`` options give one line each. The client process uses only
``bench.contenders.load`` and ``bench.worker.run_batch``, which every version has.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Final

from bench.runner import MAIN_MODEL, Server
from bench.scenario import Scenario

__all__ = ["client_code", "main", "measure"]

_ROOT: Final = Path(__file__).resolve().parent.parent
_WARM_UP: Final = 3

#: What runs in the client process (in the tree under test, with its own ``bench``).
_CLIENT: Final = """
import asyncio, json, sys
from bench.contenders import load
from bench.worker import run_batch
name, mode, model, base_url, conversations, warm_up, profile, top, history = sys.argv[1:10]
contender = load(name)
loop = asyncio.new_event_loop()
asyncio.set_event_loop(loop)
loop.run_until_complete(contender.setup(base_url))
batch = dict(mode=mode, model=model, concurrency=1, history=int(history))
run_batch(contender, loop, conversations=int(warm_up), **batch)
if profile == "1":
    import cProfile, pstats
    profiler = cProfile.Profile()
    profiler.enable()
result = run_batch(contender, loop, conversations=int(conversations), **batch)
if profile == "1":
    profiler.disable()
    stats = pstats.Stats(profiler)
    result["calls"] = stats.total_calls
    rows = sorted(stats.stats.items(), key=lambda item: -item[1][2])[: int(top)]
    result["top"] = [
        [f"{path}:{line}({function})", calls, tottime, cumtime]
        for (path, line, function), (_, calls, tottime, cumtime, _) in rows
    ]
loop.run_until_complete(contender.aclose())
print("RESULT " + json.dumps(result), flush=True)
"""


def client_code() -> str:
    """The client process's program (``python -c``), for reading or reuse."""
    return _CLIENT


def _python(tree: Path) -> str:
    """The interpreter of ``tree``'s own environment (which imports its own code)."""
    if tree == _ROOT:
        return sys.executable
    python = tree / ".venv" / "bin" / "python"
    if not python.exists():
        raise SystemExit(
            f"{tree} has no .venv: run `uv sync --all-packages` there first (with this "
            "checkout's interpreter it would measure this checkout's code)"
        )
    return str(python)


def _run_client(
    tree: Path,
    args: argparse.Namespace,
    base_url: str,
    conversations: int,
    *,
    profile: bool = False,
    callgrind_out: str | None = None,
) -> dict[str, Any]:
    command = [
        _python(tree),
        "-c",
        _CLIENT,
        args.contender,
        args.mode,
        args.model,
        base_url,
        str(conversations),
        str(_WARM_UP),
        "1" if profile else "0",
        str(args.top),
        str(args.history),
    ]
    if callgrind_out is not None:
        command = [*_valgrind(callgrind_out), *command]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PYTHONHASHSEED"] = "0"
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    line = next((x for x in done.stdout.splitlines() if x.startswith("RESULT ")), None)
    if done.returncode != 0 or line is None:
        raise SystemExit(f"the client failed in {tree}:\n{done.stderr[-4000:]}")
    result: dict[str, Any] = json.loads(line[len("RESULT ") :])
    if result["wrong"]:
        raise SystemExit(f"wrong answers in {tree}: {result['wrong']!r}")
    return result


def _valgrind(callgrind_out: str) -> list[str]:
    return [
        "valgrind",
        "--tool=callgrind",
        "--dump-instr=no",
        # run_batch reads process_time right before and right after the batch: a dump at
        # each entry cuts out exactly the batch (the 4th dump).
        "--dump-before=time_process_time",
        f"--callgrind-out-file={callgrind_out}",
    ]


def _instructions(path: str) -> int:
    with open(path) as output:
        for line in output:
            match = re.match(r"(?:summary|totals):\s+(\d+)", line)
            if match:
                return int(match.group(1))
    raise SystemExit(f"no instruction total in {path}")


def measure(tree: Path, args: argparse.Namespace, base_url: str) -> dict[str, Any]:
    """One tree's numbers per model call, for ``args.measure``."""
    calls = Scenario.parse(args.model).model_calls
    if args.measure == "instructions":
        with tempfile.TemporaryDirectory() as folder:
            out = os.path.join(folder, "callgrind")
            _run_client(tree, args, base_url, args.conversations, callgrind_out=out)
            dumps = sorted(Path(folder).glob("callgrind.*"))
            if len(dumps) != 4:
                raise SystemExit(
                    f"expected 4 callgrind dumps (one per process_time call), got {len(dumps)}"
                )
            batch = _instructions(os.path.join(folder, "callgrind.4"))
            if args.keep is not None:
                args.keep.mkdir(parents=True, exist_ok=True)
                name = f"callgrind.{tree.name}.{args.contender}.{args.mode}"
                shutil.copy(os.path.join(folder, "callgrind.4"), args.keep / name)
        return {"instructions": batch / (args.conversations * calls)}
    if args.measure == "calls":
        result = _run_client(tree, args, base_url, args.conversations, profile=True)
        model_calls = args.conversations * calls
        return {
            "python calls": result["calls"] / model_calls,
            "top": [
                [name, n / model_calls, tottime / model_calls * 1e6, cumtime / model_calls * 1e6]
                for name, n, tottime, cumtime in result["top"]
            ],
        }
    runs = [
        _run_client(tree, args, base_url, args.conversations)["cpu_s"] for _ in range(args.repeat)
    ]
    return {"cpu µs": min(runs) / (args.conversations * calls) * 1e6}


def main(argv: list[str] | None = None) -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(prog="python -m bench.instructions", description=__doc__)
    parser.add_argument("--contender", default="ostinato")
    parser.add_argument("--mode", default="async", help="async, stream, sync, ...")
    parser.add_argument("--model", default=MAIN_MODEL)
    parser.add_argument(
        "--measure", default="instructions", choices=["instructions", "calls", "cpu"]
    )
    parser.add_argument("--conversations", type=int, default=20)
    parser.add_argument(
        "--history", type=int, default=0, help="earlier messages each conversation starts after"
    )
    parser.add_argument("--repeat", type=int, default=5, help="cpu: runs, the lowest counts")
    parser.add_argument("--top", type=int, default=25, help="calls: functions listed")
    parser.add_argument(
        "--tree", type=Path, action="append", help="a checkout to measure (default: this one)"
    )
    parser.add_argument(
        "--keep",
        type=Path,
        help="instructions: keep the batch's callgrind file in this folder "
        "(read it with callgrind_annotate)",
    )
    args = parser.parse_args(argv)
    if args.measure == "instructions" and shutil.which("valgrind") is None:
        raise SystemExit(
            "valgrind is not installed: install it (apt-get install valgrind), or use --measure cpu"
        )
    if args.measure == "calls" and args.mode == "sync":
        raise SystemExit(
            "--measure calls profiles the calling thread only, and the sync mode runs on "
            "ostinato's private loop thread: use --measure instructions or cpu"
        )
    trees = [tree.resolve() for tree in args.tree or [_ROOT]]
    server = Server([], {**os.environ})
    try:
        for tree in trees:
            result = measure(tree, args, server.base_url)
            label = f"{tree} {args.contender} {args.mode}"
            top = result.pop("top", None)
            numbers = ", ".join(f"{k} {v:,.0f}" for k, v in result.items())
            print(f"{label}: {numbers} per model call")
            for name, n, tottime, cumtime in top or ():
                print(f"    {n:8.2f} calls {tottime:8.1f} µs own {cumtime:8.1f} µs cum  {name}")
    finally:
        server.close()


if __name__ == "__main__":
    main()
