"""The embedding model conformance kit: one test suite every HTTP embedding adapter
subclasses.

An adapter's test module subclasses :class:`EmbeddingModelConformance`, says how to build
the adapter on an ``httpx.MockTransport`` and how its provider writes a reply; the kit
then checks that vectors come back in the order of the texts, batches are split and
their usage summed, the vectors' length is learnt and then enforced, the API key is sent
and never shown in an error, error statuses become the typed errors of chat models (401
→ ``AuthenticationError``, 404 → ``NotFoundError``), 429 and 5xx are retried, a reply
that is not JSON or lacks vectors is a ``MalformedResponseError``, and the blocking face
agrees::

    from ostinato.testing.embedding_conformance import EmbeddingModelConformance

    class TestAcmeEmbeddings(EmbeddingModelConformance):
        def build_model(self, transport, *, api_key, batch_size, retry_policy):
            return AcmeEmbeddingModel(
                model="acme-embed", api_key=api_key, batch_size=batch_size,
                retry_policy=retry_policy,
                http_client_factory=lambda: httpx.AsyncClient(transport=transport))

        def reply(self, vectors, prompt_tokens):
            return {"data": [{"embedding": v} for v in vectors],
                    "usage": {"prompt_tokens": prompt_tokens}}

        def texts_of(self, body):
            return body["input"]

This package imports httpx and pytest, so it is not re-exported by
:mod:`ostinato.testing`. See ``docs/retrieval.md``.
"""

from ostinato.testing.embedding_conformance._kit import (
    EMBEDDING_API_KEY,
    EmbeddingModelConformance,
    fake_vector,
)

__all__ = ["EMBEDDING_API_KEY", "EmbeddingModelConformance", "fake_vector"]
