"""Test helpers for applications built on ostinato (and for ostinato's own tests).

``ScriptedChatModel`` is a real chat model that replays a script; ``every_message_type``
builds a conversation with every message type and field set, for round-trip tests;
``HashingEmbeddingModel`` is a deterministic, offline embedding model. The
conformance kit for adapters lives in ``ostinato.testing.conformance``; those of
embedding models and vector stores in ``ostinato.testing.embedding_conformance`` and
``ostinato.testing.vector_store_conformance``.
"""

from ostinato.testing._conversations import every_message_type
from ostinato.testing._embedding import HashingEmbeddingModel
from ostinato.testing._scripted import (
    ScriptedChatModel,
    ScriptedStream,
    ScriptExhaustedError,
    text_response,
    tool_call,
    tool_call_response,
)

__all__ = [
    "HashingEmbeddingModel",
    "ScriptExhaustedError",
    "ScriptedChatModel",
    "ScriptedStream",
    "every_message_type",
    "text_response",
    "tool_call",
    "tool_call_response",
]
