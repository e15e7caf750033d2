"""``ostinato chat`` with ``OTEL_EXPORTER_OTLP_ENDPOINT`` set exports the turn."""

from __future__ import annotations

from pathlib import Path

from tests.core.cli.cli_process import ROOT, run_ostinato
from tests.fakes import scripted_provider
from tests.fakes.distributions import FakeDistributions
from tests.plugins.opentelemetry.receiver import OtlpReceiver


def test_ostinato_chat_exports_the_turn(
    fake_distributions: FakeDistributions, clean_environment: Path
) -> None:
    scripted_provider.install(fake_distributions)
    with OtlpReceiver() as receiver:
        done = run_ostinato(
            fake_distributions,
            clean_environment,
            "chat",
            "--model",
            "scripted:weather",
            "--tools",
            str(ROOT / "examples" / "weather.py"),
            "What is the weather in Paris and Tokyo?",
            env={
                "OSTINATO_LOAD_PLUGINS": "scripted,opentelemetry",
                "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
                "OTEL_SERVICE_NAME": "ostinato-cli",
                "OTEL_METRICS_EXPORTER": "none",
                "XDG_STATE_HOME": str(clean_environment.parent / "state"),
            },
        )

    assert done.returncode == 0, done.stderr
    assert scripted_provider.WEATHER_ANSWER in done.stdout
    names = sorted(name for _, name, _ in receiver.spans)
    assert names == [
        "chat",
        "chat",
        "execute_tool get_weather",
        "execute_tool get_weather",
        "invoke_agent",
    ]
    assert {service for service, _, _ in receiver.spans} == {"ostinato-cli"}
    turn = next(attrs for _, name, attrs in receiver.spans if name == "invoke_agent")
    assert turn["gen_ai.provider.name"] == "scripted"
