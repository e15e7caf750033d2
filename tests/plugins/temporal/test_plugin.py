"""The Temporal plugin's settings and unit wrapper, without a server."""

from __future__ import annotations

import pytest

from ostinato.units import UnitOrder, UnitStack
from ostinato_dbos._unit_wrapper import dbos_unit_wrapper
from ostinato_temporal import TemporalSettings
from ostinato_temporal._unit_wrapper import temporal_unit_wrapper


def test_the_settings_default_to_the_development_server(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ADDRESS", "NAMESPACE", "TASK_QUEUE", "API_KEY", "TLS"):
        monkeypatch.delenv(f"OSTINATO_TEMPORAL_{name}", raising=False)
    settings = TemporalSettings()
    assert (settings.address, settings.namespace, settings.task_queue) == (
        "localhost:7233",
        "default",
        "ostinato-turns",
    )
    assert not settings.uses_tls()


def test_an_api_key_turns_tls_on_and_is_never_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OSTINATO_TEMPORAL_API_KEY", "tk-secret-value")
    settings = TemporalSettings()
    assert settings.uses_tls()
    assert "tk-secret-value" not in repr(settings)
    assert "tk-secret-value" not in str(settings.model_dump())
    monkeypatch.setenv("OSTINATO_TEMPORAL_TLS", "false")  # said explicitly: it wins
    assert not TemporalSettings().uses_tls()


def test_the_wrapper_sits_just_inside_dbos_s_in_one_stack() -> None:
    stack = UnitStack((dbos_unit_wrapper(), temporal_unit_wrapper()))
    assert [(w.name, w.order) for w in stack.wrappers] == [
        ("dbos", UnitOrder.DURABLE),
        ("temporal", UnitOrder.DURABLE + 1),
    ]


async def test_outside_a_turn_workflow_the_wrapper_passes_the_unit_on() -> None:
    from ostinato.model import ChatResponse
    from ostinato.prompt import Prompt
    from ostinato.testing import ScriptedChatModel
    from ostinato.units import ModelCall

    model = ScriptedChatModel(["hello"])
    stack = UnitStack((temporal_unit_wrapper(),))
    answer = await stack.run(ModelCall(Prompt("hi"), model))
    assert isinstance(answer, ChatResponse)
    assert answer.text == "hello"
