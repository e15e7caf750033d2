"""Test doubles for the tool-search plugin: a recording index and quick tools."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ostinato.tools import ToolContext, ToolDefinition, ToolMetadata
from ostinato_tool_search import KeywordToolIndex

__all__ = ["RecordingToolIndex", "StaticTool", "static_tools"]


class RecordingToolIndex(KeywordToolIndex):
    """A real keyword index that records every call made to it."""

    def __init__(self) -> None:
        super().__init__()
        self.indexed: list[tuple[str, list[str]]] = []
        self.cleared: list[str] = []
        self.searches: list[tuple[str, str, int | None]] = []

    async def index_tools(self, session_id: str, tools: Sequence[ToolDefinition]) -> None:
        self.indexed.append((session_id, [t.name for t in tools]))
        await super().index_tools(session_id, tools)

    async def search(
        self, session_id: str, query: str, max_results: int | None = None
    ) -> list[str]:
        self.searches.append((session_id, query, max_results))
        return await super().search(session_id, query, max_results)

    async def clear_index(self, session_id: str) -> None:
        self.cleared.append(session_id)
        await super().clear_index(session_id)

    @property
    def indexed_sessions(self) -> list[str]:
        return [session for session, _ in self.indexed]


@dataclass
class StaticTool:
    """A tool answering a fixed text and recording its calls (no pydantic, so cheap)."""

    name: str
    description: str
    answer: str = ""
    schema: str = '{"type":"object","properties":{}}'
    calls: list[str] = field(default_factory=list)

    @property
    def tool_definition(self) -> ToolDefinition:
        return ToolDefinition(self.name, self.description, self.schema)

    @property
    def tool_metadata(self) -> ToolMetadata:
        return ToolMetadata()

    async def call(self, arguments: str, context: ToolContext | None = None) -> str:
        self.calls.append(arguments)
        return self.answer or f"{self.name} says hi"


def static_tools(*names: str) -> list[StaticTool]:
    """One :class:`StaticTool` per name, described by its name."""
    return [StaticTool(n, f"The {n} tool") for n in names]
