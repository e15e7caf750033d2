"""The Markdown report of a run: tables, ratios to the floor, and the targets' verdicts.

Every ratio compares numbers measured in the same run. Per-call ratios are the median of
the per-round ratios (each contender's batch divided by the floor's batch of the same
round), which cancels drift in the machine's speed better than a ratio of medians.
"""

from __future__ import annotations

import os
import platform
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from bench.runner import FINE_MODEL, MAIN_MODEL, TOOL_BATCH_MODEL, Cell, Results, Samples
from bench.scenario import Scenario

__all__ = ["Target", "render", "targets"]


@dataclass(frozen=True, slots=True)
class Target:
    """One goal of the issue, with what this run measured."""

    what: str
    goal: str
    measured: str
    met: bool | None  # None: not measured in this run


def _median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:,.0f}"


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.1f}"


def _mib(kib: float) -> str:
    return f"{kib / 1024:,.1f}"


def _verdict(met: bool | None) -> str:
    return {True: "met", False: "**missed**", None: "not measured"}[met]


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    right = ["---:" if i else "---" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(right) + " |"]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return lines


class _View:
    """Look-ups over a run's results."""

    def __init__(self, results: Results) -> None:
        self.results = results
        self.cells = {cell.key: cell for cell in results.cells}

    def samples(self, cell: Cell) -> Samples:
        return self.results.samples[cell.key]

    def ratio(self, cell: Cell) -> float | None:
        """Median of the per-round ratios to the baseline (``None`` without one)."""
        if cell.baseline is None:
            return 1.0 if cell.contender == "floor" else None
        mine = self.samples(cell).per_call_s
        floor = self.results.samples[cell.baseline].per_call_s
        return _median([a / b for a, b in zip(mine, floor)])

    def find(
        self, group: str, contender: str, mode: str = "async", history: int = 0
    ) -> Cell | None:
        key = "/".join([group, contender, mode, *([f"h{history}"] if history else [])])
        return self.cells.get(key)


#: (what, group, contender, mode, most × its baseline): ostinato against the floor on the
#: same engine; the sync face against the blocking httpx floor.
_RATIO_TARGETS = (
    ("per model call, async", "per-call", "ostinato", "async", 1.15),
    ("per model call, async, aiohttp engine", "per-call", "ostinato-aiohttp", "async", 1.15),
    ("per model call, stream", "per-call", "ostinato", "stream", 1.25),
    ("per model call, stream, aiohttp engine", "per-call", "ostinato-aiohttp", "stream", 1.25),
    ("many small events, stream", "per-event", "ostinato", "stream", 1.25),
    ("many small events, stream, aiohttp engine", "per-event", "ostinato-aiohttp", "stream", 1.25),
    ("per model call, sync", "per-call", "ostinato", "sync", 1.35),
    ("per model call, sync, aiohttp engine", "per-call", "ostinato-aiohttp", "sync", 1.35),
)


