"""The OpenTelemetry scenario: a two-round tool turn without the plugin, instrumented with
no SDK (the API's no-op providers), instrumented with the SDK exporting to memory, and
the same with advisor spans on (measured last: turning them on installs a process-wide
advisor scope).

A turn is ``client.prompt(question).call().acontent()`` on a model that asks for one
tool, then answers, both at once: what is measured is ostinato's turn and the
instrumentation's three spans (four with the tool's), two model call measurements and
their token counts. Rounds are interleaved and each variant's number is the median of
its rounds. The SDK is installed only after the no-SDK rounds (a process sets it once).
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

from ostinato import ChatClient, tool
from ostinato.model import ChatResponse
from ostinato.prompt import Prompt, ToolCallingChatOptions
from ostinato.testing import text_response, tool_call, tool_call_response

__all__ = ["OpenTelemetryResults", "measure_opentelemetry", "render_opentelemetry"]

VARIANTS = (
    "without plugin",
    "plugin, no SDK",
    "plugin, SDK to memory",
    "plugin, SDK to memory, advisor spans",
)


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return key.upper()


class _ToolThenAnswer:
    """Asks for ``lookup`` when the last message is the user's, then answers."""

    default_options = ToolCallingChatOptions(model="bench-model")

    async def call(self, prompt: Prompt) -> ChatResponse:
        if prompt.messages[-1].message_type.value == "user":
            return tool_call_response(tool_call("lookup", {"key": "k"}, id="c"), usage=(9, 3, 12))
        return text_response("Done.", usage=(20, 2, 22))

    async def stream(self, prompt: Prompt) -> AsyncIterator[ChatResponse]:
        yield await self.call(prompt)


@dataclass(frozen=True)
class OpenTelemetryResults:
    """Seconds per turn of each variant, one value per measured round."""

    per_turn_s: dict[str, list[float]]
    turns_per_round: int

    def median(self, variant: str) -> float:
        """The median seconds per turn of ``variant``."""
        return statistics.median(self.per_turn_s[variant])


async def _round(client: ChatClient, turns: int) -> float:
    start = time.perf_counter()
    for _ in range(turns):
        await client.prompt("question").call().acontent()
    return (time.perf_counter() - start) / turns


def _clients() -> tuple[ChatClient, ChatClient]:
    from ostinato_opentelemetry import instrument

    plain = ChatClient.builder(_ToolThenAnswer()).default_tools(lookup).build()
    builder = ChatClient.builder(_ToolThenAnswer()).default_tools(lookup)
    return plain, instrument(builder, provider_name="bench").build()


def _advised() -> ChatClient:
    from ostinato_opentelemetry import OpenTelemetrySettings, instrument

    builder = ChatClient.builder(_ToolThenAnswer()).default_tools(lookup)
    settings = OpenTelemetrySettings(advisor_spans=True)
    return instrument(builder, provider_name="bench", settings=settings).build()


async def _measure(turns: int, repetitions: int) -> dict[str, list[float]]:
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from ostinato_opentelemetry import uninstrument_tools

    samples: dict[str, list[float]] = {name: [] for name in VARIANTS}
    plain, instrumented = _clients()
    for client in (plain, instrumented):
        await _round(client, turns)  # warm-up
    for repetition in range(repetitions):
        pair = ((VARIANTS[0], plain), (VARIANTS[1], instrumented))
        for name, client in pair if repetition % 2 == 0 else pair[::-1]:
            samples[name].append(await _round(client, turns))
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    metrics.set_meter_provider(MeterProvider(metric_readers=[InMemoryMetricReader()]))
    await _round(instrumented, turns)
    for _ in range(repetitions):
        samples[VARIANTS[2]].append(await _round(instrumented, turns))
        exporter.clear()
    advised = _advised()
    await _round(advised, turns)
    exporter.clear()
    for _ in range(repetitions):
        samples[VARIANTS[3]].append(await _round(advised, turns))
        exporter.clear()
    uninstrument_tools()
    return samples


def measure_opentelemetry(*, quick: bool = False) -> OpenTelemetryResults:
    """Run the OpenTelemetry scenario in this process."""
    turns, repetitions = (100, 3) if quick else (1000, 7)
    return OpenTelemetryResults(asyncio.run(_measure(turns, repetitions)), turns)


def render_opentelemetry(results: OpenTelemetryResults) -> str:
    """The OpenTelemetry section of the report, as Markdown."""
    base = results.median(VARIANTS[0])
    lines = [
        "## OpenTelemetry — a two-round tool turn, instrumented",
        "",
        "One turn (`call().acontent()`): the model asks for one tool, then answers, at "
        f"once. {results.turns_per_round} turns per round, median of "
        f"{len(results.per_turn_s[VARIANTS[0]])} rounds. The ratio is to the same turn "
        "without the plugin; with the SDK, spans go to an in-memory exporter through a "
        "simple (synchronous) span processor, and the two histograms to an in-memory reader.",
        "",
        "| variant | µs per turn | added µs | ratio |",
        "|---|---:|---:|---:|",
    ]
    for name in VARIANTS:
        median = results.median(name)
        lines.append(
            f"| {name} | {median * 1e6:.0f} | {(median - base) * 1e6:+.0f} | {median / base:.2f} |"
        )
    return "\n".join(lines) + "\n"
