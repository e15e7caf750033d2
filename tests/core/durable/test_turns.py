"""The engine-neutral face: turn requests as JSON, tools resolved by name on a worker,
and the installed engine found through the plugins."""

from __future__ import annotations

import pytest

from ostinato.config import build_container
from ostinato.config._factories import factory_context
from ostinato.durable import DurableEngine, TurnHandle, TurnRequest, durable_engine, resolve_tools
from ostinato.errors import ConfigurationError, ToolResolutionError
from ostinato.messages import AssistantMessage, UserMessage
from ostinato.plugins import hookimpl


def test_a_turn_request_round_trips_as_json():
    request = TurnRequest("Hi", system="Be brief", conversation_id="c", tools=("a", "m:b"))
    assert TurnRequest.from_json(request.to_json()) == request
    assert set(request.to_dict()) == {
        "schema",
        "version",
        "user",
        "system",
        "conversation_id",
        "tools",
    }
    history = (UserMessage("Hi"), AssistantMessage("Hello."))
    told = TurnRequest("And?", history=history, remember=False)
    assert TurnRequest.from_json(told.to_json()) == told
    with pytest.raises(ValueError, match="not a turn request of version 1"):
        TurnRequest.from_dict({"schema": "ostinato.turn_request", "version": 2, "user": ""})


def _context():
    container = build_container(plugins=[])
    registry = container.registry()
    return registry, factory_context(registry, container.settings(), container.plugin_settings())


def test_tools_are_resolved_by_importable_name():
    registry, context = _context()
    (weather,) = resolve_tools(["examples/weather.py:get_weather"], registry, context)
    assert weather.tool_definition.name == "get_weather"


def test_a_tool_a_worker_cannot_resolve_is_a_clear_error():
    registry, context = _context()
    with pytest.raises(ToolResolutionError) as raised:
        resolve_tools(["no_such_module:thing"], registry, context)
    message = str(raised.value)
    assert "the durable turn names the tool 'no_such_module:thing'" in message
    assert "registered tool sets: none" in message and "fix:" in message
    assert raised.value.source == "no_such_module:thing"


class _Engine:
    def submit(self, request, *, turn_id=None):
        raise NotImplementedError

    def turn(self, turn_id):
        raise NotImplementedError

    def waiting(self):
        return []

    def close(self):
        pass


class _EnginePlugin:
    @hookimpl
    def register_durable_engines(self, register):
        register("fake", lambda context: _Engine())


def test_the_installed_engine_is_found_by_its_plugin_and_named_when_ambiguous():
    engine = durable_engine(plugins=[_EnginePlugin()])
    assert isinstance(engine, _Engine) and isinstance(engine, DurableEngine)
    assert isinstance(durable_engine("fake", plugins=[_EnginePlugin()]), _Engine)
    with pytest.raises(ConfigurationError, match="no durable engine named 'dbos'"):
        durable_engine("dbos", plugins=[_EnginePlugin()])
    with pytest.raises(ConfigurationError, match="exactly one installed durable engine, found 0"):
        durable_engine(plugins=[])
    assert not isinstance(object(), TurnHandle)
