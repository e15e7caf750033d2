"""``ChatMemoryAdvisor``: what every memory advisor shares — conversation id, order, and
*when* messages are stored.

Outside the tool loop (the default order, ``HIGHEST_PRECEDENCE + 200``, is before the
tool advisor's) one run of the advisor is one turn: the user message and the turn's
answer are stored together once the turn has succeeded, so a failed turn leaves memory
as it was (Spring AI stores the user message before the model is called). Inside the
loop one run is one model round: a round whose answer asks for tools stays *open* until
the next round brings the tool responses, and is then stored whole; a round that answers
is stored with its input. When the turn ends without another round (return-direct tools,
a limit breach, the iteration cap) the tool advisor says so
(:class:`~ostinato.advisors.ToolLoopExitListener`) and the open round is stored with
the turn's answer. A failed run stores nothing, nor does a run whose response
holds no generation (there is no answer to pair the input with), nor a turn that stopped
for approvals: it is stored whole once resumed (``_resumed``).

Subclasses decide only how remembered messages reach the model
(:meth:`ChatMemoryAdvisor.apply_history`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Self, TypeVar

from ostinato.advisors import (
    Advisor,
    AdvisorChain,
    CallAdvisor,
    ChatClientRequest,
    ChatClientResponse,
    MemoryAdvisor,
    Ordered,
    StreamAdvisor,
    ToolAdvisor,
    ToolLoopExit,
    ToolLoopExitListener,
)
from ostinato.context_keys import STEERING
from ostinato.memory import ChatMemory, ChatMemoryRepository
from ostinato.messages import AssistantMessage, Message
from ostinato.model import Usage
from ostinato.units import read_memory, write_memory
from ostinato_memory._answer import StreamedAnswer, outputs_of, usage_of, with_usage
from ostinato_memory._history import resolve_conversation_id
from ostinato_memory._open_rounds import OpenRounds
from ostinato_memory._resumed import is_pending, resumed_of, stopped_round, turn_input

__all__ = ["ChatMemoryAdvisor", "ChatMemoryAdvisorBuilder"]

A = TypeVar("A", bound="ChatMemoryAdvisor")


@dataclass(frozen=True, slots=True)
class _Run:
    conversation_id: str
    request: ChatClientRequest  # what goes down the chain, history applied
    inputs: tuple[Message, ...]  # stored with the answer
    outside: bool  # the tool loop runs inside this advisor
    chain: AdvisorChain  # its unit stack and turn: the memory units go through them


def _loop_inside(advisor: Advisor, chain: AdvisorChain) -> bool:
    advisors = chain.advisors
    for i, candidate in enumerate(advisors):
        if candidate is advisor:
            return any(isinstance(a, ToolAdvisor) for a in advisors[i + 1 :])
    return any(isinstance(a, ToolAdvisor) for a in advisors)


def _checked_memory(value: object) -> ChatMemory:
    if value is None:
        raise ValueError(
            "chatMemory cannot be null: pass a ChatMemory, e.g. MessageWindowChatMemory()"
        )
    if not isinstance(value, ChatMemory):
        hint = (
            "; this is a repository: wrap it, MessageWindowChatMemory(repository)"
            if isinstance(value, ChatMemoryRepository)
            else ""
        )
        raise TypeError(
            f"chat_memory must be a ChatMemory (add, get, clear), got {type(value).__name__}{hint}"
        )
    return value


class ChatMemoryAdvisor(CallAdvisor, StreamAdvisor, MemoryAdvisor, ToolLoopExitListener, ABC):
    """Base of the memory advisors (Spring AI's ``BaseChatMemoryAdvisor``).

    Args:
        chat_memory: where the conversation is remembered (e.g.
            :class:`~ostinato_memory.MessageWindowChatMemory`).
        order: position in the chain (default :attr:`DEFAULT_ORDER`, outside the tool
            loop). Order it after the tool advisor (e.g.
            ``ToolCallingAdvisor.DEFAULT_ORDER + 1``) to remember every tool round.
        default_conversation_id: the conversation used when the advisor context names
            none (``AdvisorParams.conversation_id(...)`` wins). Without either, a run
            fails with :class:`~ostinato_memory.MissingConversationIdError`.
    """

    DEFAULT_ORDER: ClassVar[int] = Ordered.HIGHEST_PRECEDENCE + 200

    __slots__ = ("_chat_memory", "_default_conversation_id", "_open_rounds", "_order")

    def __init__(
        self,
        chat_memory: ChatMemory,
        *,
        order: int = DEFAULT_ORDER,
        default_conversation_id: str | None = None,
    ) -> None:
        chat_memory = _checked_memory(chat_memory)
        if isinstance(order, bool) or not isinstance(order, int):
            raise TypeError(f"order must be an int, got {order!r}")
        if default_conversation_id is not None and (
            not isinstance(default_conversation_id, str) or not default_conversation_id.strip()
        ):
            raise ValueError(
                f"default_conversation_id must be a non-blank string or None, got "
                f"{default_conversation_id!r}"
            )
        self._chat_memory = chat_memory
        self._order = order
        self._default_conversation_id = default_conversation_id
        self._open_rounds = OpenRounds()

    @classmethod
    def builder(cls, chat_memory: ChatMemory) -> ChatMemoryAdvisorBuilder[Self]:
        """A fluent builder, for people coming from Spring AI."""
        return ChatMemoryAdvisorBuilder(cls, chat_memory)

    @property
    def name(self) -> str:
        """The class name."""
        return type(self).__name__

    @property
    def order(self) -> int:
        """Position in the chain."""
        return self._order

    @property
    def chat_memory(self) -> ChatMemory:
        """Where the conversation is remembered."""
        return self._chat_memory

    @property
    def default_conversation_id(self) -> str | None:
        """The conversation used when the advisor context names none."""
        return self._default_conversation_id

    def conversation_id(self, context: Mapping[str, Any]) -> str:
        """The conversation of a request with this advisor ``context``.

        Raises:
            MissingConversationIdError: the context names none and there is no default.
        """
        return resolve_conversation_id(context, self._default_conversation_id, self.name)

    @abstractmethod
    def apply_history(
        self,
        request: ChatClientRequest,
        history: Sequence[Message],
        current: Sequence[Message],
    ) -> ChatClientRequest:
        """The request the rest of the chain receives.

        Args:
            request: the request as it arrived.
            history: the remembered messages of the conversation.
            current: messages of the turn in progress that are not stored yet (an open
                tool round, inside the loop); they must reach the model as messages.
        """

    # -- the runs -----------------------------------------------------------------------

    async def _begin(self, request: ChatClientRequest, chain: AdvisorChain) -> _Run:
        conversation_id = self.conversation_id(request.context)
        outside = _loop_inside(self, chain)
        resumed = resumed_of(request.context)
        if resumed is not None and outside:
            # The resumed conversation already holds the history: store the turn's user
            # message with the final answer, once the turn ends.
            return _Run(conversation_id, request, turn_input(resumed), outside, chain)
        history = await read_memory(
            self._chat_memory, conversation_id, units=chain.units, turn=chain.turn
        )
        completed = self._open_rounds.take(conversation_id, request.prompt.messages)
        if completed is None and resumed is not None:
            completed = stopped_round(resumed, request.prompt.messages)
        if completed is None:
            prepared = self.apply_history(request, history, ())
            inputs: tuple[Message, ...] = (request.prompt.last_user_or_tool_response_message,)
        else:
            prepared = self.apply_history(request, history, completed[:-1])
            inputs = completed
        if completed is not None and not outside:
            # Inside the loop the tool round is whole now: store it before the next
            # model call (a later failure keeps it). Outside, it waits for the answer.
            await write_memory(
                self._chat_memory, conversation_id, completed, units=chain.units, turn=chain.turn
            )
            inputs = ()
        return _Run(conversation_id, prepared, inputs, outside, chain)

    async def _end(
        self, run: _Run, outputs: list[AssistantMessage], usage: Usage | None = None
    ) -> None:
        if not outputs:
            return  # no answer (a response without generations): not a turn to remember
        asking = next((o for o in outputs if o.has_tool_calls), None)
        if asking is not None and not run.outside:
            call_ids = (call.id for call in asking.tool_calls)
            self._open_rounds.open(run.conversation_id, [*run.inputs, *outputs], call_ids)
            return
        joined: tuple[Message, ...] = ()
        if run.outside:  # messages steered into the turn, with the answers they followed
            joined = tuple(getattr(run.request.context.get(STEERING), "joined", ()))
        if asking is None:
            # The answer: stored with what it cost. (A tool-call message is stored as the
            # model sent it: the next round's request carries it again, and must match.)
            outputs = with_usage(outputs, usage)
        await write_memory(
            self._chat_memory,
            run.conversation_id,
            [*run.inputs, *joined, *outputs],
            units=run.chain.units,
            turn=run.chain.turn,
        )

    async def on_tool_loop_exit(self, ending: ToolLoopExit) -> None:
        """Inside the loop: store the open round with the answer the tool advisor made.

        Return-direct: the round, its tool responses, then the answer (one assistant
        message per returned text). A limit breach or the iteration cap: the calls did
        not all run, so the tool-call message is left out (a request holding calls
        without their responses is refused by providers); the round's other messages
        (the user message, in a first round) are stored with the answer text.
        """
        conversation_id = self.conversation_id(ending.request.context)
        if is_pending(ending.response.context):
            # Stopped for approvals: the round is stored whole when the turn is resumed.
            asking = next((o for o in outputs_of(ending.asked) if o.has_tool_calls), None)
            if asking is not None:
                self._open_rounds.close(conversation_id, (c.id for c in asking.tool_calls))
            return
        asking = next((o for o in outputs_of(ending.asked) if o.has_tool_calls), None)
        if asking is None:
            return
        held = self._open_rounds.close(conversation_id, (c.id for c in asking.tool_calls))
        if held is None:
            return
        answers = outputs_of(ending.response.chat_response)
        if ending.tool_responses is not None:
            messages = [*held, ending.tool_responses, *answers]
        else:
            messages = [
                m for m in held if not (isinstance(m, AssistantMessage) and m.has_tool_calls)
            ]
            messages += answers
        if messages:
            await write_memory(self._chat_memory, conversation_id, messages)

    async def advise_call(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> ChatClientResponse:
        """Apply the history, call the rest of the chain, store the run once it succeeded."""
        run = await self._begin(request, chain)
        response = await chain.next_call(run.request)
        if not is_pending(response.context):
            answer = response.chat_response
            await self._end(run, outputs_of(answer), usage_of(answer))
        return response

    async def advise_stream(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> AsyncIterator[ChatClientResponse]:
        """Apply the history, pass the chunks through, store the run once the stream has
        ended normally (an abandoned or failed stream stores nothing)."""
        run = await self._begin(request, chain)
        answer = StreamedAnswer()
        stream = chain.next_stream(run.request)
        pending = False
        try:
            async for chunk in stream:
                answer.add(chunk)
                pending = pending or is_pending(chunk.context)
                yield chunk
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()
        if not pending:  # a turn stopped for approvals is stored when it is resumed
            final = answer.response()
            await self._end(run, outputs_of(final), usage_of(final))

    def __repr__(self) -> str:
        return f"<{self.name} order={self._order} memory={self._chat_memory!r}>"


class ChatMemoryAdvisorBuilder(Generic[A]):
    """Fluent construction of a memory advisor: ``Advisor.builder(memory).order(10).build()``."""

    __slots__ = ("_chat_memory", "_cls", "_settings")

    def __init__(self, cls: type[A], chat_memory: ChatMemory) -> None:
        self._cls = cls
        chat_memory = _checked_memory(chat_memory)
        self._chat_memory = chat_memory
        self._settings: dict[str, Any] = {}

    def order(self, order: int) -> Self:
        """Set the advisor order."""
        self._settings["order"] = order
        return self

    def default_conversation_id(self, conversation_id: str) -> Self:
        """Set the conversation used when the advisor context names none."""
        self._settings["default_conversation_id"] = conversation_id
        return self

    def setting(self, name: str, value: Any) -> Self:
        """Set any other constructor argument (``system_prompt_template``...)."""
        self._settings[name] = value
        return self

    def build(self) -> A:
        """Construct the advisor (validation errors surface here)."""
        return self._cls(self._chat_memory, **self._settings)