def targets(results: Results) -> list[Target]:
    """The issue's targets, judged on ``results``."""
    view = _View(results)
    found: list[Target] = []

    def ratio_target(what: str, cell: Cell | None, limit: float) -> None:
        ratio = view.ratio(cell) if cell is not None else None
        found.append(
            Target(
                what,
                f"≤ {limit:.2f}× floor",
                "—" if ratio is None else f"{ratio:.2f}×",
                None if ratio is None else ratio <= limit,
            )
        )

    for what, group, contender, mode, limit in _RATIO_TARGETS:
        ratio_target(what, view.find(group, contender, mode), limit)
    for contender in ("ostinato", "ostinato-aiohttp"):
        engine = ", aiohttp engine" if contender != "ostinato" else ""
        ratio_target(
            f"per model call, {results.settings.concurrent} concurrent{engine}",
            view.find("concurrent", contender),
            1.00,
        )
    for key, label, limit in ((("ostinato", "import ostinato"), "`import ostinato`", 0.060),):
        timings = results.imports.get(key)
        value = _median(timings) if timings else None
        found.append(
            Target(
                label,
                f"≤ {limit * 1000:.0f} ms",
                "—" if value is None else f"{value * 1000:.0f} ms (median)",
                None if value is None else value <= limit,
            )
        )
    ready = results.ready.get(
        (
            "ostinato",
            "ostinato.chat_client(), workspace venv (every plugin and group installed)",
        )
    )
    value = _median(ready) if ready else None
    found.append(
        Target(
            "ready auto-configured client, every plugin installed",
            "≤ 250 ms",
            "—" if value is None else f"{value * 1000:.0f} ms (median)",
            None if value is None else value <= 0.250,
        )
    )
    memory = results.memory
    if "ostinato" in memory and "floor" in memory:
        ratio = memory["ostinato"]["peak_kb"] / memory["floor"]["peak_kb"]
        found.append(
            Target(
                f"peak RSS, {results.settings.concurrent} concurrent",
                "≤ 1.50× floor",
                f"{ratio:.2f}×",
                ratio <= 1.5,
            )
        )
    batch = view.find("tool-batch", "ostinato")
    gap = _median(view.samples(batch).gap_ms) if batch is not None else None
    found.append(
        Target(
            "8 concurrent 100 ms tools",
            "≤ 130 ms",
            "—" if gap is None else f"{gap:.1f} ms",
            None if gap is None else gap <= 130,
        )
    )
    sizes = results.settings.history_sizes
    cost = [view.find("history", name, history=n) for name in ("ostinato", "floor") for n in sizes]
    if len(sizes) >= 2 and all(c is not None for c in cost):
        ours = [_median(view.samples(c).per_call_s) for c in cost[: len(sizes)] if c]
        floors = [_median(view.samples(c).per_call_s) for c in cost[len(sizes) :] if c]
        ratio = ours[-1] / ours[0]
        found.append(
            Target(
                f"cost per iteration, {sizes[-1]} vs {sizes[0]} history messages",
                "≤ 1.30×",
                f"{ratio:.2f}× (floor: {floors[-1] / floors[0]:.2f}×)",
                ratio <= 1.30,
            )
        )
    growth = history_overheads(view)
    if len(growth) >= 2:
        (small, first), (large, last) = growth[0], growth[-1]
        label = f"overhead per iteration, {large} vs {small} history messages"
        if first > 0:
            ratio = last / first
            found.append(
                Target(
                    label, "≤ 2.00×", f"{ratio:.2f}× ({_us(first)} → {_us(last)} µs)", ratio <= 2.0
                )
            )
        else:
            # No overhead at the small size (ostinato at or under the floor): a ratio to it
            # means nothing; the target holds while the large size has none either.
            found.append(
                Target(
                    label,
                    "≤ 2.00×",
                    f"none at either size ({_us(first)} → {_us(last)} µs)"
                    if last <= 0
                    else f"none → {_us(last)} µs",
                    last <= 0,
                )
            )
    return found


def fine_event_count() -> int:
    """How many events one conversation of the many-small-events scenario streams."""
    from bench.server import FakeModelServer

    scenario, server = Scenario.parse(FINE_MODEL), FakeModelServer()
    messages: list[dict[str, object]] = [{"role": "user", "content": "q"}]
    count = 0
    for round_index in range(scenario.model_calls):
        body = {"model": FINE_MODEL, "messages": messages, "tools": [{"function": {"name": "add"}}]}
        _, events, _ = server.completion({**body, "stream": True})
        count += len(events) - 1  # the body's empty last chunk is not an event
        if round_index < scenario.rounds:
            calls = server._tool_calls(scenario, round_index)
            messages = [*messages, {"role": "assistant", "tool_calls": calls}]
            messages += [
                {
                    "role": "tool",
                    "tool_call_id": c["id"],
                    "content": str(scenario.result(round_index, i)),
                }
                for i, c in enumerate(calls)
            ]
    return count


def history_overheads(view: _View) -> list[tuple[int, float]]:
    """``(history size, ostinato's overhead per model call in s)``, smallest size first."""
    rows = []
    for size in view.results.settings.history_sizes:
        ours, floor = (
            view.find("history", "ostinato", history=size),
            view.find("history", "floor", history=size),
        )
        if ours is None or floor is None:
            continue
        rows.append(
            (size, _median(view.samples(ours).per_call_s) - _median(view.samples(floor).per_call_s))
        )
    return rows


