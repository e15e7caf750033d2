"""``OpenAIEmbeddingModel`` passes the embedding conformance kit and writes OpenAI's body."""

from __future__ import annotations

import json

import httpx

from ostinato.testing.embedding_conformance import EmbeddingModelConformance
from ostinato_openai.embedding import OpenAIEmbeddingModel


class TestOpenAIEmbeddings(EmbeddingModelConformance):
    def build_model(self, transport, *, api_key, batch_size, retry_policy):
        return OpenAIEmbeddingModel(
            api_key=api_key,
            batch_size=batch_size,
            retry_policy=retry_policy,
            http_client_factory=lambda: httpx.AsyncClient(transport=transport),
        )

    def reply(self, vectors, prompt_tokens):
        # Out of order on purpose: the index decides.
        data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
        return {"data": data[::-1], "model": "m", "usage": {"prompt_tokens": prompt_tokens}}

    def texts_of(self, body):
        return body["input"]


async def test_the_body_asks_for_floats_and_the_configured_dimensions():
    seen = []

    def answer(request):
        seen.append(json.loads(request.content))
        return httpx.Response(200, json={"data": [{"index": 0, "embedding": [0.1, 0.2]}]})

    model = OpenAIEmbeddingModel(
        model="text-embedding-3-large",
        base_url="http://localhost:8080/v1",
        dimensions=2,
        http_client_factory=lambda: httpx.AsyncClient(transport=httpx.MockTransport(answer)),
    )
    assert (await model.embed(["hi"])).embeddings == ((0.1, 0.2),)
    assert seen == [
        {
            "model": "text-embedding-3-large",
            "input": ["hi"],
            "encoding_format": "float",
            "dimensions": 2,
        }
    ]
