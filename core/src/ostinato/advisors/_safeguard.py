"""``SafeGuardAdvisor``: a request holding a sensitive word is answered with a refusal,
and the model is never called (Spring AI's advisor of the same name).

The check is Spring's: each configured word is looked for in the text of every message
of the prompt joined (:attr:`~ostinato.prompt.Prompt.contents`), as written (case
matters). A match short-circuits the chain with one assistant message, the failure
response; the context of the request goes back with it. The default order is 0 (as
in Spring AI: inside the tool loop, so every round is checked).

It is a :class:`~ostinato.advisors.GuardAdvisor` of one input guard,
:class:`SensitiveWordsGuard`, so a refusal is told as a
:class:`~ostinato.events.GuardActed` event like any guard's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, ClassVar, Final

from ostinato.advisors._guard import ALLOWED, Guard, GuardDecision
from ostinato.advisors._guard_advisor import DEFAULT_GUARD_RESPONSE, GuardAdvisor

if TYPE_CHECKING:
    from ostinato.advisors._exchange import ChatClientRequest

__all__ = ["DEFAULT_FAILURE_RESPONSE", "SafeGuardAdvisor", "SensitiveWordsGuard"]

#: Spring AI's refusal, word for word.
DEFAULT_FAILURE_RESPONSE: Final = DEFAULT_GUARD_RESPONSE


class SensitiveWordsGuard(Guard):
    """Refuses a request whose messages hold any of ``sensitive_words`` (substrings, case
    sensitive, looked for in every message of the prompt).

    Args:
        sensitive_words: the words.
        failure_response: the answer to a refused request (``None``: the advisor's).

    Raises:
        TypeError: a single string instead of a list of words.
        ValueError: an empty or non-string word.
    """

    __slots__ = ("_failure", "_words")

    def __init__(self, sensitive_words: Iterable[str], failure_response: str | None = None) -> None:
        if isinstance(sensitive_words, str):
            raise TypeError("sensitive_words is a list of words; wrap a single word in a list")
        words = tuple(sensitive_words)
        if any(not isinstance(w, str) or not w for w in words):
            raise ValueError(f"every sensitive word must be a non-empty str, got {words!r}")
        self._words = words
        self._failure = failure_response

    @property
    def sensitive_words(self) -> tuple[str, ...]:
        """The words that make a request refused."""
        return self._words

    def refuses(self, request: ChatClientRequest) -> bool:
        """Whether ``request`` holds a sensitive word."""
        contents = request.prompt.contents
        return any(word in contents for word in self._words)

    def check_input(self, text: str, request: ChatClientRequest) -> GuardDecision:
        """Refuse a request holding a sensitive word (the reason says none of it: the
        event must not repeat what was refused)."""
        if self.refuses(request):
            return GuardDecision.refuse("a sensitive word", self._failure)
        return ALLOWED


class SafeGuardAdvisor(GuardAdvisor):
    """Refuses requests containing any of ``sensitive_words``.

    Args:
        sensitive_words: the words (substrings) that make a request refused.
        failure_response: the assistant's answer to a refused request.
        order: the advisor's place in the chain (default 0).
    """

    __slots__ = ("_words_guard",)

    DEFAULT_ORDER: ClassVar[int] = 0

    def __init__(
        self,
        sensitive_words: Iterable[str],
        *,
        failure_response: str = DEFAULT_FAILURE_RESPONSE,
        order: int = DEFAULT_ORDER,
    ) -> None:
        self._words_guard = SensitiveWordsGuard(sensitive_words)
        super().__init__([self._words_guard], failure_response=failure_response, order=order)

    @property
    def sensitive_words(self) -> tuple[str, ...]:
        """The words that make a request refused."""
        return self._words_guard.sensitive_words

    def refuses(self, request: ChatClientRequest) -> bool:
        """Whether ``request`` holds a sensitive word."""
        return self._words_guard.refuses(request)
