"""Two small tools (and their callbacks) the client tests share, and the prompt a request
spec builds."""

from __future__ import annotations

from ostinato import ChatClientRequestSpec, tool
from ostinato.prompt import Prompt
from ostinato.tools import tool_callbacks

__all__ = ["T1", "T2", "built", "tool1", "tool2"]


@tool
def tool1(x: int) -> int:
    """First tool."""
    return x


@tool
def tool2(x: int) -> int:
    """Second tool."""
    return x * 2


T1, T2 = tool_callbacks(tool1)[0], tool_callbacks(tool2)[0]


def built(spec: ChatClientRequestSpec) -> Prompt:
    """The prompt ``spec`` would send (built without running anything)."""
    return spec.build_request().prompt