def _event_cost(view: _View) -> list[str]:
    """One line: ostinato's time and CPU per model call with one event listener over
    without (CPU is the steadier measure on a busy machine)."""
    plain = view.find("per-call", "ostinato", "async")
    watched = view.find("per-call", "ostinato", "async-listener")
    if plain is None or watched is None:
        return []
    without, with_one = view.samples(plain), view.samples(watched)
    wall, cpu = _median(without.per_call_s), _median(without.cpu_per_call_s)
    if not wall or not cpu:
        return []
    wall_one, cpu_one = _median(with_one.per_call_s), _median(with_one.cpu_per_call_s)
    return [
        "",
        f"Loop events: with one listener, ostinato's `async` path takes {wall_one / wall:.2f}× "
        f"the time ({_us(wall_one)} vs {_us(wall)} µs) and {cpu_one / cpu:.2f}× the CPU "
        f"({_us(cpu_one)} vs {_us(cpu)} µs) per model call.",
    ]


def _machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}"


def render(results: Results) -> str:
    """The whole report as Markdown."""
    view = _View(results)
    s = results.settings
    main, batch = Scenario.parse(MAIN_MODEL), Scenario.parse(TOOL_BATCH_MODEL)
    fine_events = fine_event_count()
    out: list[str] = [
        "# Benchmark results",
        "",
        f"Run {results.started}, {results.duration_s:.0f} s; {_machine()}; {results.pinning}.",
        f"{s.repetitions} measured rounds after one warm-up, interleaved; "
        f"{s.conversations} conversations per sequential batch.",
        "Versions: " + "; ".join(dict.fromkeys(results.versions.values())) + ".",
        "",
        f"## Per model call — `{MAIN_MODEL}`, one conversation at a time",
        "",
        f"{main.rounds} rounds of {main.parallel} parallel `add` calls, then the answer: "
        f"{main.model_calls} model calls per conversation. Time per model call is the "
        "batch's wall time divided by its model calls; CPU is the client process's.",
        "",
    ]
    out += _contender_table(results, view, "per-call", with_mode=True)
    out += [
        "",
        "`async-sync-tool` writes `add` as a plain function: frameworks run it on a thread "
        "pool (the floor too, with `run_in_executor`). `async-listener` is `async` with one "
        "loop-event listener on each request.",
        *_event_cost(view),
        "`floor-aiohttp` is the floor's loop on aiohttp's engine under httpx's API "
        "(`httpx_aiohttp`), compared with the plain floor; `ostinato-aiohttp` is ostinato with "
        '`http_engine="aiohttp"`, compared with the aiohttp floor (its `sync` row with the '
        "blocking httpx floor).",
        "",
        f"## Many small events — `{FINE_MODEL}`, streamed",
        "",
        "The same conversation streamed as a model streams tokens: the answer word by word, "
        "each tool's arguments three characters at a time, each event written to the socket "
        f"on its own ({fine_events} events per conversation). ostinato's rows are compared "
        "with the floor on the same engine, the aiohttp floor with the plain one.",
        "",
    ]
    out += _contender_table(results, view, "per-event")
    out += [
        "",
        f"## {s.concurrent} concurrent conversations",
        "",
        f"{s.concurrent} conversations of `{MAIN_MODEL}` started at once on one event loop; "
        "time per model call is wall time divided by all their model calls.",
        "",
    ]
    out += _contender_table(results, view, "concurrent")
    out += [
        "",
        f"## Tool batch — `{TOOL_BATCH_MODEL}`: {batch.parallel} tools sleeping "
        f"{batch.sleep_ms} ms in one round",
        "",
        "The client's time between the two rounds, as the server sees it: from writing the "
        "tool-call reply to receiving the next request (parsing, running the batch, building "
        "and sending the next request).",
        "",
    ]
    rows = []
    for cell in results.cells:
        if cell.group != "tool-batch":
            continue
        gaps = view.samples(cell).gap_ms
        rows.append(
            [cell.contender, f"{_median(gaps):.1f}", f"{min(gaps):.1f}", f"{max(gaps):.1f}"]
        )
    out += _table(["contender", "ms (median)", "min", "max"], rows)
    out += [
        "",
        "## History growth — per-iteration overhead",
        "",
        f"`{MAIN_MODEL}` after N earlier messages; overhead is ostinato's time per model call "
        "minus the floor's at the same N (both send, and the server parses, the same history).",
        "",
    ]
    rows = []
    growth = dict(history_overheads(view))
    first = next(iter(growth.values()), None)
    for size in s.history_sizes:
        ours, floor = (
            view.find("history", "ostinato", history=size),
            view.find("history", "floor", history=size),
        )
        if ours is None or floor is None:
            continue
        overhead = growth[size]
        rows.append(
            [
                str(size),
                _us(_median(view.samples(floor).per_call_s)),
                _us(_median(view.samples(ours).per_call_s)),
                _us(overhead),
                "—" if not first or first <= 0 else f"{overhead / first:.2f}×",
            ]
        )
    out += _table(
        [
            "history messages",
            "floor µs/call",
            "ostinato µs/call",
            "overhead µs/call",
            "vs smallest",
        ],
        rows,
    )
    out += [
        "",
        f"## Start-up — fresh interpreter, {s.import_runs} runs each",
        "",
        "From a bare interpreter (start-up itself not counted), bytecode already compiled. "
        + (
            "`import ostinato`, `ostinato.chat_client()` and the by-hand client run in a fresh "
            "virtual environment holding only ostinato and ostinato-openai, as a user installs "
            "them; the workspace row shows the cost with every plugin and dependency group "
            "installed."
            if results.clean_env
            else "Every row runs in the workspace environment (uv was not found to make a clean "
            "one), so ostinato's rows include every installed plugin."
        ),
        "",
    ]
    rows = []
    for (contender, what), timings in [*results.imports.items(), *results.ready.items()]:
        rows.append(
            [
                contender,
                f"`{what}`" if what.startswith("import") else what,
                _ms(_median(timings)),
                _ms(min(timings)),
                _ms(max(timings)),
            ]
        )
    out += _table(["contender", "what", "ms (median)", "min", "max"], rows)
    out += [
        "",
        f"## Peak memory — {s.concurrent} concurrent conversations",
        "",
        "A fresh process per contender: set up, one conversation, then "
        f"{s.concurrent} at once. Peak is the process's maximum RSS.",
        "",
    ]
    rows = []
    floor_peak = results.memory.get("floor", {}).get("peak_kb")
    for name, memory in results.memory.items():
        rows.append(
            [
                name,
                _mib(memory["idle_kb"]),
                _mib(memory["peak_kb"]),
                _mib(memory["peak_kb"] - memory["idle_kb"]),
                f"{memory['peak_kb'] / floor_peak:.2f}×" if floor_peak else "—",
            ]
        )
    out += _table(
        ["contender", "RSS before (MiB)", "peak RSS (MiB)", "growth (MiB)", "× floor"], rows
    )
    out += ["", "## Targets", ""]
    out += _table(
        ["target", "goal", "measured", "verdict"],
        [[t.what, t.goal, t.measured, _verdict(t.met)] for t in targets(results)],
    )
    return "\n".join(out) + "\n"


def _contender_table(
    results: Results, view: _View, group: str, *, with_mode: bool = False
) -> list[str]:
    """The table of one group's cells: one row per contender (and mode, ``with_mode``),
    ratios to its floor."""
    rows = []
    for cell in results.cells:
        if cell.group != group:
            continue
        sample = view.samples(cell)
        ratio = view.ratio(cell)
        rows.append(
            [
                cell.contender,
                *([cell.mode] if with_mode else []),
                _us(_median(sample.per_call_s)),
                _us(min(sample.per_call_s)),
                _us(max(sample.per_call_s)),
                "—" if ratio is None else f"{ratio:.2f}×",
                _us(_median(sample.cpu_per_call_s)),
            ]
        )
    header = ["contender", *(["mode"] if with_mode else []), "µs/call (median)", "min", "max"]
    return _table([*header, "× floor", "CPU µs/call"], rows)
