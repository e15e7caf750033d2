"""Running one request through a tool advisor on every path, and what came out.

A *way* is a path (``call`` or ``stream``) and a face (``sync`` or ``async``). For the
call path the events are a listener's; for the stream path they are ``events()`` /
``aevents()``'s. :func:`run_way` gives back a :class:`Run`: the events and the answer's
text. The async face runs in a fresh event loop (``asyncio.run``), so kit tests are plain
functions. This module must not check anything (the suite does).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ostinato.client import ChatClient, ChatClientRequestSpec
from ostinato.events import (
    LoopEnded,
    LoopEvent,
    TextDelta,
    ToolCallDelta,
    ToolFinished,
)

__all__ = ["PATHS", "WAYS", "Run", "comparable", "run_way"]

PATHS = ("call", "stream")
WAYS = (("call", "sync"), ("call", "async"), ("stream", "sync"), ("stream", "async"))


@dataclass
class Run:
    """What one way of running a request produced."""

    path: str
    face: str
    events: list[LoopEvent] = field(default_factory=list)
    text: str | None = None
    error: BaseException | None = None

    @property
    def ended(self) -> LoopEnded:
        """The last event, which must be :class:`LoopEnded`."""
        last = self.events[-1] if self.events else None
        assert isinstance(last, LoopEnded), (
            f"the last event of a turn must be LoopEnded, got {last!r} ({self.path}/{self.face})"
        )
        return last

    def of(self, kind: type[LoopEvent]) -> list[Any]:
        """The events of one class, in order."""
        return [e for e in self.events if isinstance(e, kind)]


def run_way(
    path: str,
    face: str,
    make_spec: Callable[[ChatClient], ChatClientRequestSpec],
    client: ChatClient,
) -> Run:
    """Run ``make_spec(client)`` once, on ``path`` with ``face``; a raised error is kept
    in :attr:`Run.error` (events emitted before it are kept too)."""
    run = Run(path, face)
    spec = make_spec(client)
    try:
        if path == "call":
            spec.listener(run.events.append)
            if face == "sync":
                run.text = spec.call().content()
            else:
                run.text = asyncio.run(spec.call().acontent())
        elif face == "sync":
            for event in spec.stream().events():
                run.events.append(event)
        else:

            async def collect() -> None:
                async for event in spec.stream().aevents():
                    run.events.append(event)

            asyncio.run(collect())
    except Exception as error:  # kept for the suite to check
        run.error = error
    if path == "stream":
        run.text = "".join(e.text for e in run.of(TextDelta)) if run.events else None
    return run


def comparable(events: Sequence[LoopEvent]) -> list[LoopEvent]:
    """``events`` without the stream-only deltas, durations set to 0 (what call and
    stream must agree on)."""
    out: list[LoopEvent] = []
    for event in events:
        if isinstance(event, TextDelta | ToolCallDelta):
            continue
        if isinstance(event, ToolFinished):
            event = replace(event, duration=0.0)
        out.append(event)
    return out
