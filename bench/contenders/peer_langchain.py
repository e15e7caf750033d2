"""LangChain: ``create_agent`` (LangGraph underneath) on ``ChatOpenAI`` with the two tools."""

from __future__ import annotations

from typing import Any

from bench.contenders._base import Contender, add, nap
from bench.scenario import QUESTION, Scenario

__all__ = ["LangChain"]


class LangChain(Contender):
    """LangChain's agent (``langchain.agents.create_agent``)."""

    name = "langchain"

    async def setup(self, base_url: str) -> None:
        from langchain.agents import create_agent
        from langchain_core.tools import tool
        from langchain_openai import ChatOpenAI
        from pydantic import SecretStr

        self._base_url = base_url
        self._create_agent = create_agent
        self._chat_class = ChatOpenAI
        self._api_key = SecretStr("bench")
        self._tools = [tool(add), tool(nap)]
        self._agents: dict[str, Any] = {}

    def _agent(self, model: str) -> Any:
        agent = self._agents.get(model)
        if agent is None:
            llm = self._chat_class(model=model, base_url=self._base_url, api_key=self._api_key)
            agent = self._agents[model] = self._create_agent(llm, tools=self._tools)
        return agent

    @staticmethod
    def version() -> str:
        from importlib.metadata import version

        return f"langchain {version('langchain')}, langchain-openai {version('langchain-openai')}"

    async def converse(self, scenario: Scenario, mode: str, history: int) -> str:
        agent = self._agent(scenario.model)
        state = await agent.ainvoke({"messages": [{"role": "user", "content": QUESTION}]})
        return str(state["messages"][-1].content)
