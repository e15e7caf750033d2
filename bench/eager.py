"""The early-start scenario: one streamed turn whose first round asks for three read-only
calls, its events paced as a real model's tokens arrive, with and without
``EffectPolicy(eager_start=True)``.

The fake server (its own process) streams round 1 (three ``nap`` calls sleeping 100, 75
and 50 ms, their arguments in fragments) one event every ``PACE_MS``, then the answer
the same way. Without early start the tools run after the round ends (the round's
stream, then the longest tool); with it each call starts once its arguments are whole
(its closing brace, or the next call's first fragment), so the round takes about
max(stream, tools). A third variant gives the floor: the same turn with tools that take
no time (``nap`` answering at once), i.e. the two streams alone; no early start can go
under it, so the saving is at most the tool phase's share of the turn. Turns alternate
the variants and each number is the median of its turns; the transcript (the answer and
the messages the model is sent in round 2) must be the same every way.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from dataclasses import dataclass
from typing import Any

from bench.runner import Server
from bench.scenario import QUESTION, Scenario

__all__ = ["EagerResults", "measure_eager", "render_eager"]

PACE_MS = 15
SCENARIO = Scenario(1, 3, 50, fine=True, pace_ms=PACE_MS)
VARIANTS = ("tools after the round", "eager start", "floor: tools taking no time")


@dataclass(frozen=True)
class EagerResults:
    """Seconds per turn of each variant, and whether the transcripts were the same."""

    per_turn_s: dict[str, list[float]]
    same_transcript: bool


async def _turns(base_url: str, turns: int) -> EagerResults:
    from ostinato import ChatClient, tool
    from ostinato.advisors import ToolCallingAdvisor
    from ostinato.events import LoopEvent, RoundStarted
    from ostinato.tools import DefaultToolCallingManager, EffectPolicy
    from ostinato_openai import OpenAIChatModel

    @tool(description="Sleep for ms milliseconds, then return ms.", effect="read_only")
    async def nap(ms: int) -> int:
        await asyncio.sleep(ms / 1000)
        return ms

    @tool(name="nap", description="Sleep for ms milliseconds, then return ms.", effect="read_only")
    async def no_nap(ms: int) -> int:
        return ms

    clients = {}
    for variant in VARIANTS:
        manager = DefaultToolCallingManager(
            effects=EffectPolicy(eager_start=variant == VARIANTS[1])
        )
        model = OpenAIChatModel(model=SCENARIO.model, base_url=base_url, api_key="bench")
        clients[variant] = (
            ChatClient.builder(model)
            .tool_advisor(ToolCallingAdvisor(tool_calling_manager=manager))
            .default_tools(no_nap if variant == VARIANTS[2] else nap)
            .build()
        )
    seconds: dict[str, list[float]] = {v: [] for v in VARIANTS}
    transcripts: dict[str, set[Any]] = {v: set() for v in VARIANTS}
    for n in range(turns + 1):  # the first turn of each warms up
        for variant in VARIANTS if n % 2 else tuple(reversed(VARIANTS)):
            events: list[LoopEvent] = []
            spec = clients[variant].prompt(QUESTION).listener(events.append)
            began = time.perf_counter()
            text = "".join([piece async for piece in spec.stream().acontent()])
            took = time.perf_counter() - began
            if text != SCENARIO.answer():
                raise AssertionError(f"{variant}: wrong answer {text!r}")
            sent = next(e for e in events if isinstance(e, RoundStarted) and e.round == 2)
            transcripts[variant].add((text, tuple(m.to_dict().__repr__() for m in sent.messages)))
            if n:
                seconds[variant].append(took)
    same = len(set().union(*transcripts.values())) == 1
    return EagerResults(seconds, same)


def measure_eager(server: Server, turns: int = 15) -> EagerResults:
    """Run the scenario against ``server`` (``turns`` measured turns per variant)."""
    return asyncio.run(_turns(server.base_url, turns))


def render_eager(results: EagerResults) -> str:
    """A markdown table: median seconds per turn of each variant, and the saving."""
    medians = {v: statistics.median(s) for v, s in results.per_turn_s.items()}
    plain, eager, floor = (medians[v] for v in VARIANTS)
    lines = [
        f"Early start: a streamed round asking for 3 read-only calls (100, 75, 50 ms), "
        f"its events {PACE_MS} ms apart; median of {len(results.per_turn_s[VARIANTS[0]])} "
        "turns.",
        "",
        "| variant | s per turn |",
        "|---|---|",
        *(f"| {v} | {medians[v]:.3f} |" for v in VARIANTS),
        "",
        f"Early start takes {100 * (1 - eager / plain):.0f}% less time per turn (at most "
        f"{100 * (1 - floor / plain):.0f}%: the floor); it hides "
        f"{100 * (plain - eager) / max(plain - floor, 1e-9):.0f}% of the tool phase; "
        f"transcripts identical: {'yes' if results.same_transcript else 'NO'}.",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    import os

    fake = Server([], dict(os.environ))
    try:
        print(render_eager(measure_eager(fake)))
    finally:
        fake.close()
