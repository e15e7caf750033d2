"""A model provider plugin for CLI tests: ``--model scripted:<scenario>``.

Register it as an installed plugin with :func:`install` (a fake distribution whose entry
point is this module), then ``ostinato chat --model scripted:weather ...`` talks to a
:class:`~ostinato.testing.ScriptedChatModel` playing that scenario. Every model made is
appended to :data:`CREATED`, so a test can look at the prompts it received; a test may add
its own scenarios to :data:`SCENARIOS` (name -> function making the model).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

from ostinato.errors import AuthenticationError, ModelConnectionError
from ostinato.messages import SystemMessage, UserMessage
from ostinato.model import ChatResponse
from ostinato.plugins import hookimpl
from ostinato.prompt import Prompt
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response

__all__ = ["CREATED", "SCENARIOS", "create_model", "install", "register_chat_models"]

WEATHER_ANSWER = "Paris: 14 °C with light rain. Tokyo: 22 °C and sunny."


def _last_user_text(prompt: Prompt) -> str:
    users = [m for m in prompt.messages if isinstance(m, UserMessage)]
    return users[-1].text if users else ""


def _system_text(prompt: Prompt) -> str | None:
    systems = [m.text for m in prompt.messages if isinstance(m, SystemMessage)]
    return systems[0] if systems else None


def _echo(prompt: Prompt) -> str:
    earlier = [m for m in prompt.messages if not isinstance(m, SystemMessage)][:-1]
    return f"You said {_last_user_text(prompt)!r}; I see {len(earlier)} earlier message(s)."


class InteractiveModel(ScriptedChatModel):
    """Echoes, except that a question containing "slow" thinks for half a second, streams
    a few words and then pauses for a minute (long enough for a test to press Ctrl-C)."""

    async def stream(self, prompt: Prompt) -> AsyncIterator[ChatResponse]:
        """Echo, or stream slowly."""
        if "slow" not in _last_user_text(prompt):
            async for chunk in super().stream(prompt):
                yield chunk
            return
        self.prompts.append(prompt)
        await asyncio.sleep(0.5)  # thinking
        yield text_response("Once upon a time", finish_reason=None)
        await asyncio.sleep(60)
        yield text_response(" the end.")


#: The ``long`` scenario's answer: far more than a pipe holds, one short line after another.
LONG_ANSWER = "".join(f"line {i}\n" for i in range(100_000))

SCENARIOS: dict[str, Callable[[], ScriptedChatModel]] = {
    "hello": lambda: ScriptedChatModel(responder=lambda prompt: "Hello!"),
    "long": lambda: ScriptedChatModel(responder=lambda prompt: LONG_ANSWER, chunk_size=4096),
    "echo": lambda: ScriptedChatModel(responder=_echo),
    "interactive": lambda: InteractiveModel(responder=_echo),
    "weather": lambda: ScriptedChatModel(
        [
            tool_call_response(
                ("get_weather", {"city": "Paris"}),
                ("get_weather", {"city": "Tokyo"}),
                usage=(100, 20, 120),
            ),
            text_response(WEATHER_ANSWER, usage=(180, 16, 196)),
        ],
        chunk_size=8,
    ),
    "add": lambda: ScriptedChatModel([tool_call_response(("add", {"a": 2, "b": 40})), "42."]),
    "options": lambda: ScriptedChatModel(
        responder=lambda prompt: (
            f"temperature={prompt.options.temperature} max_tokens={prompt.options.max_tokens} "
            f"stop={prompt.options.stop_sequences} system={_system_text(prompt)!r}"
        )
    ),
    "tools-forever": lambda: ScriptedChatModel(
        responder=lambda prompt: tool_call_response(
            ("get_weather", {"city": f"City {len(prompt.messages)}"})
        )
    ),
    "unknown-tool": lambda: ScriptedChatModel(
        [tool_call_response(("fly", {"to": "Mars"})), "I cannot fly."]
    ),
    "bad-arguments": lambda: ScriptedChatModel(
        [tool_call_response(("get_weather", {"town": "Paris"})), "Which city?"]
    ),
    "auth": lambda: ScriptedChatModel(
        responder=lambda prompt: AuthenticationError(
            "Incorrect API key provided", provider="scripted", status=401
        )
    ),
    "unreachable": lambda: ScriptedChatModel(
        responder=lambda prompt: ModelConnectionError(
            "scripted: connection to http://127.0.0.1:9/v1 failed (connection refused)",
            provider="scripted",
        )
    ),
}

#: Every model the provider made, in order.
CREATED: list[ScriptedChatModel] = []


def create_model(context: Any, name: str) -> ScriptedChatModel:
    """The ``scripted`` provider's factory: the model of scenario ``name``."""
    scenario = SCENARIOS.get(name)
    if scenario is None:
        raise KeyError(f"no scripted scenario {name!r}; known: {', '.join(sorted(SCENARIOS))}")
    model = scenario()
    CREATED.append(model)
    return model


@hookimpl
def register_chat_models(register: Any) -> None:
    """Register the ``scripted`` provider."""
    register("scripted", create_model)


def install(fake_distributions: Any) -> None:
    """Make this module an installed plugin named ``scripted``."""
    fake_distributions.add("ostinato-scripted", entry_points={"scripted": __name__})
