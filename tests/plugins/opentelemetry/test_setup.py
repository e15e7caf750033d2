"""Which exporters the standard ``OTEL_*_EXPORTER`` variables choose: ``otlp``,
``console`` and ``none`` in comma-separated lists, anything else logged once; and the
console exporter showing a turn's spans on stderr without a collector (in a child
process, since the SDK's providers can be set once per process)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ostinato_opentelemetry import _setup
from ostinato_opentelemetry._setup import chosen_exporters, export_requested

CHILD = Path(__file__).with_name("export_child.py")
_VARIABLES = (
    "OTEL_SDK_DISABLED",
    "OTEL_TRACES_EXPORTER",
    "OTEL_METRICS_EXPORTER",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
)


@pytest.fixture(autouse=True)
def no_otel_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(_setup, "_warned", set())


@pytest.mark.parametrize(
    ("traces", "chosen"),
    [
        ("console", ("console",)),
        ("Console", ("console",)),
        ("otlp,console", ("otlp", "console")),
        (" console , otlp ", ("console", "otlp")),
        ("none", ()),
        ("console,console", ("console",)),
    ],
)
def test_the_standard_values_and_lists(
    monkeypatch: pytest.MonkeyPatch, traces: str, chosen: tuple[str, ...]
) -> None:
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", traces)
    assert chosen_exporters("TRACES") == chosen
    assert export_requested() is bool(chosen)


def test_nothing_set_exports_nothing() -> None:
    assert chosen_exporters("TRACES") == chosen_exporters("METRICS") == ()
    assert not export_requested()


def test_an_endpoint_alone_exports_both_signals_over_otlp(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
    assert chosen_exporters("TRACES") == chosen_exporters("METRICS") == ("otlp",)
    monkeypatch.setenv("OTEL_METRICS_EXPORTER", "none")
    assert chosen_exporters("METRICS") == ()
    assert export_requested()


def test_console_traces_send_no_metrics_to_a_collector_nobody_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "console")
    assert chosen_exporters("METRICS") == ()
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "otlp")
    assert chosen_exporters("METRICS") == ("otlp",)


def test_sdk_disabled_exports_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "console")
    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    assert not export_requested()


def test_an_unknown_value_is_logged_once_saying_what_to_set(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "consol,otlp")
    with caplog.at_level(logging.WARNING, logger="ostinato_opentelemetry"):
        assert chosen_exporters("TRACES") == ("otlp",)
        assert chosen_exporters("TRACES") == ("otlp",)
    (record,) = caplog.records
    message = record.getMessage()
    assert "OTEL_TRACES_EXPORTER='consol,otlp': unknown exporter 'consol', ignored" in message
    assert "expected otlp / console / none" in message
    assert "\nfix: set OTEL_TRACES_EXPORTER to a comma-separated list of otlp, console" in message


def test_a_standard_value_the_plugin_does_not_set_up_is_logged(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("OTEL_METRICS_EXPORTER", "prometheus")
    with caplog.at_level(logging.WARNING, logger="ostinato_opentelemetry"):
        assert chosen_exporters("METRICS") == ()
        assert not export_requested()
    message = caplog.records[0].getMessage()
    assert "names 'prometheus', a standard exporter ostinato-opentelemetry does not" in message
    assert "fix: set up the SDK yourself" in message


def _json_objects(text: str) -> list[dict[str, Any]]:
    """The JSON objects in ``text``, skipping what is not one."""
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] = []
    at = text.find("{")
    while at >= 0:
        try:
            value, end = decoder.raw_decode(text, at)
        except json.JSONDecodeError:
            at = text.find("{", at + 1)
            continue
        if isinstance(value, dict):
            found.append(value)
        at = text.find("{", end)
    return found


def test_console_shows_a_turns_spans_on_stderr_without_a_collector() -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "OSTINATO_"))}
    done = subprocess.run(
        [sys.executable, str(CHILD), "1"],
        capture_output=True,
        text=True,
        env={**clean, "OTEL_TRACES_EXPORTER": "console", "OTEL_SERVICE_NAME": "weather-bot"},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("slowest ")  # the spans stay off stdout
    spans = [o for o in _json_objects(done.stderr) if "context" in o and "name" in o]
    names = sorted(span["name"] for span in spans)
    assert names == ["chat", "chat", "execute_tool weather", "invoke_agent"]
    assert {span["resource"]["attributes"]["service.name"] for span in spans} == {"weather-bot"}
    assert len({span["context"]["trace_id"] for span in spans}) == 1
    # nothing was sent anywhere, so nothing failed to be
    assert "Failed to export" not in done.stderr and "Traceback" not in done.stderr
