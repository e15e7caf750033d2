"""pydantic-ai: an ``Agent`` on ``OpenAIChatModel`` (Chat Completions) with the two tools."""

from __future__ import annotations

from bench.contenders._base import Contender, add, nap
from bench.scenario import QUESTION, Scenario

__all__ = ["PydanticAI"]


class PydanticAI(Contender):
    """pydantic-ai's agent loop."""

    name = "pydantic-ai"

    async def setup(self, base_url: str) -> None:
        from pydantic_ai import Agent
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider

        self._provider = OpenAIProvider(base_url=base_url, api_key="bench")
        self._agent_class = Agent
        self._model_class = OpenAIChatModel
        self._agents: dict[str, object] = {}

    def _agent(self, model: str) -> object:
        agent = self._agents.get(model)
        if agent is None:
            chat_model = self._model_class(model, provider=self._provider)
            agent = self._agents[model] = self._agent_class(chat_model, tools=[add, nap])
        return agent

    @staticmethod
    def version() -> str:
        from importlib.metadata import version

        return f"pydantic-ai-slim {version('pydantic-ai-slim')}"

    async def converse(self, scenario: Scenario, mode: str, history: int) -> str:
        agent = self._agent(scenario.model)
        result = await agent.run(QUESTION)  # type: ignore[attr-defined]
        return str(result.output)

    async def aclose(self) -> None:
        await self._provider.client.close()
