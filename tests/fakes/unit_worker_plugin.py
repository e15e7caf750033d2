"""A plugin for the tests that rebuild units on another process's client: the model
provider ``units`` (``OSTINATO_MODEL=units:echo``) and the tool set ``unit-tools``.

The model answers from what it was sent, so two processes agree only when they sent the
same: its text names every message, the options' temperature and max tokens and the
tools offered; a user text containing "tool" is answered with a call of ``add``
instead. Register it as an installed plugin with :func:`install`, which also installs
the memory plugin under the name ``units-memory``, so a process that loads only these
two (``OSTINATO_LOAD_PLUGINS=units,units-memory``) sees the same plugins whether the
installed distributions are hidden (the test process) or not (a child process).
"""

from __future__ import annotations

from typing import Any

from ostinato import tool
from ostinato.model import ChatResponse
from ostinato.plugins import hookimpl
from ostinato.prompt import Prompt
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato.tools import ToolCallback, tool_callbacks
from ostinato.units import idempotency_key

__all__ = ["ENVIRONMENT", "answer", "install", "register_chat_models", "register_tools"]

#: The variables of a process whose auto-configured client has this plugin's model and
#: tools and chat memory (add ``OSTINATO_MEMORY_SQLITE_PATH``).
ENVIRONMENT = {
    "OSTINATO_LOAD_PLUGINS": "units,units-memory",
    "OSTINATO_MODEL": "units:echo",
    "OSTINATO_TOOLS__ENABLED": "unit-tools",
    "OSTINATO_MEMORY_ENABLED": "true",
    "OSTINATO_MEMORY_REPOSITORY": "sqlite",
    "OSTINATO_MEMORY_DEFAULT_CONVERSATION_ID": "units",
}


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def divide(a: int, b: int) -> float:
    """Divide a by b."""
    return a / b


@tool
def key() -> str:
    """The idempotency key of the call running."""
    return idempotency_key() or "none"


def answer(prompt: Prompt) -> ChatResponse:
    """What the model answers to ``prompt`` (see the module's docstring)."""
    messages = prompt.messages
    if "tool" in (getattr(messages[-1], "text", None) or ""):
        return tool_call_response(
            ("add", {"a": 2, "b": 40}), usage=(len(messages), 4, len(messages) + 4)
        )
    options: Any = prompt.options
    texts = " | ".join(f"{m.message_type.value}: {getattr(m, 'text', '')}" for m in messages)
    tools = ",".join(getattr(options, "tool_names", ())) or "none"
    return text_response(
        f"{texts} / temperature={options.temperature} max_tokens={options.max_tokens} "
        f"tools={tools}",
        usage=(len(messages), 7, len(messages) + 7),
        id="units-answer",
        model="units-echo",
    )


def _model(context: Any, name: str) -> ScriptedChatModel:
    return ScriptedChatModel(responder=answer, chunk_size=5)


def _tools(context: Any) -> list[ToolCallback]:
    return tool_callbacks(add, divide, key)


@hookimpl
def register_chat_models(register: Any) -> None:
    """Register the ``units`` provider."""
    register("units", _model)


@hookimpl
def register_tools(register: Any) -> None:
    """Register the ``unit-tools`` tool set."""
    register("unit-tools", _tools)


def install(fake_distributions: Any) -> None:
    """Make this module the installed plugin ``units``, and the memory plugin
    ``units-memory``."""
    fake_distributions.add(
        "ostinato-units-test",
        entry_points={"units": __name__, "units-memory": "ostinato_memory.plugin"},
    )
