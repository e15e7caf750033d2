"""Test helpers for applications built on ostinato (and for ostinato's own tests).

``ScriptedChatModel`` is a real chat model that replays a script; the conformance kit for
adapters lives in ``ostinato.testing.conformance``.
"""

from ostinato.testing._scripted import (
    ScriptedChatModel,
    ScriptedStream,
    ScriptExhaustedError,
    text_response,
    tool_call,
    tool_call_response,
)

__all__ = [
    "ScriptExhaustedError",
    "ScriptedChatModel",
    "ScriptedStream",
    "text_response",
    "tool_call",
    "tool_call_response",
]
