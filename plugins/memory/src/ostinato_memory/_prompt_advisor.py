"""``PromptChatMemoryAdvisor``: remembered messages go to the model inside the system message.

The user and assistant texts of the conversation are rendered as ``USER:...`` /
``ASSISTANT:...`` lines into a template that also holds the request's own system text
(Spring AI's default template, word for word). Storing follows
:class:`~ostinato_memory.ChatMemoryAdvisor`. Meant for outside the tool loop: tool
messages are remembered but not rendered.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from ostinato.advisors import ChatClientRequest
from ostinato.memory import ChatMemory
from ostinato.messages import AssistantMessage, Message, SystemMessage, UserMessage
from ostinato_memory._advisor import ChatMemoryAdvisor
from ostinato_memory._history import merge_history, system_first

__all__ = ["DEFAULT_SYSTEM_PROMPT_TEMPLATE", "PromptChatMemoryAdvisor"]

#: Spring AI's default template: ``{instructions}`` is the request's system text, ``{memory}``
#: the rendered conversation.
DEFAULT_SYSTEM_PROMPT_TEMPLATE: Final = (
    "{instructions}\n\n"
    "Use the conversation memory from the MEMORY section to provide accurate answers.\n\n"
    "---------------------\n"
    "MEMORY:\n"
    "{memory}\n"
    "---------------------\n\n"
)

_PLACEHOLDER = re.compile(r"\{(instructions|memory)\}")


class PromptChatMemoryAdvisor(ChatMemoryAdvisor):
    """Remembers the conversation and shows it to the model in the system message.

    Args:
        chat_memory, order, default_conversation_id: as
            :class:`~ostinato_memory.ChatMemoryAdvisor`.
        system_prompt_template: the system text sent to the model; must contain
            ``{instructions}`` (the request's system text) and ``{memory}`` (the
            rendered conversation). Default :data:`DEFAULT_SYSTEM_PROMPT_TEMPLATE`.
    """

    __slots__ = ("_template",)

    def __init__(
        self,
        chat_memory: ChatMemory,
        *,
        order: int = ChatMemoryAdvisor.DEFAULT_ORDER,
        default_conversation_id: str | None = None,
        system_prompt_template: str = DEFAULT_SYSTEM_PROMPT_TEMPLATE,
    ) -> None:
        super().__init__(chat_memory, order=order, default_conversation_id=default_conversation_id)
        if not isinstance(system_prompt_template, str):
            raise TypeError(
                f"system_prompt_template must be a str, got {type(system_prompt_template).__name__}"
            )
        missing = [p for p in ("{instructions}", "{memory}") if p not in system_prompt_template]
        if missing:
            raise ValueError(
                f"system_prompt_template lacks {' and '.join(missing)}: "
                f"{system_prompt_template!r}\n"
                "fix: include {instructions} (the request's system text) and {memory} "
                "(the remembered conversation)"
            )
        self._template = system_prompt_template

    @property
    def system_prompt_template(self) -> str:
        """The template of the system text."""
        return self._template

    @staticmethod
    def render_memory(messages: Sequence[Message]) -> str:
        """One ``USER:text`` / ``ASSISTANT:text`` line per user or assistant message with
        text (tool calls and tool responses are not rendered)."""
        return "\n".join(
            f"{m.message_type.name}:{m.text}"
            for m in messages
            if isinstance(m, UserMessage | AssistantMessage) and m.text
        )

    def apply_history(
        self,
        request: ChatClientRequest,
        history: Sequence[Message],
        current: Sequence[Message],
    ) -> ChatClientRequest:
        """The system message rewritten from the template (one is added if the request has
        none); ``current`` messages placed before the request's."""
        values = {
            "instructions": request.prompt.system_message.text,
            "memory": self.render_memory(history),
        }
        text = _PLACEHOLDER.sub(lambda match: values[match.group(1)], self._template)
        prompt = request.prompt.augment_system_message(
            lambda system: SystemMessage(text, system.metadata)
        )
        if current:
            prompt = prompt.copy(messages=system_first(merge_history(current, prompt.messages)))
        return request.copy(prompt=prompt)
