"""``OllamaEmbeddingModel``: an :class:`~ostinato.retrieval.EmbeddingModel` on Ollama's
``POST /api/embed``.

The connection is :class:`~ostinato.retrieval.HttpxEmbeddingModel`'s and reads errors as
the chat model does; this module writes the body (``model``, ``input``, ``truncate``,
``dimensions`` when set, ``keep_alive`` when set) and reads ``embeddings`` and
``prompt_eval_count``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ostinato.model import Usage
from ostinato.retrieval import EmbeddingResponse, HttpxEmbeddingModel
from ostinato_ollama._errors import read_error as read_ollama_error
from ostinato_ollama._settings import DEFAULT_BASE_URL

__all__ = ["DEFAULT_EMBEDDING_MODEL", "OllamaEmbeddingModel"]

#: The model asked for unless told otherwise.
DEFAULT_EMBEDDING_MODEL: Final = "nomic-embed-text"


class OllamaEmbeddingModel(HttpxEmbeddingModel):
    """Vectors from an Ollama server.

    Args:
        model: the embedding model (default :data:`DEFAULT_EMBEDDING_MODEL`).
        truncate: cut texts longer than the model's context (Ollama's default) instead
            of failing.
        keep_alive: how long Ollama keeps the model loaded (``"5m"``), when set.
        **arguments: as :class:`~ostinato.retrieval.HttpxEmbeddingModel` (``base_url``
            defaults to ``http://localhost:11434``).
    """

    provider = "ollama"
    path = "/api/embed"
    default_base_url = DEFAULT_BASE_URL
    env_prefix = "OSTINATO_OLLAMA_"
    read_error = staticmethod(read_ollama_error)

    def __init__(
        self,
        *,
        model: str = DEFAULT_EMBEDDING_MODEL,
        truncate: bool = True,
        keep_alive: str | None = None,
        **arguments: Any,
    ) -> None:
        super().__init__(model=model, **arguments)
        self._truncate = truncate
        self._keep_alive = keep_alive

    def _auth_headers(self, api_key: str) -> dict[str, str]:
        return {"authorization": f"Bearer {api_key}"}

    def request_body(self, texts: Sequence[str]) -> dict[str, Any]:
        """``{"model", "input", "truncate"[, "dimensions"][, "keep_alive"]}``."""
        body: dict[str, Any] = {
            "model": self._model,
            "input": list(texts),
            "truncate": self._truncate,
        }
        if self._dimensions is not None:
            body["dimensions"] = self._dimensions
        if self._keep_alive is not None:
            body["keep_alive"] = self._keep_alive
        return body

    def parse_reply(self, payload: Any, count: int) -> EmbeddingResponse:
        """The vectors of ``embeddings`` and ``prompt_eval_count``."""
        data = payload.get("embeddings") if isinstance(payload, Mapping) else None
        if not isinstance(data, list):
            raise self._malformed("the reply holds no 'embeddings' list")
        if len(data) != count:
            raise self._malformed(f"the reply holds {len(data)} vector(s) for {count} text(s)")
        tokens = payload.get("prompt_eval_count")
        return EmbeddingResponse(
            tuple(self._vector(v, i) for i, v in enumerate(data)),
            str(payload.get("model") or self._model),
            Usage(prompt_tokens=tokens if isinstance(tokens, int) else 0),
        )
