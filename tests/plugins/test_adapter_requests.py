"""What every HTTP adapter refuses to send: a request without a model, a tool schema not JSON.

Parametrised over the adapters; the errors are configuration errors that say what to set
or which tool to fix.
"""

from __future__ import annotations

from typing import Any

import pytest

from ostinato.errors import ConfigurationError
from ostinato.http import HttpxChatModel
from ostinato.prompt import ChatOptions, Prompt
from ostinato_anthropic import AnthropicChatModel, AnthropicChatOptions
from ostinato_ollama import OllamaChatModel, OllamaChatOptions
from ostinato_openai import OpenAIChatModel, OpenAIChatOptions

#: Each adapter's model and chat options, by provider name.
ADAPTERS: dict[str, tuple[type[HttpxChatModel[Any]], type[ChatOptions]]] = {
    "openai": (OpenAIChatModel, OpenAIChatOptions),
    "anthropic": (AnthropicChatModel, AnthropicChatOptions),
    "ollama": (OllamaChatModel, OllamaChatOptions),
}


@pytest.mark.parametrize("name", ADAPTERS)
def test_without_a_model_name(name: str):
    model_class, _ = ADAPTERS[name]
    with pytest.raises(ConfigurationError, match=f"OSTINATO_MODEL={name}:<model>"):
        model_class().request_body(Prompt("hi"))


@pytest.mark.parametrize("name", ADAPTERS)
def test_a_tool_schema_that_is_not_json(name: str):
    class Broken:
        tool_definition = type("D", (), {"name": "b", "description": "", "input_schema": "{"})()

    model_class, options = ADAPTERS[name]
    model = model_class(default_options=options(model="m", tool_callbacks=(Broken(),)))
    with pytest.raises(ConfigurationError, match="tool 'b': its input schema is not JSON"):
        model.request_body(Prompt("hi"))
