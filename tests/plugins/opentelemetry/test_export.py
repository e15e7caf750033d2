"""Export over real OTLP/HTTP, set up from the ``OTEL_*`` variables, in child processes
(the SDK's providers can be set once per process): spans and metrics reach a loopback
receiver that decodes the protobuf payloads, and an exporter that cannot deliver never
slows a turn."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from tests.plugins.opentelemetry.receiver import OtlpReceiver, SilentServer
from tests.servers import free_port

CHILD = Path(__file__).with_name("export_child.py")


def _run_child(
    turns: int, env: Mapping[str, str], *mode: str
) -> tuple[subprocess.CompletedProcess[str], float]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "OSTINATO_"))}
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(CHILD), str(turns), *mode],
        capture_output=True,
        text=True,
        env={**clean, **env},
        timeout=120,
        check=False,
    )
    return done, time.perf_counter() - began


def _slowest(done: subprocess.CompletedProcess[str]) -> float:
    assert done.returncode == 0, done.stderr
    [line] = [x for x in done.stdout.splitlines() if x.startswith("slowest ")]
    return float(line.split()[1])


def test_spans_and_metrics_reach_an_otlp_http_receiver() -> None:
    with OtlpReceiver() as receiver:
        done, _ = _run_child(
            2,
            {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url, "OTEL_SERVICE_NAME": "weather-bot"},
        )
        _slowest(done)  # the child exits after flushing: everything has arrived

    names = sorted(name for _, name, _ in receiver.spans)
    assert (
        names
        == ["chat", "chat", "chat", "chat"] + ["execute_tool weather"] * 2 + ["invoke_agent"] * 2
    )
    assert {service for service, _, _ in receiver.spans} == {"weather-bot"}
    chat = next(attributes for _, name, attributes in receiver.spans if name == "chat")
    assert chat["gen_ai.operation.name"] == "chat"
    assert chat["gen_ai.provider.name"] == "openai"
    assert chat["gen_ai.usage.input_tokens"] in (5, 9)
    assert {"gen_ai.client.operation.duration", "gen_ai.client.token.usage"} <= set(
        receiver.metrics
    )


_EAGER_EXPORT = {
    # Export as soon as spans end, so exports run during the turns; give up after 1 s.
    "OTEL_BSP_SCHEDULE_DELAY": "1",
    "OTEL_EXPORTER_OTLP_TIMEOUT": "1",
    "OTEL_METRICS_EXPORTER": "none",
}


def _ten_eager_turns(endpoint: str, meanwhile: str, *mode: str) -> subprocess.CompletedProcess[str]:
    """Ten turns exporting eagerly to ``endpoint``: none takes 0.5 s (``meanwhile`` says
    what the export met), nor the process 30 s to exit."""
    done, seconds = _run_child(
        10, {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, **_EAGER_EXPORT}, *mode
    )
    slowest = _slowest(done)
    assert slowest < 0.5, f"a turn took {slowest:.3f} s while {meanwhile}"
    assert seconds < 30, f"the process took {seconds:.1f} s to exit"
    return done


def _reported_once(done: subprocess.CompletedProcess[str], failure: str) -> None:
    failures = [line for line in done.stderr.splitlines() if failure in line]
    assert len(failures) == 1, done.stderr  # reported once, not per batch
    assert "repeats of this are not logged" in failures[0]


def test_a_dead_port_never_slows_a_turn() -> None:
    done = _ten_eager_turns(f"http://127.0.0.1:{free_port()}", "spans went to a dead port")
    _reported_once(done, "Failed to export")


def test_a_collector_that_never_answers_never_slows_a_turn() -> None:
    with SilentServer() as server:
        _ten_eager_turns(server.url, "the collector never answered")


def test_an_exporter_that_raises_never_slows_a_turn_and_is_reported_once() -> None:
    with OtlpReceiver() as receiver:
        done = _ten_eager_turns(receiver.url, "the exporter raised", "raise")
    _reported_once(done, "Exception while exporting")
    assert "RuntimeError: the exporter broke" in done.stderr
    assert receiver.spans == []
