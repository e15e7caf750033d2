"""``OllamaEmbeddingModel`` passes the embedding conformance kit and writes Ollama's body."""

from __future__ import annotations

import json

import httpx

from ostinato.testing.embedding_conformance import EmbeddingModelConformance
from ostinato_ollama.embedding import OllamaEmbeddingModel


class TestOllamaEmbeddings(EmbeddingModelConformance):
    def build_model(self, transport, *, api_key, batch_size, retry_policy):
        return OllamaEmbeddingModel(
            api_key=api_key,
            batch_size=batch_size,
            retry_policy=retry_policy,
            http_client_factory=lambda: httpx.AsyncClient(transport=transport),
        )

    def reply(self, vectors, prompt_tokens):
        return {"model": "m", "embeddings": list(vectors), "prompt_eval_count": prompt_tokens}

    def texts_of(self, body):
        return body["input"]

    def error_body(self, message):
        return {"error": message}


async def test_the_body_is_ollamas():
    seen = []

    def answer(request):
        seen.append((request.url.path, json.loads(request.content)))
        return httpx.Response(200, json={"embeddings": [[1.0, 0.0]], "prompt_eval_count": 2})

    model = OllamaEmbeddingModel(
        keep_alive="1m",
        http_client_factory=lambda: httpx.AsyncClient(transport=httpx.MockTransport(answer)),
    )
    response = await model.embed(["hello"])
    assert response.usage.prompt_tokens == 2
    assert seen == [
        (
            "/api/embed",
            {"model": "nomic-embed-text", "input": ["hello"], "truncate": True, "keep_alive": "1m"},
        )
    ]
