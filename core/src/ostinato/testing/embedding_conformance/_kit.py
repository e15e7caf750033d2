"""The checks of the embedding conformance kit (see the package's docstring)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from typing import Any, Final

import httpx
import pytest

from ostinato.errors import (
    AuthenticationError,
    MalformedResponseError,
    ModelConnectionError,
    NotFoundError,
    RateLimitError,
    ServerError,
)
from ostinato.retrieval import EmbeddingModel
from ostinato.transport import RetryPolicy

__all__ = ["EMBEDDING_API_KEY", "EmbeddingModelConformance", "fake_vector"]

#: The API key the kit's models are built with (checked never to appear in errors).
EMBEDDING_API_KEY: Final = "sk-embedding-conformance-0123456789"


def fake_vector(text: str, dimensions: int = 4) -> list[float]:
    """A vector that tells which text it belongs to: its first value is the text's length."""
    return [float(len(text))] + [0.5] * (dimensions - 1)


def _no_wait(seconds: float) -> Any:
    return asyncio.sleep(0)


class EmbeddingModelConformance:
    """The kit's checks; a subclass writes :meth:`build_model`, :meth:`reply` and
    :meth:`texts_of` (and :meth:`error_body` when its errors look unlike OpenAI's)."""

    pytestmark = pytest.mark.asyncio
    #: Whether the provider's API takes a key (local servers may not).
    sends_api_key = True

    def build_model(
        self,
        transport: httpx.MockTransport,
        *,
        api_key: str,
        batch_size: int,
        retry_policy: RetryPolicy,
    ) -> EmbeddingModel:
        """The adapter, sending through ``transport``."""
        raise NotImplementedError(f"{type(self).__name__} must implement build_model()")

    def reply(self, vectors: Sequence[Sequence[float]], prompt_tokens: int) -> Any:
        """The JSON the provider replies with for ``vectors``, in order."""
        raise NotImplementedError(f"{type(self).__name__} must implement reply()")

    def texts_of(self, body: Any) -> list[str]:
        """The texts a request's JSON body asks vectors for."""
        raise NotImplementedError(f"{type(self).__name__} must implement texts_of()")

    def error_body(self, message: str) -> Any:
        """The provider's error body carrying ``message``."""
        return {"error": {"message": message}}

    # -- helpers ---------------------------------------------------------------------

    def model_answering(
        self,
        answer: Callable[[httpx.Request], httpx.Response],
        *,
        batch_size: int = 64,
        max_retries: int = 2,
    ) -> tuple[EmbeddingModel, list[httpx.Request]]:
        """A model whose requests ``answer`` answers, and the requests it sent."""
        seen: list[httpx.Request] = []

        def handler(request: httpx.Request) -> httpx.Response:
            seen.append(request)
            return answer(request)

        policy = RetryPolicy(max_retries=max_retries, sleep=_no_wait)
        model = self.build_model(
            httpx.MockTransport(handler),
            api_key=EMBEDDING_API_KEY,
            batch_size=batch_size,
            retry_policy=policy,
        )
        return model, seen

    def echo(self, request: httpx.Request, dimensions: int = 4) -> httpx.Response:
        """A reply with :func:`fake_vector` of each text of ``request``."""
        texts = self.texts_of(json.loads(request.content))
        vectors = [fake_vector(t, dimensions) for t in texts]
        return httpx.Response(200, json=self.reply(vectors, prompt_tokens=len(texts)))

    # -- the checks --------------------------------------------------------------------

    async def test_vectors_come_back_in_the_order_of_the_texts(self) -> None:
        """Vectors come back in the order of the texts."""
        model, seen = self.model_answering(self.echo)
        texts = ["a", "bb", "ccc"]
        response = await model.embed(texts)
        assert [v[0] for v in response.embeddings] == [1.0, 2.0, 3.0]
        assert self.texts_of(json.loads(seen[0].content)) == texts
        if self.sends_api_key:
            assert EMBEDDING_API_KEY in seen[0].headers.get("authorization", "")

    async def test_batches_are_split_and_their_usage_summed(self) -> None:
        """Batches are split and their usage summed."""
        model, seen = self.model_answering(self.echo, batch_size=2)
        response = await model.embed(["a", "bb", "ccc", "dddd", "eeeee"])
        assert [len(self.texts_of(json.loads(r.content))) for r in seen] == [2, 2, 1]
        assert [v[0] for v in response.embeddings] == [1.0, 2.0, 3.0, 4.0, 5.0]
        assert response.usage.prompt_tokens == 5

    async def test_no_text_sends_nothing(self) -> None:
        """No text sends nothing."""
        model, seen = self.model_answering(self.echo)
        assert (await model.embed([])).embeddings == ()
        assert seen == []

    async def test_dimensions_are_learnt_then_enforced(self) -> None:
        """Dimensions are learnt then enforced."""
        sizes = iter([3, 3, 5])
        model, _ = self.model_answering(lambda r: self.echo(r, next(sizes)))
        assert await model.dimensions() == 3
        await model.embed(["x"])
        with pytest.raises(MalformedResponseError, match="5 dimensions, expected 3"):
            await model.embed(["y"])

    @pytest.mark.parametrize(
        ("status", "error"), [(401, AuthenticationError), (404, NotFoundError)]
    )
    async def test_an_error_status_is_the_typed_error_without_the_key(
        self, status: int, error: type[Exception]
    ) -> None:
        """An error status is the typed error without the key."""
        body = self.error_body(f"refused key {EMBEDDING_API_KEY}")
        model, seen = self.model_answering(lambda r: httpx.Response(status, json=body))
        with pytest.raises(error) as caught:
            await model.embed(["x"])
        assert "refused key" in str(caught.value)
        assert EMBEDDING_API_KEY not in str(caught.value)
        assert EMBEDDING_API_KEY not in repr(caught.value)
        assert len(seen) == 1  # not retried

    @pytest.mark.parametrize(("status", "error"), [(429, RateLimitError), (503, ServerError)])
    async def test_busy_and_failing_servers_are_retried(
        self, status: int, error: type[Exception]
    ) -> None:
        """Busy and failing servers are retried."""
        replies = iter([httpx.Response(status, json=self.error_body("busy"))] * 2)
        model, seen = self.model_answering(lambda r: next(replies, None) or self.echo(r))
        assert len((await model.embed(["x"])).embeddings) == 1
        assert len(seen) == 3
        model, seen = self.model_answering(
            lambda r: httpx.Response(status, json=self.error_body("busy")), max_retries=1
        )
        with pytest.raises(error):
            await model.embed(["x"])
        assert len(seen) == 2

    async def test_a_connection_failure_is_a_connection_error(self) -> None:
        """A connection failure is a connection error."""

        def refuse(request: httpx.Request) -> httpx.Response:
            raise httpx.ConnectError("connection refused", request=request)

        model, _ = self.model_answering(refuse, max_retries=0)
        with pytest.raises(ModelConnectionError, match="connection refused"):
            await model.embed(["x"])

    @pytest.mark.parametrize("content", [b"<html>gateway</html>", b'{"unexpected": true}', b"[]"])
    async def test_a_reply_without_vectors_is_malformed(self, content: bytes) -> None:
        """A reply without vectors is malformed."""
        model, _ = self.model_answering(lambda r: httpx.Response(200, content=content))
        with pytest.raises(MalformedResponseError):
            await model.embed(["x"])

    async def test_a_reply_with_too_few_vectors_is_malformed(self) -> None:
        """A reply with too few vectors is malformed."""
        model, _ = self.model_answering(
            lambda r: httpx.Response(200, json=self.reply([fake_vector("a")], prompt_tokens=1))
        )
        with pytest.raises(MalformedResponseError, match="1 vector"):
            await model.embed(["a", "b"])

    async def test_the_blocking_face_agrees(self) -> None:
        """The blocking face agrees."""
        model, _ = self.model_answering(self.echo)
        response = await asyncio.to_thread(model.embed_sync, ["abc"])  # type: ignore[attr-defined]
        assert response.embeddings[0][0] == 3.0
