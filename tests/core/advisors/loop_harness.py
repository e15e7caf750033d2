"""Drive a ToolCallingAdvisor through a real chain on the call or the stream path."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ostinato.advisors import (
    Advisor,
    AdvisorChain,
    ChatClientMessageAggregator,
    ChatClientRequest,
    ChatClientResponse,
    ChatModelCallAdvisor,
    ChatModelStreamAdvisor,
)
from ostinato.messages import ToolCall, UserMessage
from ostinato.model import ChatResponse
from ostinato.prompt import Prompt, ToolCallingChatOptions
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response

MODES = ("call", "stream")


def tc(usage: tuple[int, int, int] | None = None, *, name: str = "testTool") -> ChatResponse:
    """Spring AI's TC: one tool call, text "response"."""
    return tool_call_response(ToolCall("tool-call-1", name, "{}"), text="response", usage=usage)


def final(text: str = "response", usage: tuple[int, int, int] | None = None) -> ChatResponse:
    """Spring AI's F: an answer without tool calls."""
    return text_response(text, usage=usage)


def request(*messages: object, options: object = None) -> ChatClientRequest:
    opts = ToolCallingChatOptions() if options is None else options
    return ChatClientRequest(Prompt(messages or (UserMessage("test message"),), opts))  # type: ignore[arg-type]


def chain_for(model: ScriptedChatModel, *advisors: Advisor) -> AdvisorChain:
    return AdvisorChain([*advisors, ChatModelCallAdvisor(model), ChatModelStreamAdvisor(model)])


@dataclass
class Outcome:
    """What a run produced: the final response (call) or every emitted chunk (stream)."""

    mode: str
    emitted: list[ChatClientResponse]

    @property
    def last(self) -> ChatClientResponse:
        return self.emitted[-1]

    @property
    def response(self) -> ChatResponse:
        """The call result, or the stream's aggregate (what memory and callers see)."""
        if self.mode == "call":
            resp = self.emitted[0].chat_response
            assert resp is not None
            return resp
        agg = ChatClientMessageAggregator()
        for chunk in self.emitted:
            agg.add(chunk)
        result = agg.result()
        assert result is not None and result.chat_response is not None
        return result.chat_response

    @property
    def text(self) -> str | None:
        return self.response.text


async def run(
    mode: str,
    advisor: Advisor,
    model: ScriptedChatModel,
    req: ChatClientRequest | None = None,
    inner: Sequence[Advisor] = (),
    outer: Sequence[Advisor] = (),
) -> Outcome:
    """Run ``advisor`` (with ``outer``/``inner`` advisors around it) once in ``mode``."""
    req = req or request()
    chain = chain_for(model, *outer, advisor, *inner)
    if mode == "call":
        return Outcome(mode, [await chain.next_call(req)])
    return Outcome(mode, [c async for c in chain.next_stream(req)])
