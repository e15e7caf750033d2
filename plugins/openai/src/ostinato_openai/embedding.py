"""``OpenAIEmbeddingModel``: an :class:`~ostinato.retrieval.EmbeddingModel` speaking
``POST /v1/embeddings`` (OpenAI and every server imitating it: vLLM, llama.cpp's server,
LM Studio, Ollama's ``/v1``).

The connection (key, timeouts, retries, size limit, redirects, error mapping, redaction)
is :class:`~ostinato.retrieval.HttpxEmbeddingModel`'s and reads errors as the chat model
does; this module writes the body (``model``, ``input``, ``encoding_format: "float"``
and ``dimensions`` when set) and reads ``data[].embedding`` by ``index``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ostinato.model import Usage
from ostinato.retrieval import EmbeddingResponse, HttpxEmbeddingModel
from ostinato_openai._errors import read_error as read_openai_error

__all__ = ["DEFAULT_EMBEDDING_MODEL", "OpenAIEmbeddingModel"]

#: The model asked for unless told otherwise.
DEFAULT_EMBEDDING_MODEL: Final = "text-embedding-3-small"


class OpenAIEmbeddingModel(HttpxEmbeddingModel):
    """Vectors from an OpenAI-compatible ``/embeddings`` endpoint.

    Args:
        model: the embedding model (default :data:`DEFAULT_EMBEDDING_MODEL`).
        send_dimensions: send ``dimensions`` (when set) in the body; OpenAI's v3 models
            shorten their vectors to it, some imitators refuse the field.
        **arguments: as :class:`~ostinato.retrieval.HttpxEmbeddingModel` (``base_url``
            defaults to OpenAI's, ``api_key``, ``dimensions``, ``batch_size``...).
    """

    provider = "openai"
    path = "/embeddings"
    default_base_url = "https://api.openai.com/v1"
    env_prefix = "OSTINATO_OPENAI_"
    read_error = staticmethod(read_openai_error)

    def __init__(
        self,
        *,
        model: str = DEFAULT_EMBEDDING_MODEL,
        send_dimensions: bool = True,
        **arguments: Any,
    ) -> None:
        super().__init__(model=model, **arguments)
        self._send_dimensions = send_dimensions

    def request_body(self, texts: Sequence[str]) -> dict[str, Any]:
        """``{"model", "input", "encoding_format": "float"[, "dimensions"]}``."""
        body: dict[str, Any] = {
            "model": self._model,
            "input": list(texts),
            "encoding_format": "float",
        }
        if self._send_dimensions and self._dimensions is not None:
            body["dimensions"] = self._dimensions
        return body

    def parse_reply(self, payload: Any, count: int) -> EmbeddingResponse:
        """The vectors of ``data`` (ordered by ``index``) and ``usage``."""
        data = payload.get("data") if isinstance(payload, Mapping) else None
        if not isinstance(data, list):
            raise self._malformed("the reply holds no 'data' list of embeddings")
        if len(data) != count:
            raise self._malformed(f"the reply holds {len(data)} vector(s) for {count} text(s)")
        items = sorted(
            data, key=lambda item: item.get("index", 0) if isinstance(item, Mapping) else 0
        )
        vectors = tuple(
            self._vector(item.get("embedding") if isinstance(item, Mapping) else None, i)
            for i, item in enumerate(items)
        )
        usage = payload.get("usage") or {}
        tokens = usage.get("prompt_tokens") if isinstance(usage, Mapping) else None
        return EmbeddingResponse(
            vectors,
            str(payload.get("model") or self._model),
            Usage(prompt_tokens=tokens if isinstance(tokens, int) else 0, native_usage=usage),
        )
