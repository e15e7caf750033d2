"""The unit stack of an auto-configured client with the DBOS and OpenTelemetry plugins
installed, in order: core's wrappers, the durable recorder and the tracing wrappers,
each at its declared place."""

from __future__ import annotations

from pathlib import Path

import pytest

import ostinato
from tests.fakes import scripted_provider
from tests.fakes.distributions import FakeDistributions
from tests.plugins.opentelemetry.conftest import Recorded
from tests.plugins.opentelemetry.spans import tree

_STACK = """\
unit stack, outer to inner:
  1000  tool-concurrency <tool_call>
  2000  tool-events <tool_call>
  3000  dbos <model_call/model_stream/tool_call/memory_read/memory_write/retrieval>
  3500  tool-retry <tool_call>
  4000  opentelemetry-model-call <model_call/model_stream>
  4000  opentelemetry-tool-call <tool_call>
  5000  tool-timeout <tool_call>"""


@pytest.fixture
def installed(
    fake_distributions: FakeDistributions,
    clean_environment: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The scripted model provider, and the DBOS and OpenTelemetry plugins, installed."""
    scripted_provider.install(fake_distributions)
    fake_distributions.add(
        "ostinato-installed-test",
        entry_points={
            "dbos": "ostinato_dbos.plugin",
            "opentelemetry": "ostinato_opentelemetry.plugin",
        },
    )
    monkeypatch.setenv("OSTINATO_LOAD_PLUGINS", "scripted,dbos,opentelemetry")
    monkeypatch.setenv("OSTINATO_MODEL", "scripted:add")


@pytest.mark.usefixtures("installed")
def test_the_stack_of_an_auto_configured_client_lists_every_wrapper_in_order() -> None:
    client = ostinato.chat_client()

    assert client.units.describe() == _STACK


@pytest.mark.usefixtures("installed")
def test_the_wrappers_of_the_listed_stack_trace_a_turn(recorded: Recorded) -> None:
    client = ostinato.chat_client()

    @ostinato.tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    assert client.prompt("2 + 40?").tools(add).call().content() == "42."

    assert tree(recorded.spans()) == [
        (
            "invoke_agent",
            "INTERNAL",
            [("chat", "CLIENT", []), ("execute_tool add", "INTERNAL", []), ("chat", "CLIENT", [])],
        )
    ]
