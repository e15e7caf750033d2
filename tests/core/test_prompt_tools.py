"""``ToolCallingChatOptions(tool_callbacks=...)`` takes what ``.tools(...)`` takes: ``@tool``
functions and objects become tool callbacks when the options are made, so a turn runs
them on the call and the stream path, whichever place the options are given."""

from __future__ import annotations

import pytest

from ostinato import ChatClient, tool
from ostinato.errors import ConfigurationError
from ostinato.messages import ToolResponseMessage
from ostinato.prompt import Prompt, ToolCallingChatOptions
from ostinato.testing import ScriptedChatModel, text_response, tool_call, tool_call_response
from ostinato.tools import FunctionToolCallback, ToolCallback, tool_callbacks


@tool(description="Current temperature in a city, in °C")
def temperature(city: str) -> int:
    return {"Paris": 14}.get(city, 10)


class Conversions:
    @tool(description="Celsius to Fahrenheit")
    def fahrenheit(self, celsius: float) -> float:
        return celsius * 9 / 5 + 32


def plain(city: str) -> str:
    """Say hello to ``city``."""
    return f"hello {city}"


def echo(prompt: Prompt):
    message = prompt.messages[-1]
    assert isinstance(message, ToolResponseMessage)
    return text_response(message.responses[0].response_data)


def test_functions_and_objects_become_tool_callbacks_when_the_options_are_made():
    options = ToolCallingChatOptions(tool_callbacks=(temperature, Conversions(), plain))
    assert options.tool_names == ("temperature", "fahrenheit", "plain")
    assert all(isinstance(cb, ToolCallback) for cb in options.tool_callbacks)
    [made] = tool_callbacks(temperature)
    kept = ToolCallingChatOptions(tool_callbacks=[made])
    assert kept.tool_callbacks[0] is made
    assert options.with_tool_callbacks([temperature]).tool_names == ("temperature",)
    assert options.add_tool_callbacks(plain).tool_names[-1] == "plain"  # type: ignore[arg-type]


def test_something_that_is_no_tool_is_refused_when_the_options_are_made():
    with pytest.raises(ConfigurationError, match=r"No @tool methods found on int"):
        ToolCallingChatOptions(tool_callbacks=(42,))  # type: ignore[arg-type]


def turn(path: str, client: ChatClient, options: ToolCallingChatOptions | None) -> str:
    spec = client.prompt("How warm is Paris?")
    if options is not None:
        spec = spec.options(options)
    if path == "call":
        return spec.call().content() or ""
    return "".join(spec.stream().content())


@pytest.mark.parametrize("path", ["call", "stream"])
def test_a_decorated_function_in_request_options_runs(path):
    model = ScriptedChatModel(
        [tool_call_response(tool_call("temperature", {"city": "Paris"})), echo]
    )
    options = ToolCallingChatOptions(tool_callbacks=(temperature,))
    assert turn(path, ChatClient(model), options) == "14"


@pytest.mark.parametrize("path", ["call", "stream"])
def test_a_decorated_function_in_default_options_runs(path):
    model = ScriptedChatModel([tool_call_response(tool_call("fahrenheit", {"celsius": 100})), echo])
    options = ToolCallingChatOptions(tool_callbacks=(Conversions(),))
    client = ChatClient.builder(model).default_options(options).build()
    assert turn(path, client, None) == "212.0"


@pytest.mark.parametrize("path", ["call", "stream"])
def test_a_decorated_function_in_the_models_default_options_runs(path):
    model = ScriptedChatModel(
        [tool_call_response(tool_call("temperature", {"city": "Paris"})), echo],
        default_options=ToolCallingChatOptions(tool_callbacks=(temperature,)),
    )
    assert turn(path, ChatClient(model), None) == "14"
    assert isinstance(model.prompts[0].options, ToolCallingChatOptions)
    assert isinstance(model.prompts[0].options.tool_callbacks[0], FunctionToolCallback)
