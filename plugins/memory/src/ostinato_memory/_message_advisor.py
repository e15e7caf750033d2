"""``MessageChatMemoryAdvisor``: remembered messages go to the model as messages.

Before the rest of the chain, the conversation's remembered messages are placed before
the request's (unless the request already carries them, as in Spring AI, so a tool loop
forwarding the whole turn does not send them twice)
and the first system message is moved to the front. What is stored, and when, is
:class:`~ostinato_memory.ChatMemoryAdvisor`'s: outside the tool loop the user message and
the final answer after the turn; inside it, whole tool rounds and the final answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from ostinato.advisors import ChatClientRequest
from ostinato.messages import Message
from ostinato_memory._advisor import ChatMemoryAdvisor
from ostinato_memory._history import merge_history, system_first

__all__ = ["MessageChatMemoryAdvisor"]


class MessageChatMemoryAdvisor(ChatMemoryAdvisor):
    """Remembers the conversation and replays it to the model as messages.

    The one memory advisor that works both outside the tool loop (its default order) and
    inside it (ordered after the tool advisor, e.g. ``ToolCallingAdvisor.DEFAULT_ORDER +
    1``), where every tool round is remembered; see ``docs/memory.md``.

    >>> advisor = MessageChatMemoryAdvisor(MessageWindowChatMemory())
    >>> client = ChatClient.builder(model).default_advisors(advisor).build()
    >>> client.prompt("hi").advisors(AdvisorParams.conversation_id("u-42")).call().content()
    """

    __slots__ = ()

    def apply_history(
        self,
        request: ChatClientRequest,
        history: Sequence[Message],
        current: Sequence[Message],
    ) -> ChatClientRequest:
        """``history`` and ``current`` before the request's messages (not repeated), the
        first system message first."""
        original = request.prompt.messages
        messages = system_first(merge_history([*history, *current], original))
        if tuple(messages) == original:
            return request
        return request.copy(prompt=request.prompt.copy(messages=messages))
