"""Memory across turns, kept in SQLite: a later client (another process, say, or
``ostinato chat --conversation trip``) continues the conversation where it stopped.

The memory advisor sits outside the tool loop, so each turn is stored once it succeeded:
the user's message and the final answer, together; the tool round in between is not
kept. The database lives in a temporary folder here; point
``SQLiteChatMemoryRepository`` at a real path to keep it.

Run: ``uv run python examples/memory_sqlite.py``
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ostinato import AdvisorParams, ChatClient, ChatModel, tool
from ostinato.testing import ScriptedChatModel, tool_call_response
from ostinato_memory import (
    MessageChatMemoryAdvisor,
    MessageWindowChatMemory,
    SQLiteChatMemoryRepository,
)

TRIP = AdvisorParams.conversation_id("trip")


@tool(description="Get the current weather in a city")
def get_weather(city: str) -> str:
    return f"{city}: 21 °C, sunny"


def build_client(database: Path, model: ChatModel) -> tuple[ChatClient, SQLiteChatMemoryRepository]:
    repository = SQLiteChatMemoryRepository(database)
    memory = MessageWindowChatMemory(repository, max_messages=20)
    advisor = MessageChatMemoryAdvisor(memory)
    client = ChatClient.builder(model).default_advisors(advisor).default_tools(get_weather).build()
    return client, repository


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "chats.sqlite3"

        # The first session: two turns, the second one using a tool.
        model = ScriptedChatModel(
            [
                "Lovely! Lisbon is beautiful in spring.",
                tool_call_response(("get_weather", {"city": "Lisbon"})),
                "It is 21 °C and sunny in Lisbon.",
            ]
        )
        client, repository = build_client(database, model)
        for question in ["I am planning a trip to Lisbon.", "What is the weather there?"]:
            print(f"user: {question}")
            print(f"assistant: {client.prompt(question).advisors(TRIP).call().content()}")
        repository.close()

        # A later session: a new client on the same file remembers the conversation.
        later = ScriptedChatModel(["You are going to Lisbon, where it is 21 °C and sunny."])
        client, repository = build_client(database, later)
        print("user: Where am I going?")
        print(f"assistant: {client.prompt('Where am I going?').advisors(TRIP).call().content()}")
        sent = later.prompts[0].messages
        print(f"the later model was sent {len(sent)} messages:")
        for message in sent:
            print(f"  {type(message).__name__}: {message.text}")
        repository.close()


if __name__ == "__main__":
    main()
