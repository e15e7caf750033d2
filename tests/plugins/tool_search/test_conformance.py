"""The tool-search advisor passes the tool-advisor conformance kit: its model first
searches for the kit's tools, then uses them like with the default advisor."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ostinato.advisors import ToolAdvisor
from ostinato.model import ChatResponse
from ostinato.testing import tool_call, tool_call_response
from ostinato.testing.tool_advisor import ToolAdvisorConformance
from ostinato_tool_search import SEARCH_TOOL_NAME, ToolSearchToolCallingAdvisor


class TestToolSearchConformance(ToolAdvisorConformance):
    def make_advisor(self, **settings: Any) -> ToolAdvisor:
        return ToolSearchToolCallingAdvisor(**settings)

    def discovery(self, tool_names: Sequence[str]) -> list[ChatResponse]:
        query = {"query": " ".join(tool_names)}
        return [tool_call_response(tool_call(SEARCH_TOOL_NAME, query, id="search-1"))]
