"""The OpenAI Agents SDK: an ``Agent`` on ``OpenAIChatCompletionsModel`` with the two tools.

Tracing is disabled: it would try to export spans to OpenAI (and there is no network).
"""

from __future__ import annotations

from typing import Any

from bench.contenders._base import Contender, add, nap
from bench.scenario import QUESTION, Scenario

__all__ = ["OpenAIAgents"]


class OpenAIAgents(Contender):
    """The Agents SDK's ``Runner.run``."""

    name = "openai-agents"

    async def setup(self, base_url: str) -> None:
        from agents import (
            Agent,
            OpenAIChatCompletionsModel,
            Runner,
            function_tool,
            set_tracing_disabled,
        )
        from openai import AsyncOpenAI

        set_tracing_disabled(True)
        self._openai = AsyncOpenAI(base_url=base_url, api_key="bench")
        self._agent_class = Agent
        self._model_class = OpenAIChatCompletionsModel
        self._runner = Runner
        self._tools: list[Any] = [function_tool(add), function_tool(nap)]
        self._agents: dict[str, Any] = {}

    def _agent(self, model: str) -> Any:
        agent = self._agents.get(model)
        if agent is None:
            chat_model = self._model_class(model=model, openai_client=self._openai)
            agent = self._agents[model] = self._agent_class(
                name="bench", model=chat_model, tools=self._tools
            )
        return agent

    @staticmethod
    def version() -> str:
        from importlib.metadata import version

        return f"openai-agents {version('openai-agents')}"

    async def converse(self, scenario: Scenario, mode: str, history: int) -> str:
        result = await self._runner.run(self._agent(scenario.model), QUESTION)
        return str(result.final_output)

    async def aclose(self) -> None:
        await self._openai.close()
