"""The default tool advisor passes the tool-advisor conformance kit."""

from __future__ import annotations

from typing import Any

from ostinato.advisors import ToolAdvisor, ToolCallingAdvisor
from ostinato.testing.tool_advisor import ToolAdvisorConformance


class TestToolCallingAdvisorConformance(ToolAdvisorConformance):
    def make_advisor(self, **settings: Any) -> ToolAdvisor:
        return ToolCallingAdvisor(**settings)
