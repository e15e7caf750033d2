"""``end_span``: how every span of a turn or a model call ends — status and
``error.type`` after a failure, then ended, and never raising."""

from __future__ import annotations

import logging

import pytest
from opentelemetry.trace import SpanKind, StatusCode

from ostinato_opentelemetry import OpenTelemetrySettings
from ostinato_opentelemetry._telemetry import Telemetry, end_span, start_span
from tests.plugins.opentelemetry.conftest import Recorded


def _telemetry() -> Telemetry:
    return Telemetry.create(OpenTelemetrySettings(), "openai")


def test_a_span_ended_after_a_failure_says_so(recorded: Recorded) -> None:
    telemetry = _telemetry()
    span = start_span(telemetry.tracer, "work", SpanKind.INTERNAL, {})
    end_span(telemetry, span, ValueError("no such city"), "ending a test span")
    (ended,) = recorded.spans()
    assert ended.attributes is not None and ended.attributes["error.type"] == "ValueError"
    assert ended.status.status_code is StatusCode.ERROR
    assert ended.status.description == "no such city"


def test_a_span_ended_without_a_failure_has_no_error(recorded: Recorded) -> None:
    telemetry = _telemetry()
    span = start_span(telemetry.tracer, "work", SpanKind.INTERNAL, {})
    end_span(telemetry, span, None, "ending a test span")
    (ended,) = recorded.spans()
    assert ended.attributes is not None and "error.type" not in ended.attributes
    assert ended.status.status_code is StatusCode.UNSET


class _Unendable:
    """A span whose ``end`` raises (a broken SDK)."""

    def set_attribute(self, key: str, value: object) -> None:
        pass

    def set_status(self, status: object) -> None:
        pass

    def end(self) -> None:
        raise RuntimeError("the SDK broke")


def test_a_span_that_cannot_end_is_reported_once_and_never_raises(
    caplog: pytest.LogCaptureFixture,
) -> None:
    telemetry = _telemetry()
    with caplog.at_level(logging.WARNING, logger="ostinato_opentelemetry"):
        for _ in range(2):
            end_span(telemetry, _Unendable(), RuntimeError("x"), "ending an unendable span")  # type: ignore[arg-type]
    reports = [r.getMessage() for r in caplog.records if "unendable" in r.getMessage()]
    assert len(reports) == 1 and "RuntimeError: the SDK broke" in reports[0]
