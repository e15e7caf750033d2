"""A served agent: a weather tool, a payment that waits for your approval, and
conversation memory, behind ostinato-serve — the OpenAI-compatible endpoint, the loop's
events as server-sent events, and the web page.

Run: ``uv run python examples/served_agent.py``, then open http://127.0.0.1:8000/ (ask
"Weather in Paris?", then "Pay Ann 20 EUR" and approve or deny), or point any OpenAI
client at http://127.0.0.1:8000/v1. With ``OSTINATO_MODEL`` set (``openai:gpt-4.1-mini``,
``ollama:qwen3``...) the agent is that model; without, a scripted model plays the part, so
everything works offline. ``OSTINATO_SERVE_*`` configures the server (see docs/serve.md).
"""

from __future__ import annotations

import os
import re
from typing import Any

from ostinato import ChatClient, tool
from ostinato.messages import ToolResponseMessage, UserMessage
from ostinato.prompt import Prompt
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from ostinato_memory import MessageChatMemoryAdvisor, MessageWindowChatMemory
from ostinato_serve import ServeSettings, check_bind_address, create_app

TEMPERATURES = {"Paris": 14, "Tokyo": 22, "Lisbon": 21}


@tool(description="Current temperature in a city, in °C")
def get_weather(city: str) -> dict[str, object]:
    """The temperature in ``city``."""
    return {"city": city, "temp_c": TEMPERATURES.get(city, 18)}


@tool(description="Send money to someone", requires_approval=True)
def send_money(amount: int, to: str) -> str:
    """Send ``amount`` EUR to ``to`` (a person approves each call first)."""
    return f"sent {amount} EUR to {to}"


def scripted_answer(prompt: Prompt) -> Any:
    """The offline stand-in: asks for the tool a question needs, then answers from its
    result."""
    last = prompt.messages[-1]
    if isinstance(last, ToolResponseMessage):
        results = "; ".join(r.response_data for r in last.responses)
        return text_response(f"Here is what the tools said: {results}.", usage=(40, 12, 52))
    question = last.text if isinstance(last, UserMessage) else ""
    words = re.findall(r"[A-Z][a-z]+", question)
    if "weather" in question.lower():
        city = next((w for w in words if w in TEMPERATURES), "Paris")
        return tool_call_response(("get_weather", {"city": city}), usage=(30, 8, 38))
    if "pay" in question.lower():
        amount = int(next(iter(re.findall(r"\d+", question)), "10"))
        to = next((w for w in words if w != "Pay"), "Ann")
        return tool_call_response(("send_money", {"amount": amount, "to": to}), usage=(30, 9, 39))
    return text_response(
        "Ask me about the weather in a city, or to pay someone.", usage=(20, 11, 31)
    )


def build_app(settings: ServeSettings | None = None) -> Any:
    """The ASGI app: the configured model (``OSTINATO_MODEL``) or the scripted stand-in,
    with memory and the two tools."""
    memory = MessageChatMemoryAdvisor(MessageWindowChatMemory())
    if os.environ.get("OSTINATO_MODEL"):
        import ostinato

        client = ostinato.chat_client().mutate().default_advisors(memory).build()
        name = os.environ["OSTINATO_MODEL"]
    else:
        model = ScriptedChatModel(responder=scripted_answer)
        client = ChatClient.builder(model).default_advisors(memory).build()
        name = "scripted:served-agent"
    return create_app(client, tools=[get_weather, send_money], settings=settings, model_name=name)


def main() -> None:
    """Serve the agent with uvicorn (``OSTINATO_SERVE_HOST`` / ``_PORT``, loopback by
    default; another address needs ``OSTINATO_SERVE_TOKEN``)."""
    import uvicorn

    settings = ServeSettings()
    check_bind_address(settings.host, settings.token_value)
    print(f"Serving on http://{settings.host}:{settings.port}/ (Ctrl-C stops)")
    uvicorn.run(build_app(settings), host=settings.host, port=settings.port)


if __name__ == "__main__":
    main()
