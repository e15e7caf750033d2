"""``HttpxEmbeddingModel``: the base of the HTTP embedding adapters; an adapter writes its
wire format only.

The connection is the chat adapters' (:mod:`ostinato.http`, :mod:`ostinato.transport`):
the API key checked for a header and masked in every error, timeouts, one client per
event loop, retries under a :class:`~ostinato.transport.RetryPolicy` (the server's wait
honoured), the reply's size limit, redirects refused, and each failure the same typed
:class:`~ostinato.errors.ModelError` a chat model raises. Texts are sent in batches of
``batch_size``. A subclass sets :attr:`provider`, :attr:`path` and
:attr:`default_base_url`, and writes :meth:`request_body` and :meth:`parse_reply`.
Imports httpx: import it from ``ostinato.retrieval`` only where an adapter is used.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import httpx

from ostinato.errors import MalformedResponseError
from ostinato.http import ErrorReport, model_error
from ostinato.model import Usage
from ostinato.redaction import Redactor, mask_url
from ostinato.retrieval._embedding import EmbeddingModelSyncFaces, EmbeddingResponse
from ostinato.transport import (
    DEFAULT_LIMITS,
    DEFAULT_MAX_RESPONSE_BYTES,
    AttemptFailed,
    ByteBudget,
    LoopClients,
    RetryPolicy,
    SecretLike,
    check_base_url,
    check_max_response_bytes,
    error_from_transport,
    error_payload,
    excerpt,
    header_api_key,
    header_value,
    httpx_timeout,
    make_client,
    read_body,
    read_error_body,
    reason_phrase,
    redirect_error,
    retry_call,
    split_userinfo,
)

__all__ = ["HttpxEmbeddingModel"]

_FINAL: Mapping[str, str] = {"x-should-retry": "false"}


class HttpxEmbeddingModel(EmbeddingModelSyncFaces):
    """An embedding model behind an HTTP JSON API, over httpx.

    Args:
        model: the model name sent with each request.
        base_url: the API root; requests go to ``<base_url><path>``.
        api_key: sent as :meth:`_auth_headers` says (bearer); masked in errors.
        dimensions: the vectors' length when known (asked for where the API takes it,
            checked on every reply); ``None``: learnt from the first reply.
        batch_size: the most texts sent in one request.
        timeout, retry_policy, extra_headers, extra_query, http_client_factory,
        max_response_bytes: as :class:`~ostinato.http.HttpxChatModel`'s.

    Raises:
        ConfigurationError: a bad base URL, API key or header, or a limit not positive.
    """

    #: The name errors carry (``openai``).
    provider: ClassVar[str] = "http"
    #: Appended to the base URL (``/embeddings``).
    path: ClassVar[str] = "/embeddings"
    #: The base URL when none is given (``None``: one must be).
    default_base_url: ClassVar[str | None] = None
    #: The prefix of the provider's settings, named in errors.
    env_prefix: ClassVar[str] = "OSTINATO_"
    #: Reads an error body: ``read_error(payload, status, headers, fallback) -> ErrorReport``.
    read_error: ClassVar[Callable[..., ErrorReport]]

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str | SecretLike | None = None,
        dimensions: int | None = None,
        batch_size: int = 64,
        timeout: float | httpx.Timeout | None = None,
        retry_policy: RetryPolicy | None = None,
        extra_headers: Mapping[str, str] | None = None,
        extra_query: Mapping[str, str] | None = None,
        http_client_factory: Callable[[], httpx.AsyncClient] | None = None,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    ) -> None:
        if not isinstance(model, str) or not model:
            raise ValueError(f"model must be a non-empty str, got {model!r}")
        if base_url is None:
            base_url = type(self).default_base_url
            if base_url is None:
                raise TypeError(f"{type(self).__name__} needs base_url")
        if dimensions is not None and (isinstance(dimensions, bool) or dimensions < 1):
            raise ValueError(f"dimensions must be a positive int, got {dimensions!r}")
        if isinstance(batch_size, bool) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
        provider = self.provider
        root, userinfo = split_userinfo(check_base_url(base_url, variable="base_url").rstrip("/"))
        key = header_api_key(api_key, provider=provider)
        headers = {"content-type": "application/json", "accept": "application/json"}
        if key:
            headers.update(self._auth_headers(key))
        for name, value in (extra_headers or {}).items():
            headers[name.lower()] = header_value(
                value, what=f"the {provider} extra header {name!r}"
            )
        if userinfo:
            headers["authorization"] = userinfo
        self._model = model
        self._base_url = root
        self._url = f"{root}{self.path}"
        self._headers = headers
        self._params = dict(extra_query or {})
        self._timeout = httpx_timeout(timeout)
        self._retry = retry_policy or RetryPolicy()
        self._dimensions = dimensions
        self._batch_size = batch_size
        self._max_response_bytes = check_max_response_bytes(max_response_bytes)
        self._clients: LoopClients[httpx.AsyncClient] = LoopClients(
            http_client_factory or (lambda: make_client(self._timeout, DEFAULT_LIMITS)),
            httpx.AsyncClient,
        )
        self._redactor = Redactor.for_request(
            api_key=key, headers=headers, url=base_url, params=self._params
        )

    # -- what a subclass writes ----------------------------------------------------------

    def _auth_headers(self, api_key: str) -> dict[str, str]:
        """The headers carrying ``api_key`` (``Authorization: Bearer`` unless overridden)."""
        return {"authorization": f"Bearer {api_key}"}

    def request_body(self, texts: Sequence[str]) -> dict[str, Any]:
        """The JSON body asking for the vectors of ``texts``."""
        raise NotImplementedError

    def parse_reply(self, payload: Any, count: int) -> EmbeddingResponse:
        """The vectors (in the order of the texts) and usage a reply's JSON holds; raise
        :meth:`_malformed` 's error when it does not hold ``count`` of them."""
        raise NotImplementedError

    # -- shared --------------------------------------------------------------------------

    @property
    def model(self) -> str:
        """The model name sent with each request."""
        return self._model

    @property
    def base_url(self) -> str:
        """The API root."""
        return self._base_url

    async def dimensions(self) -> int:
        """The vectors' length (one text is embedded to learn it when not configured)."""
        if self._dimensions is None:
            await self.embed(["dimensions"])
        assert self._dimensions is not None
        return self._dimensions

    async def embed(self, texts: Sequence[str]) -> EmbeddingResponse:
        """The vectors of ``texts`` (in batches of ``batch_size``), with the summed usage.

        Raises:
            ModelError: the typed error of the last attempt of a failed batch.
            MalformedResponseError: a reply without one vector of the right length per text.
        """
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts; wrap a single text in a list")
        vectors: list[tuple[float, ...]] = []
        usage = Usage()
        model = self._model
        for start in range(0, len(texts), self._batch_size):
            batch = list(texts[start : start + self._batch_size])
            reply = await self._embed_batch(batch)
            vectors.extend(reply.embeddings)
            usage = usage + reply.usage
            model = reply.model or model
        return EmbeddingResponse(tuple(vectors), model, usage)

    async def _embed_batch(self, texts: list[str]) -> EmbeddingResponse:
        body = self.request_body(texts)
        content = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()

        async def attempt() -> EmbeddingResponse:
            return await self._post(content, len(texts))

        reply = await retry_call(attempt, self._retry)
        for index, vector in enumerate(reply.embeddings):
            if self._dimensions is None:
                self._dimensions = len(vector)
            elif len(vector) != self._dimensions:
                raise self._malformed(
                    f"the vector of text {index} has {len(vector)} dimensions, "
                    f"expected {self._dimensions}"
                )
        return reply

    async def _post(self, content: bytes, count: int) -> EmbeddingResponse:
        client = self._clients.get()
        arguments: dict[str, Any] = {"content": content, "headers": self._headers}
        if self._params:
            arguments["params"] = self._params
        try:
            async with client.stream("POST", self._url, **arguments) as response:
                if response.status_code >= 300:
                    raise await self._failure(response)
                budget = ByteBudget(self._max_response_bytes, provider=self.provider, url=self._url)
                raw = await read_body(
                    response.aiter_bytes(), budget, response.headers.get("content-length")
                )
        except httpx.RequestError as exc:
            raise AttemptFailed(
                error_from_transport(
                    exc, provider=self.provider, url=self._url, secret=self._redactor
                )
            ) from exc
        try:
            payload = json.loads(raw)
        except ValueError:
            payload = None
        if payload is None:
            raise self._malformed(f"the reply is not JSON: {excerpt(raw, self._redactor)}")
        if isinstance(payload, Mapping) and payload.get("error"):
            report = type(self).read_error(payload, None, response.headers, None)
            error = model_error(report, provider=self.provider, secret=self._redactor)
            raise AttemptFailed(error, response.headers)
        return self.parse_reply(payload, count)

    async def _failure(self, response: httpx.Response) -> AttemptFailed:
        status = response.status_code
        if status < 400:
            error = redirect_error(
                response,
                provider=self.provider,
                path=self.path,
                variable=f"{self.env_prefix}BASE_URL",
            )
            return AttemptFailed(error, _FINAL)
        body = await read_error_body(response.aiter_bytes())
        report = type(self).read_error(
            error_payload(body, self._redactor), status, response.headers, reason_phrase(status)
        )
        error = model_error(
            report, provider=self.provider, headers=response.headers, secret=self._redactor
        )
        return AttemptFailed(error, response.headers)

    def _malformed(self, what: str) -> MalformedResponseError:
        return MalformedResponseError(
            f"{self.provider}: {what} (from {mask_url(self._url)})", provider=self.provider
        )

    def _vector(self, value: Any, index: int) -> tuple[float, ...]:
        """``value`` as a vector of numbers, or the malformed-reply error."""
        if not isinstance(value, list) or not value:
            raise self._malformed(f"embedding {index} is not a list of numbers")
        if any(isinstance(x, bool) or not isinstance(x, int | float) for x in value):
            raise self._malformed(f"embedding {index} holds a value that is not a number")
        return tuple(float(x) for x in value)

    async def aclose(self) -> None:
        """Close every HTTP client this model made."""
        await self._clients.aclose()

    async def __aenter__(self) -> HttpxEmbeddingModel:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(model={self._model!r}, base_url={mask_url(self._base_url)!r})"
        )
