"""ostinato: ``ChatClient`` + ``ostinato-openai``, as a user would write it.

One client per scenario model (built once, like an application builds its client), with
the two tools as defaults; the conversation is ``prompt().messages(history).user(...)``
through ``call().acontent()``, ``stream().acontent()`` or the sync ``call().content()``.
Mode ``async-listener`` is ``async`` with one loop-event listener on the request (a
function counting the events): what watching the loop costs. ``ostinato-aiohttp`` is the
same on the aiohttp engine (``http_engine="aiohttp"``).
"""

from __future__ import annotations

from typing import ClassVar

from bench.contenders._base import Contender, add, add_sync, nap
from bench.scenario import QUESTION, Scenario, history_messages
from ostinato import AssistantMessage, ChatClient, UserMessage, tool
from ostinato.messages import Message

__all__ = ["Ostinato", "OstinatoAiohttp"]

_add = tool(description="Add two integers.")(add)
_add_sync = tool(name="add", description="Add two integers.")(add_sync)
_nap = tool(description="Sleep for ms milliseconds, then return ms.")(nap)


class Ostinato(Contender):
    """ostinato's ChatClient over the OpenAI-compatible adapter."""

    name = "ostinato"
    modes: ClassVar[frozenset[str]] = frozenset(
        {"async", "stream", "sync", "async-sync-tool", "async-listener"}
    )
    supports_history = True
    #: The model's ``http_engine``.
    engine: ClassVar[str] = "httpx"

    async def setup(self, base_url: str) -> None:
        from ostinato_openai import OpenAIChatModel

        self._base_url = base_url
        self._model_class = OpenAIChatModel
        self._clients: dict[tuple[str, bool], ChatClient] = {}
        self._models: list[OpenAIChatModel] = []
        self._histories: dict[int, list[Message]] = {}

    def _client(self, model: str, sync_tool: bool = False) -> ChatClient:
        client = self._clients.get((model, sync_tool))
        if client is None:
            chat_model = self._model_class(
                model=model, base_url=self._base_url, api_key="bench", http_engine=self.engine
            )
            self._models.append(chat_model)
            client = (
                ChatClient.builder(chat_model)
                .default_tools(_add_sync if sync_tool else _add, _nap)
                .build()
            )
            self._clients[(model, sync_tool)] = client
        return client

    def _count(self, event: object) -> None:
        self.events_seen = getattr(self, "events_seen", 0) + 1

    def _history(self, count: int) -> list[Message]:
        history = self._histories.get(count)
        if history is None:
            history = [
                UserMessage(text) if role == "user" else AssistantMessage(text)
                for role, text in history_messages(count)
            ]
            self._histories[count] = history
        return history

    async def aclose(self) -> None:
        for model in self._models:
            await model.aclose()

    @staticmethod
    def version() -> str:
        import ostinato
        import ostinato_openai

        return f"ostinato {ostinato.__version__}, ostinato-openai {ostinato_openai.__version__}"

    async def converse(self, scenario: Scenario, mode: str, history: int) -> str:
        client = self._client(scenario.model, sync_tool=mode == "async-sync-tool")
        spec = client.prompt().messages(self._history(history)).user(QUESTION)
        if mode == "async-listener":
            spec.listener(self._count)
        if mode == "stream":
            return "".join([piece async for piece in spec.stream().acontent()])
        return await spec.call().acontent() or ""

    def converse_sync(self, scenario: Scenario, history: int) -> str:
        client = self._client(scenario.model)
        spec = client.prompt().messages(self._history(history)).user(QUESTION)
        return spec.call().content() or ""


class OstinatoAiohttp(Ostinato):
    """ostinato on the aiohttp engine."""

    name = "ostinato-aiohttp"
    modes: ClassVar[frozenset[str]] = frozenset({"async", "stream", "sync"})
    engine: ClassVar[str] = "aiohttp"
