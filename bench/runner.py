"""The benchmark run: server and workers up, interleaved batches, verification, report.

1. Start the fake server pinned to one core and one worker process per contender pinned
   to another (``taskset``, where it exists and two cores are available).
2. Warm every *cell* (contender x mode x scenario x history x concurrency) once, then run
   ``repetitions`` rounds; each round runs every cell once, in alternating order (A B C,
   then C B A...), so drift in the machine's speed hits every contender alike.
3. After each batch, compare the server's ``/stats`` with what the batch must have caused
   (requests, streamed requests, tool rounds, answers, verified tool results) and the
   answers with the scenario's; any difference stops the run with an error.
4. Fresh processes measure import time, time to a ready client, and peak RSS with many
   concurrent conversations.
5. Medians, min/max and ratios to the floor (the hand-written httpx loop) measured in the
   same run go to ``bench/results.md`` and stdout.

Run: ``python -m bench`` (``--quick`` for the CI smoke run; ``--help`` for the knobs).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from bench.contenders import CONTENDERS, PEERS
from bench.probes import (
    IMPORT_PROBES,
    READY_PROBES,
    ImportProbe,
    clean_python,
    probe_env,
    time_probe,
)
from bench.scenario import Scenario

__all__ = ["BenchmarkFailure", "Cell", "Settings", "run"]

MAIN_MODEL = "bench-k3-p2"
#: The same conversation streamed as many small events (one per word or argument fragment).
FINE_MODEL = "bench-k3-p2-w"
TOOL_BATCH_MODEL = "bench-k1-p8-s100"


class BenchmarkFailure(RuntimeError):
    """A batch did not do what it had to (wrong call counts, wrong answers, a crash)."""


@dataclass(frozen=True, slots=True)
class Settings:
    """How much to measure.

    Attributes:
        repetitions: measured rounds over every cell (after one warm-up round).
        conversations: conversations per batch in the sequential cells.
        concurrent: conversations started at once in the concurrency cells.
        tool_batch_conversations: conversations per batch in the tool-batch cells.
        history_sizes: earlier messages in the history-growth cells.
        history_conversations: conversations per batch in the history-growth cells.
        import_runs: fresh interpreters per import/ready probe.
        peers: the peer frameworks to include.
        peer_concurrency: whether the peers run the concurrency cell too (off by default:
            at 5-10x the floor's cost per call it would take most of the run).
        peer_probes: whether the peers get fresh-process probes (import time, memory).
    """

    repetitions: int = 9
    conversations: int = 25
    concurrent: int = 200
    tool_batch_conversations: int = 3
    history_sizes: tuple[int, ...] = (10, 100, 200, 400)
    history_conversations: int = 10
    import_runs: int = 7
    peers: tuple[str, ...] = PEERS
    peer_concurrency: bool = False
    peer_probes: bool = True

    @classmethod
    def quick(cls) -> Settings:
        """The CI smoke run: every code path, few repetitions (well under 2 minutes)."""
        return cls(
            repetitions=3,
            conversations=5,
            concurrent=200,
            tool_batch_conversations=1,
            history_sizes=(10, 400),
            history_conversations=3,
            import_runs=2,
            peer_probes=False,
        )


@dataclass(frozen=True, slots=True)
class Cell:
    """One kind of batch: who runs what, how, and what it is compared with."""

    group: str
    contender: str
    mode: str
    model: str
    conversations: int
    concurrency: int = 1
    history: int = 0
    baseline: str | None = None  # the key of the floor cell it is compared with

    @property
    def key(self) -> str:
        """A unique, readable identifier."""
        parts = [self.group, self.contender, self.mode]
        if self.history:
            parts.append(f"h{self.history}")
        return "/".join(parts)

    @property
    def scenario(self) -> Scenario:
        """The conversation it runs."""
        return Scenario.parse(self.model)

    @property
    def model_calls(self) -> int:
        """Model requests one batch makes."""
        return self.conversations * self.scenario.model_calls


@dataclass
class Samples:
    """What the measured batches of one cell gave."""

    per_call_s: list[float] = field(default_factory=list)
    cpu_per_call_s: list[float] = field(default_factory=list)
    gap_ms: list[float] = field(default_factory=list)


def build_cells(settings: Settings) -> list[Cell]:
    """Every cell of a run, floors first in each group."""
    n = settings.conversations
    cells: list[Cell] = []
    # Per model call, one conversation at a time.
    for mode in ("async", "stream", "sync", "async-sync-tool"):
        cells.append(Cell("per-call", "floor", mode, MAIN_MODEL, n))
        floor = cells[-1].key
        cells.append(Cell("per-call", "ostinato", mode, MAIN_MODEL, n, baseline=floor))
    floor_async = "per-call/floor/async"
    # What watching the loop costs: the async cell with one event listener.
    cells.append(
        Cell("per-call", "ostinato", "async-listener", MAIN_MODEL, n, baseline=floor_async)
    )
    # The aiohttp engine: its own floor, ostinato on it compared with that floor (the sync
    # face with the blocking httpx floor).
    for mode in ("async", "stream"):
        plain = f"per-call/floor/{mode}"
        cells.append(Cell("per-call", "floor-aiohttp", mode, MAIN_MODEL, n, baseline=plain))
        floor = cells[-1].key
        cells.append(Cell("per-call", "ostinato-aiohttp", mode, MAIN_MODEL, n, baseline=floor))
    cells.append(
        Cell("per-call", "ostinato-aiohttp", "sync", MAIN_MODEL, n, baseline="per-call/floor/sync")
    )
    cells.extend(
        Cell("per-call", peer, "async", MAIN_MODEL, n, baseline=floor_async)
        for peer in settings.peers
    )
    # Many small events: one per word or argument fragment, on each engine.
    for suffix in ("", "-aiohttp"):
        plain = "per-event/floor/stream" if suffix else None
        cells.append(Cell("per-event", f"floor{suffix}", "stream", FINE_MODEL, n, baseline=plain))
        floor = cells[-1].key
        cells.append(
            Cell("per-event", f"ostinato{suffix}", "stream", FINE_MODEL, n, baseline=floor)
        )
    # Many conversations at once (every row compared with the plain httpx floor).
    c = settings.concurrent
    cells.append(Cell("concurrent", "floor", "async", MAIN_MODEL, c, concurrency=c))
    floor_c = cells[-1].key
    concurrent = [
        "floor-aiohttp",
        "ostinato",
        "ostinato-aiohttp",
        *(settings.peers if settings.peer_concurrency else ()),
    ]
    cells.extend(
        Cell("concurrent", name, "async", MAIN_MODEL, c, concurrency=c, baseline=floor_c)
        for name in concurrent
    )
    # One round of 8 tools sleeping 100 ms.
    t = settings.tool_batch_conversations
    cells.extend(
        Cell("tool-batch", name, "async", TOOL_BATCH_MODEL, t)
        for name in ("floor", "ostinato", *settings.peers)
    )
    # History growth.
    for size in settings.history_sizes:
        h = settings.history_conversations
        cells.append(Cell("history", "floor", "async", MAIN_MODEL, h, history=size))
        cells.append(
            Cell(
                "history",
                "ostinato",
                "async",
                MAIN_MODEL,
                h,
                history=size,
                baseline=cells[-1].key,
            )
        )
    return cells


# -- processes ---------------------------------------------------------------------------


def _pinning() -> tuple[list[str], list[str], str]:
    """taskset prefixes for (client, server), and a note for the report."""
    taskset = shutil.which("taskset")
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = []
    if taskset is None or len(cpus) < 2:
        return [], [], "not pinned (taskset or a second core is missing)"
    client, server = cpus[0], cpus[1]
    return (
        [taskset, "-c", str(client)],
        [taskset, "-c", str(server)],
        f"client on CPU {client}, server on CPU {server} (taskset)",
    )


class Server:
    """The fake model server in its own process."""

    def __init__(self, pin: Sequence[str], env: dict[str, str]) -> None:
        self._proc = subprocess.Popen(
            [*pin, sys.executable, "-m", "bench.server", "--port", "0", "--watch-stdin"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline().split()
        if len(line) != 2 or line[0] != "listening":
            raise BenchmarkFailure(f"the fake server did not start (it said {line!r})")
        self.port = int(line[1])
        self.base_url = f"http://127.0.0.1:{self.port}/v1"

    def _request(self, method: str, path: str) -> dict[str, Any]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request(method, path)
            response = connection.getresponse()
            result: dict[str, Any] = json.loads(response.read())
            return result
        finally:
            connection.close()

    def reset(self) -> None:
        """Zero the server's counts."""
        self._request("POST", "/stats/reset")

    def stats(self) -> dict[str, Any]:
        """The server's counts since the last reset."""
        return self._request("GET", "/stats")

    def close(self) -> None:
        """Stop the server."""
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()


class Worker:
    """One contender's process (see :mod:`bench.worker`)."""

    def __init__(self, name: str, pin: Sequence[str], env: dict[str, str]) -> None:
        self.name = name
        self._proc = subprocess.Popen(
            [*pin, sys.executable, "-m", "bench.worker", name],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )

    def ask(self, op: str, **arguments: Any) -> dict[str, Any]:
        """Send one command and wait for its reply.

        Raises:
            BenchmarkFailure: the worker died or replied with an error.
        """
        stdin: IO[str] | None = self._proc.stdin
        stdout: IO[str] | None = self._proc.stdout
        assert stdin is not None
        assert stdout is not None
        try:
            stdin.write(json.dumps({"op": op, **arguments}) + "\n")
            stdin.flush()
        except BrokenPipeError:
            raise BenchmarkFailure(f"worker {self.name} died") from None
        line = stdout.readline()
        if not line:
            raise BenchmarkFailure(f"worker {self.name} died (exit {self._proc.wait()})")
        reply: dict[str, Any] = json.loads(line)
        if "error" in reply:
            raise BenchmarkFailure(
                f"worker {self.name} failed on {op} {arguments}:\n{reply['error']}"
            )
        return reply

    def close(self) -> None:
        """Ask the worker to quit; kill it if it does not."""
        with contextlib.suppress(BenchmarkFailure, OSError, ValueError):
            self.ask("quit")
        try:
            self._proc.wait(10)
        except subprocess.TimeoutExpired:
            self._proc.kill()


# -- verification ------------------------------------------------------------------------


def expected_stats(cell: Cell) -> dict[str, int]:
    """The server counts one batch of ``cell`` must produce."""
    scenario, n = cell.scenario, cell.conversations
    return {
        "requests": n * scenario.model_calls,
        "stream_requests": n * scenario.model_calls if cell.mode == "stream" else 0,
        "tool_rounds": n * scenario.rounds,
        "answers": n,
        "tool_results_ok": n * scenario.tool_calls,
        "tool_results_bad": 0,
        "errors": 0,
    }


def verify(cell: Cell, stats: dict[str, Any], reply: dict[str, Any]) -> None:
    """Fail loudly unless the batch made exactly the expected calls and answers.

    Raises:
        BenchmarkFailure: naming each count that differs.
    """
    expected = expected_stats(cell)
    wrong = [
        f"  {key}: expected {value}, the server saw {stats.get(key)}"
        for key, value in expected.items()
        if stats.get(key) != value
    ]
    if reply.get("answers") != cell.conversations:
        wrong.append(
            f"  answers returned: expected {cell.conversations}, got {reply.get('answers')}"
        )
    if reply.get("wrong"):
        wrong.append(
            f"  wrong final answers (expected {cell.scenario.answer()!r}): {reply['wrong']!r}"
        )
    if wrong:
        raise BenchmarkFailure(
            f"{cell.key}: the loop did not run as the scenario {cell.model} requires\n"
            + "\n".join(wrong)
        )


# -- the run -----------------------------------------------------------------------------


@dataclass
class Results:
    """Everything a run measured (what the report is made from)."""

    settings: Settings
    cells: list[Cell]
    samples: dict[str, Samples]
    versions: dict[str, str]
    imports: dict[tuple[str, str], list[float]]
    ready: dict[tuple[str, str], list[float]]
    memory: dict[str, dict[str, int]]
    clean_env: bool
    pinning: str
    started: str
    duration_s: float = 0.0


def _run_cell(cell: Cell, worker: Worker, server: Server) -> dict[str, Any]:
    server.reset()
    reply = worker.ask(
        "run",
        mode=cell.mode,
        model=cell.model,
        conversations=cell.conversations,
        concurrency=cell.concurrency,
        history=cell.history,
    )
    stats = server.stats()
    verify(cell, stats, reply)
    reply["gaps_ms"] = stats["gaps_ms"]
    return reply


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def measure(
    settings: Settings, cells: Sequence[Cell], server: Server, workers: dict[str, Worker]
) -> dict[str, Samples]:
    """Warm every cell once, then run the interleaved, repeated rounds."""
    samples = {cell.key: Samples() for cell in cells}
    _log(f"warming up {len(cells)} cells")
    for cell in cells:
        _run_cell(cell, workers[cell.contender], server)
    for repetition in range(settings.repetitions):
        order = cells if repetition % 2 == 0 else list(reversed(cells))
        started = time.perf_counter()
        for cell in order:
            reply = _run_cell(cell, workers[cell.contender], server)
            sample = samples[cell.key]
            sample.per_call_s.append(reply["wall_s"] / cell.model_calls)
            sample.cpu_per_call_s.append(reply["cpu_s"] / cell.model_calls)
            if reply["gaps_ms"]:
                sample.gap_ms.append(statistics.median(reply["gaps_ms"]))
        _log(
            f"round {repetition + 1}/{settings.repetitions} done in "
            f"{time.perf_counter() - started:.1f} s"
        )
    return samples


def measure_memory(
    names: Sequence[str], concurrent: int, server: Server, pin: Sequence[str], env: dict[str, str]
) -> dict[str, dict[str, int]]:
    """Peak RSS of a fresh worker per contender running ``concurrent`` conversations at once."""
    memory = {}
    cell_for = {
        name: Cell("memory", name, "async", MAIN_MODEL, concurrent, concurrency=concurrent)
        for name in names
    }
    for name in names:
        worker = Worker(name, pin, env)
        try:
            worker.ask("setup", base_url=server.base_url)
            warm = Cell("memory", name, "async", MAIN_MODEL, 1)
            _run_cell(warm, worker, server)
            idle = worker.ask("memory")
            _run_cell(cell_for[name], worker, server)
            peak = worker.ask("memory")
        finally:
            worker.close()
        memory[name] = {"idle_kb": idle["rss_kb"], "peak_kb": peak["peak_rss_kb"]}
        _log(f"memory {name}: idle {idle['rss_kb']} KiB, peak {peak['peak_rss_kb']} KiB")
    return memory


@contextlib.contextmanager
def _processes(
    names: Sequence[str], client_pin: Sequence[str], server_pin: Sequence[str], env: dict[str, str]
) -> Iterator[tuple[Server, dict[str, Worker]]]:
    server = Server(server_pin, env)
    workers: dict[str, Worker] = {}
    try:
        for name in names:
            workers[name] = Worker(name, client_pin, env)
        yield server, workers
    finally:
        for worker in workers.values():
            worker.close()
        server.close()


def run(settings: Settings) -> Results:
    """Measure everything ``settings`` asks for.

    Raises:
        BenchmarkFailure: a batch did not run the loop as required, or a process failed.
    """
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    t0 = time.perf_counter()
    client_pin, server_pin, pinning = _pinning()
    cells = build_cells(settings)
    names = [name for name in CONTENDERS if name in {c.contender for c in cells}]
    with tempfile.TemporaryDirectory() as pycache:
        env = probe_env(pycache)
        with _processes(names, client_pin, server_pin, env) as (server, workers):
            versions = {}
            for name, worker in workers.items():
                versions[name] = worker.ask("setup", base_url=server.base_url)["version"]
            samples = measure(settings, cells, server, workers)
            for worker in workers.values():
                worker.close()
            workers.clear()
            probed = [n for n in names if settings.peer_probes or n not in PEERS]
            _log("peak memory")
            memory = measure_memory(probed, settings.concurrent, server, client_pin, env)
            _log("import times")
            clean = clean_python(pycache)

            def timings(probe: ImportProbe) -> list[float]:
                return time_probe(
                    probe,
                    runs=settings.import_runs,
                    base_url=server.base_url,
                    pin=client_pin,
                    pycache=pycache,
                    python=clean if probe.clean else None,
                )

            imports = {
                (p.contender, p.what): timings(p) for p in IMPORT_PROBES if p.contender in probed
            }
            ready = {
                (p.contender, p.what): timings(p) for p in READY_PROBES if p.contender in probed
            }
    return Results(
        settings=settings,
        cells=cells,
        samples=samples,
        versions=versions,
        imports=imports,
        ready=ready,
        memory=memory,
        clean_env=clean is not None,
        pinning=pinning,
        started=started,
        duration_s=time.perf_counter() - t0,
    )


def results_path(*, quick: bool = False) -> Path:
    """Where the report goes: ``bench/results.md`` (``bench/results-quick.md`` for the
    smoke run, which is not kept)."""
    return Path(__file__).resolve().parent / ("results-quick.md" if quick else "results.md")
