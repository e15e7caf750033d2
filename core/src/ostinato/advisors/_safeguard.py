"""``SafeGuardAdvisor``: a request holding a sensitive word is answered with a refusal,
and the model is never called (Spring AI's advisor of the same name).

The check is Spring's: each configured word is looked for in the text of every message
of the prompt joined (:attr:`~ostinato.prompt.Prompt.contents`), as written (case
matters). A match short-circuits the chain with one assistant message, the failure
response; the context of the request goes back with it. The default order is 0.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from typing import TYPE_CHECKING, ClassVar, Final

from ostinato.advisors._api import CallAdvisor, StreamAdvisor
from ostinato.advisors._exchange import ChatClientRequest, ChatClientResponse
from ostinato.messages import AssistantMessage
from ostinato.model import ChatGenerationMetadata, ChatResponse, Generation

if TYPE_CHECKING:
    from ostinato.advisors._chain import AdvisorChain

__all__ = ["DEFAULT_FAILURE_RESPONSE", "SafeGuardAdvisor"]

#: Spring AI's refusal, word for word.
DEFAULT_FAILURE_RESPONSE: Final = (
    "I'm unable to respond to that due to sensitive content. "
    "Could you rephrase or provide more context?"
)


class SafeGuardAdvisor(CallAdvisor, StreamAdvisor):
    """Refuses requests containing any of ``sensitive_words``.

    Args:
        sensitive_words: the words (substrings) that make a request refused.
        failure_response: the assistant's answer to a refused request.
        order: the advisor's place in the chain (default 0).
    """

    __slots__ = ("_failure", "_order", "_words")

    DEFAULT_ORDER: ClassVar[int] = 0

    def __init__(
        self,
        sensitive_words: Iterable[str],
        *,
        failure_response: str = DEFAULT_FAILURE_RESPONSE,
        order: int = DEFAULT_ORDER,
    ) -> None:
        if isinstance(sensitive_words, str):
            raise TypeError("sensitive_words is a list of words; wrap a single word in a list")
        words = tuple(sensitive_words)
        if any(not isinstance(w, str) or not w for w in words):
            raise ValueError(f"every sensitive word must be a non-empty str, got {words!r}")
        self._words = words
        self._failure = failure_response
        self._order = order

    @property
    def order(self) -> int:
        """The advisor's place in the chain."""
        return self._order

    @property
    def sensitive_words(self) -> tuple[str, ...]:
        """The words that make a request refused."""
        return self._words

    def refuses(self, request: ChatClientRequest) -> bool:
        """Whether ``request`` holds a sensitive word."""
        contents = request.prompt.contents
        return any(word in contents for word in self._words)

    def _refusal(self, request: ChatClientRequest) -> ChatClientResponse:
        generation = Generation(
            AssistantMessage(self._failure), ChatGenerationMetadata(finish_reason="STOP")
        )
        return ChatClientResponse(ChatResponse([generation]), request.context)

    async def advise_call(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> ChatClientResponse:
        """The refusal, or the rest of the chain's answer."""
        if self.refuses(request):
            return self._refusal(request)
        return await chain.next_call(request)

    async def advise_stream(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> AsyncIterator[ChatClientResponse]:
        """The refusal as one chunk, or the rest of the chain's stream."""
        if self.refuses(request):
            yield self._refusal(request)
            return
        async for response in chain.next_stream(request):
            yield response
