"""``HttpChatModelBase``: what every HTTP chat model adapter has in common.

The options requests start from, where they go, the retry policy, the response size
limit, one HTTP client per event loop and closing them: an adapter sets these in its
constructor (:meth:`HttpChatModelBase._init_transport`) and inherits the properties,
``aclose()`` and ``async with``. It writes only what its protocol needs. Imports no HTTP
library.
"""

from __future__ import annotations

from typing import Any, Generic, Self, TypeVar

from ostinato.prompt import ChatOptions
from ostinato.redaction import Redactor, mask_url
from ostinato.transport import ByteBudget, LoopClients, RetryPolicy, check_max_response_bytes

__all__ = ["HttpChatModelBase"]

OptionsT = TypeVar("OptionsT", bound=ChatOptions)


class HttpChatModelBase(Generic[OptionsT]):
    """Base of the HTTP chat model adapters (OpenAI, Anthropic, Ollama).

    A subclass calls :meth:`_init_transport` in its constructor, then builds its requests
    with ``self._clients.get()`` (the client of the running event loop), ``self._url``,
    ``self._retry`` and :meth:`_budget` (the reply's byte budget), and masks what it shows
    with ``self._redactor`` (every credential it sends).
    """

    _default_options: OptionsT
    _base_url: str
    _url: str
    _provider: str
    _retry: RetryPolicy
    _max_response_bytes: int
    _clients: LoopClients[Any]
    _redactor: Redactor

    def _init_transport(
        self,
        *,
        default_options: OptionsT,
        base_url: str,
        url: str,
        provider: str,
        retry_policy: RetryPolicy | None,
        max_response_bytes: int,
        clients: LoopClients[Any],
        redactor: Redactor | None = None,
    ) -> None:
        """Set what the inherited members read.

        Raises:
            ConfigurationError: ``max_response_bytes`` is not a positive int.
        """
        self._max_response_bytes = check_max_response_bytes(max_response_bytes)
        self._default_options = default_options
        self._base_url = base_url
        self._url = url
        self._provider = provider
        self._retry = retry_policy or RetryPolicy()
        self._clients = clients
        self._redactor = redactor or Redactor()

    @property
    def default_options(self) -> OptionsT:
        """The options requests start from."""
        return self._default_options

    @property
    def base_url(self) -> str:
        """The API root requests go to."""
        return self._base_url

    @property
    def retry_policy(self) -> RetryPolicy:
        """How failed requests are retried."""
        return self._retry

    @property
    def max_response_bytes(self) -> int:
        """The most bytes one reply may carry."""
        return self._max_response_bytes

    def _budget(self) -> ByteBudget:
        """A fresh byte budget for one reply."""
        return ByteBudget(self._max_response_bytes, provider=self._provider, url=self._url)

    async def aclose(self) -> None:
        """Close every HTTP client this model made (it makes new ones if used again)."""
        await self._clients.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(model={self._default_options.model!r}, "
            f"base_url={mask_url(self._base_url)!r})"
        )
