"""The units of a model round and of chat memory, as values.

* :class:`ModelCall` — one round on the call path: ``model.call(prompt)``;
* :class:`ModelStream` — one streamed round: ``model.stream(prompt)``, whose result (for
  a recorder) is the aggregate of its chunks;
* :class:`MemoryRead` / :class:`MemoryWrite` — ``memory.get`` / ``memory.add``.

A model round describes itself as ``{"messages", "options", "tools"}`` (plain options
and the tool definitions offered), a memory unit as ``{"conversation_id"}`` (and
``"messages"`` for a write).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from ostinato.units._codecs import (
    MESSAGES,
    NOTHING,
    RESPONSE,
    describe_prompt,
    encode_messages,
)
from ostinato.units._unit import TurnScope, Unit, UnitCodec, UnitKind

if TYPE_CHECKING:
    from ostinato.memory import ChatMemory
    from ostinato.messages import Message
    from ostinato.model import ChatModel, ChatResponse
    from ostinato.prompt import Prompt

__all__ = ["MemoryRead", "MemoryWrite", "ModelCall", "ModelStream", "model_name"]


def model_name(model: ChatModel) -> str:
    """The name a model round goes by: the model's default ``model`` option, else its class."""
    options = model.default_options
    name = getattr(options, "model", None) if options is not None else None
    return name if isinstance(name, str) and name else type(model).__name__


class ModelCall(Unit["ChatResponse"]):
    """One model round on the call path.

    Args:
        prompt: what is sent.
        model: the model it is sent to.
        scope: the caller's turn, used when no turn scope is current (the advisor
            chain's).
    """

    __slots__ = ("model", "prompt")

    kind: ClassVar[UnitKind] = UnitKind.MODEL_CALL
    codec: ClassVar[UnitCodec[Any]] = RESPONSE

    def __init__(self, prompt: Prompt, model: ChatModel, scope: TurnScope | None = None) -> None:
        self.prompt = prompt
        self.model = model
        self._numbered(model_name(model), scope)

    def describe(self) -> dict[str, Any]:
        """``{"messages", "options", "tools"}``: the prompt's messages, its plain options,
        and the definitions of the tools offered."""
        return describe_prompt(self.prompt)

    def run(self) -> Awaitable[ChatResponse]:
        """``model.call(prompt)``."""
        return self.model.call(self.prompt)


class ModelStream(Unit["ChatResponse"]):
    """One streamed model round; its result, for a recorder, is the aggregate of its
    chunks (equal to what ``call()`` returns for the round).

    Args:
        prompt: what is sent.
        model: the model it is sent to.
        scope: the caller's turn, used when no turn scope is current.
    """

    __slots__ = ("model", "prompt")

    kind: ClassVar[UnitKind] = UnitKind.MODEL_STREAM
    codec: ClassVar[UnitCodec[Any]] = RESPONSE

    def __init__(self, prompt: Prompt, model: ChatModel, scope: TurnScope | None = None) -> None:
        self.prompt = prompt
        self.model = model
        self._numbered(model_name(model), scope)

    def describe(self) -> dict[str, Any]:
        """``{"messages", "options", "tools"}``, as for :class:`ModelCall`."""
        return describe_prompt(self.prompt)

    def stream(self) -> AsyncIterator[ChatResponse]:
        """``model.stream(prompt)``: the round's chunks, without any wrapper."""
        return self.model.stream(self.prompt)

    async def run(self) -> ChatResponse:
        """The round streamed to its end: the aggregate of its chunks."""
        from ostinato._aio import closing_stream
        from ostinato.model import MessageAggregator

        aggregator = MessageAggregator()
        async with closing_stream(self.stream()) as chunks:
            async for chunk in chunks:
                aggregator.add(chunk)
        return aggregator.result()


class MemoryRead(Unit["list[Message]"]):
    """A chat memory read: ``memory.get(conversation_id)``.

    Args:
        memory: the chat memory.
        conversation_id: the conversation read.
        scope: the caller's turn, used when no turn scope is current.
    """

    __slots__ = ("conversation_id", "memory")

    kind: ClassVar[UnitKind] = UnitKind.MEMORY_READ
    codec: ClassVar[UnitCodec[Any]] = MESSAGES

    def __init__(
        self, memory: ChatMemory, conversation_id: str, scope: TurnScope | None = None
    ) -> None:
        self.memory = memory
        self.conversation_id = conversation_id
        self._numbered(conversation_id, scope)

    def describe(self) -> dict[str, Any]:
        """``{"conversation_id"}``."""
        return {"conversation_id": self.conversation_id}

    def run(self) -> Awaitable[list[Message]]:
        """``memory.get(conversation_id)``."""
        return self.memory.get(self.conversation_id)


class MemoryWrite(Unit[None]):
    """A chat memory write: ``memory.add(conversation_id, messages)``.

    Args:
        memory: the chat memory.
        conversation_id: the conversation written.
        messages: the messages added.
        scope: the caller's turn, used when no turn scope is current.
    """

    __slots__ = ("conversation_id", "memory", "messages")

    kind: ClassVar[UnitKind] = UnitKind.MEMORY_WRITE
    codec: ClassVar[UnitCodec[Any]] = NOTHING

    def __init__(
        self,
        memory: ChatMemory,
        conversation_id: str,
        messages: Sequence[Message],
        scope: TurnScope | None = None,
    ) -> None:
        self.memory = memory
        self.conversation_id = conversation_id
        self.messages = messages
        self._numbered(conversation_id, scope)

    def describe(self) -> dict[str, Any]:
        """``{"conversation_id", "messages"}``."""
        return {
            "conversation_id": self.conversation_id,
            "messages": encode_messages(self.messages),
        }

    def run(self) -> Awaitable[None]:
        """``memory.add(conversation_id, messages)``."""
        return self.memory.add(self.conversation_id, self.messages)
